/*
 * The latlab command line: the subcommand table and the helpers every
 * subcommand uses to parse flags and report usage errors the same way.
 *
 * Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input,
 * 130/143 interrupted by SIGINT/SIGTERM.
 */
#ifndef LATLAB_CLI_H
#define LATLAB_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/stop.h"
#include "opt.h"

enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAIL = 1,
	CLI_EXIT_USAGE = 2,
};

/*
 * One subcommand. Each cli/cmd_<name>.c defines
 *   const struct cli_cmd cli_cmd_<name>;
 * and the build collects them into the table (see CMakeLists.txt). Its
 * --help is the page docs/cli/<name>.txt, embedded at build time; the
 * pattern every command follows is in docs/architecture.md.
 */
struct cli_cmd {
	const char *name;
	const struct cli_opt *opts;
	bool operands;        /* takes arguments after its options */
	bool options_first;   /* options end at the first operand */
	int (*run)(int argc, char **argv); /* argv[0] is the name */
};

/* The embedded pages (generated gen/cli_help.c), ended by { 0 }. */
struct cli_help_page {
	const char *name; /* "latlab" for latlab's own, else a command's */
	const char *text;
};
extern const struct cli_help_page cli_help_pages[];

/* The text of docs/cli/@name.txt, or NULL. */
const char *cli_help(const char *name);

/*
 * Parse-only mode (the CLI fuzz target, fuzz/fuzz_cli_argv.c): every
 * command calls 'if (cli_parsed()) return 0;' after it has validated all
 * of its arguments and before it opens an output or starts any work.
 */
extern bool cli_parse_only;
bool cli_parsed(void);

/*
 * Every exit of the CLI goes through here: pending temporary outputs are
 * removed (cli/out_file.h), then exit(@code), or @cli_exit_hook when set
 * (the fuzz harness longjmps out of it).
 */
_Noreturn void cli_exit(int code);
extern void (*cli_exit_hook)(int code);

/*
 * Print "latlab <cmd>: <message>" as one line on stderr and exit 2.
 * Messages are lowercase, without a final period.
 */
_Noreturn void cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "latlab <cmd>: <message>" on stderr and exit 1. */
_Noreturn void cli_fail(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * After getopt_long: exit 2 naming the first operand if any is left (for
 * commands that take options only).
 */
void cli_no_operands(const char *cmd, int argc, char **argv);

/*
 * @arg as the value of @flag, read by lat_parse_u64, lat_parse_double or
 * lat_parse_duration_ns (latlab/parse.h: the syntax, the ranges); on any
 * refusal exit 2 with one line naming @flag.
 */
uint64_t cli_u64(const char *cmd, const char *flag, const char *arg,
		 uint64_t min, uint64_t max);
double cli_double(const char *cmd, const char *flag, const char *arg,
		  double min, double max);
double cli_duration_ns(const char *cmd, const char *flag, const char *arg,
		       double default_unit_ns, double min_ns, double max_ns);

/* What a command returns at its end: 0, or 128 + the signal that stopped
 * it (latlab/stop.h: the commands stop on Ctrl-C with lat_stop_*, their
 * partial results printed). */
int cli_exit_status(void);

/*
 * The one wording of an interruption, so that it reads the same in every
 * command: "latlab <cmd>: interrupted by SIGINT" (or SIGTERM) and the
 * formatted rest (": the result is of ..." or " after ...") as one line
 * on stderr; returns 128 + the signal. Only once a signal was seen.
 */
int cli_interrupted(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* @rc, a library writer's result for stdout (0 or -errno): on an error
 * exit 1 with one line naming @cmd. */
void cli_stdout_check(const char *cmd, int rc);

/*
 * End a --json document begun with lat_json_init(&j, stdout): finish it
 * and write the blank line after it; exit 1 if it is not well formed.
 */
struct lat_json;
void cli_json_end(const char *cmd, struct lat_json *j);

#endif
