/*
 * bench_sched: what the scheduler probe costs the pipeline it watches,
 * measured in one run: the default pipeline (200,000 events/s) without
 * and with the probe (lat_sched_attr: the probe on the hot CPUs and
 * threads, the attribution hooks), runs alternated so that the machine's
 * load drifts over both alike. Prints e2e p50 and p99 of each run, the
 * medians, and the ratios with/without; plus the probe's records per
 * second (its cost is per scheduler event, not per pipeline event).
 * Then the cost per scheduler event itself: two threads pinned to one
 * CPU hand it to each other with sched_yield, without and with the probe
 * following them (alternated too); the difference in ns per context
 * switch is what the probe adds to each switch it records, kernel
 * program and user-space reader together.
 *
 * usage: bench_sched [reps [events]]   (defaults 5 and 200000)
 * Needs what `latlab pipeline --sched` needs (root or CAP_BPF+CAP_PERFMON,
 * BTF, a build with libbpf); says so and exits 77 otherwise.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "latlab/bench.h"
#include "latlab/pipe.h"
#include "latlab/sched_attr.h"
#include "latlab/topo.h"

#define MAX_REPS 64

struct run {
	double p50, p99, records_per_s;
};

static int run_once(uint64_t events, bool sched, struct run *o)
{
	struct lat_pipe_config c;
	struct lat_pipe_result r;
	struct lat_sched_attr *a = NULL;
	int rc;

	lat_pipe_config_init(&c);
	c.events = events;
	if ((rc = lat_pipe_autoplace(&c, false, NULL)))
		return rc;
	if (sched) {
		rc = lat_sched_attr_init(&a, &c, NULL);
		if (!rc)
			rc = lat_sched_attr_start(a);
		if (rc) {
			lat_sched_attr_free(a);
			return rc;
		}
	}
	rc = lat_pipe_run(&c, &r);
	if (!rc && a)
		rc = lat_sched_attr_finish(a, &r);
	if (!rc) {
		const struct lat_hist *e2e = &r.delta[r.n_deltas - 1].hist;

		o->p50 = (double)lat_hist_value_at_percentile(e2e, 50);
		o->p99 = (double)lat_hist_value_at_percentile(e2e, 99);
		o->records_per_s = 0;
		if (a) {
			const struct lat_sched_result *p =
				lat_sched_attr_result(a)->probe;

			o->records_per_s = (double)p->records /
					   ((double)(p->to_ns - p->from_ns) / 1e9);
			if (p->lost)
				fprintf(stderr, "bench_sched: %llu records "
					"lost\n", (unsigned long long)p->lost);
		}
	}
	lat_pipe_result_destroy(&r);
	lat_sched_attr_free(a);
	return rc;
}

/* ---- cost per context switch: a sched_yield ping-pong on one CPU ---- */

#define PINGPONG_YIELDS 200000

struct pingpong {
	int cpu;
	atomic_int ready;
	atomic_bool go;
	pid_t tid[2];
};

static void *pingpong_thread(void *arg)
{
	struct pingpong *pp = arg;
	int me = atomic_fetch_add(&pp->ready, 1), i;

	pp->tid[me] = gettid();
	(void)lat_topo_pin_self(pp->cpu);
	while (!atomic_load(&pp->go))
		sched_yield();
	for (i = 0; i < PINGPONG_YIELDS; i++)
		sched_yield();
	return NULL;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ns per context switch of the ping-pong; < 0 on failure. With @probe,
 * the probe follows this process and watches the CPU, as in --sched. */
static double pingpong_ns(bool probe)
{
	struct pingpong pp = { .cpu = 0 };
	struct lat_sched *s = NULL;
	const struct lat_sched_thread *t[2];
	pthread_t th[2];
	pid_t self = getpid();
	double t0, t1;
	uint64_t switches = 0;
	int i, rc;

	pp.cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (probe) {
		struct lat_sched_opts o = { 0 };

		o.pids = &self;
		o.n_pids = 1;
		o.cpus = &pp.cpu;
		o.n_cpus = 1;
		if ((rc = lat_sched_open(&o, &s)) || (rc = lat_sched_start(s))) {
			fprintf(stderr, "bench_sched: probe: %s\n",
				lat_strerror(rc));
			lat_sched_close(s);
			return -1;
		}
	}
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, pingpong_thread, &pp);
	while (atomic_load(&pp.ready) < 2)
		sched_yield();
	t0 = mono_s();
	atomic_store(&pp.go, true);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	t1 = mono_s();
	if (s) {
		lat_sched_stop(s);
		for (i = 0; i < 2; i++) {
			t[i] = lat_sched_find_thread(lat_sched_result(s),
						     pp.tid[i]);
			if (t[i])
				switches += t[i]->switches_invol;
		}
		if (lat_sched_result(s)->lost)
			fprintf(stderr, "bench_sched: ping-pong: %llu records "
				"lost\n",
				(unsigned long long)lat_sched_result(s)->lost);
		lat_sched_close(s);
	}
	/* a yield switches only when the other thread is runnable: nearly
	 * every time here; the probe's own count, when it ran, says so */
	if (!switches)
		switches = 2 * (uint64_t)PINGPONG_YIELDS;
	return (t1 - t0) * 1e9 / (double)switches;
}

