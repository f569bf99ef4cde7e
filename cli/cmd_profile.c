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
	{ CLI_STRING("diff", diff_before) },
	{ CLI_STRING("render", render) },
	{ CLI_WORDS("palette", palette, "hot cold") },
	{ CLI_FLAG("overhead", overhead) },
	{ CLI_U64("events", events, 1000, 100000000), .needs = "overhead" },
	{ CLI_U64("rounds", rounds, 1, 100), .needs = "overhead" },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

/*
 * Every output named, before anything runs: writable, not an input, not
 * another output ('-' is stdout, which only one of them may be).
 */
static void check_outputs(const struct profile_opts *o)
{
	const struct {
		const char *flag, *path;
	} out[] = {
		{ "--svg", o->svg }, { "--folded", o->folded },
		{ "--offcpu-svg", o->offcpu_svg },
		{ "--offcpu-folded", o->offcpu_folded },
	};
	const char *others[7] = { o->diff_before, o->diff_after, o->render };
	int n_stdout = 0;

	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		if (!out[i].path)
			continue;
		if (!strcmp(out[i].path, "-")) {
			if (++n_stdout > 1)
				cli_usage_error(CMD, "only one output may be "
						"'-' (stdout)");
			continue;
		}
		for (size_t k = 0; k < i; k++)
			others[3 + k] = out[k].path;
		cli_out_check(CMD, out[i].flag, out[i].path, others,
			      3 + (int)i, "an input or another output");
	}
}

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
		if (o->pid || o->cmd || o->folded || o->freq_hz ||
		    o->duration_ns || o->user_only || o->offcpu)
			cli_usage_error(CMD, "--diff compares two files; "
					    "it takes only --svg, --title "
					    "and --json");
	}
	if (o->overhead && (o->diff_before || o->render || o->pid || o->cmd ||
			    o->folded || o->svg || o->freq_hz ||
			    o->duration_ns || o->offcpu || o->user_only))
		cli_usage_error(CMD, "--overhead runs its own experiment; it "
				"takes only --events, --rounds and --json");
	if (o->render && (o->diff_before || o->pid || o->cmd || o->folded ||
			  o->freq_hz || o->duration_ns || o->user_only ||
			  o->offcpu))
		cli_usage_error(CMD, "--render draws one file; it takes only "
				"--svg, --title, --palette and --json");
	cli_no_operands(CMD, argc, argv);
	check_outputs(o);
	if (o->diff_before || o->render || o->overhead)
		return;
	if (o->cmd && !o->cmd[0])
		cli_usage_error(CMD, "no command after '--'");
	if (!o->pid && !o->cmd)
		cli_usage_error(CMD, "nothing to profile: give -p <pid> "
				    "or -- <command> (see --help)");
	if (o->pid && o->cmd)
		cli_usage_error(CMD, "-p and a command exclude each other");
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
	FILE *in = fopen(path, "re");
	size_t line = 0;
	int rc;

	if (!in)
		cli_usage_error(CMD, "cannot read '%s': %s", path,
				    strerror(errno));
	rc = lat_prof_folded_read(f, in, &line);
	fclose(in);
	if (rc == -LAT_EFORMAT)
		cli_usage_error(CMD, "'%s' line %zu: not a folded stack "
				    "('frame;frame;... count')", path, line);
	if (rc)
		cli_usage_error(CMD, "cannot read '%s': %s", path,
				    lat_strerror(rc));
	if (!f->total)
		cli_usage_error(CMD, "'%s' holds no samples", path);
}

static int run_diff(const struct profile_opts *o)
{
	struct lat_prof_folded b, a;
	struct lat_prof_svg_opts so = {
		.title = o->title ? o->title : "Differential flame graph",
		.subtitle = NULL,
	};
	FILE *out;
	int rc;

	lat_prof_folded_init(&b);
	lat_prof_folded_init(&a);
	read_folded(o->diff_before, &b);
	read_folded(o->diff_after, &a);
	out = open_svg(o);
	rc = lat_prof_svg_write_diff(&b, &a, &so, out);
	close_out(out, o->svg ? o->svg : "-", rc);
	if (o->json) {
		struct lat_json j;

		lat_json_init(&j, stdout);
		rc = lat_prof_diff_json(&j, &b, &a);
		if (rc)
			cli_fail(CMD, "comparing: %s", lat_strerror(rc));
		cli_json_end(CMD, &j);
	}
	lat_prof_folded_release(&b);
	lat_prof_folded_release(&a);
	return CLI_EXIT_OK;
}

