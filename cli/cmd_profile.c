/*
 * latlab profile: where a process's time goes, as folded stacks and an
 * interactive flame graph; --diff compares two folded profiles.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "latlab/json.h"
#include "latlab/prof.h"
#include "profile.h"

static const char usage[] =
"latlab profile: where the time goes, as folded stacks and flame graphs\n"
"\n"
"usage: latlab profile -p <pid> [--duration <time>] [<options>]\n"
"       latlab profile [<options>] -- <command> [<args>...]\n"
"       latlab profile --diff <before.folded> <after.folded> [--svg <out>]\n"
"       latlab profile --render <in.folded> [--palette cold] [--svg <out>]\n"
"\n"
"Samples the stacks of every thread of a process (and of the threads and\n"
"processes it starts) with perf_event_open: the cpu-clock software event\n"
"(cycles where a hardware PMU exists), frame-pointer stacks, user and,\n"
"when perf_event_paranoid allows, kernel frames. Symbols come from\n"
"elfutils (executables, shared libraries, PIE) and /proc/kallsyms. Every\n"
"stack's root frame is its thread. Prints the threads and the hottest\n"
"functions; --folded and --svg write the whole profile.\n"
"\n"
"options:\n"
"  -p, --pid <pid>      profile a running process\n"
"  --duration <time>    how long to sample (default 10s with -p; a\n"
"                       command runs to its end unless this is given,\n"
"                       then it gets SIGTERM when the time is up)\n"
"  --freq <hz>          samples per CPU-second per thread, 1..100000\n"
"                       (default 99: odd, so it does not alias with\n"
"                       100 Hz and 1 kHz timers; above 1 kHz the cost\n"
"                       shows, and a warning says how much)\n"
"  --user-only          no kernel frames even where allowed\n"
"  --folded <file>      write folded stacks ('-' for stdout)\n"
"  --svg <file>         write an interactive SVG flame graph\n"
"  --title <text>       the flame graph's title\n"
"  --diff <before>      with a second operand <after>: the differential\n"
"                       flame graph of two folded files (red grew, blue\n"
"                       shrank, by share of the total) to --svg or stdout\n"
"  --render <file>      draw a folded file (ours, perf's, any\n"
"                       stackcollapse's) as a flame graph to --svg or stdout\n"
"  --palette <p>        hot (on-CPU, the default) or cold (off-CPU)\n"
"  --json               one JSON document on stdout\n"
"\n"
"Exit: 0 ok, 1 sampling or writing failed, 2 bad usage, no such process,\n"
"not allowed to profile it, or a command that cannot be run.\n"
"\n"
"EXAMPLES:\n"
"  latlab profile -p 1234 --duration 5s --svg cpu.svg  # a running process\n"
"  latlab profile --folded out.folded -- ./myprog -n 3 # a command, to its end\n"
"  latlab profile --freq 999 -p 1234 --json            # finer, for scripts\n"
"  latlab profile --diff before.folded after.folded --svg diff.svg\n"
"                                                      # what changed\n";

enum {
	OPT_DURATION = 256,
	OPT_FREQ,
	OPT_USER_ONLY,
	OPT_FOLDED,
	OPT_SVG,
	OPT_TITLE,
	OPT_DIFF,
	OPT_RENDER,
	OPT_PALETTE,
	OPT_JSON,
};

struct profile_opts {
	pid_t pid;
	double duration_ns;     /* 0: default */
	double freq_hz;
	bool user_only;
	const char *folded;
	const char *svg;
	const char *title;
	const char *diff_before;
	const char *diff_after;
	const char *render;
	enum lat_prof_palette palette;
	bool json;
	char **cmd;             /* after "--" */
};

#define CMD "profile"


