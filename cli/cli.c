#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
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

void cli_bad_option(const char *cmd, char **argv, int c)
{
	const char *opt = argv[optind - 1];
	bool long_opt = opt[0] == '-' && opt[1] == '-';

	/* getopt returns ':' only for a known option whose value is missing */
	if (c == ':' && long_opt)
		cli_usage_error(cmd, "'%s' needs a value (see 'latlab %s "
				    "--help')", opt, cmd);
	if (c == ':')
		cli_usage_error(cmd, "'-%c' needs a value (see 'latlab %s "
				    "--help')", optopt, cmd);
	if (optopt && !long_opt)
		cli_usage_error(cmd, "unknown option '-%c' (see 'latlab %s "
				    "--help')", optopt, cmd);
	cli_usage_error(cmd, "unknown option '%s' (see 'latlab %s --help')",
			    opt, cmd);
}

void cli_no_operands(const char *cmd, int argc, char **argv)
{
	if (optind < argc)
		cli_usage_error(cmd, "unexpected argument '%s' (see 'latlab "
				    "%s --help')", argv[optind], cmd);
}

/*
 * Length of the plain decimal number at the start of @s:
 * [+-]digits[.digits][e[+-]digits]. strtod alone would also take leading
 * blanks, hex floats, "inf" and "nan", none of which a person means as a
 * flag value.
 */
static size_t decimal_len(const char *s)
{
	const char *p = s;
	size_t digits = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits)
		return 0;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		p += 2;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return (size_t)(p - s);
}

uint64_t cli_u64(const char *cmd, const char *flag, const char *arg,
		     uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	if (!arg || !isdigit((unsigned char)arg[0]))
		goto bad;
	v = strtoull(arg, &end, 10);
	if (end == arg)
		goto bad;
	if (errno == ERANGE) /* 20 digits: a number, just too large */
		goto range;
	if (errno)
		goto bad;
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	else if (*end == 'G')
		mul = 1000000000, end++;
	if (*end)
		goto bad;
	if (v > UINT64_MAX / mul)
		goto range;
	v *= mul;
	if (v < min || v > max)
		goto range;
	return v;
bad:
	cli_usage_error(cmd, "%s needs a whole number, not '%s'", flag,
			    arg ? arg : "");
range:
	cli_usage_error(cmd, "%s must be between %llu and %llu, not '%s'",
			    flag, (unsigned long long)min,
			    (unsigned long long)max, arg);
}

double cli_double(const char *cmd, const char *flag, const char *arg,
		      double min, double max)
{
	char *end;
	double v;

	errno = 0;
	if (!arg || !*arg)
		cli_usage_error(cmd, "%s needs a number", flag);
	v = strtod(arg, &end);
	if (errno == ERANGE && decimal_len(arg) == strlen(arg) && !*end)
		v = v > 0 || arg[0] != '-' ? max * 2 + 1 : min * 2 - 1;
	else if (errno || decimal_len(arg) != strlen(arg) || *end ||
		 !isfinite(v))
		cli_usage_error(cmd, "%s needs a number, not '%s'", flag,
				    arg);
	/* 1e400 and 1e-400 are numbers out of range, not garbage */
	if (errno == ERANGE && isinf(min) && isinf(max))
		cli_usage_error(cmd, "%s: '%s' is out of a number's range",
				flag, arg);
	if (errno == ERANGE)
		cli_usage_error(cmd, "%s must be between %g and %g, not '%s' "
				"(out of range)", flag, min, max, arg);
	if (v < min || v > max)
		cli_usage_error(cmd, "%s must be between %g and %g, not '%s'",
				    flag, min, max, arg);
	return v;
}

double cli_duration_ns(const char *cmd, const char *flag, const char *arg,
			   double default_unit_ns, double min_ns, double max_ns)
{
	static const struct {
		const char *suffix;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 },
		      { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 },
		      { "m", 60e9 } };
	char *end;
	double v, scale = default_unit_ns;

	errno = 0;
	if (!arg || !*arg)
		cli_usage_error(cmd, "%s needs a duration", flag);
	v = strtod(arg, &end);
	if (errno || end == arg || !isfinite(v) ||
	    (size_t)(end - arg) != decimal_len(arg))
		goto bad;
	if (!*end && default_unit_ns == 0)
		cli_usage_error(cmd, "%s needs a unit (ns, us, ms or s), as "
				    "in %sus", flag, arg);
	if (*end) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].suffix))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			goto bad;
		scale = units[i].ns;
	}
	v *= scale;
	if (v < min_ns || v > max_ns) {
		char lo[LAT_FMT_LEN], hi[LAT_FMT_LEN];

		/* no upper bound: "between 1 ns and n/a" says nothing */
		if (isinf(max_ns))
			cli_usage_error(cmd, "%s must be at least %s, not "
					"'%s'", flag, lat_fmt_ns(lo, sizeof(lo),
					min_ns), arg);
		cli_usage_error(cmd, "%s must be between %s and %s, not '%s'",
				    flag, lat_fmt_ns(lo, sizeof(lo), min_ns),
				    lat_fmt_ns(hi, sizeof(hi), max_ns), arg);
	}
	return v;
bad:
	cli_usage_error(cmd, "%s needs a duration such as 500us, 20ms or "
			    "3s, not '%s'", flag, arg);
}

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

void cli_catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cli_stop_signal(void)
{
	return stop_signal;
}

bool cli_stop_requested(void *ctx)
{
	(void)ctx;
	return stop_signal != 0;
}

bool cli_pipe_stop(void *ctx, uint64_t produced, double elapsed_s)
{
	(void)produced;
	(void)elapsed_s;
	return cli_stop_requested(ctx);
}

bool cli_qsim_sweep_stop(void *ctx, size_t done, size_t n)
{
	(void)done;
	(void)n;
	return cli_stop_requested(ctx);
}

int cli_exit_status(void)
{
	return stop_signal ? 128 + stop_signal : CLI_EXIT_OK;
}

void cli_json_end(const char *cmd, struct lat_json *j)
{
	if (lat_json_finish(j))
		cli_fail(cmd, "JSON output failed");
	printf("\n");
}
