/*
 * The overhead experiment: the pipeline at each sampling rate, rounds
 * interleaved, medians per rate, ratios to the unprofiled runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latlab/hist.h"
#include "latlab/prof.h"
#include "latlab/prof_overhead.h"

#define MAX_ROUNDS 100

void lat_prof_overhead_config_init(struct lat_prof_overhead_config *c)
{
	static const double rates[] = { 0, 99, 999, 9999 };

	memset(c, 0, sizeof(*c));
	lat_pipe_config_init(&c->pipe);
	c->pipe.events = 200000;
	memcpy(c->rates, rates, sizeof(rates));
	c->n_rates = 4;
	c->rounds = 3;
}

static double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Per rate, the figures of each run, for the medians. */
struct runs {
	double p50[MAX_ROUNDS], p99[MAX_ROUNDS];
	double reader[MAX_ROUNDS], fold[MAX_ROUNDS], wall[MAX_ROUNDS];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One pipeline run, profiled at @hz (0: not); the figures into @rr. */
static int one_run(const struct lat_prof_overhead_config *c, double hz,
		   struct lat_prof_overhead_row *row, struct runs *rr)
{
	struct lat_prof_config pc = { .freq_hz = hz };
	struct lat_prof_self *self = NULL;
	struct lat_prof *p = NULL;
	struct lat_pipe_result r;
	int k = row->runs, rc;

	if (hz > 0) {
		rc = lat_prof_self_begin(&pc, &self, row->note,
					 sizeof(row->note));
		if (rc)
			return rc;
	}
	rc = lat_pipe_run_until(&c->pipe, &r, c->stop, c->stop_ctx);
	if (self) {
		struct lat_prof_folded f;
		struct lat_prof_stats st;
		double t0;
		int prc = lat_prof_self_end(self, &p);

		lat_prof_get_stats(p, &st);
		lat_prof_folded_init(&f);
		t0 = thread_cpu_ms();
		if (!prc)
			prc = lat_prof_fold(p, &f);
		rr->fold[k] = thread_cpu_ms() - t0;
		rr->reader[k] = st.reader_cpu_ns / 1e6;
		row->samples += st.samples;
		row->lost += st.lost;
		lat_prof_folded_release(&f);
		lat_prof_free(p);
		if (prc && !rc)
			rc = prc;
	}
	if (rc) {
		lat_pipe_result_destroy(&r);
		return rc;
	}
	if (r.interrupted) {
		lat_pipe_result_destroy(&r);
		return -EINTR;
	}
	/* the last delta is e2e */
	rr->p50[k] = (double)lat_hist_value_at_percentile(
		&r.delta[r.n_deltas - 1].hist, 50);
	rr->p99[k] = (double)lat_hist_value_at_percentile(
		&r.delta[r.n_deltas - 1].hist, 99);
	rr->wall[k] = r.wall_s;
	row->runs++;
	lat_pipe_result_destroy(&r);
	return 0;
}

static void summarize(struct lat_prof_overhead_row *row, struct runs *rr)
{
	int n = row->runs;

	if (!n)
		return;
	row->p50_ns = median(rr->p50, n);
	row->p99_ns = median(rr->p99, n); /* sorts p99: min and max next */
	row->p99_min_ns = rr->p99[0];
	row->p99_max_ns = rr->p99[n - 1];
	row->reader_cpu_ms = median(rr->reader, n);
	row->fold_cpu_ms = median(rr->fold, n);
	row->wall_s = median(rr->wall, n);
}

int lat_prof_overhead_run(const struct lat_prof_overhead_config *c,
			  struct lat_prof_overhead_row *rows)
{
	struct runs *rr;
	int rc = 0, base = -1;

	if (c->n_rates < 1 || c->n_rates > LAT_PROF_OVERHEAD_MAX_RATES ||
	    c->rounds < 1 || c->rounds > MAX_ROUNDS)
		return -EINVAL;
	for (int i = 0; i < c->n_rates; i++)
		if (c->rates[i] < 0 || c->rates[i] > LAT_PROF_MAX_HZ)
			return -EINVAL;
	rr = calloc((size_t)c->n_rates, sizeof(*rr));
	if (!rr)
		return -ENOMEM;
	memset(rows, 0, (size_t)c->n_rates * sizeof(*rows));
	for (int i = 0; i < c->n_rates; i++)
		rows[i].freq_hz = c->rates[i];
	/* round r starts at rate r mod n: no rate always runs first */
	for (int round = 0; round < c->rounds && !rc; round++)
		for (int j = 0; j < c->n_rates && !rc; j++) {
			int i = (round + j) % c->n_rates;

			if (rows[i].note[0])
				continue; /* this rate cannot be sampled */
			rc = one_run(c, c->rates[i], &rows[i], &rr[i]);
			if (rc == -EACCES || rc == -EPERM ||
			    rc == -LAT_EUNSUPP) {
				if (!rows[i].note[0])
					snprintf(rows[i].note,
						 sizeof(rows[i].note), "%s",
						 lat_strerror(rc));
				rc = 0;
			}
		}
	for (int i = 0; i < c->n_rates; i++) {
		summarize(&rows[i], &rr[i]);
		if (base < 0 && rows[i].freq_hz == 0 && rows[i].runs)
			base = i;
	}
	for (int i = 0; base >= 0 && i < c->n_rates; i++) {
		if (!rows[i].runs)
			continue;
		if (rows[base].p50_ns > 0)
			rows[i].p50_ratio = rows[i].p50_ns / rows[base].p50_ns;
		if (rows[base].p99_ns > 0)
			rows[i].p99_ratio = rows[i].p99_ns / rows[base].p99_ns;
	}
	free(rr);
	return rc;
}
