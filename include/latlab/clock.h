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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
 * End-of-region read: lfence;rdtsc;lfence (isb;mrs;isb on aarch64).
 *
 * Why this and not rdtscp: the ordering is the same. rdtscp waits for
 * earlier instructions to finish, exactly like the leading lfence, and like
 * rdtsc it does NOT stop later instructions from starting before it reads,
 * so Intel's own recipe is "rdtscp; lfence" anyway. What rdtscp adds is
 * TSC_AUX in ecx (the CPU number), which in a VM is the host's CPU, not
 * ours, and a CPUID dependency: some hypervisors hide rdtscp in CPUID while
 * the instruction still executes, so code that uses it either trusts an
 * unadvertised instruction or needs a fallback path. lfence exists on every
 * x86_64 (SSE2) and is dispatch-serializing on Intel and on AMD under
 * Linux (the kernel sets the MSR bit; Zen 2 and later always are), so
 * lfence;rdtsc;lfence is correct everywhere with one code path. The
 * leading fence keeps the region's instructions out of the stamp's past;
 * the trailing fence keeps later instructions (e.g. the store of the stamp
 * and the next region) from starting before the read. `latlab clock`
 * measures both costs side by side.
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

/*
 * Calibration result: everything needed to turn cycles into ns and back.
 * Filled by lat_clock_cal_from_ratio() or lat_clock_calibrate(); plain
 * data, copy it freely and share it read-only between threads.
 */
struct lat_clock_cal {
	double cycles_per_ns;  /* the ratio, for display and reports */
	uint64_t mult;         /* ns = (cycles * mult) >> shift */
	unsigned shift;
	uint64_t to_cycles_mult;  /* cycles = (ns * to_cycles_mult) >> */
	unsigned to_cycles_shift; /*          to_cycles_shift          */
	double spread_ppm;     /* max - min of the window slopes, in ppm */
	int windows;           /* windows that made the fit (0: not fitted) */
	bool from_hardware;    /* frequency read from hardware, not fitted */
};

/*
 * Cycles to nanoseconds with the calibration in @cal. Inline, no division,
 * no allocation. Truncates: for ratios exactly representable as a double
 * (1.0, 2.0, 3.0, ...) a cycle count whose true value is a whole number
 * of ns converts exactly; otherwise the result is floor or ceil of
 * cycles / cycles_per_ns (error < 1 ns) for any interval shorter than
 * 2^62 ns (146 years). Returns 0 for a zeroed @cal.
 */
LAT_INLINE lat_ns_t lat_clock_to_ns(const struct lat_clock_cal *cal,
				    lat_cycles_t cycles)
{
	return (lat_ns_t)(((lat_u128)cycles * cal->mult) >> cal->shift);
}

/*
 * Nanoseconds to cycles: floor(ns * cycles_per_ns), exact to within one
 * cycle (the multiplier is the ratio's full 53-bit mantissa). Inline, no
 * division; for pacers and deadlines. Results beyond 2^64 wrap, which no
 * interval below 190 years reaches at <= 3 GHz.
 */
LAT_INLINE lat_cycles_t lat_clock_from_ns(const struct lat_clock_cal *cal,
					  lat_ns_t ns)
{
	return (lat_cycles_t)(((lat_u128)ns * cal->to_cycles_mult) >>
			      cal->to_cycles_shift);
}

/* Accepted ratios: 1 kHz to 1 THz counters. */
#define LAT_CLOCK_MIN_CYCLES_PER_NS 1e-6
#define LAT_CLOCK_MAX_CYCLES_PER_NS 1e3

/*
 * Fill @cal's multipliers from @cycles_per_ns in
 * [LAT_CLOCK_MIN_CYCLES_PER_NS, LAT_CLOCK_MAX_CYCLES_PER_NS], keeping 62 to
 * 63 significant bits so the conversion error is ~1e-18 relative (far
 * below the 1 ppm the design asks for) plus the final truncation.
 * Sets cycles_per_ns; leaves spread_ppm, windows and from_hardware alone.
 * Returns 0, or -EINVAL for a ratio out of range or not finite (then @cal
 * is unchanged). Uses one 128-bit division; not for hot paths.
 */
