/*
 * The cost of one clock read, for `latlab clock`: back-to-back pairs of
 * each kind of read, the delta of each pair recorded, p50/p99 reported.
 * The delta of two adjacent reads is what one stamp adds to a measured
 * region, which is the number a person instrumenting code needs.
 */
#ifndef LATLAB_CLOCK_COST_H
#define LATLAB_CLOCK_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/clock.h"

enum clock_cost_kind {
	CLOCK_COST_RAW,       /* lat_clock_now: rdtsc / mrs cntvct_el0 */
	CLOCK_COST_START,     /* lat_clock_start: lfence;rdtsc / isb;mrs */
	CLOCK_COST_END,       /* lat_clock_end: lfence;rdtsc;lfence */
	CLOCK_COST_RDTSCP,    /* rdtscp (x86, when it executes) */
	CLOCK_COST_MONOTONIC, /* clock_gettime(CLOCK_MONOTONIC) */
	CLOCK_COST_MONOTONIC_RAW,
	CLOCK_COST_KINDS
};

struct clock_cost {
	const char *key;      /* JSON key: "raw", "start", ... */
	const char *how;      /* the instruction(s) or call, for people */
	bool available;
	uint64_t pairs;       /* pairs measured (0 when unavailable) */
	uint64_t backwards;   /* pairs whose second read was earlier */
	double p50_ns, p99_ns;
	int64_t p50_raw;      /* p50 in the read's own unit (cycles or ns) */
};

/*
 * Whether rdtscp executes here, found by running it once under a
 * SIGILL/SIGSEGV handler (CPUID is not to be trusted for it in VMs).
 * Always false off x86.
 */
bool clock_cost_rdtscp_works(void);

/*
 * Measure @pairs back-to-back pairs of read @kind, using @scratch
 * (@pairs int64 slots, preallocated by the caller so that no allocation
 * happens while measuring). Cycle deltas are converted with @cal.
 * Backwards pairs are counted and left out of the percentiles.
 */
void clock_cost_measure(enum clock_cost_kind kind, bool rdtscp_works,
			const struct lat_clock_cal *cal, int64_t *scratch,
			uint64_t pairs, struct clock_cost *out);

#endif
