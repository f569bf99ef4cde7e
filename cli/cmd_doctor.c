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

	if (stat(v, &st) || !S_ISDIR(st.st_mode)) /* "" included */
		cli_usage_error(CMD, "--root '%s' is not a directory", v);
	((struct doctor_args *)args)->o.root = v;
}

#define CLI_ARGS struct doctor_args
static const struct cli_opt opts[] = {
	{ CLI_FLAG("json", json) },
	{ CLI_FLAG("strict", strict) },
	{ CLI_CALL("steal", parse_steal) },
	{ CLI_CALL("root", parse_root) },
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
	for (size_t h = 0; h < sizeof(cli_hints) / sizeof(*cli_hints); h++)
		lat_doctor_add_hint(&report, cli_hints[h].id,
				    cli_hints[h].on_found, cli_hints[h].how);
	if (a.json) {
		lat_json_doc_begin(&j, stdout, CMD);
		lat_doctor_write_json(&j, &facts, &report);
		lat_json_bool(&j, "strict", a.strict);
		if (lat_json_doc_end(&j))
			cli_fail(CMD, "internal error: unbalanced JSON");
	} else if (lat_doctor_print(stdout, &report)) {
		cli_fail(CMD, "writing the report failed");
	}
	return a.strict && lat_doctor_count(&report, LAT_DOCTOR_BAD)
		       ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_doctor = {
	.name = "doctor",
	.opts = opts,
	.run = doctor_main,
};
