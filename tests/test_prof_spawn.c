/*
 * Profiling a command from its first instruction, through the public API
 * alone (what `latlab profile -- <command>` does): a command that cannot
 * run is an error, not an empty profile; one that runs is reaped with its
 * exit status, and the time it was sampled is in the stats.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "latlab/prof.h"
#include "t_test.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	char *missing[] = { "/nonexistent/latlab-no-such-command", NULL };
	char *cmd[] = { "sh", "-c", "exit 3", NULL };
	struct lat_prof_stats st;
	struct lat_prof *p;
	double t0, t1;
	int rc, status = -1;
	pid_t pid;

	T_EQ_I64(lat_prof_create(NULL, &p), 0);
	rc = lat_prof_spawn(p, cmd, &pid);
	if (rc == -LAT_EUNSUPP || rc == -EACCES || rc == -EPERM)
		T_SKIP("cannot sample here: %s", lat_prof_error_note(p));
	T_EQ_I64(rc, 0);
	lat_prof_get_stats(p, &st);
	T_CHECK(st.sampled_s == 0); /* not sampled yet */
	t0 = now_s();
	T_EQ_I64(lat_prof_sample_until(p, pid, true, 0, NULL, NULL, &status),
		 0);
	t1 = now_s();
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	lat_prof_get_stats(p, &st);
	/* the time sampled lies inside the call */
	T_CHECK(st.sampled_s > 0 && st.sampled_s <= t1 - t0);
	lat_prof_free(p);
	/* a command that cannot be executed: its errno, the child reaped */
	T_EQ_I64(lat_prof_create(NULL, &p), 0);
	T_EQ_I64(lat_prof_spawn(p, missing, &pid), -ENOENT);
	T_EQ_I64(waitpid(-1, NULL, WNOHANG), -1);
	T_EQ_I64(errno, ECHILD);
	lat_prof_free(p);
	T_DONE();
}
