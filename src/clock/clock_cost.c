/*
 * The cost of one clock read: back-to-back pairs of each kind, the delta
 * of each pair kept, exact nearest-rank p50/p99 of the sorted deltas.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latlab/clock.h"
#include "latlab/stats.h"

#if defined(__x86_64__) || defined(__i386__)
#define COST_X86 1
#else
#define COST_X86 0
#endif

static const char *const cost_key[LAT_CLOCK_READ_KINDS] = {
	"raw", "start", "end", "rdtscp", "monotonic", "monotonic_raw",
};

static const char *const cost_how[LAT_CLOCK_READ_KINDS] = {
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

static sigjmp_buf probe_env;

static void on_probe_fault(int sig)
{
	siglongjmp(probe_env, sig);
}
#endif

bool lat_clock_rdtscp_works(void)
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

static void measure(enum lat_clock_read kind, bool rdtscp_works,
		    const struct lat_clock_cal *cal, int64_t *scratch,
		    uint64_t pairs, struct lat_clock_cost *out)
{
	uint64_t kept = 0;

	memset(out, 0, sizeof(*out));
	out->key = cost_key[kind];
	out->how = cost_how[kind];
	out->in_cycles = kind <= LAT_CLOCK_READ_RDTSCP;
	out->available = kind != LAT_CLOCK_READ_RDTSCP || rdtscp_works;
	out->p50_ns = out->p99_ns = NAN;
	if (!out->available)
		return;
	switch (kind) {
	case LAT_CLOCK_READ_RAW: pairs_raw(scratch, pairs); break;
	case LAT_CLOCK_READ_START: pairs_start(scratch, pairs); break;
	case LAT_CLOCK_READ_END: pairs_end(scratch, pairs); break;
#if COST_X86
	case LAT_CLOCK_READ_RDTSCP: pairs_rdtscp(scratch, pairs); break;
#endif
	case LAT_CLOCK_READ_MONOTONIC: pairs_monotonic(scratch, pairs); break;
	default: pairs_monotonic_raw(scratch, pairs); break;
	}
	/* Backwards pairs (a migration to a CPU whose counter lags) say
	 * nothing about cost; count them and keep the rest. */
	for (uint64_t i = 0; i < pairs; i++)
		if (scratch[i] >= 0)
			scratch[kept++] = scratch[i];
	out->pairs = pairs;
	out->backwards = pairs - kept;
	if (kept == 0)
		return; /* shown as n/a, JSON null */
	qsort(scratch, kept, sizeof(*scratch), lat_cmp_i64);
	out->p50_raw = lat_rank_i64(scratch, kept, 50);
	out->p50_ns = (double)out->p50_raw /
		      (out->in_cycles ? cal->cycles_per_ns : 1.0);
	out->p99_ns = (double)lat_rank_i64(scratch, kept, 99) /
		      (out->in_cycles ? cal->cycles_per_ns : 1.0);
}

int lat_clock_read_costs(const struct lat_clock_cal *cal, uint64_t pairs,
			 struct lat_clock_cost *out)
{
	bool rdtscp = lat_clock_rdtscp_works();
	int64_t *scratch;

	if (!cal || !out || !(cal->cycles_per_ns > 0) || pairs < 1000 ||
	    pairs > 50000000)
		return -EINVAL;
	scratch = malloc(pairs * sizeof(*scratch));
	if (!scratch)
		return -ENOMEM;
	/* touch every page first so no page fault lands inside a pair */
	memset(scratch, 0, pairs * sizeof(*scratch));
	for (int k = 0; k < LAT_CLOCK_READ_KINDS; k++)
		measure((enum lat_clock_read)k, rdtscp, cal, scratch, pairs,
			&out[k]);
	free(scratch);
	return 0;
}