/* Attach (or spawn) failures are the user's input: exit 2, one line. */
static _Noreturn void attach_failed(struct lat_prof *p,
				    const struct profile_opts *o, int rc)
{
	if (o->cmd && rc == -ENOENT)
		cli_usage_error(CMD, "command '%s' not found", o->cmd[0]);
	if (o->cmd && (rc == -EACCES || rc == -ENOEXEC || rc == -EISDIR) &&
	    !*lat_prof_error_note(p))
		cli_usage_error(CMD, "cannot run '%s': %s", o->cmd[0],
				    strerror(-rc));
	if (rc == -LAT_EUNSUPP)
		cli_fail(CMD, "unavailable: %s", lat_prof_error_note(p));
	if (rc == -ESRCH || rc == -EACCES || rc == -EPERM)
		cli_usage_error(CMD, "%s", lat_prof_error_note(p));
	cli_fail(CMD, "%s", *lat_prof_error_note(p) ?
		     lat_prof_error_note(p) : lat_strerror(rc));
}

/* Where each output goes; at most one of them (or --json) on stdout. */
struct outputs {
	FILE *svg, *folded, *off_svg, *off_folded;
	bool stdout_taken;
};

static FILE *open_one(const struct profile_opts *o, struct outputs *out,
		      const char *path)
{
	if (!path)
		return NULL;
	if (!strcmp(path, "-")) {
		if (out->stdout_taken || o->json)
			cli_usage_error(CMD, "only one output can go to "
					"stdout ('-'), and not with --json");
		out->stdout_taken = true;
	}
	return open_out(path);
}

static void write_graph(const struct profile_opts *o, FILE *f,
			const char *path, const struct lat_prof_folded *fo,
			bool off, pid_t pid, const struct lat_prof_stats *st)
{
	char what[32];

	snprintf(what, sizeof(what), "pid %d", (int)pid);
	close_out(f, path, lat_prof_svg_write_run(fo, st, off, what, o->title,
						  f));
}

/*
 * Above 1 kHz the profiler's cost shows: measure it here (the CPU probe of
 * the overhead experiment, after the run so it does not disturb it) and
 * say what it was.
 */
static void warn_costly(double hz, const struct lat_prof_stats *st)
{
	double ratio, us;

	if (lat_prof_overhead_probe(hz, &ratio, &us)) {
		fprintf(stderr, "latlab profile: warning: --freq %.0f is above "
			"%d Hz; its cost could not be measured here\n", hz,
			LAT_PROF_COSTLY_HZ);
		return;
	}
	fprintf(stderr, "latlab profile: warning: --freq %.0f is above %d Hz: "
		"measured on this machine now, ", hz, LAT_PROF_COSTLY_HZ);
	lat_prof_overhead_cost_print(stderr, ratio, us, st);
}

/* The summary as one JSON document on stdout (--json). */
static void print_json(pid_t pid, const struct lat_prof_stats *st,
		       const struct lat_prof_folded *on,
		       const struct lat_prof_folded *off, bool offcpu,
		       double wall_s)
{
	struct lat_json j;
	int rc;

	lat_json_init(&j, stdout);
	rc = lat_prof_json(&j, pid, st, on, off, offcpu, wall_s);
	if (rc)
		cli_fail(CMD, "%s", lat_strerror(rc));
	cli_json_end(CMD, &j);
}

