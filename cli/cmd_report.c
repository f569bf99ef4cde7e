/*
 * latlab report: percentiles of an .hlog interval log (per tag and in
 * total) or of an .hgrm percentile file, optionally re-written as .hgrm.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "report.h"

static const char report_usage[] =
"latlab report: percentiles of an HdrHistogram interval log or .hgrm file\n"
"\n"
"usage: latlab report [<options>] <file.hlog | file.hgrm>\n"
"\n"
"Prints, per tag and in total, count, min, p50, p90, p99, p99.9, p99.99,\n"
"max and mean. Reads .hlog files written by latlab, jHiccup or any\n"
"HdrHistogram HistogramLogWriter (format 1.x, V2 encoding), and .hgrm\n"
"percentile distributions (rebuilt from their rows: counts between two\n"
"printed percentiles are placed at the upper one).\n"
"\n"
"options:\n"
"  --tag <t>            only intervals tagged <t> ('' = untagged lines)\n"
"                       (default: every tag)\n"
"  --json               one JSON document on stdout\n"
"  --hgrm <out>         write the merged distribution (the selected tag,\n"
"                       else every interval) as .hgrm text to <out>\n"
"  --hgrm-ratio <r>     divide values in --hgrm output by <r>\n"
"                       (default 1: the file's unit; 1e6 turns ns into ms)\n"
"  --ticks <n>          percentile ticks per half distance in --hgrm\n"
"                       output, 1..1000 (default 5, as HdrHistogram)\n"
"  --unit-ns-per-value <x>\n"
"                       nanoseconds per value in the file (default 1, or\n"
"                       what a latlab .hgrm file says; jHiccup logs are\n"
"                       in ns; a .hgrm in ms needs 1e6)\n"
"\n"
"Exit: 0 ok, 1 output could not be written, 2 bad usage or unreadable\n"
"file.\n"
"\n"
"EXAMPLES:\n"
"  latlab report run.hlog                   # per-tag and total percentiles\n"
"  latlab report --tag e2e --json run.hlog  # one tag, for scripts\n"
"  latlab report run.hlog --hgrm run.hgrm --hgrm-ratio 1e6\n"
"                                           # merged, in ms, for the plotter\n"
"  latlab report --unit-ns-per-value 1e6 old.hgrm\n"
"                                           # .hgrm written in milliseconds\n";

enum {
	OPT_TAG = 1000,
	OPT_JSON,
	OPT_HGRM,
	OPT_HGRM_RATIO,
	OPT_TICKS,
	OPT_UNIT,
};

struct report_opts {
	const char *path;
	const char *tag;          /* NULL = all */
	bool json;
	const char *hgrm_out;
	double hgrm_ratio;
	int32_t ticks;
	double ns_per_value;      /* 0 = default / what the file says */
};

static const double report_pcts[] = { 50, 90, 99, 99.9, 99.99 };
static const char *const report_pct_names[] = { "p50", "p90", "p99",
						"p99.9", "p99.99" };
/* JSON keys without dots (jq paths), as 'latlab co' and 'pipeline' */
static const char *const report_pct_keys[] = { "p50_ns", "p90_ns", "p99_ns",
					       "p999_ns", "p9999_ns" };
#define REPORT_NPCTS (sizeof(report_pcts) / sizeof(report_pcts[0]))

/* The numbers one row shows, in ns. */
struct row_stats {
	int64_t count;
	double min, max, mean, stddev;
	double pct[REPORT_NPCTS];
};

static void stats_of(const struct report_data *d, const struct lat_hist *h,
		     double ns, struct row_stats *s)
{
	s->count = h->total_count;
	s->min = (double)lat_hist_min(h) * ns;
	s->max = (double)lat_hist_max(h) * ns;
	s->mean = lat_hist_mean(h) * ns;
	s->stddev = lat_hist_stddev(h) * ns;
	for (size_t i = 0; i < REPORT_NPCTS; i++)
		s->pct[i] = (double)lat_hist_value_at_percentile(h,
				report_pcts[i]) * ns;
	if (d->is_hgrm && d->hgrm.has_footer) {
		/* the footer is exact where the rebuilt histogram is not;
		 * it is in file units, the rebuilt histogram in ns */
		s->mean = d->hgrm.mean * d->hgrm_scale;
		s->stddev = d->hgrm.stddev * d->hgrm_scale;
		s->max = d->hgrm.max * d->hgrm_scale;
	}
}

static const char *tag_label(const char *name)
{
	return *name ? name : "(untagged)";
}

/* Column widths wide enough for the longest tag and the largest count. */
struct text_widths {
	int label, count;
};

