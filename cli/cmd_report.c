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
#include "out_file.h"
#include "report.h"
#include "latlab/hist_io.h"

static const char report_usage[] =
"latlab report: percentiles of an HdrHistogram interval log or .hgrm file\n"
"\n"
"usage: latlab report [<options>] <file.hlog | file.hgrm>\n"
"       latlab report --svg <out.svg> [<options>] <file>...\n"
"       latlab report --compare [<options>] <baseline> <file>...\n"
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
"  --svg <out.svg>      draw the percentile spectrum of every file (one\n"
"                       line per file and tag; x = percentile on a\n"
"                       log(1/(1-p)) axis, y = latency)\n"
"  --linear             linear latency axis in --svg (default log)\n"
"  --compare            percentiles of every file beside the first's,\n"
"                       with ratios and a verdict per percentile: 'noise'\n"
"                       when the files' interval-to-interval spreads\n"
"                       overlap, else 'higher' or 'lower' (files must hold\n"
"                       the same tags)\n"
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
"                                           # .hgrm written in milliseconds\n"
"  latlab report --svg tail.svg run.hlog    # one line per tag\n"
"  latlab report --svg ab.svg --tag e2e a.hlog b.hlog\n"
"                                           # two runs' e2e in one picture\n"
"  latlab report --compare a.hlog b.hlog    # b against a, noise or not\n";

enum {
	OPT_TAG = 1000,
	OPT_JSON,
	OPT_HGRM,
	OPT_HGRM_RATIO,
	OPT_TICKS,
	OPT_UNIT,
	OPT_SVG,
	OPT_LINEAR,
	OPT_COMPARE,
};


const char *report_tag_label(const char *name)
{
	/* tags come from files: control bytes (escape sequences) are shown
	 * as \xNN, never sent to the terminal; a few labels live at once */
	static char buf[4][4 * 256 + 1];
	static int next;
	char *out = buf[next++ % 4];
	size_t n = 0;

	if (!*name)
		return "(untagged)";
	for (const unsigned char *p = (const unsigned char *)name;
	     *p && n + 5 < sizeof(buf[0]); p++) {
		if (*p < 0x20 || *p == 0x7f)
			n += (size_t)snprintf(out + n, 5, "\\x%02x", *p);
		else
			out[n++] = (char)*p;
	}
	out[n] = '\0';
	return out;
}

/* Column widths wide enough for the longest tag and the largest count. */
struct text_widths {
	int label, count;
};

static void print_text_row(const struct text_widths *w, const char *label,
			   const struct lat_hist_summary *s)
{
	char b[LAT_FMT_LEN];

	printf("%-*s %*lld", w->label, label, w->count, (long long)s->count);
	if (!s->count) {
		printf("  (no values)\n");
		return;
	}
	printf(" %9s", lat_fmt_ns(b, sizeof(b), s->min));
	for (int i = 0; i < LAT_HIST_SUMMARY_N; i++)
		printf(" %9s", lat_fmt_ns(b, sizeof(b), s->pct[i]));
	printf(" %9s", lat_fmt_ns(b, sizeof(b), s->max));
	printf(" %9s\n", lat_fmt_ns(b, sizeof(b), s->mean));
}

static void text_widths(const struct lat_hlog_data *d, struct text_widths *w)
{
	char n[32];

	w->label = 12;
	w->count = snprintf(n, sizeof(n), "%lld",
			    (long long)d->total.hist->total_count);
	if (w->count < 10)
		w->count = 10;
	for (int i = 0; i < d->ntags; i++) {
		int len = (int)strlen(report_tag_label(d->tags[i].name));

		if (len > w->label)
			w->label = len;
	}
}

static void print_text(const char *path, const struct lat_hlog_data *d,
		       double ns)
{
	struct text_widths w;
	struct lat_hist_summary s;

	if (d->is_hgrm)
		printf("%s: .hgrm, %d row%s, %d significant digit%s\n",
		       path, d->hgrm.rows, d->hgrm.rows == 1 ? "" : "s",
		       d->hgrm.sig_figs, d->hgrm.sig_figs == 1 ? "" : "s");
	else
		printf("%s: %lld interval%s, %d tag%s, %.3f s\n", path,
		       (long long)d->total.intervals,
		       d->total.intervals == 1 ? "" : "s", d->ntags,
		       d->ntags == 1 ? "" : "s",
		       d->total.last_end_s - d->total.first_start_s);
	text_widths(d, &w);
	printf("%-*s %*s %9s", w.label, "tag", w.count, "count", "min");
	for (int i = 0; i < LAT_HIST_SUMMARY_N; i++)
		printf(" %9s", lat_hist_summary_names[i]);
	printf(" %9s %9s\n", "max", "mean");
	for (int i = 0; i < d->ntags; i++) {
		lat_hlog_summarize(d, d->tags[i].hist, ns, &s);
		print_text_row(&w, report_tag_label(d->tags[i].name), &s);
	}
	lat_hlog_summarize(d, d->total.hist, ns, &s);
	print_text_row(&w, "(all)", &s);
}

