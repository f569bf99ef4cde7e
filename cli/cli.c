/*
 * What every command shares: the exits (removing unfinished outputs),
 * the one-line refusals, the values of flags, the wording of a stop.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "latlab/common.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/parse.h"
#include "out_file.h"

bool cli_parse_only;
void (*cli_exit_hook)(int code);

void cli_exit(int code)
{
	/* a refused or failed run leaves no temporary output behind */
	cli_out_abandon_all();
	if (cli_exit_hook)
		cli_exit_hook(code); /* the fuzz harness: does not return */
	exit(code);
}

bool cli_parsed(void)
{
	return cli_parse_only;
}

const char *cli_help(const char *name)
{
	for (const struct cli_help_page *p = cli_help_pages; p->name; p++)
		if (!strcmp(p->name, name))
			return p->text;
	return NULL;
}

static void vreport(const char *cmd, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "latlab %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(cmd, fmt, ap);
	va_end(ap);
	cli_exit(CLI_EXIT_USAGE);
}

void cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(cmd, fmt, ap);
	va_end(ap);
	cli_exit(CLI_EXIT_FAIL);
}

void cli_no_operands(const char *cmd, int argc, char **argv)
{
	if (optind < argc)
		cli_usage_error(cmd, "unexpected argument '%s' (see 'latlab "
				    "%s --help')", argv[optind], cmd);
}

/* The values the option table parses (latlab/parse.h reads them; here
 * each refusal names the flag). */
uint64_t cli_u64(const char *cmd, const char *flag, const char *arg,
		 uint64_t min, uint64_t max)
{
	uint64_t v = 0;
	int rc = lat_parse_u64(arg, min, max, &v);

	if (rc == -ERANGE)
		cli_usage_error(cmd, "%s must be between %llu and %llu, not "
				"'%s'", flag, (unsigned long long)min,
				(unsigned long long)max, arg);
	if (rc)
		cli_usage_error(cmd, "%s needs a whole number, not '%s'", flag,
				arg ? arg : "");
	return v;
}

double cli_double(const char *cmd, const char *flag, const char *arg,
		  double min, double max)
{
	double v = 0;
	int rc = lat_parse_double(arg, min, max, &v);

	if (rc == -EINVAL && (!arg || !*arg))
		cli_usage_error(cmd, "%s needs a number", flag);
	if (rc == -EINVAL)
		cli_usage_error(cmd, "%s needs a number, not '%s'", flag, arg);
	if (rc == -EOVERFLOW && isinf(min) && isinf(max))
		cli_usage_error(cmd, "%s: '%s' is out of a number's range",
				flag, arg);
	if (rc)
		cli_usage_error(cmd, "%s must be between %g and %g, not '%s'%s",
				flag, min, max, arg,
				rc == -EOVERFLOW ? " (out of range)" : "");
	return v;
}

double cli_duration_ns(const char *cmd, const char *flag, const char *arg,
		       double default_unit_ns, double min_ns, double max_ns)
{
	char lo[LAT_FMT_LEN], hi[LAT_FMT_LEN];
	double v = 0;
	int rc = lat_parse_duration_ns(arg, default_unit_ns, min_ns, max_ns,
				       &v);

	if (rc == -EINVAL && (!arg || !*arg))
		cli_usage_error(cmd, "%s needs a duration", flag);
	if (rc == -EDOM)
		cli_usage_error(cmd, "%s needs a unit (ns, us, ms or s), as "
				"in %sus", flag, arg);
	lat_fmt_ns(lo, sizeof(lo), min_ns);
	/* no upper bound: "between 1 ns and n/a" says nothing */
	if (rc == -ERANGE && isinf(max_ns))
		cli_usage_error(cmd, "%s must be at least %s, not '%s'", flag,
				lo, arg);
	if (rc == -ERANGE)
		cli_usage_error(cmd, "%s must be between %s and %s, not '%s'",
				flag, lo, lat_fmt_ns(hi, sizeof(hi), max_ns),
				arg);
	if (rc)
		cli_usage_error(cmd, "%s needs a duration such as 500us, 20ms "
				"or 3s, not '%s'", flag, arg);
	return v;
}

int cli_exit_status(void)
{
	return lat_stop_signal() ? 128 + lat_stop_signal() : CLI_EXIT_OK;
}

int cli_interrupted(const char *cmd, const char *fmt, ...)
{
	int sig = lat_stop_signal();
	va_list ap;

	fprintf(stderr, "latlab %s: interrupted by %s", cmd,
		sig == SIGTERM ? "SIGTERM" : "SIGINT");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 128 + sig;
}

void cli_stdout_check(const char *cmd, int rc)
{
	if (rc)
		cli_fail(cmd, "writing the output: %s", lat_strerror(rc));
}

void cli_json_end(const char *cmd, struct lat_json *j)
{
	if (lat_json_finish(j))
		cli_fail(cmd, "JSON output failed");
	printf("\n");
}
