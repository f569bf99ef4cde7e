/*
 * latlab profile: where a process's time goes, as folded stacks and an
 * interactive flame graph; --diff compares two folded profiles.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opt.h"
#include "out_file.h"
#include "latlab/json.h"
#include "latlab/prof.h"
#include "latlab/prof_overhead.h"

struct profile_opts {
	pid_t pid;
	double duration_ns;     /* 0: default */
	double freq_hz;
	bool user_only;
	const char *folded;
	const char *svg;
	bool offcpu;
	const char *offcpu_svg;
	const char *offcpu_folded;
	const char *title;
	const char *diff_before;
	const char *diff_after;
	const char *render;
	enum lat_prof_palette palette;
	bool json;
	bool overhead;
	uint64_t events;
	int rounds;
	char **cmd;             /* after "--" */
};

#define CMD "profile"

extern const struct cli_cmd cli_cmd_profile;

#define CLI_ARGS struct profile_opts
static const struct cli_opt opts[] = {
	{ CLI_U64("pid", pid, 1, 4194304), .short_name = 'p' },
	{ CLI_DURATION("duration", duration_ns, 1e9, 1e6, 86400e9) },
	{ CLI_U64("freq", freq_hz, 1, LAT_PROF_MAX_HZ) },
	{ CLI_FLAG("user-only", user_only) },
	{ CLI_STRING("folded", folded) },
	{ CLI_STRING("svg", svg) },
	{ CLI_FLAG("offcpu", offcpu) },
	{ CLI_STRING("offcpu-svg", offcpu_svg) },
	{ CLI_STRING("offcpu-folded", offcpu_folded) },
	{ CLI_STRING("title", title) },
	/* the three modes that sample nothing take none of -p's options */
	{ CLI_STRING("diff", diff_before), .excludes = "pid folded freq "
	  "duration user-only offcpu offcpu-svg offcpu-folded render" },
	{ CLI_STRING("render", render), .excludes = "pid folded freq duration "
	  "user-only offcpu offcpu-svg offcpu-folded" },
	{ CLI_WORDS("palette", palette, "hot cold") },
	{ CLI_FLAG("overhead", overhead), .excludes = "diff render pid folded "
	  "svg freq duration user-only offcpu offcpu-svg offcpu-folded" },
	{ CLI_U64("events", events, 1000, 100000000), .needs = "overhead" },
	{ CLI_U64("rounds", rounds, 1, 100), .needs = "overhead" },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

static void parse(int argc, char **argv, struct profile_opts *o)
{
	int dashdash = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	if (dashdash) { /* the command's own flags are not ours */
		o->cmd = argv + dashdash + 1;
		argc = dashdash;
	}
	/* GNU order: the --diff <after> operand may come before options */
	cli_parse(&cli_cmd_profile, o, argc, argv);
	o->offcpu |= o->offcpu_svg || o->offcpu_folded;
	if (o->diff_before) {
		if (optind >= argc)
			cli_usage_error(CMD, "--diff needs two files: "
					    "--diff <before> <after>");
		o->diff_after = argv[optind++];
	}
	if (o->cmd && (o->diff_before || o->render || o->overhead))
		cli_usage_error(CMD, "a command to profile goes with neither "
				"--diff, --render nor --overhead");
	cli_no_operands(CMD, argc, argv);
	/* every output named, before anything runs: writable, not an input,
	 * not another output ('-' is stdout, which only one may be) */
	cli_outs_check(CMD, (const struct cli_out[]){
		{ "--svg", o->svg }, { "--folded", o->folded },
		{ "--offcpu-svg", o->offcpu_svg },
		{ "--offcpu-folded", o->offcpu_folded } }, 4,
		(const char *[]){ o->diff_before, o->diff_after, o->render }, 3,
		true);
	if (o->diff_before || o->render || o->overhead)
		return;
	if (o->cmd && !o->cmd[0])
		cli_usage_error(CMD, "no command after '--'");
	if (!o->pid && !o->cmd)
		cli_usage_error(CMD, "nothing to profile: give -p <pid> "
				    "or -- <command> (see --help)");
	if (o->pid && o->cmd)
		cli_usage_error(CMD, "-p and a command exclude each other");
	for (const char *const *p = (const char *[]){ o->folded, o->svg,
	     o->offcpu_svg, o->offcpu_folded, NULL }; o->json && *p; p++)
		if (!strcmp(*p, "-"))
			cli_usage_error(CMD, "only one output can go to stdout "
					"('-'), and not with --json");
	if (!o->freq_hz)
		o->freq_hz = LAT_PROF_DEFAULT_HZ;
	if (o->pid && !o->duration_ns)
		o->duration_ns = 10e9;
}

static FILE *open_out(const char *path)
{
	return strcmp(path, "-") ? cli_out_open(CMD, path) : stdout;
}

static void close_out(FILE *f, const char *path, int rc)
{
	if (f == stdout) {
		if (rc)
			cli_fail(CMD, "writing to stdout failed: %s",
				     lat_strerror(rc));
		return;
	}
	cli_out_close(CMD, path, f, rc);
}

/* --diff's and --render's SVG: stdout unless --svg, which --json needs. */
static FILE *open_svg(const struct profile_opts *o)
{
	if (o->json && (!o->svg || !strcmp(o->svg, "-")))
		cli_usage_error(CMD, "--json with the SVG on stdout: give "
				"--svg <file>");
	return open_out(o->svg ? o->svg : "-");
}

static void read_folded(const char *path, struct lat_prof_folded *f)
{
	size_t line = 0;
	int rc = lat_prof_folded_load(f, path, &line);

	if (rc == -LAT_EFORMAT)
		cli_usage_error(CMD, "'%s' line %zu: not a folded stack "
				    "('frame;frame;... count')", path, line);
	if (rc)
		cli_usage_error(CMD, "cannot read '%s': %s", path,
				    lat_strerror(rc));
	if (!f->total)
		cli_usage_error(CMD, "'%s' holds no samples", path);
}

/* --diff and --render: folded files in, one flame graph out. */
static int run_graph(const struct profile_opts *o)
{
	struct lat_prof_folded f[2];
	bool diff = o->diff_before != NULL;
	struct lat_prof_svg_opts so = {
		.title = o->title ? o->title : diff ? "Differential flame graph"
						    : "Flame graph",
		.subtitle = diff ? NULL : o->render,
		.palette = o->palette,
	};
	struct lat_json j;
	FILE *out;
	int rc = 0;

	lat_prof_folded_init(&f[0]);
	lat_prof_folded_init(&f[1]);
	read_folded(diff ? o->diff_before : o->render, &f[0]);
	if (diff)
		read_folded(o->diff_after, &f[1]);
	out = open_svg(o);
	close_out(out, o->svg ? o->svg : "-", diff
		  ? lat_prof_svg_write_diff(&f[0], &f[1], &so, out)
		  : lat_prof_svg_write(&f[0], &so, out));
	if (o->json) {
		lat_json_init(&j, stdout);
		if (diff)
			rc = lat_prof_diff_json(&j, &f[0], &f[1]);
		else
			lat_prof_folded_json(&j, NULL, &f[0]);
		if (rc)
			cli_fail(CMD, "comparing: %s", lat_strerror(rc));
		cli_json_end(CMD, &j);
	}
	lat_prof_folded_release(&f[0]);
	lat_prof_folded_release(&f[1]);
	return CLI_EXIT_OK;
}

/* Attach (or spawn) failures are the user's input: exit 2, one line. */
static _Noreturn void attach_failed(const struct profile_opts *o,
				    const char *why, int rc)
{
	if (o->cmd && rc == -ENOENT)
		cli_usage_error(CMD, "command '%s' not found", o->cmd[0]);
	if (o->cmd && (rc == -EACCES || rc == -ENOEXEC || rc == -EISDIR) &&
	    !*why)
		cli_usage_error(CMD, "cannot run '%s': %s", o->cmd[0],
				    strerror(-rc));
	if (rc == -LAT_EUNSUPP)
		cli_fail(CMD, "unavailable: %s", why);
	if (rc == -ESRCH || rc == -EACCES || rc == -EPERM)
		cli_usage_error(CMD, "%s", why);
	cli_fail(CMD, "%s", *why ? why : lat_strerror(rc));
}

static int run_sample(const struct profile_opts *o)
{
	/* each output by the step that writes it ("-": stdout) */
	const char *path[] = {
		[LAT_PROF_RUN_FOLDED] = o->folded,
		[LAT_PROF_RUN_OFFCPU_FOLDED] = o->offcpu_folded,
		[LAT_PROF_RUN_SVG] = o->svg,
		[LAT_PROF_RUN_OFFCPU_SVG] = o->offcpu_svg,
		[LAT_PROF_RUN_OUT] = "-",
	};
	FILE *f[LAT_PROF_RUN_OUT + 1] = { NULL };
	struct lat_prof_run run = {
		.cfg = { .freq_hz = o->freq_hz, .user_only = o->user_only,
			 .offcpu = o->offcpu },
		.pid = o->pid, .argv = o->cmd, .duration_ns = o->duration_ns,
		.stop = lat_stop_requested, .title = o->title,
		.json = o->json, .note = stderr, .out = stdout,
		.note_prefix = "latlab " CMD ": ",
	};
	int rc;

	/* bad output paths fail before the profile is taken */
	for (int i = LAT_PROF_RUN_FOLDED; i < LAT_PROF_RUN_OUT; i++)
		if (path[i] && (f[i] = open_out(path[i])) == stdout)
			run.out = NULL; /* an output took the summary's place */
	run.folded = f[LAT_PROF_RUN_FOLDED];
	run.offcpu_folded = f[LAT_PROF_RUN_OFFCPU_FOLDED];
	run.svg = f[LAT_PROF_RUN_SVG];
	run.offcpu_svg = f[LAT_PROF_RUN_OFFCPU_SVG];
	lat_stop_catch_signals();
	rc = lat_prof_run(&run);
	if (rc && run.failed == LAT_PROF_RUN_ATTACH)
		attach_failed(o, run.why, rc);
	if (rc && run.failed == LAT_PROF_RUN_SAMPLE)
		cli_fail(CMD, "sampling failed: %s", lat_strerror(rc));
	if (rc && run.failed == LAT_PROF_RUN_FOLD)
		cli_fail(CMD, "symbolizing failed: %s", lat_strerror(rc));
	if (rc && run.failed >= LAT_PROF_RUN_FOLDED)
		close_out(f[run.failed], path[run.failed], rc);
	if (rc)
		cli_fail(CMD, "%s", lat_strerror(rc));
	if (o->json)
		printf("\n"); /* the blank line after every JSON document */
	for (int i = LAT_PROF_RUN_FOLDED; i < LAT_PROF_RUN_OUT; i++)
		if (f[i])
			close_out(f[i], path[i], 0);
	/* above 1 kHz the profiler's cost shows: measured and said */
	if (o->freq_hz > LAT_PROF_COSTLY_HZ) {
		char what[64];

		snprintf(what, sizeof(what), "latlab " CMD ": warning: --freq "
			 "%.0f", o->freq_hz);
		lat_prof_overhead_warn(stderr, what, o->freq_hz, &run.st);
	}
	return cli_exit_status();
}

/* --overhead: the pipeline unprofiled and at 99, 999 and 9999 Hz. */
static int run_overhead(const struct profile_opts *o)
{
	struct lat_prof_overhead_config c;
	struct lat_prof_overhead_row rows[LAT_PROF_OVERHEAD_MAX_RATES];
	bool over = false;
	int rc;

	lat_prof_overhead_config_init(&c);
	if (o->events)
		c.pipe.events = o->events;
	if (o->rounds)
		c.rounds = o->rounds;
	rc = lat_pipe_autoplace(&c.pipe, false, &over);
	if (rc)
		cli_fail(CMD, "placing the pipeline: %s", lat_strerror(rc));
	c.stop = lat_stop_pipe;
	lat_stop_catch_signals();
	rc = lat_prof_overhead_run(&c, rows);
	if (rc && rc != -EINTR)
		cli_fail(CMD, "--overhead: %s", lat_strerror(rc));
	if (lat_prof_overhead_report(stdout, o->json, "latlab profile "
				     "--overhead: ", &c, rows, over))
		cli_fail(CMD, "cannot write the results");
	if (o->json)
		printf("\n"); /* the blank line after every JSON document */
	return cli_exit_status();
}

static int profile_main(int argc, char **argv)
{
	struct profile_opts o = { 0 };

	parse(argc, argv, &o);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	if (o.overhead)
		return run_overhead(&o);
	if (o.render || o.diff_before)
		return run_graph(&o);
	return run_sample(&o);
}

const struct cli_cmd cli_cmd_profile = {
	.name = "profile",
	.opts = opts,
	.operands = true,
	.run = profile_main,
};
