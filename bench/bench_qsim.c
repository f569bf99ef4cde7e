/*
 * bench_qsim: how fast lat_qsim simulates. Prints simulated customers per
 * second (warm-up included: it is simulated too) for M/M/1 (Lindley) and
 * M/M/8 (heap of server free times) at rho 0.9, and D/D/1 (no logarithms)
 * to show what the bookkeeping alone costs. The baseline, measured in the
 * same run and rounds, is drawing the two exponential samples a customer
 * needs and nothing else: the floor any simulator of M/M/c pays. Then the
 * wall time of a 50-point utilization sweep (0.01..0.99 by 0.02) of 10^6
 * customers each, as 'latlab queue --sweep' runs it.
 *
 * Each figure is the median of the rounds with min and max; rounds are
 * interleaved (lat_bench_repeat) so drift on a shared machine hits every
 * figure alike. Issue 7's target: >= 20 M customers/s for c = 1. Wall
 * time is what a user waits; on a shared machine it also counts the time
 * other processes held the CPU, so the on-CPU rate (CPU time of this
 * process) of the c = 1 and c = 8 figures is printed beside it with the
 * load average.
 *
 * usage: bench_qsim [reps [customers]]   (defaults 5 and 2000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "latlab/bench.h"
#include "latlab/fmt.h"
#include "latlab/qsim.h"
#include "latlab/stats.h"

struct fig {
	const char *arr, *svc;
	unsigned servers;
	uint64_t customers;
};

static uint64_t total(const struct fig *f)
{
	return f->customers + f->customers / 10;
}

/* Customers per second of one full lat_qsim_run. */
static int measure_run(void *ctx, double *value)
{
	const struct fig *f = ctx;
	struct lat_qsim_config c;
	struct lat_qsim_result r;
	double t0, t1;
	int err;

	lat_qsim_config_init(&c);
	lat_qsim_dist_parse(&c.arrival, f->arr);
	lat_qsim_dist_parse(&c.service, f->svc);
	c.servers = f->servers;
	c.customers = f->customers;
	c.warmup = f->customers / 10;
	t0 = lat_bench_now_ns();
	err = lat_qsim_run(&c, &r);
	t1 = lat_bench_now_ns();
	lat_qsim_result_destroy(&r);
	*value = (double)total(f) / (t1 - t0) * 1e9;
	return err;
}

/* Two exponential samples per customer and nothing else. */
static int measure_samples(void *ctx, double *value)
{
	const struct fig *f = ctx;
	struct lat_qsim_dist a, s;
	struct lat_qsim_rng ra, rs;
	double t0, t1, sum = 0;

	lat_qsim_dist_parse(&a, "exp");
	lat_qsim_dist_parse(&s, "exp");
	lat_qsim_rng_seed(&ra, 1);
	lat_qsim_rng_seed(&rs, 2);
	t0 = lat_bench_now_ns();
	for (uint64_t i = 0; i < total(f); i++) {
		sum += lat_qsim_dist_sample(&a, &ra);
		sum += lat_qsim_dist_sample(&s, &rs);
		lat_bench_keep(sum);
	}
	t1 = lat_bench_now_ns();
	*value = (double)total(f) / (t1 - t0) * 1e9;
	return sum > 0 ? 0 : -1;
}

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Customers per second of on-CPU time, one run. */
static int cpu_rate(const struct fig *f, double *value)
{
	double t0 = cpu_ns(), wall;
	int err = measure_run((void *)f, &wall);

	*value = (double)total(f) / (cpu_ns() - t0) * 1e9;
	return err;
}

static int sweep_seconds(double *value)
{
	struct lat_qsim_config c;
	struct lat_qsim_result r;
	double t0 = lat_bench_now_ns();
	int err = 0;

	lat_qsim_config_init(&c);
	for (int i = 0; i < 50 && !err; i++) {
		c.rho = 0.01 + 0.02 * i;
		err = lat_qsim_run(&c, &r);
		lat_qsim_result_destroy(&r);
	}
	*value = (lat_bench_now_ns() - t0) / 1e9;
	return err;
}

int main(int argc, char **argv)
{
	unsigned reps = argc > 1 ? (unsigned)atoi(argv[1]) : 5;
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 2000000;
	struct fig figs[] = {
		{ "exp", "exp", 1, n }, { "exp", "exp", 1, n },
		{ "exp", "exp", 8, n }, { "det", "det", 1, n },
	};
	static const char *const names[] = {
		"baseline: 2 exp samples/customer",
		"M/M/1 rho 0.9 (Lindley)",
		"M/M/8 rho 0.9 (heap of 8 servers)",
		"D/D/1 rho 0.9 (no logarithms)",
	};
	const lat_bench_measure_fn fn[] = { measure_samples, measure_run,
					    measure_run, measure_run };
	void *const ctx[] = { &figs[0], &figs[1], &figs[2], &figs[3] };
	struct lat_bench_stat st[4];
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];
	double sweep, cpu1, cpu8;

	if (reps < 1 || reps > 64 || n < 1000) {
		fprintf(stderr, "usage: bench_qsim [reps 1..64 [customers "
			">= 1000]]\n");
		return 2;
	}
	if (lat_bench_repeat(fn, ctx, 4, 1, reps, st)) {
		fprintf(stderr, "bench_qsim: a run failed\n");
		return 1;
	}
	printf("bench_qsim: %llu customers (+10%% warm-up) per run, median "
	       "of %u rounds [min .. max]\n", (unsigned long long)n, reps);
	for (int i = 0; i < 4; i++) {
		printf("  %-36s %12s [%s .. %s]", names[i],
		       lat_fmt_rate(a, sizeof(a), st[i].median),
		       lat_fmt_rate(b, sizeof(b), st[i].min),
		       lat_fmt_rate(c, sizeof(c), st[i].max));
		if (i)
			printf("  %.2fx baseline", st[i].median / st[0].median);
		printf("\n");
	}
	if (cpu_rate(&figs[1], &cpu1) || cpu_rate(&figs[2], &cpu8)) {
		fprintf(stderr, "bench_qsim: a run failed\n");
		return 1;
	}
	printf("  on-CPU rate (CPU time, load average %.2f on this box): "
	       "c = 1 %s, c = 8 %s\n", lat_loadavg(),
	       lat_fmt_rate(a, sizeof(a), cpu1), lat_fmt_rate(b, sizeof(b),
							      cpu8));
	printf("  target >= 20 M/s for c = 1: wall %s, on-CPU %s\n",
	       st[1].median >= 20e6 ? "met" : "NOT met on this run",
	       cpu1 >= 20e6 ? "met" : "NOT met");
	if (sweep_seconds(&sweep)) {
		fprintf(stderr, "bench_qsim: sweep failed\n");
		return 1;
	}
	printf("  sweep: 50 points x 10^6 customers (M/M/1): %.2f s, "
	       "%s\n", sweep, lat_fmt_rate(a, sizeof(a), 50 * 1.1e6 / sweep));
	return 0;
}
