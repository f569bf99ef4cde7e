/*
 * The overhead experiment: the pipeline at each sampling rate, rounds
 * interleaved, medians per rate, ratios to the unprofiled runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latlab/hist.h"
#include "latlab/prof.h"
#include "latlab/prof_overhead.h"
#include "latlab/stats.h"

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
	double probe_cpu[MAX_ROUNDS], probe_samples[MAX_ROUNDS];
};

/*
 * The CPU probe: a thread doing a fixed amount of work. Its CPU time
 * grows by what taking its samples cost (the kernel charges the sample's
 * interrupt and stack walk to the interrupted thread), and CPU time is
 * much less disturbed by other load than latency is.
 */
#define PROBE_STEPS 40000000ull
static volatile uint64_t probe_sink;

static void *probe_main(void *arg)
{
	double *cpu_ms = arg, t0 = thread_cpu_ms();
	uint64_t x = probe_sink;

	for (uint64_t i = 0; i < PROBE_STEPS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	probe_sink = x;
	*cpu_ms = thread_cpu_ms() - t0;
	return NULL;
}

/* Run the probe on its own thread, "cpu-probe"; its CPU time in ms. */
static int run_probe(double *cpu_ms)
{
	pthread_t th;
	int rc = -pthread_create(&th, NULL, probe_main, cpu_ms);

	if (rc)
		return rc;
	(void)pthread_setname_np(th, "cpu-probe");
	pthread_join(th, NULL);
	return 0;
}

int lat_prof_overhead_probe(double hz, double *ratio, double *us_per_sample)
{
	struct lat_prof_config pc = { .freq_hz = hz };
	struct lat_prof_self *self;
	struct lat_prof_folded f;
	struct lat_prof *p;
	double base[3], prof[3], samples[3], pm, bm, sm;
	int rc = 0;

	if (!(hz > 0 && hz <= LAT_PROF_MAX_HZ))
		return -EINVAL;
	/* three pairs, medians: one pair is at the mercy of a neighbour */
	for (int i = 0; i < 3 && !rc; i++) {
		rc = run_probe(&base[i]);
		if (rc)
			break;
		rc = lat_prof_self_begin(&pc, &self, NULL, 0);
		if (rc)
			break;
		rc = run_probe(&prof[i]);
		if (!rc)
			rc = lat_prof_self_end(self, &p);
		else
			lat_prof_self_end(self, &p);
		lat_prof_folded_init(&f);
		if (!rc)
			rc = lat_prof_fold(p, &f);
		samples[i] = (double)lat_prof_folded_weight(&f, "cpu-probe",
							    NULL);
		lat_prof_folded_release(&f);
		lat_prof_free(p);
	}
	if (rc)
		return rc;
	pm = lat_median_sort(prof, 3);
	bm = lat_median_sort(base, 3);
	sm = lat_median_sort(samples, 3);
	*ratio = pm / bm;
	*us_per_sample = sm > 0 ? 1e3 * (pm - bm) / sm : 0;
	return 0;
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
	rc = run_probe(&rr->probe_cpu[k]);
	if (!rc)
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
		rr->probe_samples[k] = (double)lat_prof_folded_weight(
			&f, "cpu-probe", NULL);
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
	size_t n = row->runs > 0 ? (size_t)row->runs : 0;

	if (!n)
		return;
	row->p50_ns = lat_median_sort(rr->p50, n);
	/* sorts p99: its min and max next */
	row->p99_ns = lat_median_sort(rr->p99, n);
	row->p99_min_ns = rr->p99[0];
	row->p99_max_ns = rr->p99[n - 1];
	row->reader_cpu_ms = lat_median_sort(rr->reader, n);
	row->fold_cpu_ms = lat_median_sort(rr->fold, n);
	row->wall_s = lat_median_sort(rr->wall, n);
	row->probe_cpu_ms = lat_median_sort(rr->probe_cpu, n);
	row->probe_samples = lat_median_sort(rr->probe_samples, n);
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
		if (rows[base].probe_cpu_ms > 0)
			rows[i].probe_ratio = rows[i].probe_cpu_ms /
					      rows[base].probe_cpu_ms;
		if (rows[i].probe_samples > 0)
			rows[i].us_per_sample = 1e3 * (rows[i].probe_cpu_ms -
					rows[base].probe_cpu_ms) /
					rows[i].probe_samples;
	}
	free(rr);
	return rc;
}
