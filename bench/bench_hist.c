/*
 * bench_hist: what lat_hist costs and what it saves.
 *
 *  1. ns per lat_hist_record() over values drawn from a latency-like
 *     distribution (lognormal body around 50 us plus a 1% lognormal tail
 *     around 2 ms), median of several runs with min and max, next to the
 *     same loop that only sums the values (the loop's own cost).
 *  2. p50/p99/p99.9 of 10,000,000 samples: lat_hist queries vs copying
 *     and qsort-ing all samples (the naive profiler way), as a ratio, with
 *     both approaches' memory, and a check that the answers agree to the
 *     histogram's precision (3 significant digits).
 *
 * Usage: bench_hist [samples] (default 10000000). Timing only; it never
 * fails on speed, only on wrong answers (exit 1).
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latlab/fmt.h"
#include "latlab/hist.h"

#define RUNS 9
#define RECORDS_PER_RUN 20000000
#define VALUES_MASK ((1u << 20) - 1) /* 1 Mi values, 8 MiB, cycled */
#define QUERY_REPEATS 101

static const double percentiles[3] = { 50.0, 99.0, 99.9 };

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double uniform01(void)
{
	/* xorshift64*, top 53 bits; (0, 1] so log() is finite. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((double)((rng_state * 2685821657736338717ULL) >> 11) + 1.0) /
		9007199254740992.0;
}

static int64_t latency_ns(void)
{
	double z = sqrt(-2.0 * log(uniform01())) *
		cos(6.283185307179586 * uniform01());
	double v = uniform01() < 0.01 ? exp(log(2e6) + 1.0 * z) :
		exp(log(5e4) + 0.6 * z);

	return v > 3.6e12 ? (int64_t)3.6e12 : (int64_t)v + 1;
}

static void fill(int64_t *values, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		values[i] = latency_ns();
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* One timed pass of RECORDS_PER_RUN records; returns ns per record. */
static double record_run(struct lat_hist *h, const int64_t *values,
			 int64_t *kept)
{
	double t0 = now_ns();
	int64_t ok = 0;
	uint32_t i;

	for (i = 0; i < RECORDS_PER_RUN; i++)
		ok += lat_hist_record(h, values[i & VALUES_MASK]);
	*kept += ok;
	return (now_ns() - t0) / RECORDS_PER_RUN;
}

/* The same loop without the histogram: reading and summing the values. */
static double baseline_run(const int64_t *values, int64_t *kept)
{
	double t0 = now_ns();
	int64_t sum = 0;
	uint32_t i;

	for (i = 0; i < RECORDS_PER_RUN; i++) {
		sum += values[i & VALUES_MASK];
		/* Keep the compiler from vectorising the loop away. */
		__asm__ __volatile__("" : "+r"(sum));
	}
	*kept += sum;
	return (now_ns() - t0) / RECORDS_PER_RUN;
}

static int bench_record(void)
{
	struct lat_hist h;
	int64_t *values = malloc((VALUES_MASK + 1) * sizeof(*values));
	double rec[RUNS], base[RUNS], med, loop;
	int64_t kept = 0;
	int r;

	if (!values || lat_hist_init(&h, 1, 3600000000000LL, 3)) {
		fprintf(stderr, "bench_hist: out of memory\n");
		return 1;
	}
	fill(values, VALUES_MASK + 1);
	record_run(&h, values, &kept); /* warm up: pages, caches, branches */
	for (r = 0; r < RUNS; r++) {
		base[r] = baseline_run(values, &kept);
		rec[r] = record_run(&h, values, &kept);
	}
	med = median_of(rec, RUNS);
	loop = median_of(base, RUNS);
	printf("record: %.2f ns/record (median of %d runs of %d; min %.2f, "
	       "max %.2f), histogram 1 ns..1 h, 3 digits\n", med, RUNS,
	       RECORDS_PER_RUN, rec[0], rec[RUNS - 1]);
	printf("        loop alone (read + sum the values): %.2f ns; "
	       "record minus loop: %.2f ns\n", loop, med - loop);
	printf("        recorded %" PRId64 " values, p50 %" PRId64
	       " ns, p99.9 %" PRId64 " ns (checksum %" PRId64 ")\n",
	       h.total_count, lat_hist_value_at_percentile(&h, 50),
	       lat_hist_value_at_percentile(&h, 99.9), kept);
	lat_hist_destroy(&h);
	free(values);
	return 0;
}

static int bench_percentiles(size_t n)
{
	int64_t *samples = malloc(n * sizeof(*samples));
	int64_t *copy = malloc(n * sizeof(*copy));
	int64_t from_hist[3], from_sort[3];
	double q[QUERY_REPEATS], t0, t_rec, t_query, t_sort;
	struct lat_hist h;
	char b1[32], b2[32], b3[32];
	size_t i, k;
	int r, bad = 0;

	if (!samples || !copy || lat_hist_init(&h, 1, 3600000000000LL, 3)) {
		fprintf(stderr, "bench_hist: out of memory for %zu samples\n",
			n);
		return 1;
	}
	fill(samples, n);

	t0 = now_ns();
	for (i = 0; i < n; i++)
		lat_hist_record(&h, samples[i]);
	t_rec = now_ns() - t0;
	for (r = 0; r < QUERY_REPEATS; r++) {
		t0 = now_ns();
		for (k = 0; k < 3; k++)
			from_hist[k] = lat_hist_value_at_percentile(&h,
							percentiles[k]);
		q[r] = now_ns() - t0;
	}
	t_query = median_of(q, QUERY_REPEATS);

	t0 = now_ns();
	memcpy(copy, samples, n * sizeof(*copy));
	qsort(copy, n, sizeof(*copy), cmp_i64);
	for (k = 0; k < 3; k++) {
		/* Same rank rule as Java: the ceil(p/100 * n)-th value. */
		size_t rank = (size_t)ceil(percentiles[k] / 100.0 * (double)n);
		from_sort[k] = copy[rank ? rank - 1 : 0];
	}
	t_sort = now_ns() - t0;

	printf("\npercentiles of %zu samples (p50, p99, p99.9):\n", n);
	for (k = 0; k < 3; k++) {
		/* lat_hist reports its slot's top: within 1/1024 above. */
		double rel = (double)(from_hist[k] - from_sort[k]) /
			(double)from_sort[k];
		bool ok = rel >= 0 && rel <= 1.0 / 1024;

		bad |= !ok;
		printf("  p%-5g lat_hist %s   sorted %s   (%+.4f%%%s)\n",
		       percentiles[k], lat_fmt_ns(b1, sizeof(b1),
						   (double)from_hist[k]),
		       lat_fmt_ns(b2, sizeof(b2), (double)from_sort[k]),
		       100 * rel, ok ? "" : ", DISAGREE");
	}
	printf("  lat_hist query: %s (median of %d)   copy+qsort: %s   "
	       "ratio %.0fx\n", lat_fmt_ns(b1, sizeof(b1), t_query),
	       QUERY_REPEATS, lat_fmt_ns(b2, sizeof(b2), t_sort),
	       t_sort / t_query);
	printf("  including recording all samples: lat_hist %s (%.2f "
	       "ns/sample) vs copy+qsort %s: ratio %.1fx\n",
	       lat_fmt_ns(b3, sizeof(b3), t_rec + t_query), t_rec / (double)n,
	       lat_fmt_ns(b2, sizeof(b2), t_sort),
	       t_sort / (t_rec + t_query));
	printf("  memory: lat_hist %zu bytes (fixed, any sample count) vs "
	       "samples + sorted copy %zu bytes (16 bytes per sample): "
	       "%.0fx less\n", lat_hist_mem_size(&h), 2 * n * sizeof(int64_t),
	       (double)(2 * n * sizeof(int64_t)) /
	       (double)lat_hist_mem_size(&h));
	lat_hist_destroy(&h);
	free(samples);
	free(copy);
	if (bad)
		fprintf(stderr, "bench_hist: percentiles disagree\n");
	return bad;
}

int main(int argc, char **argv)
{
	size_t n = 10000000;

	if (argc > 1) {
		char *end;
		unsigned long long v = strtoull(argv[1], &end, 10);

		if (*end || v < 1000 || v > 1000000000ULL) {
			fprintf(stderr, "usage: bench_hist [samples 1000..1e9]\n");
			return 2;
		}
		n = (size_t)v;
	}
	if (bench_record())
		return 1;
	return bench_percentiles(n);
}
