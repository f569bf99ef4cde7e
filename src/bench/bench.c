/*
 * lat_bench: statistics, placement, the paired-thread runner and the
 * cache-line ping-pong floors (one line, a line each way, 64 bytes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latlab/bench.h"
#include "latlab/wait.h"
#include "latlab/stats.h"

double lat_bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int lat_bench_stat_of(double *v, unsigned n, struct lat_bench_stat *out)
{
	if (!v || !out || n == 0)
		return -EINVAL;
	out->median = lat_median_sort(v, n);
	out->min = v[0];
	out->max = v[n - 1];
	out->reps = n;
	return 0;
}

int lat_bench_repeat(const lat_bench_measure_fn *fn, void *const *ctx,
		     unsigned k, unsigned warmup, unsigned reps,
		     struct lat_bench_stat *stats)
{
	double v[LAT_BENCH_MAX_FIGS][64], dummy;
	int rc;

	if (!fn || !stats || k < 1 || k > LAT_BENCH_MAX_FIGS || reps < 1 ||
	    reps > 64)
		return -EINVAL;
	for (unsigned round = 0; round < warmup + reps; round++) {
		for (unsigned i = 0; i < k; i++) {
			double *slot = round < warmup ? &dummy
						      : &v[i][round - warmup];

			rc = fn[i](ctx ? ctx[i] : NULL, slot);
			if (rc)
				return rc;
		}
	}
	for (unsigned i = 0; i < k; i++)
		lat_bench_stat_of(v[i], reps, &stats[i]);
	return 0;
}

/* First CPU listed in @cpu's thread_siblings_list, or @cpu. */
static int core_leader(int cpu)
{
	char path[96];
	FILE *f;
	int first = cpu;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 cpu);
	f = fopen(path, "r");
	if (!f)
		return cpu;
	if (fscanf(f, "%d", &first) != 1)
		first = cpu;
	fclose(f);
	return first;
}

int lat_bench_place_pair(struct lat_bench_place *p)
{
	cpu_set_t set;
	int cpus[CPU_SETSIZE], n = 0, a = -1, b = -1;

	memset(p, 0, sizeof(*p));
	p->cpu[0] = p->cpu[1] = -1;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	p->usable = n;
	if (n < 2) {
		snprintf(p->desc, sizeof(p->desc),
			 "unpinned: %d usable CPU, both threads share it", n);
		return 0;
	}
	/* skip CPU 0 when at least two others exist */
	for (int i = n > 2 && cpus[0] == 0 ? 1 : 0; i < n && b < 0; i++) {
		if (a < 0)
			a = cpus[i];
		else if (core_leader(cpus[i]) != core_leader(a))
			b = cpus[i];
	}
	if (b < 0) { /* only siblings of one core: take them, and say so */
		a = cpus[0];
		b = cpus[1];
		p->siblings = true;
	}
	p->cpu[0] = a;
	p->cpu[1] = b;
	p->pinned = true;
	snprintf(p->desc, sizeof(p->desc), "cpu %d and cpu %d (%d usable, %s)",
		 a, b, n, p->siblings ? "SMT siblings: shared L1, flattering"
				      : "different cores");
	return 0;
}

struct pair_arg {
	lat_bench_fn fn;
	void *arg;
	int cpu;
	_Atomic int *ready;
	_Atomic int *go;
	double start_ns;
	double end_ns;
};