static void parse(int argc, char **argv, struct profile_opts *o)
{
	static const struct option options[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "freq", required_argument, NULL, OPT_FREQ },
		{ "user-only", no_argument, NULL, OPT_USER_ONLY },
		{ "folded", required_argument, NULL, OPT_FOLDED },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "diff", required_argument, NULL, OPT_DIFF },
		{ "render", required_argument, NULL, OPT_RENDER },
		{ "palette", required_argument, NULL, OPT_PALETTE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	int c, dashdash = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	if (dashdash) { /* the command's own flags are not ours */
		o->cmd = argv + dashdash + 1;
		argc = dashdash;
	}
	opterr = 0;
	/* GNU order: the --diff <after> operand may come before options */
	while ((c = getopt_long(argc, argv, ":p:", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->pid = (pid_t)cli_u64(CMD, "--pid", optarg, 1,
						    4194304);
			break;
		case OPT_DURATION:
			o->duration_ns = cli_duration_ns(CMD, "--duration",
							     optarg, 1e9, 1e6,
							     86400e9);
			break;
		case OPT_FREQ:
			o->freq_hz = (double)cli_u64(CMD, "--freq", optarg,
							 1, LAT_PROF_MAX_HZ);
			break;
		case OPT_USER_ONLY:
			o->user_only = true;
			break;
		case OPT_FOLDED:
			o->folded = optarg;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case OPT_TITLE:
			o->title = optarg;
			break;
		case OPT_DIFF:
			o->diff_before = optarg;
			break;
		case OPT_RENDER:
			o->render = optarg;
			break;
		case OPT_PALETTE:
			if (!strcmp(optarg, "hot"))
				o->palette = LAT_PROF_HOT;
			else if (!strcmp(optarg, "cold"))
				o->palette = LAT_PROF_COLD;
			else
				cli_usage_error(CMD, "--palette is hot or cold, "
						"not '%s'", optarg);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		default:
			cli_bad_option(CMD, argv, c);
		}
	}
	if (o->diff_before) {
		if (optind >= argc)
			cli_usage_error(CMD, "--diff needs two files: "
					    "--diff <before> <after>");
		o->diff_after = argv[optind++];
		if (o->pid || o->cmd || o->folded || o->freq_hz ||
		    o->duration_ns || o->user_only)
			cli_usage_error(CMD, "--diff compares two files; "
					    "it takes only --svg, --title "
					    "and --json");
	}
	if (o->render && (o->diff_before || o->pid || o->cmd || o->folded ||
			  o->freq_hz || o->duration_ns || o->user_only))
		cli_usage_error(CMD, "--render draws one file; it takes only "
				"--svg, --title, --palette and --json");
	cli_no_operands(CMD, argc, argv);
	if (o->diff_before || o->render)
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

static FILE *open_out(const char *path, const char *what)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return stdout;
	f = fopen(path, "we");
	if (!f)
		cli_usage_error(CMD, "cannot write %s '%s': %s", what,
				    path, strerror(errno));
	return f;
}

static void close_out(FILE *f, const char *path, int rc)
{
	if (f == stdout) {
		if (rc)
			cli_fail(CMD, "writing to stdout failed: %s",
				     lat_strerror(rc));
		return;
	}
	if (fclose(f) != 0 && !rc)
		rc = -EIO;
	if (rc)
		cli_fail(CMD, "writing '%s' failed: %s", path,
			     lat_strerror(rc));
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

/* The frames whose share changed, for --diff --json. */
static void diff_json(const struct lat_prof_folded *b,
		      const struct lat_prof_folded *a)
{
	struct lat_json j;

	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_uint(&j, "before_total", b->total);
	lat_json_uint(&j, "after_total", a->total);
	lat_json_uint(&j, "before_stacks", b->n);
	lat_json_uint(&j, "after_stacks", a->n);
	lat_json_obj_end(&j);
	if (lat_json_finish(&j))
		cli_fail(CMD, "JSON output failed");
	printf("\n");
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
	if (o->json && (!o->svg || !strcmp(o->svg, "-")))
		cli_usage_error(CMD, "--json with the SVG on stdout: give "
				"--svg <file>");
	out = open_out(o->svg ? o->svg : "-", "the SVG");
	rc = lat_prof_svg_write_diff(&b, &a, &so, out);
	close_out(out, o->svg ? o->svg : "-", rc);
	if (o->json)
		diff_json(&b, &a);
	lat_prof_folded_release(&b);
	lat_prof_folded_release(&a);
	return CLI_EXIT_OK;
}

/* Weight per distinct name of the frame at @pos (0: the root, -1: the
 * leaf), heaviest first. */
struct tally {
	char *name;
	uint64_t w;
};

static int cmp_tally(const void *x, const void *y)
{
	const struct tally *a = x, *b = y;

	return a->w < b->w ? 1 : a->w > b->w ? -1 : strcmp(a->name, b->name);
}

static size_t tally_frames(const struct lat_prof_folded *f, bool leaf,
			   struct tally **out)
{
	struct lat_prof_folded by;
	struct tally *t;
	size_t n;

	lat_prof_folded_init(&by);
	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->v[i].frames;
		char *name;

		if (leaf) {
			const char *semi = strrchr(s, ';');

			name = strdup(semi ? semi + 1 : s);
		} else {
			name = strndup(s, strcspn(s, ";"));
		}
		if (!name || lat_prof_folded_add(&by, name, f->v[i].weight))
			cli_fail(CMD, "out of memory");
		free(name);
	}
	t = calloc(by.n ? by.n : 1, sizeof(*t));
	if (!t)
		cli_fail(CMD, "out of memory");
	for (size_t i = 0; i < by.n; i++) {
		t[i].name = by.v[i].frames;
		t[i].w = by.v[i].weight;
		by.v[i].frames = NULL;
	}
	n = by.n;
	by.n = 0;
	lat_prof_folded_release(&by);
	qsort(t, n, sizeof(*t), cmp_tally);
	*out = t;
	return n;
}

static void free_tally(struct tally *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].name);
	free(t);
}

