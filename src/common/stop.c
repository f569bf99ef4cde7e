/* SIGINT/SIGTERM as a stop request (see latlab/stop.h). */
#include <signal.h>
#include <string.h>

#include "latlab/stop.h"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

void lat_stop_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int lat_stop_signal(void)
{
	return stop_signal;
}

bool lat_stop_requested(void *ctx)
{
	(void)ctx;
	return stop_signal != 0;
}

bool lat_stop_pipe(void *ctx, uint64_t produced, double elapsed_s)
{
	(void)produced;
	(void)elapsed_s;
	return lat_stop_requested(ctx);
}

bool lat_stop_sweep(void *ctx, size_t done, size_t n)
{
	(void)done;
	(void)n;
	return lat_stop_requested(ctx);
}