static double median(double *v, unsigned n)
{
	struct lat_bench_stat s;

	lat_bench_stat_of(v, n, &s);
	return s.median;
}

int main(int argc, char **argv)
{
	unsigned reps = argc > 1 ? (unsigned)atoi(argv[1]) : 5;
	uint64_t events = argc > 2 ? strtoull(argv[2], NULL, 10) : 200000;
	double p50[2][MAX_REPS], p99[2][MAX_REPS], rec[MAX_REPS];
	struct lat_sched_avail av;

	if (reps < 1 || reps > MAX_REPS || events < 1000) {
		fprintf(stderr, "usage: bench_sched [reps 1..64 [events >= "
			"1000]]\n");
		return 2;
	}
	lat_sched_available(&av);
	if (!av.ok) {
		printf("SKIP: scheduler probe unavailable: %s\n", av.reason);
		return 77;
	}
	printf("pipeline e2e, %llu events at the default rate, without and "
	       "with the scheduler probe, alternated %u times\n",
	       (unsigned long long)events, reps);
	printf("%4s %12s %12s %12s %12s %14s\n", "rep", "p50 off", "p50 on",
	       "p99 off", "p99 on", "probe rec/s");
	for (unsigned i = 0; i < reps; i++) {
		struct run off, on;
		int rc;

		if ((rc = run_once(events, false, &off)) ||
		    (rc = run_once(events, true, &on))) {
			fprintf(stderr, "bench_sched: %s\n", lat_strerror(rc));
			return 1;
		}
		p50[0][i] = off.p50;
		p50[1][i] = on.p50;
		p99[0][i] = off.p99;
		p99[1][i] = on.p99;
		rec[i] = on.records_per_s;
		printf("%4u %10.0f ns %10.0f ns %10.0f ns %10.0f ns %14.0f\n", i,
		       off.p50, on.p50, off.p99, on.p99, on.records_per_s);
	}
	{
		double m50o = median(p50[0], reps), m50n = median(p50[1], reps);
		double m99o = median(p99[0], reps), m99n = median(p99[1], reps);

		printf("median: p50 %.0f -> %.0f ns (x%.3f), p99 %.0f -> %.0f "
		       "ns (x%.3f), probe %.0f records/s\n", m50o, m50n,
		       m50n / m50o, m99o, m99n, m99n / m99o,
		       median(rec, reps));
	}
	printf("\ncost per context switch: two threads pinned to one CPU, "
	       "%d sched_yield each, alternated %u times\n", PINGPONG_YIELDS,
	       reps);
	for (unsigned i = 0; i < reps; i++) {
		p50[0][i] = pingpong_ns(false);
		p50[1][i] = pingpong_ns(true);
		if (p50[0][i] < 0 || p50[1][i] < 0)
			return 1;
		printf("%4u %8.0f ns/switch without, %8.0f with\n", i,
		       p50[0][i], p50[1][i]);
	}
	{
		double off = median(p50[0], reps), on = median(p50[1], reps);

		printf("median: %.0f -> %.0f ns per switch: the probe adds "
		       "%.0f ns per recorded switch\n", off, on, on - off);
	}
	return 0;
}
