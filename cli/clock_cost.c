/*
 * Read-cost measurement for `latlab clock`. Deltas go into a latlab
 * histogram with 3 significant digits: read costs are a few hundred
 * cycles at most, where its buckets are exact, so nothing is lost.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock_cost.h"
#include "latlab/hist.h"

#if defined(__x86_64__) || defined(__i386__)
#define COST_X86 1
#else
#define COST_X86 0
#endif

static const char *const cost_key[CLOCK_COST_KINDS] = {
	"raw", "start", "end", "rdtscp", "monotonic", "monotonic_raw",
};

static const char *const cost_how[CLOCK_COST_KINDS] = {
#if COST_X86
	"rdtsc", "lfence;rdtsc", "lfence;rdtsc;lfence", "rdtscp",
#else
	"mrs cntvct_el0", "isb;mrs cntvct_el0", "isb;mrs cntvct_el0;isb",
	"rdtscp (x86 only)",
#endif
	"clock_gettime(MONOTONIC)", "clock_gettime(MONOTONIC_RAW)",
};

#if COST_X86
static inline uint64_t read_rdtscp(void)
{
	uint32_t lo, hi, aux;

	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	(void)aux;
	return ((uint64_t)hi << 32) | lo;
}
#endif

static sigjmp_buf probe_env;

static void on_probe_fault(int sig)
{
	siglongjmp(probe_env, sig);
}

bool clock_cost_rdtscp_works(void)
{
#if COST_X86
	struct sigaction sa, old_ill, old_segv;
	volatile bool works = false;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_probe_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, &old_ill);
	/* CR4.TSD makes it fault with #GP, which arrives as SIGSEGV. */
	sigaction(SIGSEGV, &sa, &old_segv);
	if (sigsetjmp(probe_env, 1) == 0) {
		(void)read_rdtscp();
		works = true;
	}
	sigaction(SIGILL, &old_ill, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return works;
#else
	return false;
#endif
}

static inline int64_t gettime_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * One loop per kind with the read inlined, so each pair is exactly two
 * reads and a store, the same frame for every kind.
 */
#define PAIR_LOOP(name, type, READ)                                     \
	static void name(int64_t *d, uint64_t n)                        \
	{                                                               \
		for (uint64_t i = 0; i < n; i++) {                      \
			type a = READ;                                  \
			type b = READ;                                  \
			d[i] = (int64_t)(b - a);                        \
		}                                                       \
	}

PAIR_LOOP(pairs_raw, uint64_t, lat_clock_now())
PAIR_LOOP(pairs_start, uint64_t, lat_clock_start())
PAIR_LOOP(pairs_end, uint64_t, lat_clock_end())
#if COST_X86
PAIR_LOOP(pairs_rdtscp, uint64_t, read_rdtscp())
#endif
PAIR_LOOP(pairs_monotonic, int64_t, gettime_ns(CLOCK_MONOTONIC))
PAIR_LOOP(pairs_monotonic_raw, int64_t, gettime_ns(CLOCK_MONOTONIC_RAW))

void clock_cost_measure(enum clock_cost_kind kind, bool rdtscp_works,
			const struct lat_clock_cal *cal, int64_t *scratch,
			uint64_t pairs, struct clock_cost *out)
{
	uint64_t kept = 0;
	struct lat_hist h;
	bool in_cycles = kind <= CLOCK_COST_RDTSCP;
	double scale = in_cycles ? 1.0 / cal->cycles_per_ns : 1.0;

	memset(out, 0, sizeof(*out));
	out->key = cost_key[kind];
	out->how = cost_how[kind];
	out->available = kind != CLOCK_COST_RDTSCP || rdtscp_works;
	if (!out->available)
		return;
	switch (kind) {
	case CLOCK_COST_RAW: pairs_raw(scratch, pairs); break;
	case CLOCK_COST_START: pairs_start(scratch, pairs); break;
	case CLOCK_COST_END: pairs_end(scratch, pairs); break;
#if COST_X86
	case CLOCK_COST_RDTSCP: pairs_rdtscp(scratch, pairs); break;
#endif
	case CLOCK_COST_MONOTONIC: pairs_monotonic(scratch, pairs); break;
	default: pairs_monotonic_raw(scratch, pairs); break;
	}
	/* Backwards pairs (a migration to a CPU whose counter lags) say
	 * nothing about cost; count them and keep the rest. */
	for (uint64_t i = 0; i < pairs; i++)
		if (scratch[i] >= 0)
			scratch[kept++] = scratch[i];
	out->pairs = pairs;
	out->backwards = pairs - kept;
	if (kept == 0) {
		/* shown as n/a, JSON null */
		out->p50_ns = out->p99_ns = NAN;
		return;
	}
	/* Up to 2^40 units covers any stall a pair can straddle. */
	if (lat_hist_init(&h, 1, (int64_t)1 << 40, 3) != 0) {
		out->p50_ns = out->p99_ns = NAN;
		return;
	}
	for (uint64_t i = 0; i < kept; i++)
		lat_hist_record(&h, scratch[i]);
	out->p50_raw = lat_hist_value_at_percentile(&h, 50);
	out->p50_ns = (double)out->p50_raw * scale;
	out->p99_ns = (double)lat_hist_value_at_percentile(&h, 99) * scale;
	lat_hist_destroy(&h);
}