static void print_text_row(const struct text_widths *w, const char *label,
			   const struct row_stats *s)
{
	char b[LAT_FMT_LEN];

	printf("%-*s %*lld", w->label, label, w->count, (long long)s->count);
	if (!s->count) {
		printf("  (no values)\n");
		return;
	}
	printf(" %9s", lat_fmt_ns(b, sizeof(b), s->min));
	for (size_t i = 0; i < REPORT_NPCTS; i++)
		printf(" %9s", lat_fmt_ns(b, sizeof(b), s->pct[i]));
	printf(" %9s", lat_fmt_ns(b, sizeof(b), s->max));
	printf(" %9s\n", lat_fmt_ns(b, sizeof(b), s->mean));
}

static void text_widths(const struct report_data *d, struct text_widths *w)
{
	char n[32];

	w->label = 12;
	w->count = snprintf(n, sizeof(n), "%lld",
			    (long long)d->total.hist->total_count);
	if (w->count < 10)
		w->count = 10;
	for (int i = 0; i < d->ntags; i++) {
		int len = (int)strlen(tag_label(d->tags[i].name));

		if (len > w->label)
			w->label = len;
	}
}

static void print_text(const struct report_opts *o,
		       const struct report_data *d, double ns)
{
	struct text_widths w;
	struct row_stats s;

	if (d->is_hgrm)
		printf("%s: .hgrm, %d row%s, %d significant digit%s\n",
		       o->path, d->hgrm.rows, d->hgrm.rows == 1 ? "" : "s",
		       d->hgrm.sig_figs, d->hgrm.sig_figs == 1 ? "" : "s");
	else
		printf("%s: %lld interval%s, %d tag%s, %.3f s\n", o->path,
		       (long long)d->total.intervals,
		       d->total.intervals == 1 ? "" : "s", d->ntags,
		       d->ntags == 1 ? "" : "s",
		       d->total.last_end_s - d->total.first_start_s);
	text_widths(d, &w);
	printf("%-*s %*s %9s", w.label, "tag", w.count, "count", "min");
	for (size_t i = 0; i < REPORT_NPCTS; i++)
		printf(" %9s", report_pct_names[i]);
	printf(" %9s %9s\n", "max", "mean");
	for (int i = 0; i < d->ntags; i++) {
		stats_of(d, d->tags[i].hist, ns, &s);
		print_text_row(&w, tag_label(d->tags[i].name), &s);
	}
	stats_of(d, d->total.hist, ns, &s);
	print_text_row(&w, "(all)", &s);
}

static void json_stats(struct lat_json *j, const struct row_stats *s)
{
	/* an empty histogram has no values: NaN is written as null */
	double none = s->count ? 0 : NAN;

	lat_json_int(j, "count", s->count);
	lat_json_double(j, "min_ns", s->min + none);
	for (size_t i = 0; i < REPORT_NPCTS; i++)
		lat_json_double(j, report_pct_keys[i], s->pct[i] + none);
	lat_json_double(j, "max_ns", s->max + none);
	lat_json_double(j, "mean_ns", s->mean + none);
	lat_json_double(j, "stddev_ns", s->stddev + none);
}

static void print_json(const struct report_opts *o,
		       const struct report_data *d, double ns)
{
	struct lat_json j;
	struct row_stats s;

	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_str(&j, "file", o->path);
	lat_json_str(&j, "format", d->is_hgrm ? "hgrm" : "hlog");
	lat_json_double(&j, "ns_per_value", ns);
	lat_json_int(&j, "refused_counts", d->refused);
	if (d->is_hgrm) {
		lat_json_int(&j, "rows", d->hgrm.rows);
		lat_json_int(&j, "sig_figs", d->hgrm.sig_figs);
	} else {
		lat_json_int(&j, "intervals", d->total.intervals);
		if (isfinite(d->start_time_s))
			lat_json_double(&j, "start_time_s", d->start_time_s);
	}
	lat_json_arr_begin(&j, "tags");
	for (int i = 0; i < d->ntags; i++) {
		lat_json_obj_begin(&j, NULL);
		lat_json_str(&j, "tag", d->tags[i].name);
		lat_json_int(&j, "intervals", d->tags[i].intervals);
		stats_of(d, d->tags[i].hist, ns, &s);
		json_stats(&j, &s);
		lat_json_obj_end(&j);
	}
	lat_json_arr_end(&j);
	lat_json_obj_begin(&j, "total");
	stats_of(d, d->total.hist, ns, &s);
	json_stats(&j, &s);
	lat_json_obj_end(&j);
	lat_json_obj_end(&j);
	if (lat_json_finish(&j))
		cli_fail("report", "internal error: bad JSON nesting");
}

