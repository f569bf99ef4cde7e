/* The shared endings of a command: see cli/stop.h. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "stop.h"
#include "latlab/common.h"

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
