/*
 * latlab sched: run-queue latency, off-CPU time and who took the CPU, for
 * any process (-p PID) or a command it runs (-- cmd args...), through the
 * lat_sched eBPF probe. Without the probe (no privilege, no BTF, built
 * without libbpf) it says which is missing and prints the /proc totals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/json.h"
#include "latlab/sched.h"
#include "latlab/topo.h"

#define CMD "sched"
#define MAX_CPUS_LISTED 256

extern const struct cli_cmd cli_cmd_sched;

struct args {
	pid_t pid;
	double duration_ns;  /* 0: open-ended */
	bool per_thread, json, proc_only;
	const char *hlog;
	struct cli_cpus cpus;
	char **command;      /* after "--" */
};

static void parse_pid(void *args, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > 4194304)
		cli_usage_error(CMD, "--pid must be a process id, not '%s'", s);
	((struct args *)args)->pid = (pid_t)v;
}

#define CLI_ARGS struct args
static const struct cli_opt opts[] = {
	{ CLI_CALL("pid", parse_pid), .short_name = 'p' },
	{ CLI_DURATION("duration", duration_ns, 1e9, 1e6, 86400e9) },
	{ CLI_FLAG("per-thread", per_thread) },
	{ CLI_CPUS("cpus", cpus, MAX_CPUS_LISTED) },
	{ CLI_STRING("hlog", hlog) },
	{ CLI_FLAG("proc", proc_only) },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

static void parse(int argc, char **argv, struct args *a)
{
	int n, first;

	memset(a, 0, sizeof(*a));
	/* options_first: stop at the first operand, so the command's own
	 * flags are never taken for ours */
	first = cli_parse(&cli_cmd_sched, a, argc, argv);
	if (first < argc)
		a->command = &argv[first];
	if (a->command && a->pid)
		cli_usage_error(CMD, "give -p <pid> or a command, not both");
	if (!a->command && !a->pid)
		cli_usage_error(CMD, "nothing to trace: give -p <pid> or "
			       "-- <command>");
	if (a->pid && kill(a->pid, 0) && errno == ESRCH)
		cli_usage_error(CMD, "no process %d", (int)a->pid);
	if (a->hlog) /* checked, not created: a refusal keeps the old one */
		cli_out_check(CMD, "--hlog", a->hlog, NULL, 0, "");
	for (n = 0; n < a->cpus.n; n++)
		if (a->cpus.cpu[n] >= sysconf(_SC_NPROCESSORS_CONF))
			cli_usage_error(CMD, "--cpus: there is no CPU %d",
				       a->cpus.cpu[n]);
}

/* ---- outputs ---- */

static int write_hlog(const char *path, const struct lat_sched_result *r)
{
	FILE *f = cli_out_open(CMD, path);

	return cli_out_commit(f, lat_sched_write_hlog(f, r));
}

/* The fallback: /proc totals over the window, per thread. */
static void proc_snap(pid_t pid, struct lat_sched_proc_snap *s)
{
	if (lat_sched_proc_snapshot(pid, s) == -ENOMEM)
		cli_fail(CMD, "out of memory");
}

static void print_proc(const struct args *a,
		       const struct lat_sched_target *t, const char *why,
		       const struct lat_sched_proc_snap *d)
{
	struct lat_json j;

	if (a->json) {
		lat_json_init(&j, stdout);
		lat_json_obj_begin(&j, NULL);
		lat_json_str(&j, "command", CMD);
		lat_json_int(&j, "pid", t->pid);
		lat_sched_proc_report_json(&j, why, d);
		lat_json_obj_end(&j);
		lat_json_finish(&j);
		return;
	}
	lat_sched_target_print(stdout, t, a->command ? a->command[0] : NULL);
	lat_sched_proc_report(stdout, why, d);
}

/*
 * A held command released: an exec failure is bad input (exit 2). A
 * terminal's Ctrl-C while it was held reached the command too and ended
 * it before its exec (the release then finds it gone): that is a stop,
 * exit 128 + signal, not a command that cannot run.
 */
static void release(const struct args *a, struct lat_sched_target *t)
{
	int rc = lat_sched_target_release(t);

	if (rc && lat_stop_signal()) {
		fprintf(stderr, "latlab %s: stopped before '%s' ran\n", CMD,
			a->command[0]);
		cli_exit(128 + lat_stop_signal());
	}
	if (rc)
		cli_usage_error(CMD, "cannot run '%s': %s", a->command[0],
			       lat_strerror(rc));
}

/*
 * Without the probe. A command runs to its exit (or Ctrl-C); its /proc
 * entry lasts until it is reaped, so the end snapshot is taken first.
 */
static int run_proc(struct args *a, struct lat_sched_target *t,
		    const char *why)
{
	struct lat_sched_proc_snap s0, s1;
	int sig;

	proc_snap(t->pid, &s0);
	release(a, t);
	lat_sched_target_wait(t, t->child ? 0 : a->duration_ns, true,
			      lat_stop_requested, NULL);
	sig = lat_stop_signal();
	proc_snap(t->pid, &s1);
	lat_sched_target_end(t, 0);
	lat_sched_proc_delta(s0.v, s0.n, s1.v, s1.n);
	print_proc(a, t, why, &s1);
	lat_sched_proc_snap_free(&s0);
	lat_sched_proc_snap_free(&s1);
	return sig ? 128 + sig : CLI_EXIT_OK;
}

static int sched_main(int argc, char **argv)
{
	struct args a;
	struct lat_sched_target t;
	struct lat_sched_opts o;
	struct lat_sched_avail av;
	struct lat_sched *s;
	const struct lat_sched_result *r;
	int rc, sig;

	parse(argc, argv, &a);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	lat_stop_catch_signals();
	if (a.command)
		rc = lat_sched_target_spawn(&t, a.command);
	else
		rc = lat_sched_target_follow(&t, a.pid);
	if (rc == -ESRCH)
		cli_usage_error(CMD, "no process %d", (int)a.pid);
	if (rc)
		cli_fail(CMD, "cannot start the command: %s", lat_strerror(rc));
	lat_sched_available(&av);
	if (a.proc_only || !av.ok)
		return run_proc(&a, &t, a.proc_only ? "--proc asked for /proc only"
						    : av.reason);
	memset(&o, 0, sizeof(o));
	o.pids = &t.pid;
	o.n_pids = 1;
	o.cpus = a.cpus.cpu;
	o.n_cpus = a.cpus.n;
	o.per_thread = a.per_thread;
	rc = lat_sched_open(&o, &s);
	if (rc == -ESRCH)
		cli_usage_error(CMD, "no process %d", (int)t.pid);
	if (rc)
		cli_fail(CMD, "the probe did not load: %s", lat_strerror(rc));
	rc = lat_sched_start(s);
	if (rc)
		cli_fail(CMD, "the probe did not attach: %s", lat_strerror(rc));
	release(&a, &t);
	/* On stderr, so --json stays one object; tests wait for it. */
	fprintf(stderr, "latlab sched: tracing pid %d (%s); Ctrl-C to stop\n",
		(int)t.pid, lat_sched_flavour(s));
	lat_sched_target_wait(&t, a.duration_ns, false, lat_stop_requested,
			      NULL);
	sig = lat_stop_signal();
	rc = lat_sched_stop(s);
	/* Interrupted: a terminal's Ctrl-C reached the command too; a
	 * signal sent to us alone is passed on, or we would wait for the
	 * whole command before stopping */
	lat_sched_target_end(&t, sig);
	r = lat_sched_result(s);
	if (a.json) {
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_json_obj_begin(&j, NULL);
		lat_json_str(&j, "command", CMD);
		lat_json_int(&j, "pid", t.pid);
		lat_json_bool(&j, "exited", t.exited);
		lat_json_bool(&j, "interrupted", sig != 0);
		lat_json_str(&j, "source", "bpf");
		lat_sched_write_json(&j, r);
		lat_json_obj_end(&j);
		lat_json_finish(&j);
	} else {
		lat_sched_target_print(stdout, &t,
				       a.command ? a.command[0] : NULL);
		lat_sched_print(stdout, r);
	}
	if (!rc && a.hlog) {
		rc = write_hlog(a.hlog, r);
		if (rc)
			fprintf(stderr, "latlab sched: writing '%s': %s\n",
				a.hlog, lat_strerror(rc));
	}
	lat_sched_close(s);
	if (rc)
		return CLI_EXIT_FAIL;
	return sig ? 128 + sig : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_sched = {
	.name = "sched",
	.opts = opts,
	.operands = true,
	.options_first = true,
	.run = sched_main,
};
