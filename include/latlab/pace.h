/*
 * lat_pace: open-loop schedules. The intended send time of every event is
 * fixed by the schedule alone, never by how long earlier events took: a
 * sender that falls behind sends late (and its lateness is measured from
 * the intended time), it does not quietly stretch the schedule. That is
 * what keeps coordinated omission out of the numbers.
 *
 * Invariants:
 *  - Times are lat_cycles_t on the lat_clock counter: start + offset.
 *  - The offset of event n is kept as a 64.64 fixed-point number and
 *    advanced by exact integer additions, so the schedule never drifts:
 *    for the fixed schedule offset(n) is exactly n * interval_fp (the
 *    interval rounded once to 2^-64 cycles), i.e. within one cycle of
 *    n * interval for n < 2^64; sequential next() and random-access
 *    lat_pace_fixed_due() give identical answers.
 *  - Poisson gaps are exponential doubles with mean = interval, added
 *    exactly (a double gap >= 2^-11 cycles is representable in 64.64),
 *    so the schedule is the exact running sum of its gaps.
 *  - Reproducible: the same kind, rate, calibration, start and seed give
 *    the same schedule on every run and machine with the same libm.
 *  - Hot path (due, next, advance, wait) is inline, allocation-free and
 *    syscall-free; Poisson calls log() from libm. One struct per thread:
 *    not thread-safe, no locks.
 */
#ifndef LATLAB_PACE_H
#define LATLAB_PACE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "latlab/clock.h"
#include "latlab/common.h"

enum lat_pace_kind {
	LAT_PACE_FIXED,   /* one event every interval */
	LAT_PACE_POISSON, /* exponential gaps, mean interval */
	LAT_PACE_BURSTY,  /* bursts of @burst events due at the same time,
			   * one burst every burst * interval */
};

/* Accepted intervals: up to 2^52 cycles (~20 days at 2.6 GHz). */
#define LAT_PACE_MAX_INTERVAL_CYCLES 4503599627370496.0

struct lat_pace {
	enum lat_pace_kind kind;
	lat_cycles_t start;     /* due time of event 0 */
	uint64_t seq;           /* sequence number of the next event */
	uint64_t off_int;       /* offset of event seq: integer cycles */
	uint64_t off_frac;      /*   and fraction, in 2^-64 cycles */
	uint64_t step_int;      /* fixed: interval; bursty: burst period */
	uint64_t step_frac;
	uint32_t burst;         /* events per burst (1 unless bursty) */
	uint32_t burst_left;    /* events still due at the current offset */
	double interval_cycles; /* mean gap, cycles */
	double rate_per_s;      /* mean rate asked for */
	uint64_t rng;           /* splitmix64 state (Poisson) */
};

/*
 * Initialise @p: mean @rate_per_s events per second (> 0) converted with
 * @cal, event 0 due at @start, Poisson gaps drawn from @seed. @burst is
 * the burst size for LAT_PACE_BURSTY (>= 1, <= 2^31) and must be 1 or 0
 * otherwise. Returns 0, or -EINVAL for an unknown kind, a rate that is
 * not finite and positive, a mean interval over
 * LAT_PACE_MAX_INTERVAL_CYCLES, a burst period over 2^62 cycles, a bad
 * @burst or a zeroed @cal (then @p is unchanged).
 * No allocation; not a hot-path call (converts doubles).
 */
int lat_pace_init(struct lat_pace *p, enum lat_pace_kind kind,
		  double rate_per_s, uint32_t burst,
		  const struct lat_clock_cal *cal, lat_cycles_t start,
		  uint64_t seed);

/* Name of @kind ("fixed", "poisson", "bursty"), or "unknown". */
const char *lat_pace_kind_name(enum lat_pace_kind kind);

/* Intended send time of event p->seq (the next one). */
LAT_INLINE lat_cycles_t lat_pace_due(const struct lat_pace *p)
{
	return p->start + p->off_int;
}

/* 64.64 addition: exact, the carry moves the fraction into cycles. */
LAT_INLINE void lat_pace_add_(struct lat_pace *p, uint64_t i, uint64_t f)
{
	uint64_t frac = p->off_frac + f;

	p->off_int += i + (frac < f);
	p->off_frac = frac;
}

/*
 * splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, passes BigCrush,
 * and any seed (0 included) is a good one.
 */
LAT_INLINE uint64_t lat_pace_rng_(struct lat_pace *p)
{
	uint64_t z = (p->rng += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/*
 * An exponential gap with mean p->interval_cycles: -ln(U) with U uniform
 * on (0, 1] in steps of 2^-53, so the log is finite (gap <= 36.8 means).
 */
LAT_INLINE double lat_pace_exp_gap_(struct lat_pace *p)
{
	double u = (double)((lat_pace_rng_(p) >> 11) + 1) * 0x1p-53;

	return -log(u) * p->interval_cycles;
}

/* Move to the next event. */
LAT_INLINE void lat_pace_advance(struct lat_pace *p)
{
	p->seq++;
	switch (p->kind) {
	case LAT_PACE_POISSON: {
		double gap = lat_pace_exp_gap_(p);
		double whole = floor(gap);

		lat_pace_add_(p, (uint64_t)whole,
			      (uint64_t)ldexp(gap - whole, 64));
		break;
	}
	case LAT_PACE_BURSTY:
		if (--p->burst_left)
			break;
		p->burst_left = p->burst;
		lat_pace_add_(p, p->step_int, p->step_frac);
		break;
	default:
		lat_pace_add_(p, p->step_int, p->step_frac);
		break;
	}
}

/* Intended send time of the next event, then advance past it. */
LAT_INLINE lat_cycles_t lat_pace_next(struct lat_pace *p)
{
	lat_cycles_t due = lat_pace_due(p);

	lat_pace_advance(p);
	return due;
}

/* A spin-loop hint: lets the sibling hyperthread run, saves power. */
LAT_INLINE void lat_pace_relax_(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/*
 * Spin until the next event is due and return the counter value at
 * release (>= lat_pace_due(p)); does not advance. A late caller returns
 * at once: release - due is the pacing lateness, to be recorded, never
 * to be hidden by shifting the schedule. Spins (pause/yield): for gaps of
 * many microseconds on a shared CPU sleep first, then call this.
 */
LAT_INLINE lat_cycles_t lat_pace_wait(const struct lat_pace *p)
{
	lat_cycles_t due = lat_pace_due(p), now;

	while ((int64_t)((now = lat_clock_now()) - due) < 0)
		lat_pace_relax_();
	return now;
}

/*
 * Due time of any event @n of a fixed or bursty schedule without walking
 * to it: equal to what next() returns for that event. A division by
 * the burst size and a 64x64->128 multiply: cheap, but for a sender the
 * sequential next() is cheaper. Returns 0 for a Poisson schedule (which
 * has no closed form).
 */
LAT_INLINE lat_cycles_t lat_pace_fixed_due(const struct lat_pace *p,
					   uint64_t n)
{
	lat_u128 frac;

	if (p->kind == LAT_PACE_POISSON)
		return 0;
	n /= p->burst; /* bursts are the steps; burst is 1 when fixed */
	frac = (lat_u128)n * p->step_frac;
	return p->start + n * p->step_int + (uint64_t)(frac >> 64);
}

#endif