static void print_tally(const char *head, const struct tally *t, size_t n,
			uint64_t total, size_t max)
{
	printf("%s\n", head);
	for (size_t i = 0; i < n && i < max; i++)
		printf("  %6.2f%%  %8" PRIu64 "  %s\n",
		       100.0 * (double)t[i].w / (double)total, t[i].w,
		       t[i].name);
	if (n > max)
		printf("  ... %zu more\n", n - max);
}

static void print_text(const struct profile_opts *o, pid_t pid,
		       const struct lat_prof_stats *st,
		       const struct lat_prof_folded *f, double wall_s)
{
	struct tally *threads, *leaves;
	size_t nt, nl;

	printf("latlab profile: pid %d, %d thread(s), %.2f s, %.0f Hz %s%s%s\n",
	       (int)pid, st->threads, wall_s, st->freq_hz,
	       st->hardware ? "cycles" : "cpu-clock",
	       st->event_note[0] ? " -- " : "", st->event_note);
	printf("samples %" PRIu64 ", lost %" PRIu64 ", truncated stacks %"
	       PRIu64 ", throttled %" PRIu64 "\n", st->samples, st->lost,
	       st->truncated, st->throttled);
	printf("kernel frames: %s\n", st->kernel ? "yes" : st->kernel_note);
	if (*lat_prof_symbols_note())
		printf("symbols: %s\n", lat_prof_symbols_note());
	if (!f->total) {
		printf("no samples: the target did not run on a CPU while "
		       "sampled\n");
		return;
	}
	nt = tally_frames(f, false, &threads);
	nl = tally_frames(f, true, &leaves);
	printf("\n");
	print_tally("threads (root frames):", threads, nt, f->total, 20);
	printf("\n");
	print_tally("hottest functions (self):", leaves, nl, f->total, 15);
	free_tally(threads, nt);
	free_tally(leaves, nl);
	if (!o->svg && !o->folded)
		printf("\nwhole stacks: --svg <file> (flame graph) or "
		       "--folded <file>\n");
}