int lat_clock_cal_from_ratio(struct lat_clock_cal *cal, double cycles_per_ns);

/*
 * The calibration to use on this machine: on aarch64 the counter frequency
 * from cntfrq_el0 (from_hardware = true, returns at once); elsewhere
 * lat_clock_calibrate_fit(). Returns 0, -EINVAL for window_ms == 0 or
 * > 60000, or -LAT_EUNSUPP if no usable ratio was measured. Blocks for
 * about @window_ms; not for hot paths. Thread-safe, no allocation.
 */
int lat_clock_calibrate(struct lat_clock_cal *cal, unsigned window_ms);

/*
 * Measure the ratio against CLOCK_MONOTONIC_RAW over about @window_ms in
 * total, on any architecture (sleeping, not spinning, between points).
 *
 * Robust to preemption: the window is cut into several short windows;
 * each boundary is the tightest of several (cycle read, clock_gettime,
 * cycle read) brackets, so a preemption inside one bracket is discarded,
 * and one during the sleep costs nothing (both clocks keep running).
 * Points far off the median-slope line are dropped; the ratio is the
 * least-squares fit of the rest. spread_ppm is max - min of the kept
 * windows' slopes relative to the fit: bracket noise (~tens of ns) over a
 * short window, so expect a few ppm for 20 ms windows; a large spread
 * means the counter is not steady. Same returns as lat_clock_calibrate().
 */
int lat_clock_calibrate_fit(struct lat_clock_cal *cal, unsigned window_ms);

/*
 * One bracketed reading of both clocks: the tightest of @tries
 * (fenced read, clock_gettime(CLOCK_MONOTONIC_RAW), fenced read).
 * @cycles is the bracket's midpoint, @width its length in cycles.
 * Used by calibration and by drift measurements. tries >= 1.
 */
struct lat_clock_pair {
	lat_cycles_t cycles;
	int64_t raw_ns;
	lat_cycles_t width;
};
void lat_clock_pair_read(struct lat_clock_pair *p, unsigned tries);

/* What the machine says about the cycle counter. */
struct lat_clock_info {
	bool invariant_cpuid;      /* CPUID 0x80000007 EDX[8] (x86 only) */
	bool constant_tsc;         /* /proc/cpuinfo flag */
	bool nonstop_tsc;          /* /proc/cpuinfo flag */
	bool tsc_reliable;         /* /proc/cpuinfo flag (hypervisor's word) */
	bool tsc_known_freq;       /* /proc/cpuinfo flag */
	bool rdtscp_cpuid;         /* advertised by CPUID 0x80000001 EDX[27] */
	bool rdtscp_cpuinfo;       /* 'rdtscp' in /proc/cpuinfo flags */
	bool invariant;            /* the verdict */
	bool kernel_uses_counter;  /* clocksource is tsc / arch_sys_counter */
	char clocksource[32];      /* kernel clocksource, or "unknown" */
	char source[32];           /* "tsc", "cntvct_el0" */
	double hw_hz;              /* known frequency (cntfrq_el0), 0 if none */
};

/*
 * Fill @info from CPUID (x86), system registers (aarch64), /proc/cpuinfo
 * and sysfs. The verdict: x86 is invariant when CPUID says so or the
 * kernel reports both constant_tsc and nonstop_tsc; the aarch64 generic
 * timer is invariant by architecture. Returns 0; missing files leave
 * fields false/"unknown" rather than failing. Not for hot paths.
 */
int lat_clock_info(struct lat_clock_info *info);

/*
 * lat_clock_info() with the files read under @root (NULL or "": the real
 * /proc and /sys), for tests that model another machine; CPUID and the
 * system registers are always this machine's.
 */
int lat_clock_info_at(struct lat_clock_info *info, const char *root);

/* ------------------------------------------------------------------ */
/* Checking the clock: repeat calibrations, drift, the cost of a read  */
/* (what `latlab clock` shows; none of it is for a hot path)           */
/* ------------------------------------------------------------------ */

