/*
 * lat_clock: the cycle clock (TSC on x86_64, CNTVCT_EL0 on aarch64), its
 * calibration against CLOCK_MONOTONIC_RAW and conversion to nanoseconds.
 *
 * Invariants:
 *  - Raw times are lat_cycles_t until a person needs them; lat_ns_t holds
 *    nanoseconds. The two are never mixed without lat_clock_to_ns().
 *  - The reads below are inline, allocation-free and syscall-free.
 *  - Conversion is a 64x64->128 multiply and a shift: no division on the
 *    hot path. mult/shift are chosen so that the error stays under 1 ppm of
 *    the calibrated ratio for intervals of at least one hour.
 */
#ifndef LATLAB_CLOCK_H
#define LATLAB_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "latlab/common.h"

/* pedantic C11 has no 128-bit type; GCC and clang do. */
__extension__ typedef unsigned __int128 lat_u128;

typedef uint64_t lat_cycles_t;
typedef uint64_t lat_ns_t;

/*
 * Raw, unordered read: the CPU may execute it before earlier instructions
 * finish or after later ones start. Cheapest; use for coarse pacing.
 */
LAT_INLINE lat_cycles_t lat_clock_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
#error "lat_clock: unsupported architecture"
#endif
}

/*
 * Start-of-region read: waits until all earlier instructions have completed
 * locally (lfence / isb) before reading, so work before the stamp is not
 * counted inside the region.
 */
LAT_INLINE lat_cycles_t lat_clock_start(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
#endif
}

/*
 * End-of-region read: the read waits for the region's instructions to
 * complete (leading lfence / isb), and the trailing fence keeps later
 * instructions from starting before the read. lfence;rdtsc;lfence is used
 * rather than rdtscp because rdtscp is not reliably advertised (CPUID on
 * some hypervisors hides it while it still executes) and its ordering is
 * the same: it only waits for earlier instructions, which lfence does too.
 */
LAT_INLINE lat_cycles_t lat_clock_end(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence"
			     : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb"
			     : "=r"(v)::"memory");
	return v;
#endif
}

/* Calibration result: everything needed to turn cycles into ns. */
struct lat_clock_cal {
	double cycles_per_ns;  /* fitted slope, for display and reports */
	uint64_t mult;         /* ns = (cycles * mult) >> shift */
	unsigned shift;
	double spread_ppm;     /* spread of the windows that made the fit */
	int windows;           /* windows used */
	bool from_hardware;    /* frequency read from hardware, not fitted */
};

/*
 * Cycles to nanoseconds with the calibration in @cal. Inline, no division.
 * Exact to within rounding of mult/shift; valid for any 64-bit count
 * whose product fits in 128 bits (always).
 */
LAT_INLINE lat_ns_t lat_clock_to_ns(const struct lat_clock_cal *cal,
				    lat_cycles_t cycles)
{
	return (lat_ns_t)(((lat_u128)cycles * cal->mult) >> cal->shift);
}

/*
 * Fill @cal->mult and @cal->shift from @cycles_per_ns (> 0). Returns 0 or
 * -EINVAL for a ratio that is not finite and positive.
 */
int lat_clock_cal_from_ratio(struct lat_clock_cal *cal, double cycles_per_ns);

/*
 * Calibrate against CLOCK_MONOTONIC_RAW over about @window_ms milliseconds
 * in total, split into several short windows so that a preemption spoils
 * one window, not the result. Returns 0, or -EINVAL for window_ms == 0.
 * Blocks for the window; not for hot paths. Thread-safe.
 */
int lat_clock_calibrate(struct lat_clock_cal *cal, unsigned window_ms);

/* What the machine says about the cycle counter. */
struct lat_clock_info {
	bool invariant_cpuid;      /* CPUID 0x80000007 EDX[8] (x86 only) */
	bool constant_tsc;         /* /proc/cpuinfo flag */
	bool nonstop_tsc;          /* /proc/cpuinfo flag */
	bool rdtscp_cpuid;         /* advertised by CPUID */
	bool invariant;            /* the verdict */
	char clocksource[32];      /* current kernel clocksource, or "unknown" */
	char source[32];           /* "tsc", "cntvct_el0" */
	double hw_hz;              /* known frequency (cntfrq_el0), 0 if none */
};

/*
 * Fill @info from CPUID, /proc/cpuinfo and sysfs. Returns 0; missing files
 * leave fields false/"unknown" rather than failing.
 */
int lat_clock_info(struct lat_clock_info *info);

#endif