static int run_sample(const struct profile_opts *o)
{
	struct lat_prof_config cfg = { .freq_hz = o->freq_hz,
				       .user_only = o->user_only,
				       .offcpu = o->offcpu };
	struct lat_prof_stats st;
	struct lat_prof_folded on, off;
	struct outputs out = { 0 };
	struct lat_prof *p;
	pid_t pid = o->pid;
	int rc, status;

	/* bad output paths fail before the profile is taken */
	out.svg = open_one(o, &out, o->svg);
	out.folded = open_one(o, &out, o->folded);
	out.off_svg = open_one(o, &out, o->offcpu_svg);
	out.off_folded = open_one(o, &out, o->offcpu_folded);
	rc = lat_prof_create(&cfg, &p);
	if (rc)
		cli_fail(CMD, "%s", lat_strerror(rc));
	cli_catch_stop_signals();
	if (o->cmd)
		rc = lat_prof_spawn(p, o->cmd, &pid);
	else
		rc = lat_prof_attach_pid(p, pid, false);
	if (rc)
		attach_failed(p, o, rc);
	/* a spawned command's events started at its exec; this starts the
	 * off-CPU tracer */
	rc = lat_prof_start(p);
	if (!rc) /* on stderr: scripts read stdout; tests wait for it */
		fprintf(stderr, "latlab profile: sampling pid %d (Ctrl-C "
			"stops and writes what was sampled)\n", (int)pid);
	if (!rc)
		rc = lat_prof_sample_until(p, pid, o->cmd != NULL,
					   o->duration_ns, cli_stop_requested,
					   NULL, &status);
	if (rc)
		cli_fail(CMD, "sampling failed: %s", lat_strerror(rc));
	lat_prof_folded_init(&on);
	lat_prof_folded_init(&off);
	rc = lat_prof_fold(p, &on);
	if (!rc)
		rc = lat_prof_fold_offcpu(p, &off);
	if (rc)
		cli_fail(CMD, "symbolizing failed: %s", lat_strerror(rc));
	lat_prof_get_stats(p, &st);
	if (out.folded)
		close_out(out.folded, o->folded,
			  lat_prof_folded_write(&on, out.folded));
	if (out.off_folded)
		close_out(out.off_folded, o->offcpu_folded,
			  lat_prof_folded_write(&off, out.off_folded));
	if (out.svg)
		write_graph(o, out.svg, o->svg, &on, false, pid, &st);
	if (out.off_svg)
		write_graph(o, out.off_svg, o->offcpu_svg, &off, true, pid, &st);
	if (o->json)
		print_json(pid, &st, &on, &off, o->offcpu, st.sampled_s);
	else if (!out.stdout_taken &&
		 lat_prof_print(stdout, pid, &st, &on, &off, o->offcpu,
				st.sampled_s))
		cli_fail(CMD, "out of memory");
	if (o->offcpu && !st.offcpu)
		fprintf(stderr, "latlab profile: off-CPU %s\n", st.offcpu_note);
	if (o->freq_hz > LAT_PROF_COSTLY_HZ)
		warn_costly(o->freq_hz, &st);
	lat_prof_folded_release(&on);
	lat_prof_folded_release(&off);
	lat_prof_free(p);
	if (cli_stop_signal())
		return 128 + cli_stop_signal();
	return CLI_EXIT_OK;
}

static int run_render(const struct profile_opts *o)
{
	struct lat_prof_folded f;
	struct lat_prof_svg_opts so = {
		.title = o->title ? o->title : "Flame graph",
		.subtitle = o->render,
		.palette = o->palette,
	};
	FILE *out;

	lat_prof_folded_init(&f);
	read_folded(o->render, &f);
	out = open_svg(o);
	close_out(out, o->svg ? o->svg : "-", lat_prof_svg_write(&f, &so, out));
	if (o->json) {
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_prof_folded_json(&j, NULL, &f);
		cli_json_end(CMD, &j);
	}
	lat_prof_folded_release(&f);
	return CLI_EXIT_OK;
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
	c.stop = cli_pipe_stop;
	cli_catch_stop_signals();
	rc = lat_prof_overhead_run(&c, rows);
	if (rc && rc != -EINTR)
		cli_fail(CMD, "--overhead: %s", lat_strerror(rc));
	if (o->json) {
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_prof_overhead_json(&j, &c, rows, over);
		cli_json_end(CMD, &j);
	} else {
		printf("latlab profile --overhead: ");
		lat_prof_overhead_print(stdout, &c, rows, over);
	}
	if (cli_stop_signal())
		return 128 + cli_stop_signal();
	return CLI_EXIT_OK;
}

static int profile_main(int argc, char **argv)
{
	struct profile_opts o = { 0 };

	parse(argc, argv, &o);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	if (o.overhead)
		return run_overhead(&o);
	if (o.render)
		return run_render(&o);
	if (o.diff_before)
		return run_diff(&o);
	return run_sample(&o);
}

const struct cli_cmd cli_cmd_profile = {
	.name = "profile",
	.opts = opts,
	.operands = true,
	.run = profile_main,
};