/* Calibrations within this many ppm of each other: a steady ratio. */
#define LAT_CLOCK_STABLE_PPM 100.0
#define LAT_CLOCK_MAX_REPEATS 16

/* @n fitted calibrations and how well they agree. */
struct lat_clock_repeat {
	int n;
	struct lat_clock_cal cal[LAT_CLOCK_MAX_REPEATS];
	double median_cycles_per_ns;
	double spread_ppm;        /* (max - min) / median of the n ratios */
	bool stable;              /* spread_ppm <= LAT_CLOCK_STABLE_PPM */
	struct lat_clock_cal use; /* what to convert with: the hardware's
				   * frequency when it states one, else the
				   * median */
};

/*
 * Run lat_clock_calibrate_fit @n times (1..LAT_CLOCK_MAX_REPEATS) with
 * @window_ms each. Returns 0, -EINVAL, or lat_clock_calibrate_fit's
 * codes. Blocks for about n * window_ms.
 */
int lat_clock_calibrate_repeat(struct lat_clock_repeat *r, int n,
			       unsigned window_ms);

/* How far the calibrated counter and CLOCK_MONOTONIC_RAW move apart. */
struct lat_clock_drift {
	double seconds;           /* the interval, by MONOTONIC_RAW */
	double ppm;               /* counter minus MONOTONIC_RAW, ppm */
	double uncertainty_ppm;   /* the endpoints' bracket widths over the
				   * interval: how well the two are known */
};

/*
 * Read both clocks (lat_clock_pair_read), sleep @seconds (0.001..3600),
 * read again, convert the counter with @cal. Returns 0 or -EINVAL. A
 * signal handled by the caller ends the sleep early; out->seconds is the
 * interval actually measured.
 */
int lat_clock_drift(const struct lat_clock_cal *cal, double seconds,
		    struct lat_clock_drift *out);

/* The kinds of read whose cost lat_clock_read_costs measures. */
enum lat_clock_read {
	LAT_CLOCK_READ_RAW,       /* lat_clock_now: rdtsc / mrs cntvct_el0 */
	LAT_CLOCK_READ_START,     /* lat_clock_start: lfence;rdtsc / isb;mrs */
	LAT_CLOCK_READ_END,       /* lat_clock_end: lfence;rdtsc;lfence */
	LAT_CLOCK_READ_RDTSCP,    /* rdtscp (x86, when it executes) */
	LAT_CLOCK_READ_MONOTONIC, /* clock_gettime(CLOCK_MONOTONIC) */
	LAT_CLOCK_READ_MONOTONIC_RAW,
	LAT_CLOCK_READ_KINDS
};

/*
 * The cost of one read: the delta of back-to-back pairs, which is what
 * one stamp adds to a measured region.
 */
struct lat_clock_cost {
	const char *key;          /* "raw", "start", ... (JSON keys) */
	const char *how;          /* the instruction(s) or call */
	bool available;           /* false: rdtscp does not execute here */
	bool in_cycles;           /* p50_raw is in cycles (else ns) */
	uint64_t pairs;           /* pairs measured (0 when unavailable) */
	uint64_t backwards;       /* pairs whose second read was earlier (a
				   * migration): counted, left out */
	double p50_ns, p99_ns;    /* NAN when no pair was kept */
	int64_t p50_raw;          /* p50 in the read's own unit */
};

/*
 * Whether rdtscp executes here, found by running it once under temporary
 * SIGILL/SIGSEGV handlers (CPUID is not to be trusted for it in VMs; a
 * CR4.TSD fault arrives as SIGSEGV). The previous handlers are restored;
 * call it before other threads install handlers. Always false off x86.
 */
bool lat_clock_rdtscp_works(void);

/*
 * Measure @pairs (1000..5*10^7) back-to-back pairs of every kind of read
 * into @out[LAT_CLOCK_READ_KINDS], converting cycles with @cal; the
 * scratch buffer (8 bytes a pair) is allocated and touched before any
 * pair is timed, so no page fault lands inside one. p50/p99 are exact
 * nearest-rank percentiles. Returns 0, -EINVAL or -ENOMEM.
 */
