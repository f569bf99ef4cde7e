/*
 * libFuzzer target: every subcommand's option parser, with arbitrary argv
 * vectors, in parse-only mode (cli_parse_only: each command returns right
 * after validating its arguments, before it opens an output or runs any
 * workload). A refusal's exit goes through cli_exit(), which the hook
 * turns into a longjmp back here, so one process tries millions of
 * command lines. Findings: crashes, sanitizer reports, hangs (-timeout).
 *
 * Input: byte 0 picks the command (modulo the table), the rest is split
 * on NUL bytes into at most MAX_ARGS arguments.
 *
 * Leaks are not checked: a refusal longjmps out of the parser, leaving
 * what it had allocated for the exit that would have freed it.
 */
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_table.h"

#define MAX_ARGS 64

static jmp_buf back;

static void exit_hook(int code)
{
	longjmp(back, code + 1);
}

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/latlab-fuzz-cli.XXXXXX";
	int null = open("/dev/null", O_RDWR);

	(void)argc;
	(void)argv;
	/* a parser may make a directory (--hgrm, --profile): in a scratch
	 * one; a path like /dev/stdin must not wait for a terminal; the
	 * refusals' lines are noise: the CLI's stderr FILE goes nowhere,
	 * while fd 2 stays for libFuzzer's and the sanitizers' reports */
	if (mkdtemp(dir) && chdir(dir) == 0 && null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		stderr = fdopen(null, "w");
	}
	cli_parse_only = true;
	cli_exit_hook = exit_hook;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[65536 + 1];
	char *argv[MAX_ARGS + 2];
	int n_cmds = 0, argc = 1;
	const struct cli_cmd *cmd;

	if (size < 1 || size > sizeof(buf) - 1)
		return 0;
	while (cli_cmd_table[n_cmds])
		n_cmds++;
	cmd = cli_cmd_table[data[0] % n_cmds];
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argv[0] = (char *)cmd->name;
	for (size_t i = 0; i < size - 1 && argc <= MAX_ARGS;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	/* as main() does: --help is answered before the command runs */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ||
		    !strcmp(argv[i], "--"))
			return 0;
	optind = 0; /* glibc: a full re-initialisation of getopt */
	opterr = 0;
	if (setjmp(back) == 0)
		cmd->run(argc, argv);
	return 0;
}