static void print_json(pid_t pid, const struct lat_prof_stats *st,
		       const struct lat_prof_folded *f, double wall_s)
{
	struct tally *leaves;
	struct lat_json j;
	size_t nl = tally_frames(f, true, &leaves);

	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_int(&j, "pid", pid);
	lat_json_int(&j, "threads", st->threads);
	lat_json_double(&j, "wall_s", wall_s);
	lat_json_double(&j, "freq_hz", st->freq_hz);
	lat_json_str(&j, "event", st->hardware ? "cycles" : "cpu-clock");
	lat_json_str(&j, "event_note", st->event_note);
	lat_json_uint(&j, "samples", st->samples);
	lat_json_uint(&j, "lost", st->lost);
	lat_json_uint(&j, "truncated", st->truncated);
	lat_json_uint(&j, "throttled", st->throttled);
	lat_json_bool(&j, "kernel_frames", st->kernel);
	lat_json_str(&j, "kernel_note", st->kernel_note);
	lat_json_str(&j, "symbols_note", lat_prof_symbols_note());
	lat_json_uint(&j, "reader_cpu_ns", st->reader_cpu_ns);
	lat_json_uint(&j, "stacks", f->n);
	lat_json_arr_begin(&j, "hottest");
	for (size_t i = 0; i < nl && i < 20; i++) {
		lat_json_obj_begin(&j, NULL);
		lat_json_str(&j, "frame", leaves[i].name);
		lat_json_uint(&j, "self", leaves[i].w);
		lat_json_obj_end(&j);
	}
	lat_json_arr_end(&j);
	lat_json_obj_end(&j);
	free_tally(leaves, nl);
	if (lat_json_finish(&j))
		cli_fail(CMD, "JSON output failed");
	printf("\n");
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

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_sample(const struct profile_opts *o)
{
	struct lat_prof_config cfg = { .freq_hz = o->freq_hz,
				       .user_only = o->user_only };
	struct lat_prof_stats st;
	struct lat_prof_folded f;
	struct lat_prof *p;
	FILE *svg = NULL, *folded = NULL;
	pid_t pid = o->pid;
	double t0;
	int rc, status;

	if (o->json && ((o->svg && !strcmp(o->svg, "-")) ||
			(o->folded && !strcmp(o->folded, "-"))))
		cli_usage_error(CMD, "--json and an output on stdout "
				    "('-') exclude each other");
	if (o->svg && o->folded && !strcmp(o->svg, "-") &&
	    !strcmp(o->folded, "-"))
		cli_usage_error(CMD, "only one output can go to stdout");
	/* bad output paths fail before the profile is taken */
	if (o->svg)
		svg = open_out(o->svg, "the SVG");
	if (o->folded)
		folded = open_out(o->folded, "the folded stacks");
	rc = lat_prof_create(&cfg, &p);
	if (rc)
		cli_fail(CMD, "%s", lat_strerror(rc));
	cli_catch_stop_signals();
	t0 = mono_s();
	if (o->cmd) {
		rc = cli_profile_spawn(p, o->cmd, &pid);
	} else {
		rc = lat_prof_attach_pid(p, pid, false);
		if (!rc)
			rc = lat_prof_start(p);
	}
	if (rc)
		attach_failed(p, o, rc);
	rc = cli_profile_loop(p, pid, o->cmd != NULL, o->duration_ns, &status);
	if (rc)
		cli_fail(CMD, "sampling failed: %s", lat_strerror(rc));
	lat_prof_folded_init(&f);
	rc = lat_prof_fold(p, &f);
	if (rc)
		cli_fail(CMD, "symbolizing failed: %s", lat_strerror(rc));
	lat_prof_get_stats(p, &st);
	if (folded)
		close_out(folded, o->folded, lat_prof_folded_write(&f, folded));
	if (svg) {
		struct lat_prof_svg_opts so = {
			.title = o->title ? o->title : "On-CPU flame graph",
			.palette = LAT_PROF_HOT,
		};
		char sub[256];

		snprintf(sub, sizeof(sub), "pid %d, %.0f Hz %s, %" PRIu64
			 " samples, %" PRIu64 " lost%s", (int)pid, st.freq_hz,
			 st.hardware ? "cycles" : "cpu-clock", st.samples,
			 st.lost, st.kernel ? "" : ", user frames only");
		so.subtitle = sub;
		close_out(svg, o->svg, f.total ? lat_prof_svg_write(&f, &so, svg)
					       : -EINVAL);
	}
	if (o->json)
		print_json(pid, &st, &f, mono_s() - t0);
	else if (!(o->svg && !strcmp(o->svg, "-")) &&
		 !(o->folded && !strcmp(o->folded, "-")))
		print_text(o, pid, &st, &f, mono_s() - t0);
	if (o->freq_hz > LAT_PROF_COSTLY_HZ)
		fprintf(stderr, "latlab profile: warning: --freq %.0f is above "
			"%d Hz: reading %" PRIu64 " samples took the profiler "
			"%.1f ms of CPU (%.2f us each), and every sample "
			"interrupts the target (latlab profile --overhead "
			"measures both)\n", o->freq_hz, LAT_PROF_COSTLY_HZ,
			st.samples, st.reader_cpu_ns / 1e6,
			st.samples ? st.reader_cpu_ns / 1e3 / st.samples : 0);
	lat_prof_folded_release(&f);
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
	if (o->json && (!o->svg || !strcmp(o->svg, "-")))
		cli_usage_error(CMD, "--json with the SVG on stdout: give "
				"--svg <file>");
	out = open_out(o->svg ? o->svg : "-", "the SVG");
	close_out(out, o->svg ? o->svg : "-", lat_prof_svg_write(&f, &so, out));
	if (o->json) {
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_json_obj_begin(&j, NULL);
		lat_json_uint(&j, "total", f.total);
		lat_json_uint(&j, "stacks", f.n);
		lat_json_obj_end(&j);
		if (lat_json_finish(&j))
			cli_fail(CMD, "JSON output failed");
		printf("\n");
	}
	lat_prof_folded_release(&f);
	return CLI_EXIT_OK;
}

static int profile_main(int argc, char **argv)
{
	struct profile_opts o = { 0 };

	parse(argc, argv, &o);
	if (o.render)
		return run_render(&o);
	if (o.diff_before)
		return run_diff(&o);
	return run_sample(&o);
}

const struct cli_cmd cli_cmd_profile = {
	.name = "profile",
	.summary = "on-CPU flame graphs of a process or command; diff two",
	.usage = usage,
	.run = profile_main,
};