int lat_clock_read_costs(const struct lat_clock_cal *cal, uint64_t pairs,
			 struct lat_clock_cost *out);

/* ------------------------------------------------------------------ */
/* The whole check, as data and printers (what `latlab clock` prints)  */
/* ------------------------------------------------------------------ */

/* Calibrations the report makes (and shows). */
#define LAT_CLOCK_REPORT_CALS 3

/* What the report warns about, in the order it says it. */
enum lat_clock_warn {
	LAT_CLOCK_WARN_NOT_INVARIANT = 1, /* cycles are not time here */
	LAT_CLOCK_WARN_UNSTABLE = 2,      /* calibrations > 100 ppm apart */
	LAT_CLOCK_WARN_DRIFT_SHORT = 4,   /* stopped before drift_asked_s */
	LAT_CLOCK_WARN_BACKWARDS = 8,     /* some read pairs went backwards */
	LAT_CLOCK_WARN_LAST = LAT_CLOCK_WARN_BACKWARDS
};

struct lat_clock_report {
	struct lat_clock_info info;
	long cpus;                 /* online */
	bool rdtscp_works;         /* lat_clock_rdtscp_works() */
	unsigned calib_ms;         /* each calibration's length */
	struct lat_clock_repeat cal;
	double drift_asked_s;
	struct lat_clock_drift drift;
	uint64_t pairs;            /* read pairs asked per kind (1000 were
				    * measured if the run was stopped) */
	struct lat_clock_cost costs[LAT_CLOCK_READ_KINDS];
	unsigned warnings;         /* enum lat_clock_warn bits */
};

/*
 * The first half: clear @r, read lat_clock_info, the CPUs and whether
 * rdtscp executes, and calibrate LAT_CLOCK_REPORT_CALS times @calib_ms
 * each (lat_clock_calibrate_repeat's codes).
 */
int lat_clock_report_calibrate(struct lat_clock_report *r, unsigned calib_ms);

/*
 * The second half, with the calibration's ratio: the drift over
 * @drift_s, then the cost of @pairs read pairs of each kind. A signal
 * the caller handles ends the drift's sleep early; when @stop (may be
 * NULL) then says so, the report warns that the interval was short and
 * measures only 1000 pairs. Returns 0, -EINVAL or -ENOMEM.
 */
int lat_clock_report_measure(struct lat_clock_report *r, double drift_s,
			     uint64_t pairs, bool (*stop)(void *ctx),
			     void *ctx);

/* The sentence for warning @w of @r (@buf holds it when it has numbers). */
const char *lat_clock_warning_text(const struct lat_clock_report *r,
				   enum lat_clock_warn w, char *buf,
				   size_t len);

/* One "<prefix>warning: <sentence>" line on @out per warning of @r. */
void lat_clock_warnings_print(FILE *out, const char *prefix,
			      const struct lat_clock_report *r);

/*
 * The report for people on @out, from "<source> counter on <arch>, <n>
 * CPUs": calibrations and their spread, drift, the cost of each read and
 * the finest interval a stamp resolves, invariance, the clocksource,
 * then "warning: ..." lines.
 */
void lat_clock_report_print(FILE *out, const struct lat_clock_report *r);

/*
 * The same facts as one JSON object into @j (the caller owns
 * lat_json_init / lat_json_finish): arch, source, cpus, calib_ms,
 * calibrations[], cycles_per_ns, calibration_spread_ppm/_stable, hw_hz
 * (null when the hardware states none), drift{}, read_cost{<key>:{...}},
 * invariant{}, clocksource, kernel_uses_counter, warnings[] (sentences).
 */
struct lat_json;
void lat_clock_report_json(struct lat_json *j,
			   const struct lat_clock_report *r);

/* The text (!@json) or one JSON document of @r on @out, flushed:
 * lat_json_or_text's 0, -EINVAL (unbalanced JSON) or -EIO. */
int lat_clock_report_write(FILE *out, bool json,
			   const struct lat_clock_report *r);

#endif
