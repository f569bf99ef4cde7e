/*
 * latlab mem: the memory hierarchy and contention, measured here. The
 * load-to-use latency by working-set size with its plateaus named after
 * the caches sysfs reports; the core-to-core cache-line hand-off matrix;
 * false sharing on two CPUs and on one; a read-mostly table behind a
 * rwlock, an RCU-style pointer swap and sharded locks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "mem_cli.h"
#include "latlab/bench.h"
#include "latlab/fmt.h"

extern const struct cli_cmd cli_cmd_mem;

/* "4096", "4K", "4KiB", "128M", "1G": bytes, binary suffixes. */
static uint64_t parse_size(const char *flag, const char *arg)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!arg || arg[0] < '0' || arg[0] > '9')
		cli_usage_error(MEM_CMD, "%s needs a size such as 4096, "
				    "32K or 128M, not '%s'", flag,
				    arg ? arg : "");
	v = strtoull(arg, &end, 10);
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	default: break;
	}
	if (shift && !strcmp(end, "iB"))
		end += 3;
	else if (!shift && !strcmp(end, "B"))
		end++;
	if (*end || v > (UINT64_C(1) << 40))
		cli_usage_error(MEM_CMD, "%s needs a size such as 4096, "
				    "32K or 128M, not '%s'", flag, arg);
	return (uint64_t)v << shift;
}

static void parse_threads(void *args, const char *arg)
{
	struct mem_opts *o = args;
	int v[MEM_MAX_THREADS + 1];
	int n = lat_topo_list_parse_seq(arg, v, MEM_MAX_THREADS);

	if (n == -E2BIG)
		cli_usage_error(MEM_CMD, "--threads takes at most %d "
				    "reader counts, not '%s'", MEM_MAX_THREADS,
				    arg);
	if (n <= 0)
		cli_usage_error(MEM_CMD, "--threads needs reader counts "
				    "such as 1,2,4, not '%s'", arg);
	for (int i = 0; i < n; i++) {
		if (v[i] < 1 || v[i] > LAT_MEM_RM_MAX_READERS)
			cli_usage_error(MEM_CMD, "--threads: a reader "
					    "count must be between 1 and %d, "
					    "not %d", LAT_MEM_RM_MAX_READERS,
					    v[i]);
		o->threads[i] = v[i];
	}
	o->n_threads = n;
}

/* --cpus: every CPU named must be usable (online, in the mask). */
static void parse_cpus(struct mem_opts *o, const struct lat_topo *t,
		       const char *arg)
{
	bool seen[LAT_TOPO_MAX_CPUS] = { false };
	int v[LAT_TOPO_MAX_CPUS];
	int n = lat_topo_list_parse_seq(arg, v, LAT_TOPO_MAX_CPUS);

	if (n <= 0)
		cli_usage_error(MEM_CMD, "--cpus needs a CPU list such as "
				    "0,1 or 2-5, not '%s'", arg);
	o->n_cpus = 0;
	for (int i = 0; i < n; i++) {
		int c = v[i];

		if (c >= t->n_cpus || !t->cpu[c].online || !t->cpu[c].allowed)
			cli_usage_error(MEM_CMD, "--cpus: cpu %d is not "
					    "usable (not online or not in this "
					    "process's affinity mask)", c);
		if (!seen[c])
			o->cpus[o->n_cpus++] = c;
		seen[c] = true;
	}
}

static unsigned parse_what(const char *s)
{
	if (!strcmp(s, "chase"))
		return MEM_CHASE;
	if (!strcmp(s, "c2c"))
		return MEM_C2C;
	if (!strcmp(s, "false-sharing"))
		return MEM_SHARE;
	if (!strcmp(s, "read-mostly"))
		return MEM_RM;
	if (!strcmp(s, "all"))
		return MEM_ALL;
	cli_usage_error(MEM_CMD, "no experiment '%s' (chase, c2c, "
			    "false-sharing, read-mostly or all)", s);
}

static void parse_min(void *o, const char *arg)
{
	((struct mem_opts *)o)->min_size = parse_size("--min-size", arg);
}

static void parse_max(void *o, const char *arg)
{
	((struct mem_opts *)o)->max_size = parse_size("--max-size", arg);
}

