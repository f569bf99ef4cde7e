/*
 * How a command ends after its library session: the one wording of an
 * interruption and of a failed standard output, shared by the commands
 * (cli/cmd_queue.c, cmd_knee.c, cmd_co.c, cmd_report.c, and any other
 * that wants them) so that "interrupted by SIGINT" reads the same
 * everywhere.
 */
#ifndef LATLAB_CLI_STOP_H
#define LATLAB_CLI_STOP_H

/*
 * Print "latlab <cmd>: interrupted by SIGINT" (or SIGTERM) followed by
 * the formatted rest (": the result is of ..." or " after ...") as one
 * line on stderr; return 128 + the signal, the command's exit status
 * (its partial results already printed). Call only after
 * lat_stop_catch_signals() has seen a signal.
 */
int cli_interrupted(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * @rc is a library writer's result for stdout (0 or -errno): on an error
 * exit 1 with one line naming @cmd; otherwise return.
 */
void cli_stdout_check(const char *cmd, int rc);

#endif
