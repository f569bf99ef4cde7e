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

/* The options land in the session itself; the rest is the CLI's. */
struct args {
	struct lat_sched_session s; /* pid, duration_ns (0: open-ended),
				     * per_thread, proc_only; argv after "--" */
	bool json;
	const char *hlog;
	struct cli_cpus cpus;
};

#define CLI_ARGS struct args
static const struct cli_opt opts[] = {
	{ CLI_U64("pid", s.pid, 1, 4194304), .short_name = 'p' },
	{ CLI_DURATION("duration", s.duration_ns, 1e9, 1e6, 86400e9) },
	{ CLI_FLAG("per-thread", s.per_thread) },
	{ CLI_CPUS("cpus", cpus, MAX_CPUS_LISTED) },
	{ CLI_STRING("hlog", hlog) },
	{ CLI_FLAG("proc", s.proc_only) },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

static void parse(int argc, char **argv, struct args *a)
{
	struct lat_sched_session *s = &a->s;
	int n, first;

	memset(a, 0, sizeof(*a));
	/* options_first: stop at the first operand, so the command's own
	 * flags are never taken for ours */
	first = cli_parse(&cli_cmd_sched, a, argc, argv);
	if (first < argc)
		s->argv = &argv[first];
	if (s->argv && s->pid)
		cli_usage_error(CMD, "give -p <pid> or a command, not both");
	if (!s->argv && !s->pid)
		cli_usage_error(CMD, "nothing to trace: give -p <pid> or "
			       "-- <command>");
	if (s->pid && kill(s->pid, 0) && errno == ESRCH)
		cli_usage_error(CMD, "no process %d", (int)s->pid);
	if (a->hlog) /* checked, not created: a refusal keeps the old one */
		cli_out_check(CMD, "--hlog", a->hlog, NULL, 0, "");
	for (n = 0; n < a->cpus.n; n++)
		if (a->cpus.cpu[n] >= sysconf(_SC_NPROCESSORS_CONF))
			cli_usage_error(CMD, "--cpus: there is no CPU %d",
				       a->cpus.cpu[n]);
}

/*
 * A start that failed, in the options' words. A held command's exec
 * failure is bad input (exit 2); but a terminal's Ctrl-C while it was
 * held reached the command too and ended it before its exec (the release
 * then finds it gone): that is a stop, exit 128 + signal.
 */
static _Noreturn void start_failed(const struct lat_sched_session *s,
				   int rc)
{
	static const char *const what[] = {
		[LAT_SCHED_AT_TARGET] = "cannot start the command",
		[LAT_SCHED_AT_PROC] = "reading /proc",
		[LAT_SCHED_AT_LOAD] = "the probe did not load",
		[LAT_SCHED_AT_ATTACH] = "the probe did not attach",
	};

	if (rc == -ESRCH && s->at != LAT_SCHED_AT_RELEASE)
		cli_usage_error(CMD, "no process %d", (int)s->t.pid);
	if (s->at != LAT_SCHED_AT_RELEASE)
		cli_fail(CMD, "%s: %s", what[s->at], lat_strerror(rc));
	if (!lat_stop_signal())
		cli_usage_error(CMD, "cannot run '%s': %s", s->argv[0],
				lat_strerror(rc));
	fprintf(stderr, "latlab %s: stopped before '%s' ran\n", CMD,
		s->argv[0]);
	cli_exit(128 + lat_stop_signal());
}

static int sched_main(int argc, char **argv)
{
	struct args a;
	struct lat_sched_session *s = &a.s;
	int rc, sig;

	parse(argc, argv, &a);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	lat_stop_catch_signals();
	s->stop = lat_stop_requested;
	s->cpus = a.cpus.cpu;
	s->n_cpus = a.cpus.n;
	rc = lat_sched_session_start(s);
	if (rc)
		start_failed(s, rc);
	if (s->probe) /* on stderr, so --json stays one object; tests wait
		      * for it */
		fprintf(stderr, "latlab sched: tracing pid %d (%s); Ctrl-C to "
			"stop\n", (int)s->t.pid, lat_sched_flavour(s->probe));
	lat_sched_session_wait(s);
	sig = lat_stop_signal();
	rc = lat_sched_session_finish(s, sig);
	if (a.json) {
		struct lat_json j;

		lat_json_doc_begin(&j, stdout, CMD);
		lat_sched_session_json(&j, s);
		lat_json_doc_end(&j);
	} else {
		lat_sched_session_print(stdout, s);
	}
	if (rc) /* what was gathered is printed; no .hlog from it */
		cli_fail(CMD, "ending the trace: %s", lat_strerror(rc));
	if (a.hlog && s->probe)
		CLI_OUT_WRITE(CMD, a.hlog, f, lat_sched_write_hlog(f,
				lat_sched_result(s->probe)));
	lat_sched_session_close(s);
	return sig ? 128 + sig : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_sched = {
	.name = "sched",
	.opts = opts,
	.operands = true,
	.options_first = true,
	.run = sched_main,
};