#define CLI_ARGS struct mem_opts
static const struct cli_opt opts[] = {
	{ CLI_FLAG("hugepages", hugepages) },
	{ CLI_CALL("min-size", parse_min) },
	{ CLI_CALL("max-size", parse_max) },
	{ CLI_U64("steps", steps, 1, 16) },
	{ CLI_U64("samples", samples, 1, 100000) },
	{ CLI_STRING("svg", svg) },
	{ CLI_STRING("cpus", cpu_list) },
	{ CLI_U64("rounds", rounds, 1, 64) },
	{ CLI_CALL("threads", parse_threads) },
	{ CLI_DURATION("duration", rm_ns, 0, 1e6, 60e9) },
	{ CLI_DURATION("write-interval", write_interval_ns, 0, 1e3, 1e9) },
	{ CLI_FLAG("rt", rt) },
	{ CLI_FLAG("quick", quick) },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

static void parse(int argc, char **argv, struct mem_opts *o,
		  struct mem_env *env)
{
	uint64_t avail, need;
	int first = cli_parse(&cli_cmd_mem, o, argc, argv);

	for (int i = first; i < argc; i++)
		o->what |= parse_what(argv[i]);
	if (!o->what)
		o->what = MEM_ALL;
	if (o->cpu_list)
		parse_cpus(o, &env->topo, o->cpu_list);
	if (o->svg && !(o->what & MEM_CHASE))
		cli_usage_error(MEM_CMD, "--svg draws the chase curve: add the "
				"'chase' experiment");
	if (o->svg) /* refuse an unwritable file now, not after the run */
		cli_out_check(MEM_CMD, "--svg", o->svg, NULL, 0, "");
	if (o->quick) {
		if (!cli_given("max-size"))
			o->max_size = 2u << 20;
		if (!cli_given("samples"))
			o->samples = 16;
		if (!cli_given("rounds"))
			o->rounds = 2;
		if (!cli_given("duration"))
			o->rm_ns = 20e6;
		o->c2c_iters = 2000;
		o->share_ns = 10e6;
	}
	if (o->min_size < LAT_CACHELINE)
		cli_usage_error(MEM_CMD, "--min-size must be at least one "
				    "cache line (%d B), not %llu B",
				    LAT_CACHELINE,
				    (unsigned long long)o->min_size);
	if (!o->max_size)
		o->max_size = lat_mem_chase_default_max(&env->m.caches);
	if (o->max_size < o->min_size)
		cli_usage_error(MEM_CMD, "--max-size (%llu B) is below "
				    "--min-size (%llu B)",
				    (unsigned long long)o->max_size,
				    (unsigned long long)o->min_size);
	avail = lat_mem_available(NULL);
	if (lat_mem_chase_fits(o->max_size, o->hugepages, avail, &need) &&
	    (o->what & MEM_CHASE)) {
		char a[32], b[32], have[32];

		cli_usage_error(MEM_CMD, "--max-size %s needs %s of memory "
				    "and only %s is available",
				    lat_fmt_bytes(a, sizeof(a), o->max_size),
				    lat_fmt_bytes(b, sizeof(b), need),
				    lat_fmt_bytes(have, sizeof(have), avail));
	}
	if (!o->n_threads)
		o->n_threads = lat_mem_rm_default_threads(
			o->n_cpus, o->threads, MEM_MAX_THREADS);
}

static void env_load(struct mem_env *env, struct mem_opts *o)
{
	int rc = lat_topo_load(&env->topo, NULL, NULL);

	if (rc)
		cli_fail(MEM_CMD, "cannot read the CPU topology: %s",
			     lat_strerror(rc));
	o->n_cpus = lat_topo_usable_cpus(&env->topo, o->cpus,
					 LAT_TOPO_MAX_CPUS);
	if (!o->n_cpus)
		cli_fail(MEM_CMD, "no usable CPU");
	env->m.usable = o->n_cpus;
	rc = lat_topo_caches_load(&env->m.caches, NULL, o->cpus[0]);
	if (rc)
		cli_fail(MEM_CMD, "cannot read the cache sizes: %s",
			     lat_strerror(rc));
}

/* The machine, then the load warning: it names --rt, a flag. */
static void print_header(const struct mem_opts *o, const struct mem_env *e)
{
	lat_mem_machine_print(stdout, &e->m, o->cpus, o->n_cpus);
	if (e->m.loadavg > e->m.usable)
		printf("warning: load average %.1f on %d usable CPUs: other "
		       "work shares these cores; the figures below are "
		       "medians and minima over repeated samples for that "
		       "reason%s\n", e->m.loadavg, e->m.usable,
		       (o->what & (MEM_C2C | MEM_SHARE)) && !o->rt
		       ? "; the two-thread loops run at normal priority "
			 "(--rt: SCHED_FIFO, if permitted)" : "");
}

_Noreturn void mem_fail(struct lat_json *j, const char *experiment,
			const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (j) {
		/* the experiments write their members at the top level, so
		 * one end closes the document */
		lat_json_str(j, "error", msg);
		lat_json_str(j, "failed_in", experiment);
		lat_json_bool(j, "complete", false);
		lat_json_bool(j, "interrupted", false);
		lat_json_obj_end(j);
		lat_json_finish(j);
		fflush(stdout);
	}
	cli_fail(MEM_CMD, "%s", msg);
}

static int mem_main(int argc, char **argv)
{
	static struct mem_opts o = {
		.min_size = LAT_MEM_CHASE_MIN, .steps = LAT_MEM_CHASE_STEPS,
		.samples = LAT_MEM_CHASE_SAMPLES, .loads = LAT_MEM_CHASE_LOADS,
		.rounds = LAT_MEM_ROUNDS, .c2c_iters = LAT_MEM_C2C_ITERS,
		.share_ns = LAT_MEM_SHARE_NS, .rm_ns = LAT_MEM_RM_NS,
		.write_interval_ns = LAT_MEM_RM_WRITE_INTERVAL_NS,
		/* normal priority by default: SCHED_FIFO needs privilege,
		 * and two real-time spinners could starve the machine for
		 * their run if a deadline were ever missed (--rt) */
		.rt = false,
	};
	static struct mem_env env;
	struct lat_json j;
	double t0 = lat_bench_now_ns();
	bool done = true;
	int rc, sig;

	env_load(&env, &o);
	parse(argc, argv, &o, &env);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	lat_stop_catch_signals();
	fprintf(stderr, "latlab mem: measuring (Ctrl-C stops it and shows "
		"what was done)\n");
	rc = lat_mem_machine_measure(&env.m, 200);
	if (rc)
		cli_fail(MEM_CMD, "cannot calibrate the cycle clock: %s",
			     lat_strerror(rc));
	if (o.json) {
		lat_json_init(&j, stdout);
		lat_json_obj_begin(&j, NULL);
		lat_mem_machine_json(&j, &env.m, o.cpus, o.n_cpus);
	} else {
		print_header(&o, &env);
	}
	if (done && (o.what & MEM_CHASE))
		done = mem_chase(&o, &env, o.json ? &j : NULL);
	if (done && (o.what & MEM_C2C))
		done = mem_c2c(&o, &env, o.json ? &j : NULL);
	if (done && (o.what & MEM_SHARE))
		done = mem_share(&o, &env, o.json ? &j : NULL);
	if (done && (o.what & MEM_RM))
		done = mem_rm(&o, &env, o.json ? &j : NULL);
	sig = lat_stop_signal();
	if (o.json) {
		lat_json_bool(&j, "complete", done);
		lat_json_bool(&j, "interrupted", !done);
		lat_json_double(&j, "wall_s", (lat_bench_now_ns() - t0) / 1e9);
		lat_json_obj_end(&j);
		if (lat_json_finish(&j))
			cli_fail(MEM_CMD, "internal error writing JSON");
	} else {
		char w[LAT_FMT_LEN];

		printf("\n%swall time %s\n",
		       done ? "" : "interrupted: the rows above finished; ",
		       lat_fmt_ns(w, sizeof(w), lat_bench_now_ns() - t0));
	}
	if (fflush(stdout))
		cli_fail(MEM_CMD, "cannot write the results");
	return done ? CLI_EXIT_OK : 128 + (sig ? sig : 2);
}

const struct cli_cmd cli_cmd_mem = {
	.name = "mem",
	.opts = opts,
	.operands = true,
	.run = mem_main,
};
