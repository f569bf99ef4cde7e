/*
 * The process `latlab sched` traces (latlab/sched.h): a command held
 * before exec until the probe is attached, or a running process; waiting
 * for its exit (a pidfd where the kernel has one) within a window, and
 * reaping a child at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "latlab/common.h"
#include "latlab/sched.h"

int lat_sched_target_spawn(struct lat_sched_target *t, char *const *argv)
{
	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	t->child = true;
	{
		int rc = lat_spawn_held(argv, &t->sp);

		if (!rc)
			t->pid = t->sp.pid;
		return rc;
	}
}

int lat_sched_target_follow(struct lat_sched_target *t, pid_t pid)
{
	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	t->pid = pid;
	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return -ESRCH;
	return 0;
}

int lat_sched_target_release(struct lat_sched_target *t)
{
	if (t->child) {
		int rc = lat_spawn_release(&t->sp);

		if (rc) {
			t->exited = t->reaped = true;
			return rc;
		}
	}
#ifdef SYS_pidfd_open
	t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
#endif
	return 0;
}

/*
 * A child's wait status, when waitpid gave it: interrupted (a second
 * Ctrl-C while a child that ignores the first runs on) it stays unknown,
 * never a made-up "exited 0".
 */
static void collect(struct lat_sched_target *t)
{
	if (waitpid(t->pid, &t->status, 0) == t->pid)
		t->exited = t->reaped = true;
}

/* Wait up to @ms for the target to exit; true when it has. */
static bool gone(struct lat_sched_target *t, int ms, bool keep_zombie)
{
	if (t->exited)
		return true;
	if (t->pidfd >= 0) {
		struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

		if (poll(&p, 1, ms) > 0)
			t->exited = true;
	} else {
		struct timespec ts = { 0, (long)ms * 1000000L };
		siginfo_t si;

		nanosleep(&ts, NULL);
		memset(&si, 0, sizeof(si));
		if (t->child)
			t->exited = !waitid(P_PID, (id_t)t->pid, &si,
					    WEXITED | WNOHANG | WNOWAIT) &&
				    si.si_pid == t->pid;
		else
			t->exited = kill(t->pid, 0) && errno == ESRCH;
	}
	if (t->exited && t->child && !keep_zombie)
		collect(t); /* it exited: no wait */
	return t->exited;
}

bool lat_sched_target_wait(struct lat_sched_target *t, double duration_ns,
			   bool keep_zombie, bool (*stop)(void *ctx),
			   void *ctx)
{
	uint64_t end = duration_ns > 0 ? lat_mono_ns() + (uint64_t)duration_ns
				       : UINT64_MAX;

	for (;;) {
		uint64_t now = lat_mono_ns();
		int ms = 50;

		if (stop && stop(ctx))
			return t->exited;
		if (now >= end)
			return t->exited;
		if (end - now < 50000000u)
			ms = (int)((end - now) / 1000000u) + 1;
		if (gone(t, ms, keep_zombie))
			return true;
	}
}

void lat_sched_target_end(struct lat_sched_target *t, int sig)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	if (!t->child || t->reaped)
		return;
	if (!t->exited && sig)
		kill(t->pid, sig);
	collect(t);
}

void lat_sched_target_print(FILE *out, const struct lat_sched_target *t,
			    const char *name)
{
	if (t->child) {
		fprintf(out, "command: %s (pid %d)", name, (int)t->pid);
		if (t->exited && WIFEXITED(t->status))
			fprintf(out, ", exited %d", WEXITSTATUS(t->status));
		else if (t->exited && WIFSIGNALED(t->status))
			fprintf(out, ", killed by signal %d",
				WTERMSIG(t->status));
		fprintf(out, "\n");
	} else {
		fprintf(out, "process: %d%s\n", (int)t->pid,
			t->exited ? " (exited during the trace)" : "");
	}
}