static void write_hgrm(const struct report_opts *o,
		       const struct report_data *d, double ns)
{
	FILE *f = fopen(o->hgrm_out, "w");
	int rc;

	if (!f)
		cli_fail("report", "cannot create '%s': %s", o->hgrm_out,
			     strerror(errno));
	/* a comment the plotter ignores and our reader uses for the unit */
	fprintf(f, "#[Value unit: %.17g ns per value]\n", ns * o->hgrm_ratio);
	rc = lat_hgrm_write(f, d->total.hist, o->ticks, o->hgrm_ratio, false);
	if (fclose(f) && !rc)
		rc = -1;
	if (rc)
		cli_fail("report", "cannot write '%s'", o->hgrm_out);
}

static void parse_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
		{ "tag", required_argument, NULL, OPT_TAG },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "hgrm", required_argument, NULL, OPT_HGRM },
		{ "hgrm-ratio", required_argument, NULL, OPT_HGRM_RATIO },
		{ "ticks", required_argument, NULL, OPT_TICKS },
		{ "unit-ns-per-value", required_argument, NULL, OPT_UNIT },
		{ NULL, 0, NULL, 0 },
	};
	bool ratio_set = false, ticks_set = false;
	int c;

	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_TAG:
			o->tag = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_HGRM:
			o->hgrm_out = optarg;
			break;
		case OPT_HGRM_RATIO:
			o->hgrm_ratio = cli_double("report", "--hgrm-ratio",
						       optarg, 1e-9, 1e15);
			ratio_set = true;
			break;
		case OPT_TICKS:
			o->ticks = (int32_t)cli_u64("report", "--ticks",
							optarg, 1, 1000);
			ticks_set = true;
			break;
		case OPT_UNIT:
			o->ns_per_value = cli_double("report",
				"--unit-ns-per-value", optarg, 1e-9, 1e15);
			break;
		default:
			cli_bad_option("report", argv, c);
		}
	}
	if (optind >= argc)
		cli_usage_error("report", "no file given (see 'latlab "
				    "report --help')");
	if (optind + 1 < argc)
		cli_usage_error("report", "one file at a time, got '%s' "
				    "and '%s'", argv[optind], argv[optind + 1]);
	o->path = argv[optind];
	if (!o->hgrm_out && (ratio_set || ticks_set))
		cli_usage_error("report", "%s only applies to --hgrm "
				    "output", ratio_set ? "--hgrm-ratio" :
				    "--ticks");
}

/* Tell the reader, on stderr, what an .hgrm file could not keep. */
static void hgrm_notes(const struct report_opts *o,
		       const struct report_data *d)
{
	fprintf(stderr, "latlab report: note: .hgrm keeps one value per "
		"percentile tick; counts between ticks are placed at the "
		"upper tick%s\n", d->hgrm.has_footer ?
		" (mean, stddev and max are the footer's, exact)" : "");
	if (d->hgrm.fractional_values && !o->ns_per_value &&
	    !(d->hgrm.ns_per_value > 0))
		fprintf(stderr, "latlab report: note: values have decimals "
			"(written with a unit ratio); taking 1 value = 1 ns, "
			"pass --unit-ns-per-value (1e6 for ms) if wrong\n");
}

static int report_main(int argc, char **argv)
{
	struct report_opts o = { .hgrm_ratio = 1, .ticks = 5 };
	struct report_data d;
	char why[512];
	double ns;
	int rc;

	parse_args(argc, argv, &o);
	rc = report_load(o.path, o.tag, o.ns_per_value, &d, why, sizeof(why));
	if (rc)
		cli_usage_error("report", "%s", why);
	if (d.is_hgrm && o.tag) {
		report_data_free(&d);
		cli_usage_error("report", "--tag applies to .hlog files; "
				    "'%s' is .hgrm", o.path);
	}
	/* .hgrm values were scaled to ns while reading; hlog values not */
	ns = d.is_hgrm ? 1 : (o.ns_per_value > 0 ? o.ns_per_value : 1);
	if (d.is_hgrm)
		hgrm_notes(&o, &d);
	for (int i = -1; i < d.ntags; i++) {
		const struct report_tag *t = i < 0 ? &d.total : &d.tags[i];

		if (t->mixed_precision)
			fprintf(stderr, "latlab report: note: %s mixes "
				"intervals of different precision; merged at "
				"%d significant digit%s as HdrHistogram's "
				"add() does\n", i < 0 ? "the total" :
				tag_label(t->name), t->hist->sig_figs,
				t->hist->sig_figs == 1 ? "" : "s");
	}
	if (d.refused)
		fprintf(stderr, "latlab report: warning: %lld counts could "
			"not be merged (beyond the accumulator's range, or a "
			"total beyond 2^63)\n",
			(long long)d.refused);
	if (o.json)
		print_json(&o, &d, ns);
	else
		print_text(&o, &d, ns);
	if (o.hgrm_out)
		write_hgrm(&o, &d, ns);
	report_data_free(&d);
	return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_report = {
	.name = "report",
	.summary = "percentiles of an .hlog interval log or .hgrm file",
	.usage = report_usage,
	.run = report_main,
};
