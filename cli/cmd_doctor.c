/*
 * latlab doctor: is this machine fit to measure on? Gathers the facts
 * (src/doctor), judges them, prints the findings. All reading and every
 * threshold live in the library.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>

#include "cli.h"
#include "latlab/doctor.h"
#include "latlab/json.h"

#define CMD "doctor"

extern const struct cli_cmd cli_cmd_doctor;

static const char usage[] =
"latlab doctor: is this machine fit to measure latency on?\n"
"\n"
"usage: latlab doctor [--json] [--strict] [--steal <time>] [--root <dir>]\n"
"\n"
"Checks, one line each with ok / info / warn / bad / n/a and, under every\n"
"warn and bad, the fix:\n"
"  clock           invariant TSC, kernel clocksource, TSC vs\n"
"                  CLOCK_MONOTONIC_RAW over two windows\n"
"  cpu             online and usable CPUs, isolation (isolcpus, nohz_full,\n"
"                  rcu_nocbs), SMT, governor and boost, idle states and\n"
"                  exit latencies, device IRQs on the CPUs the pipeline\n"
"                  would use, NUMA nodes\n"
"  virtualisation  hypervisor (CPUID), steal time measured now\n"
"  cgroup          v1 or v2, CPU quota (tightest up the tree), periods\n"
"                  throttled so far, cpuset\n"
"  memory          transparent huge pages, swap, locked-memory limit\n"
"  privileges      perf_event_paranoid, capabilities, BTF, unprivileged BPF\n"
"  latlab          what latlab can therefore do here: counters, eBPF\n"
"                  probes, the pipeline's placement, the CPU-quota\n"
"                  experiment\n"
"It runs as any user; what it cannot read it reports as n/a with why.\n"
"\n"
;

static const char usage_tail[] =
"\n"
"Exit status: 0 done (warnings included), 1 --strict and a bad finding,\n"
"or a runtime failure, 2 bad usage.\n"
"\n"
"EXAMPLES:\n"
"  latlab doctor                 # the report, about 1 s\n"
"  latlab doctor --json | jq '.findings[] | select(.level != \"ok\")'\n"
"  latlab doctor --strict --steal 0  # gate a benchmark job on it\n";

struct doctor_args {
	struct lat_doctor_opts o;
	bool json, strict;
};

static void parse_steal(void *args, const char *v)
{
	struct doctor_args *a = args;
	/* a bare 0 needs no unit: nothing is measured */
	double ms = !strcmp(v, "0") ? 0
		    : cli_duration_ns(CMD, "--steal", v, 0, 0, 60e9) / 1e6;

	if (ms > 0 && ms < 10)
		cli_usage_error(CMD, "--steal must be 0 or at least 10ms, "
				"not '%s'", v);
	a->o.steal_ms = (unsigned)ms;
	/* the clock comparison hides inside the window */
	a->o.clock_ms = a->o.steal_ms < 400 ? a->o.steal_ms : 400;
}

static void parse_root(void *args, const char *v)
{
	struct stat st;

	if (!*v)
		cli_usage_error(CMD, "--root needs a directory");
	((struct doctor_args *)args)->o.root = v;
	if (stat(v, &st) || !S_ISDIR(st.st_mode))
		cli_usage_error(CMD, "--root '%s' is not a directory", v);
}

#define CLI_ARGS struct doctor_args
static const struct cli_opt opts[] = {
	{ CLI_FLAG("json", json),
	  .help = "one JSON object: findings, summary, facts" },
	{ CLI_FLAG("strict", strict),
	  .help = "exit 1 when any finding is bad" },
	{ CLI_CALL("steal", parse_steal), .arg = "<time>",
	  .help = "how long to measure steal (default 1s; 0 skips it\n"
	  "and the clock comparison)" },
	{ CLI_CALL("root", parse_root), .arg = "<dir>",
	  .help = "read /proc and /sys under <dir> (a saved copy of\n"
	  "another machine's files); CPUID and this process's\n"
	  "limits stay this machine's" },
	{ 0 },
};

/*
 * The library words its fixes without naming latlab's flags (it does not
 * know the CLI); here each finding that points at something latlab can do
 * gets the command line that does it.
 */
static const struct {
	const char *id;
	bool on_found; /* append to found (an info line), else to fix */
	const char *how;
} cli_hints[] = {
	{ "cpu.smt", false, "latlab pipeline --cpus <list>" },
	{ "cpu.idle", false, "latlab pipeline --wait spin" },
	{ "cpu.numa", false, "latlab pipeline --cpus <list>" },
	{ "cgroup.quota", false, "latlab pipeline --cpu-quota <pct>" },
	{ "latlab.cpu_quota", true, "latlab pipeline --cpu-quota <pct>" },
};

static void add_cli_hints(struct lat_doctor_report *r)
{
	for (int i = 0; i < r->n; i++) {
		struct lat_doctor_finding *f = &r->f[i];

		for (size_t h = 0; h < sizeof(cli_hints) / sizeof(*cli_hints);
		     h++) {
			char *t = cli_hints[h].on_found ? f->found : f->fix;
			size_t n = strlen(t);

			if (strcmp(f->id, cli_hints[h].id) || !n ||
			    (cli_hints[h].on_found &&
			     strncmp(t, "yes", 3)))
				continue;
			snprintf(t + n, LAT_DOCTOR_TEXT_LEN - n, " (%s)",
				 cli_hints[h].how);
		}
	}
}

static int doctor_main(int argc, char **argv)
{
	static struct lat_doctor_facts facts; /* ~40 KiB */
	static struct lat_doctor_report report;
	struct doctor_args a = { .json = false };
	struct lat_json j;
	int rc;

	lat_doctor_opts_init(&a.o);
	cli_parse(&cli_cmd_doctor, &a, argc, argv);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	rc = lat_doctor_gather(&facts, &a.o);
	if (rc)
		cli_fail(CMD, "cannot gather the facts: %s",
			     lat_strerror(rc));
	lat_doctor_judge(&facts, &report);
	add_cli_hints(&report);
	if (a.json) {
		lat_json_init(&j, stdout);
		lat_json_obj_begin(&j, NULL);
		lat_json_str(&j, "command", CMD);
		lat_doctor_write_json(&j, &facts, &report);
		lat_json_bool(&j, "strict", a.strict);
		lat_json_obj_end(&j);
		if (lat_json_finish(&j))
			cli_fail(CMD, "internal error: unbalanced JSON");
	} else if (lat_doctor_print(stdout, &report)) {
		cli_fail(CMD, "writing the report failed");
	}
	return a.strict && lat_doctor_count(&report, LAT_DOCTOR_BAD)
		       ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_doctor = {
	.name = "doctor",
	.summary = "is this machine fit to measure on? (checks and fixes)",
	.usage = usage,
	.opts = opts,
	.help_col = 18,
	.usage_tail = usage_tail,
	.run = doctor_main,
};
