/*
 * lat_prof_overhead: the profiler's own failure mode, measured. The
 * pipeline runs unprofiled and profiled at several sampling rates, the
 * rates interleaved round by round so a change in the machine's load
 * hits them all alike, and each rate gets the median e2e p50 and p99 of
 * its runs, their ratio to the unprofiled runs of the same experiment,
 * and what the profiler itself spent: the reader thread's CPU (draining
 * the rings during the run) and the CPU to symbolize afterwards. The
 * kernel's cost of taking each sample lands in the profiled threads: a
 * CPU probe (a thread doing a fixed amount of work, "cpu-probe", before
 * each pipeline run) measures it as the growth of its CPU time per
 * sample it took, a figure that other load disturbs far less than it
 * disturbs latency.
 *
 * Part of the lab module (src/lab): it drives the pipeline and the
 * profiler, which sit below it. The run prints nothing (the printers
 * below take a FILE *); it blocks for about rounds x rates x events /
 * rate.
 */
#ifndef LATLAB_PROF_OVERHEAD_H
#define LATLAB_PROF_OVERHEAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/pipe.h"

#define LAT_PROF_OVERHEAD_MAX_RATES 8

struct lat_prof_overhead_config {
	struct lat_pipe_config pipe;  /* the run, placed (hooks unused) */
	double rates[LAT_PROF_OVERHEAD_MAX_RATES]; /* Hz; 0 = unprofiled */
	int n_rates;                  /* 1..MAX; the first should be 0 */
	int rounds;                   /* 1..100 runs per rate */
	/* polled between runs and during them (may be NULL) */
	lat_pipe_stop_fn stop;
	void *stop_ctx;
};

struct lat_prof_overhead_row {
	double freq_hz;
	int runs;                     /* completed */
	double p50_ns, p99_ns;        /* median over the runs */
	double p99_min_ns, p99_max_ns;/* spread of the runs */
	double p50_ratio, p99_ratio;  /* vs rate 0's medians (0 if none) */
	uint64_t samples, lost;       /* summed over the runs */
	double reader_cpu_ms;         /* median per run */
	double fold_cpu_ms;           /* median per run */
	double wall_s;                /* median run length */
	double probe_cpu_ms;          /* the CPU probe's CPU time, median */
	double probe_samples;         /* its samples, median */
	double probe_ratio;           /* probe CPU vs rate 0's */
	double us_per_sample;         /* (probe CPU - rate 0's) / samples:
				       * the kernel's cost of one sample */
	char note[160];               /* why a profiled rate could not run */
};

/* Defaults: the pipeline at latlab's defaults with 200,000 events,
 * rates 0, 99, 999, 9999 Hz, 3 rounds. Place @c->pipe after this. */
void lat_prof_overhead_config_init(struct lat_prof_overhead_config *c);

/*
 * Run it; @rows gets n_rates rows in @c's order. Returns 0, -EINVAL (a
 * bad config), a pipeline start error, or -EINTR when @stop asked (rows
 * then hold the runs completed). A rate the profiler cannot sample at
 * (no permission) keeps runs = 0 and says why in its note.
 */
int lat_prof_overhead_run(const struct lat_prof_overhead_config *c,
			  struct lat_prof_overhead_row *rows);

/*
 * The CPU probe alone, at @hz: three pairs of runs (unprofiled, profiled),
 * medians. *@ratio: the probe's CPU time profiled over unprofiled;
 * *@us_per_sample: its growth per sample taken. About 0.3 s. Returns 0,
 * -EINVAL, or lat_prof_self_begin's error.
 */
int lat_prof_overhead_probe(double hz, double *ratio, double *us_per_sample);

/*
 * What a profile at a high rate cost, in one line on @out: each sample's
 * CPU cost to the sampled thread (@us_per_sample) and the extra CPU a busy
 * thread pays at that rate (@ratio - 1), both from
 * lat_prof_overhead_probe, then the reader's own CPU for the run's
 * samples (@st: lat_prof_get_stats).
 */
struct lat_prof_stats;
void lat_prof_overhead_cost_print(FILE *out, double ratio,
				  double us_per_sample,
				  const struct lat_prof_stats *st);

/*
 * After a profile at @hz above LAT_PROF_COSTLY_HZ, where its cost shows:
 * measure it here now (lat_prof_overhead_probe, after the run so as not
 * to disturb it) and say so in one line on @out, after @what (how the
 * caller names the rate, e.g. "warning: sampling at 2000 Hz"):
 * "<what> is above 1000 Hz: measured on this machine now, " and
 * lat_prof_overhead_cost_print's line, or "<what> is above 1000 Hz; its
 * cost could not be measured here". Returns the probe's result.
 */
int lat_prof_overhead_warn(FILE *out, const char *what, double hz,
			   const struct lat_prof_stats *st);

/*
 * The rows for people on @out: the run and the rounds, whether hot
 * threads shared CPUs (@oversubscribed, from placement), one line per
 * rate (medians, ratios to the unprofiled runs, samples, the profiler's
 * CPU, the kernel's cost per sample), and what each column means.
 */
void lat_prof_overhead_print(FILE *out,
			     const struct lat_prof_overhead_config *c,
			     const struct lat_prof_overhead_row *rows,
			     bool oversubscribed);

/*
 * The same facts as one JSON object into @j (the caller owns
 * lat_json_init / lat_json_finish): events, rate, rounds, oversubscribed,
 * and rows[] with every field of struct lat_prof_overhead_row.
 */
struct lat_json;
void lat_prof_overhead_json(struct lat_json *j,
			    const struct lat_prof_overhead_config *c,
			    const struct lat_prof_overhead_row *rows,
			    bool oversubscribed);

/*
 * What `latlab profile --overhead` prints on @out: @title then
 * lat_prof_overhead_print's rows, or with @json lat_prof_overhead_json's
 * object alone. Returns 0, -EINVAL (unbalanced JSON: a bug) or -EIO.
 */
int lat_prof_overhead_report(FILE *out, bool json, const char *title,
			     const struct lat_prof_overhead_config *c,
			     const struct lat_prof_overhead_row *rows,
			     bool oversubscribed);

#endif
