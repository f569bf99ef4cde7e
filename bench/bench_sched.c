/*
 * bench_sched: what the scheduler probe costs the pipeline it watches,
 * measured in one run: the default pipeline (200,000 events/s) without
 * and with the probe (lat_sched_attr: the probe on the hot CPUs and
 * threads, the attribution hooks), runs alternated so that the machine's
 * load drifts over both alike. Prints e2e p50 and p99 of each run, the
 * medians, and the ratios with/without; plus the probe's records per
 * second (its cost is per scheduler event, not per pipeline event).
 *
 * usage: bench_sched [reps [events]]   (defaults 5 and 200000)
 * Needs what `latlab pipeline --sched` needs (root or CAP_BPF+CAP_PERFMON,
 * BTF, a build with libbpf); says so and exits 77 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>

#include "latlab/bench.h"
#include "latlab/pipe.h"
#include "latlab/sched_attr.h"

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
	return 0;
}
