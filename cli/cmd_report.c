/*
 * latlab report: percentiles of an .hlog interval log (per tag and in
 * total) or of an .hgrm percentile file, optionally re-written as .hgrm.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "out_file.h"
#include "latlab/compare.h"
#include "latlab/hist_io.h"
#include "latlab/svg.h"

#define MAX_FILES LAT_COMPARE_MAX_FILES

extern const struct cli_cmd cli_cmd_report;

struct report_opts {
	const char *path;         /* the first file */
	const char *const *paths;
	int npaths;
	const char *tag;          /* NULL = all */
	bool json;
	const char *hgrm_out;
	double hgrm_ratio;
	int32_t ticks;
	double ns_per_value;      /* 0 = default / what the file says */
	const char *svg_out;
	bool linear;
	bool compare;
};

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

#define CLI_ARGS struct report_opts
static const struct cli_opt opts[] = {
	{ CLI_STRING("tag", tag) },
	{ CLI_FLAG("json", json) },
	{ CLI_STRING("hgrm", hgrm_out) },
	{ CLI_DOUBLE("hgrm-ratio", hgrm_ratio, 1e-9, 1e15) },
	{ CLI_U64("ticks", ticks, 1, 1000) },
	{ CLI_STRING("svg", svg_out) },
	{ CLI_FLAG("linear", linear) },
	{ CLI_FLAG("compare", compare) },
	{ CLI_DOUBLE("unit-ns-per-value", ns_per_value, 1e-9, 1e15) },
	{ 0 },
};

static void parse_args(int argc, char **argv, struct report_opts *o)
{
	int first = cli_parse(&cli_cmd_report, o, argc, argv);

	if (first >= argc)
		cli_usage_error("report", "no file given (see 'latlab "
				"report --help')");
	o->paths = (const char *const *)argv + first;
	o->npaths = argc - first;
	o->path = o->paths[0];
	if (o->npaths > MAX_FILES)
		cli_usage_error("report", "at most %d files, got %d",
				MAX_FILES, o->npaths);
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
	if (!o->hgrm_out && (cli_given("hgrm-ratio") || cli_given("ticks")))
		cli_usage_error("report", "%s only applies to --hgrm "
				    "output", cli_given("hgrm-ratio") ? "--hgrm-ratio" :
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

/*
 * Load one file, and for --compare its spreads in the same pass (a FIFO
 * or <(cmd) has no second reading); exit 2 if it is unreadable.
 */
static struct lat_hlog_data *load(const struct report_opts *o,
				  const char *path,
				  struct lat_compare_spreads *spreads)
{
	struct lat_hlog_data *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		cli_fail("report", "out of memory");
	rc = spreads ? lat_compare_load(path, o->tag, o->ns_per_value, d,
					spreads)
		     : lat_hlog_load(path, o->tag, o->ns_per_value, d);
	if (rc)
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
	char label[LAT_HLOG_LABEL_LEN];
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
				lat_hlog_tag_label(t->name, label,
						   sizeof(label)),
				t->hist->sig_figs,
				t->hist->sig_figs == 1 ? "" : "s");
	}
	if (d->refused)
		fprintf(stderr, "latlab report: warning: %s%s%lld counts could "
			"not be merged (beyond the accumulator's range, or a "
			"total beyond 2^63)\n", path, sep,
			(long long)d->refused);
}

static void print_json(const struct report_opts *o,
		       const struct lat_compare_file *f)
{
	struct lat_json j;

	lat_json_init(&j, stdout);
	if (o->npaths > 1) {
		lat_json_obj_begin(&j, NULL);
		lat_json_arr_begin(&j, "files");
	}
	for (int i = 0; i < o->npaths; i++)
		lat_hlog_json(&j, f[i].path, f[i].data, f[i].ns_per_value);
	if (o->npaths > 1) {
		lat_json_arr_end(&j);
		lat_json_obj_end(&j);
	}
	if (lat_json_finish(&j))
		cli_fail("report", "internal error: bad JSON nesting");
}

/* --compare: every file against the first, as a table or --json. */
static void compare(const struct report_opts *o,
		    const struct lat_compare_file *f)
{
	struct lat_json j;
	int rc;

	if (!o->json) {
		rc = lat_compare_print(stdout, f, o->npaths);
	} else {
		lat_json_init(&j, stdout);
		rc = lat_compare_json(&j, f, o->npaths);
		if (!rc && lat_json_finish(&j))
			cli_fail("report", "internal error: bad JSON nesting");
	}
	if (rc)
		cli_fail("report", "--compare: %s", lat_strerror(rc));
}

static void write_svg(const struct report_opts *o,
		      const struct lat_compare_file *f)
{
	FILE *out = cli_out_open("report", o->svg_out);
	int rc = lat_compare_svg(out, f, o->npaths, o->linear);

	cli_out_close("report", o->svg_out, out, rc);
}

static int report_main(int argc, char **argv)
{
	struct report_opts o = { .hgrm_ratio = 1, .ticks = 5 };
	struct lat_hlog_data *d[MAX_FILES];
	static struct lat_compare_file f[MAX_FILES];
	char why[512];

	parse_args(argc, argv, &o);
	if (cli_parsed())
		return CLI_EXIT_OK;
	for (int i = 0; i < o.npaths; i++) {
		d[i] = load(&o, o.paths[i], o.compare ? &f[i].spreads : NULL);
		f[i].path = o.paths[i];
		f[i].data = d[i];
		f[i].ns_per_value = lat_hlog_ns_per_value(d[i], o.ns_per_value);
	}
	if (o.compare && lat_compare_files_check(f, o.npaths, why,
						 sizeof(why)))
		cli_usage_error("report", "--compare: %s", why);
	/* refused before anything is printed or --hgrm is written */
	if (o.svg_out &&
	    lat_compare_svg_lines(f, o.npaths) > LAT_SVG_MAX_CURVES)
		cli_usage_error("report", "--svg draws at most %d lines; pick "
				"one with --tag", LAT_SVG_MAX_CURVES);
	for (int i = 0; i < o.npaths; i++)
		notes(&o, o.paths[i], d[i]);
	if (o.compare)
		compare(&o, f);
	else if (o.json)
		print_json(&o, f);
	else
		for (int i = 0; i < o.npaths; i++)
			lat_hlog_print(stdout, f[i].path, d[i],
				       f[i].ns_per_value);
	if (o.hgrm_out)
		write_hgrm(&o, d[0], f[0].ns_per_value);
	if (o.svg_out)
		write_svg(&o, f);
	lat_compare_files_release(f, o.npaths);
	for (int i = 0; i < o.npaths; i++) {
		lat_hlog_data_free(d[i]);
		free(d[i]);
	}
	return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_report = {
	.name = "report",
	.opts = opts,
	.operands = true,
	.run = report_main,
};
