/*
 * The profiler-overhead table for people and the same rows for scripts:
 * what `latlab profile --overhead` prints.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/prof.h"
#include "latlab/prof_overhead.h"

void lat_prof_overhead_print(FILE *out,
			     const struct lat_prof_overhead_config *c,
			     const struct lat_prof_overhead_row *rows,
			     bool oversubscribed)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], lo[LAT_FMT_LEN], hi[LAT_FMT_LEN];

	fprintf(out, "the pipeline (%" PRIu64 " events at %.0f/s) x %d "
		"round(s) per rate, rates interleaved\n", c->pipe.events,
		c->pipe.rate, c->rounds);
	if (oversubscribed)
		fprintf(out, "placement: hot threads share CPUs (numbers "
			"include scheduler effects)\n");
	fprintf(out, "\n%8s %4s %9s %9s %19s %7s %7s %9s %5s %9s %10s %9s "
		"%8s\n", "rate", "runs", "e2e p50", "e2e p99",
		"p99 of the runs", "p50 x", "p99 x", "samples", "lost",
		"reader ms", "symbols ms", "probe x", "us/smpl");
	for (int i = 0; i < c->n_rates; i++) {
		const struct lat_prof_overhead_row *r = &rows[i];
		char rate[16], span[48];

		snprintf(rate, sizeof(rate), r->freq_hz ? "%.0f Hz" : "off",
			 r->freq_hz);
		if (!r->runs) {
			fprintf(out, "%8s    0  %s\n", rate,
				r->note[0] ? r->note : "not run");
			continue;
		}
		snprintf(span, sizeof(span), "%s..%s",
			 lat_fmt_ns(lo, sizeof(lo), r->p99_min_ns),
			 lat_fmt_ns(hi, sizeof(hi), r->p99_max_ns));
		fprintf(out, "%8s %4d %9s %9s %19s %6.2fx %6.2fx %9" PRIu64
			" %5" PRIu64 " %9.1f %10.1f %8.3fx", rate, r->runs,
			lat_fmt_ns(a, sizeof(a), r->p50_ns),
			lat_fmt_ns(b, sizeof(b), r->p99_ns), span,
			r->p50_ratio, r->p99_ratio, r->samples, r->lost,
			r->freq_hz ? r->reader_cpu_ms : 0,
			r->freq_hz ? r->fold_cpu_ms : 0, r->probe_ratio);
		/* a handful of samples cannot price one against the noise */
		if (r->freq_hz && r->probe_samples >= 20)
			fprintf(out, " %8.2f\n", r->us_per_sample);
		else
			fprintf(out, " %8s\n", "-");
	}
	fprintf(out, "\nmedians over the runs; x: against the unprofiled "
		"runs of this experiment (their own p99 spread is the "
		"yardstick);\nreader ms: CPU of the thread draining the "
		"rings, per run; symbols ms: CPU to symbolize afterwards;\n"
		"probe x: CPU time of a fixed piece of work, against "
		"unprofiled; us/smpl: its growth per sample taken,\n"
		"the kernel's cost of one sample, paid by the sampled "
		"thread ('-' under 20 samples: too few to price one).\n");
}

void lat_prof_overhead_json(struct lat_json *j,
			    const struct lat_prof_overhead_config *c,
			    const struct lat_prof_overhead_row *rows,
			    bool oversubscribed)
{
	lat_json_obj_begin(j, NULL);
	lat_json_uint(j, "events", c->pipe.events);
	lat_json_double(j, "rate", c->pipe.rate);
	lat_json_int(j, "rounds", c->rounds);
	lat_json_bool(j, "oversubscribed", oversubscribed);
	lat_json_arr_begin(j, "rows");
	for (int i = 0; i < c->n_rates; i++) {
		const struct lat_prof_overhead_row *r = &rows[i];

		lat_json_obj_begin(j, NULL);
		lat_json_double(j, "freq_hz", r->freq_hz);
		lat_json_int(j, "runs", r->runs);
		lat_json_str(j, "note", r->note);
		lat_json_double(j, "e2e_p50_ns", r->p50_ns);
		lat_json_double(j, "e2e_p99_ns", r->p99_ns);
		lat_json_double(j, "e2e_p99_min_ns", r->p99_min_ns);
		lat_json_double(j, "e2e_p99_max_ns", r->p99_max_ns);
		lat_json_double(j, "p50_ratio", r->p50_ratio);
		lat_json_double(j, "p99_ratio", r->p99_ratio);
		lat_json_uint(j, "samples", r->samples);
		lat_json_uint(j, "lost", r->lost);
		lat_json_double(j, "reader_cpu_ms", r->reader_cpu_ms);
		lat_json_double(j, "symbols_cpu_ms", r->fold_cpu_ms);
		lat_json_double(j, "wall_s", r->wall_s);
		lat_json_double(j, "probe_cpu_ms", r->probe_cpu_ms);
		lat_json_double(j, "probe_samples", r->probe_samples);
		lat_json_double(j, "probe_ratio", r->probe_ratio);
		lat_json_double(j, "us_per_sample", r->us_per_sample);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_obj_end(j);
}

void lat_prof_overhead_cost_print(FILE *out, double ratio,
				  double us_per_sample,
				  const struct lat_prof_stats *st)
{
	fprintf(out, "each sample costs the sampled thread %.1f us of CPU "
		"(+%.1f %% CPU for a busy thread at this rate); the reader "
		"took %.1f ms for %" PRIu64 " samples\n", us_per_sample,
		100 * (ratio - 1), st->reader_cpu_ns / 1e6, st->samples);
}

int lat_prof_overhead_warn(FILE *out, const char *what, double hz,
			   const struct lat_prof_stats *st)
{
	double ratio, us;
	int rc = lat_prof_overhead_probe(hz, &ratio, &us);

	if (rc) {
		fprintf(out, "%s is above %d Hz; its cost could not be "
			"measured here\n", what, LAT_PROF_COSTLY_HZ);
		return rc;
	}
	fprintf(out, "%s is above %d Hz: measured on this machine now, ",
		what, LAT_PROF_COSTLY_HZ);
	lat_prof_overhead_cost_print(out, ratio, us, st);
	return 0;
}

/* lat_prof_overhead_report's arguments, for lat_json_or_text */
struct overhead_report {
	const char *title;
	const struct lat_prof_overhead_config *c;
	const struct lat_prof_overhead_row *rows;
	bool oversubscribed;
};

static void overhead_text(FILE *out, const void *p)
{
	const struct overhead_report *a = p;

	fputs(a->title, out);
	lat_prof_overhead_print(out, a->c, a->rows, a->oversubscribed);
}

static void overhead_doc(struct lat_json *j, const void *p)
{
	const struct overhead_report *a = p;

	lat_prof_overhead_json(j, a->c, a->rows, a->oversubscribed);
}

int lat_prof_overhead_report(FILE *out, bool json, const char *title,
			     const struct lat_prof_overhead_config *c,
			     const struct lat_prof_overhead_row *rows,
			     bool oversubscribed)
{
	struct overhead_report a = { title, c, rows, oversubscribed };

	return lat_json_or_text(out, json, &a, overhead_text, overhead_doc);
}
