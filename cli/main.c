/*
 * latlab: one binary, a table of subcommands (generated at build time from
 * the cli/cmd_*.c files, so adding a command touches no shared file).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "cmd_table.h"
#include "latlab/common.h"

static const struct cli_cmd *find_cmd(const char *name)
{
	for (const struct cli_cmd *const *c = cli_cmd_table; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

/*
 * The page docs/cli/@name.txt; latlab's own holds @VERSION@ where the
 * version goes (the one part of any page that is not fixed text).
 */
static void print_help(const char *name)
{
	const char *text = cli_help(name), *v;

	if (!text) /* tests/test_cli_help.c: every command has its page */
		cli_fail(name, "internal error: no help page");
	v = strstr(text, "@VERSION@");
	if (v) {
		printf("%.*s%s", (int)(v - text), text, LATLAB_VERSION);
		text = v + strlen("@VERSION@");
	}
	fputs(text, stdout);
}

int main(int argc, char **argv)
{
	const struct cli_cmd *cmd;
	int rc;

	/* "latlab" alone is a usage error; asked for, the page is a success */
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")
	    || (!strcmp(argv[1], "help") && argc < 3)) {
		print_help("latlab");
		return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("latlab %s\n", LATLAB_VERSION);
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		cmd = find_cmd(argv[2]);
		if (!cmd)
			cli_usage_error("help", "no command '%s' "
					    "(see 'latlab --help')", argv[2]);
		print_help(cmd->name);
		return CLI_EXIT_OK;
	}
	cmd = find_cmd(argv[1]);
	if (!cmd) {
		fprintf(stderr, "latlab: '%s' is not a latlab command "
			"(see 'latlab --help')\n", argv[1]);
		return CLI_EXIT_USAGE;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			print_help(cmd->name);
			return CLI_EXIT_OK;
		}
	}
	optind = 1;
	opterr = 0;
	rc = cmd->run(argc - 1, argv + 1);
	cli_out_abandon_all(); /* an output its command did not finish */
	/* results that never reached their reader are a failure, not a
	 * success: a full disk or a closed pipe must not exit 0 */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "latlab %s: writing the results failed: %s\n",
			cmd->name, strerror(errno));
		return rc ? rc : CLI_EXIT_FAIL;
	}
	return rc;
}