static void *pair_thread(void *p)
{
	struct pair_arg *pa = p;
	int go;

	if (pa->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(pa->cpu, &set);
		/* best effort: a failed pin shows up as a slower figure, and
		 * the placement was checked against the affinity mask */
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	/* release pairs with the acquire load below in the other thread and
	 * in lat_bench_pair: this thread is up and pinned */
	atomic_fetch_add_explicit(pa->ready, 1, memory_order_release);
	/* acquire pairs with the release store of go in lat_bench_pair */
	while ((go = atomic_load_explicit(pa->go, memory_order_acquire)) == 0)
		lat_wait_pause();
	if (go != 1)
		return NULL; /* the peer thread could not be created */
	pa->start_ns = lat_bench_now_ns();
	pa->fn(pa->arg);
	pa->end_ns = lat_bench_now_ns();
	return NULL;
}

int lat_bench_pair(const struct lat_bench_place *p, lat_bench_fn a,
		   lat_bench_fn b, void *arg, double *elapsed_ns)
{
	_Atomic int ready = 0, go = 0;
	struct pair_arg pa[2];
	pthread_t t[2];
	int rc;

	for (int i = 0; i < 2; i++) {
		pa[i] = (struct pair_arg){ i ? b : a, arg, p->cpu[i], &ready,
					   &go, 0, 0 };
		rc = pthread_create(&t[i], NULL, pair_thread, &pa[i]);
		if (rc) {
			if (i == 1) {
				/* release: pairs with the acquire load of
				 * go; 2 tells the first thread to leave
				 * without running its function */
				atomic_store_explicit(&go, 2,
						      memory_order_release);
				pthread_join(t[0], NULL);
			}
			return -rc;
		}
	}
	/* acquire pairs with each thread's release increment of ready */
	while (atomic_load_explicit(&ready, memory_order_acquire) < 2)
		sched_yield();
	/* release pairs with the threads' acquire loads of go */
	atomic_store_explicit(&go, 1, memory_order_release);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	if (elapsed_ns) {
		double s = pa[0].start_ns < pa[1].start_ns ? pa[0].start_ns
							   : pa[1].start_ns;
		double e = pa[0].end_ns > pa[1].end_ns ? pa[0].end_ns
						       : pa[1].end_ns;
		*elapsed_ns = e - s;
	}
	return 0;
}

int lat_bench_pair_seq(const struct lat_bench_place *p, lat_bench_fn a,
		       lat_bench_fn b, void *arg, const uint64_t *sum,
		       uint64_t iters, double *elapsed_ns)
{
	int rc = lat_bench_pair(p, a, b, arg, elapsed_ns);

	if (rc)
		return rc;
	/* read after the joins in lat_bench_pair: the threads are done */
	return *sum == iters * (iters - 1) / 2 ? 0 : -EPROTO;
}

/* The floors' state: the one-line floor uses line only, the two-line
 * floor x (written by a) and y (written by b), each on its own lines; the
 * 64-byte floor x and y as marks, pay[0] (a's) and pay[1] (b's) as
 * payloads, and sum for what came back. */
struct line_pp {
	_Alignas(LAT_PAD_BYTES) _Atomic uint64_t line;
	_Alignas(LAT_PAD_BYTES) _Atomic uint64_t x;
	_Alignas(LAT_PAD_BYTES) _Atomic uint64_t y;
	_Alignas(LAT_PAD_BYTES) unsigned char pay[2][LAT_CACHELINE];
	uint64_t iters;
	uint64_t sum;
};

/* a: waits for even values, writes odd; b: the reverse. */
static void line_pp_a(void *arg)
{
	struct line_pp *pp = arg;

	for (uint64_t i = 0; i < pp->iters; i++) {
		/* acquire/release: the counter is the message itself; the
		 * pair keeps the two threads strictly alternating */
		while (atomic_load_explicit(&pp->line, memory_order_acquire) !=
		       2 * i)
			lat_wait_pause();
		atomic_store_explicit(&pp->line, 2 * i + 1,
				      memory_order_release);
	}
}

static void line_pp_b(void *arg)
{
	struct line_pp *pp = arg;

	for (uint64_t i = 0; i < pp->iters; i++) {
		/* pairs with the release store in line_pp_a */
		while (atomic_load_explicit(&pp->line, memory_order_acquire) !=
		       2 * i + 1)
			lat_wait_pause();
		/* pairs with the acquire load in line_pp_a */
		atomic_store_explicit(&pp->line, 2 * i + 2,
				      memory_order_release);
	}
}

/* Run a and b on a fresh struct line_pp; one way = round trip / 2. With
 * @check_sum, a left the sum of the answers 1..iters in sum. */
static int pingpong(const struct lat_bench_place *p, uint64_t iters,
		    lat_bench_fn a, lat_bench_fn b, bool check_sum,
		    double *one_way_ns)
{
	struct line_pp *pp;
	double ns;
	int rc;

	if (!p->pinned || iters == 0)
		return -EINVAL;
	pp = aligned_alloc(LAT_PAD_BYTES, sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	memset(pp, 0, sizeof(*pp));
	atomic_init(&pp->line, 0);
	atomic_init(&pp->x, 0);
	atomic_init(&pp->y, 0);
	pp->iters = iters;
	rc = lat_bench_pair(p, a, b, pp, &ns);
	/* read after the joins: every answer came back exactly once */
	if (!rc && check_sum && pp->sum != iters * (iters + 1) / 2)
		rc = -EPROTO;
	if (!rc)
		*one_way_ns = ns / (2.0 * (double)iters);
	free(pp);
	return rc;
}

int lat_bench_line_pingpong(const struct lat_bench_place *p, uint64_t iters,
			    double *one_way_ns)
{
	return pingpong(p, iters, line_pp_a, line_pp_b, false, one_way_ns);
}

static void two_line_a(void *arg)
{
	struct line_pp *pp = arg;

	for (uint64_t i = 1; i <= pp->iters; i++) {
		/* release pairs with b's acquire of x; acquire with b's
		 * release of y: the counters are the messages */
		atomic_store_explicit(&pp->x, i, memory_order_release);
		while (atomic_load_explicit(&pp->y, memory_order_acquire) != i)
			lat_wait_pause();
	}
}

static void two_line_b(void *arg)
{
	struct line_pp *pp = arg;

	for (uint64_t i = 1; i <= pp->iters; i++) {
		while (atomic_load_explicit(&pp->x, memory_order_acquire) != i)
			lat_wait_pause();
		atomic_store_explicit(&pp->y, i, memory_order_release);
	}
}

int lat_bench_two_line_pingpong(const struct lat_bench_place *p,
				uint64_t iters, double *one_way_ns)
{
	return pingpong(p, iters, two_line_a, two_line_b, false,
			one_way_ns);
}

/*
 * The 64-byte floor: 64 bytes plus a "full" mark do not fit a line, and
 * x86-64 has no 64-byte atomic store that stays in the cache, so each
 * side writes its payload line, then release-stores a counter on a
 * second line; the other waits for the counter (prefetching the payload
 * line, as lat_seqring's consumer does), reads the payload and answers
 * the same way (struct line_pp: x and y are the counters). The payload
 * is read only after the acquire that saw it written and rewritten only
 * after the answer, so no access races.
 */
static uint64_t pp64_wait(_Atomic uint64_t *flag, uint64_t want,
			  const unsigned char *pay)
{
	uint64_t v;

	/* acquire pairs with the other side's release of the counter: its
	 * payload is visible */
	for (;;) {
		__builtin_prefetch(pay);
		if (atomic_load_explicit(flag, memory_order_acquire) == want)
			break;
		lat_wait_pause();
	}
	memcpy(&v, pay, sizeof(v));
	return v;
}

static void pp64_a(void *arg)
{
	struct line_pp *pp = arg;
	unsigned char msg[LAT_CACHELINE] = { 0 };
	uint64_t sum = 0;

	for (uint64_t i = 1; i <= pp->iters; i++) {
		memcpy(msg, &i, sizeof(i));
		memcpy(pp->pay[0], msg, sizeof(msg));
		/* release: the payload line is written before the counter */
		atomic_store_explicit(&pp->x, i, memory_order_release);
		sum += pp64_wait(&pp->y, i, pp->pay[1]);
	}
	pp->sum = sum;
}

static void pp64_b(void *arg)
{
	struct line_pp *pp = arg;
	unsigned char msg[LAT_CACHELINE];

	for (uint64_t i = 1; i <= pp->iters; i++) {
		uint64_t v = pp64_wait(&pp->x, i, pp->pay[0]);

		memcpy(msg, pp->pay[0], sizeof(msg));
		memcpy(msg, &v, sizeof(v));
		memcpy(pp->pay[1], msg, sizeof(msg));
		/* release: the answer's payload before its counter */
		atomic_store_explicit(&pp->y, i, memory_order_release);
	}
}

int lat_bench_line64_pingpong(const struct lat_bench_place *p,
			      uint64_t iters, double *one_way_ns)
{
	return pingpong(p, iters, pp64_a, pp64_b, true, one_way_ns);
}