/* One file's document (an object without key) into @j. */
static void json_file(struct lat_json *j, const char *path,
		      const struct lat_hlog_data *d, double ns)
{
	struct lat_hist_summary s;

	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "file", path);
	lat_json_str(j, "format", d->is_hgrm ? "hgrm" : "hlog");
	lat_json_double(j, "ns_per_value", ns);
	lat_json_int(j, "refused_counts", d->refused);
	if (d->is_hgrm) {
		lat_json_int(j, "rows", d->hgrm.rows);
		lat_json_int(j, "sig_figs", d->hgrm.sig_figs);
	} else {
		lat_json_int(j, "intervals", d->total.intervals);
		if (isfinite(d->start_time_s))
			lat_json_double(j, "start_time_s", d->start_time_s);
	}
	lat_json_arr_begin(j, "tags");
	for (int i = 0; i < d->ntags; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "tag", d->tags[i].name);
		lat_json_int(j, "intervals", d->tags[i].intervals);
		lat_hlog_summarize(d, d->tags[i].hist, ns, &s);
		lat_hist_summary_write_json(j, &s);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_obj_begin(j, "total");
	lat_hlog_summarize(d, d->total.hist, ns, &s);
	lat_hist_summary_write_json(j, &s);
	lat_json_obj_end(j);
	lat_json_obj_end(j);
}

static void write_hgrm(const struct report_opts *o,
		       const struct lat_hlog_data *d, double ns)
{
	FILE *f = cli_out_open("report", o->hgrm_out);
	int rc;

	/* a comment the plotter ignores and our reader uses for the unit */
	fprintf(f, "#[Value unit: %.17g ns per value]\n", ns * o->hgrm_ratio);
	rc = lat_hgrm_write(f, d->total.hist, o->ticks, o->hgrm_ratio, false);
	cli_out_close("report", o->hgrm_out, f, rc);
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
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "linear", no_argument, NULL, OPT_LINEAR },
		{ "compare", no_argument, NULL, OPT_COMPARE },
		{ NULL, 0, NULL, 0 },
	};
	bool ratio_set = false, ticks_set = false;
	int c;

	while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
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
		case OPT_SVG:
			o->svg_out = optarg;
			break;
		case OPT_LINEAR:
			o->linear = true;
			break;
		case OPT_COMPARE:
			o->compare = true;
			break;
		default:
			cli_bad_option("report", argv, c);
		}
	}
	if (optind >= argc)
		cli_usage_error("report", "no file given (see 'latlab "
				"report --help')");
	o->paths = (const char *const *)argv + optind;
	o->npaths = argc - optind;
	o->path = o->paths[0];
	if (o->npaths > REPORT_MAX_FILES)
		cli_usage_error("report", "at most %d files, got %d",
				REPORT_MAX_FILES, o->npaths);
	if (o->compare && o->npaths < 2)
		cli_usage_error("report", "--compare needs two files or "
				"more, got only '%s'", o->path);
	if (o->npaths > 1 && !o->compare && !o->svg_out)
		cli_usage_error("report", "one file at a time without "
				"--svg or --compare, got '%s' and '%s'",
				o->paths[0], o->paths[1]);
	if (o->npaths > 1 && o->hgrm_out)
		cli_usage_error("report", "--hgrm takes one input file");
	if (o->linear && !o->svg_out)
		cli_usage_error("report", "--linear only applies to --svg");
	if (o->svg_out)
		cli_out_check("report", "--svg", o->svg_out, o->paths,
			      o->npaths, "an input file");
	if (o->hgrm_out)
		cli_out_check("report", "--hgrm", o->hgrm_out, o->paths,
			      o->npaths, "an input file");
	if (o->hgrm_out && o->svg_out && !strcmp(o->hgrm_out, o->svg_out))
		cli_usage_error("report", "--hgrm and --svg are the same "
				"file '%s'", o->svg_out);
	if (!o->hgrm_out && (ratio_set || ticks_set))
		cli_usage_error("report", "%s only applies to --hgrm "
				    "output", ratio_set ? "--hgrm-ratio" :
				    "--ticks");
}

