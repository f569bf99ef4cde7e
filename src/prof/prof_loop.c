/*
 * The sampling loop of `latlab profile`: drain the rings every 100 ms
 * until the time is up, the target is gone, or the caller's stop says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "prof_int.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static bool gone(pid_t pid, bool child, int *status)
{
	if (child)
		return waitpid(pid, status, WNOHANG) == pid;
	return kill(pid, 0) < 0 && errno == ESRCH;
}

int lat_prof_sample_until(struct lat_prof *p, pid_t pid, bool child,
			  double duration_ns, bool (*stop)(void *ctx),
			  void *ctx, int *status)
{
	double t0 = now_ns(), end = t0 + duration_ns;
	bool exited = false;
	int rc;

	*status = 0;
	while (!(stop && stop(ctx))) {
		rc = lat_prof_poll(p, 100);
		if (rc < 0 && rc != -EINTR)
			return rc;
		if (gone(pid, child, status)) {
			exited = true;
			break;
		}
		if (duration_ns > 0 && now_ns() >= end)
			break;
	}
	rc = lat_prof_stop(p);
	if (child && !exited) {
		/* time is up or stopped: the command ends with the profile */
		kill(pid, SIGTERM);
		waitpid(pid, status, 0);
	}
	p->st.sampled_s = (now_ns() - t0) / 1e9;
	return rc;
}
