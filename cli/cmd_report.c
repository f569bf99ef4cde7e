/*
 * latlab report: percentiles of an .hlog interval log (per tag and in
 * total) or of an .hgrm percentile file, optionally re-written as .hgrm.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "latlab/common.h"
#include "out_file.h"
#include "latlab/compare.h"
#include "latlab/hist_io.h"
#include "latlab/svg.h"

#define CMD "report"
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

#define CLI_ARGS struct report_opts
static const struct cli_opt opts[] = {
	{ CLI_STRING("tag", tag) },
	{ CLI_FLAG("json", json) },
	{ CLI_STRING("hgrm", hgrm_out) },
	{ CLI_DOUBLE("hgrm-ratio", hgrm_ratio, 1e-9, 1e15), .needs = "hgrm" },
	{ CLI_U64("ticks", ticks, 1, 1000), .needs = "hgrm" },
	{ CLI_STRING("svg", svg_out) },
	{ CLI_FLAG("linear", linear), .needs = "svg" },
	{ CLI_FLAG("compare", compare) },
	{ CLI_DOUBLE("unit-ns-per-value", ns_per_value, 1e-9, 1e15) },
	{ 0 },
};

static void parse_args(int argc, char **argv, struct report_opts *o)
{
	int first = cli_parse(&cli_cmd_report, o, argc, argv);

	if (first >= argc)
		cli_usage_error(CMD, "no file given (see 'latlab "
				"report --help')");
	o->paths = (const char *const *)argv + first;
	o->npaths = argc - first;
	o->path = o->paths[0];
	if (o->npaths > MAX_FILES)
		cli_usage_error(CMD, "at most %d files, got %d",
				MAX_FILES, o->npaths);
	if (o->compare && o->npaths < 2)
		cli_usage_error(CMD, "--compare needs two files or "
				"more, got only '%s'", o->path);
	if (o->npaths > 1 && !o->compare && !o->svg_out)
		cli_usage_error(CMD, "one file at a time without "
				"--svg or --compare, got '%s' and '%s'",
				o->paths[0], o->paths[1]);
	if (o->npaths > 1 && o->hgrm_out)
		cli_usage_error(CMD, "--hgrm takes one input file");
	if (o->svg_out)
		cli_out_check(CMD, "--svg", o->svg_out, o->paths,
			      o->npaths, "an input file");
	if (o->hgrm_out)
		cli_out_check(CMD, "--hgrm", o->hgrm_out, o->paths,
			      o->npaths, "an input file");
	if (o->hgrm_out && o->svg_out && !strcmp(o->hgrm_out, o->svg_out))
		cli_usage_error(CMD, "--hgrm and --svg are the same "
				"file '%s'", o->svg_out);
}

static int report_main(int argc, char **argv)
{
	struct report_opts o = { .hgrm_ratio = 1, .ticks = 5 };
	static struct lat_compare_file f[MAX_FILES];
	char why[512];
	int rc;

	parse_args(argc, argv, &o);
	if (cli_parsed())
		return CLI_EXIT_OK;
	/* every input is read (exit 2 if one is unreadable) and checked
	 * before anything is printed or an output is written */
	rc = lat_compare_files_load(f, o.npaths, o.paths, o.tag,
				    o.ns_per_value, o.compare, why, sizeof(why));
	if (rc == -ENOTSUP)
		cli_usage_error(CMD, "--tag applies to .hlog files; %s", why);
	if (rc && !*why) /* out of memory: nothing wrong with the file */
		cli_fail(CMD, "%s", lat_strerror(rc));
	if (rc)
		cli_usage_error(CMD, "%s", why);
	if (o.compare && lat_compare_files_check(f, o.npaths, why,
						 sizeof(why)))
		cli_usage_error(CMD, "--compare: %s", why);
	if (o.svg_out &&
	    lat_compare_svg_lines(f, o.npaths) > LAT_SVG_MAX_CURVES)
		cli_usage_error(CMD, "--svg draws at most %d lines; pick one "
				"with --tag", LAT_SVG_MAX_CURVES);
	for (int i = 0; i < o.npaths; i++)
		lat_hlog_notes(stderr, "latlab report: ",
			       o.npaths > 1 ? f[i].path : NULL, f[i].data,
			       o.ns_per_value > 0);
	cli_stdout_check(CMD, lat_compare_files_write(stdout, f, o.npaths,
						      o.compare, o.json));
	if (o.hgrm_out)
		CLI_OUT_WRITE(CMD, o.hgrm_out, h, lat_hgrm_write_unit(h,
			      f[0].data->total.hist, o.ticks, o.hgrm_ratio,
			      f[0].ns_per_value));
	if (o.svg_out)
		CLI_OUT_WRITE(CMD, o.svg_out, svg,
			      lat_compare_svg(svg, f, o.npaths, o.linear));
	lat_compare_files_release(f, o.npaths);
	return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_report = {
	.name = CMD,
	.opts = opts,
	.operands = true,
	.run = report_main,
};