/* Tell the reader, on stderr, what an .hgrm file could not keep. */
static void hgrm_notes(const struct report_opts *o,
		       const struct lat_hlog_data *d)
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

/* Load one file; exit 2 if it is unreadable. */
static struct lat_hlog_data *load(const struct report_opts *o,
				  const char *path)
{
	struct lat_hlog_data *d = calloc(1, sizeof(*d));

	if (!d)
		cli_fail("report", "out of memory");
	if (lat_hlog_load(path, o->tag, o->ns_per_value, d))
		cli_usage_error("report", "%s", d->why);
	if (d->is_hgrm && o->tag)
		cli_usage_error("report", "--tag applies to .hlog files; "
				"'%s' is .hgrm", path);
	return d;
}

/* Say on stderr what a file could not keep (once every input is good). */
static void notes(const struct report_opts *o, const char *path,
		  const struct lat_hlog_data *d)
{
	/* name the file only when there are several */
	const char *sep = o->npaths > 1 ? ": " : "";

	if (o->npaths == 1)
		path = "";
	if (d->is_hgrm)
		hgrm_notes(o, d);
	for (int i = -1; i < d->ntags; i++) {
		const struct lat_hlog_tag *t = i < 0 ? &d->total : &d->tags[i];

		if (t->mixed_precision)
			fprintf(stderr, "latlab report: note: %s%s%s mixes "
				"intervals of different precision; merged at "
				"%d significant digit%s as HdrHistogram's "
				"add() does\n", path, sep, i < 0 ? "the total" :
				report_tag_label(t->name), t->hist->sig_figs,
				t->hist->sig_figs == 1 ? "" : "s");
	}
	if (d->refused)
		fprintf(stderr, "latlab report: warning: %s%s%lld counts could "
			"not be merged (beyond the accumulator's range, or a "
			"total beyond 2^63)\n", path, sep,
			(long long)d->refused);
}

double report_ns_per_value(const struct report_opts *o,
			   const struct lat_hlog_data *d)
{
	/* .hgrm values were scaled to ns while reading; hlog values not */
	return d->is_hgrm ? 1 : (o->ns_per_value > 0 ? o->ns_per_value : 1);
}

static void print_json(const struct report_opts *o,
		       struct lat_hlog_data *const *d)
{
	struct lat_json j;

	lat_json_init(&j, stdout);
	if (o->npaths > 1) {
		lat_json_obj_begin(&j, NULL);
		lat_json_arr_begin(&j, "files");
	}
	for (int i = 0; i < o->npaths; i++)
		json_file(&j, o->paths[i], d[i], report_ns_per_value(o, d[i]));
	if (o->npaths > 1) {
		lat_json_arr_end(&j);
		lat_json_obj_end(&j);
	}
	if (lat_json_finish(&j))
		cli_fail("report", "internal error: bad JSON nesting");
}

static int report_main(int argc, char **argv)
{
	struct report_opts o = { .hgrm_ratio = 1, .ticks = 5 };
	struct lat_hlog_data *d[REPORT_MAX_FILES];
	struct lat_compare_spreads *sp = NULL;

	parse_args(argc, argv, &o);
	if (cli_parsed())
		return CLI_EXIT_OK;
	for (int i = 0; i < o.npaths; i++)
		d[i] = load(&o, o.paths[i]);
	if (o.compare)
		sp = report_compare_load(&o, d);
	for (int i = 0; i < o.npaths; i++)
		notes(&o, o.paths[i], d[i]);
	if (o.compare)
		report_compare(&o, d, sp);
	else if (o.json)
		print_json(&o, d);
	else
		for (int i = 0; i < o.npaths; i++)
			print_text(o.paths[i], d[i],
				   report_ns_per_value(&o, d[i]));
	if (o.hgrm_out)
		write_hgrm(&o, d[0], report_ns_per_value(&o, d[0]));
	if (o.svg_out)
		report_svg(&o, d);
	report_compare_free(&o, sp);
	for (int i = 0; i < o.npaths; i++) {
		lat_hlog_data_free(d[i]);
		free(d[i]);
	}
	return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_report = {
	.name = "report",
	.summary = "percentiles of an .hlog interval log or .hgrm file",
	.usage = report_usage,
	.run = report_main,
};
