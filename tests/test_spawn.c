/*
 * A command held before exec (lat_spawn) and the process `latlab sched`
 * traces (lat_sched_target), with real children, no privilege: the held
 * child does not run before its release; an exec failure is the exec's
 * errno with the child reaped; a child killed while held is -EPIPE, not
 * a SIGPIPE; an abandoned child is reaped unexec'd, also while another
 * is held (which has a copy of its socket); the command starts with no
 * signal blocked even when the caller blocked some;
 * a target's exit, a zombie kept for /proc, a window that ends first, a
 * child ended with a signal, and the line printed for each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latlab/sched.h"
#include "latlab/spawn.h"
#include "t_test.h"

/* No child of ours is left unreaped. */
static void no_children(void)
{
	T_EQ_I64(waitpid(-1, NULL, WNOHANG), -1);
	T_EQ_I64(errno, ECHILD);
}

static void test_spawn(void)
{
	char *missing[] = { "/nonexistent/latlab-no-such-command", NULL };
	char *exit3[] = { "sh", "-c", "exit 3", NULL };
	struct lat_spawn sp;
	siginfo_t si;
	int status = -1;

	/* held: not exec'd, not exited, until released */
	T_EQ_I64(lat_spawn_held(exit3, &sp), 0);
	memset(&si, 0, sizeof(si));
	T_EQ_I64(waitid(P_PID, (id_t)sp.pid, &si, WEXITED | WNOHANG |
			WNOWAIT), 0);
	T_EQ_I64(si.si_pid, 0); /* still waiting on the pipe */
	T_EQ_I64(lat_spawn_release(&sp), 0);
	T_EQ_I64(waitpid(sp.pid, &status, 0), sp.pid);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	/* exec fails: its errno, the child reaped */
	T_EQ_I64(lat_spawn_held(missing, &sp), 0);
	T_EQ_I64(lat_spawn_release(&sp), -ENOENT);
	no_children();
	/* killed while held (a terminal's Ctrl-C reaches it too): the
	 * release says so, without a SIGPIPE to us, and reaps it */
	T_EQ_I64(lat_spawn_held(exit3, &sp), 0);
	T_EQ_I64(kill(sp.pid, SIGKILL), 0);
	memset(&si, 0, sizeof(si));
	T_EQ_I64(waitid(P_PID, (id_t)sp.pid, &si, WEXITED | WNOWAIT), 0);
	T_EQ_I64(lat_spawn_release(&sp), -EPIPE);
	no_children();
	/* abandoned: reaped without running */
	T_EQ_I64(lat_spawn_held(exit3, &sp), 0);
	lat_spawn_abandon(&sp);
	no_children();
	T_EQ_I64(lat_spawn_held(NULL, &sp), -EINVAL);
}

/* Two held at once: abandoning the first must not wait for the second
 * (an alarm turns a hang into a failure), and both can still run. */
static void test_spawn_two(void)
{
	char *exit3[] = { "sh", "-c", "exit 3", NULL };
	struct lat_spawn a, b;
	int status = -1;

	T_EQ_I64(lat_spawn_held(exit3, &a), 0);
	T_EQ_I64(lat_spawn_held(exit3, &b), 0);
	alarm(10);
	lat_spawn_abandon(&a);
	alarm(0);
	T_EQ_I64(lat_spawn_release(&b), 0);
	T_EQ_I64(waitpid(b.pid, &status, 0), b.pid);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	no_children();
	T_EQ_I64(lat_spawn_held(exit3, &a), 0);
	T_EQ_I64(lat_spawn_held(exit3, &b), 0);
	T_EQ_I64(lat_spawn_release(&b), 0);
	T_EQ_I64(lat_spawn_release(&a), 0);
	T_EQ_I64(waitpid(a.pid, &status, 0), a.pid);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	T_EQ_I64(waitpid(b.pid, &status, 0), b.pid);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	no_children();
}

/* The caller blocks SIGUSR1; the command does not inherit that: a shell
 * that sends itself SIGUSR1 dies of it (blocked, it would exit 0). */
static void test_spawn_sigmask(void)
{
	char *self_usr1[] = { "sh", "-c", "kill -USR1 $$; exit 0", NULL };
	struct lat_spawn sp;
	sigset_t usr1, old;
	int status = -1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	T_EQ_I64(sigprocmask(SIG_BLOCK, &usr1, &old), 0);
	T_EQ_I64(lat_spawn_held(self_usr1, &sp), 0);
	T_EQ_I64(lat_spawn_release(&sp), 0);
	T_EQ_I64(waitpid(sp.pid, &status, 0), sp.pid);
	T_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1);
	sigprocmask(SIG_SETMASK, &old, NULL);
	no_children();
}

static void line_of(const struct lat_sched_target *t, const char *name,
		    char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	T_CHECK(f != NULL);
	if (!f)
		return;
	lat_sched_target_print(f, t, name);
	fclose(f);
}

static void test_target(void)
{
	char *exit3[] = { "sh", "-c", "exit 3", NULL };
	char *missing[] = { "/nonexistent/latlab-no-such-command", NULL };
	char *sleep5[] = { "sleep", "5", NULL };
	struct lat_sched_target t;
	char line[128], want[128], path[64];

	/* a command to its exit, reaped with its status */
	T_EQ_I64(lat_sched_target_spawn(&t, exit3), 0);
	T_EQ_I64(lat_sched_target_release(&t), 0);
	T_CHECK(lat_sched_target_wait(&t, 0, false, NULL, NULL));
	lat_sched_target_end(&t, 0);
	T_CHECK(t.exited && WIFEXITED(t.status) && WEXITSTATUS(t.status) == 3);
	line_of(&t, "sh", line, sizeof(line));
	snprintf(want, sizeof(want), "command: sh (pid %d), exited 3\n",
		 (int)t.pid);
	T_CHECK(!strcmp(line, want));
	no_children();
	/* kept a zombie: its /proc entry is there until the end */
	T_EQ_I64(lat_sched_target_spawn(&t, exit3), 0);
	T_EQ_I64(lat_sched_target_release(&t), 0);
	T_CHECK(lat_sched_target_wait(&t, 0, true, NULL, NULL));
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)t.pid);
	T_EQ_I64(access(path, F_OK), 0);
	lat_sched_target_end(&t, 0);
	T_CHECK(WIFEXITED(t.status) && WEXITSTATUS(t.status) == 3);
	no_children();
	/* the window ends first; the end passes the signal on */
	T_EQ_I64(lat_sched_target_spawn(&t, sleep5), 0);
	T_EQ_I64(lat_sched_target_release(&t), 0);
	T_CHECK(!lat_sched_target_wait(&t, 20e6, false, NULL, NULL));
	T_CHECK(!t.exited);
	lat_sched_target_end(&t, SIGTERM);
	T_CHECK(WIFSIGNALED(t.status) && WTERMSIG(t.status) == SIGTERM);
	line_of(&t, "sleep", line, sizeof(line));
	snprintf(want, sizeof(want),
		 "command: sleep (pid %d), killed by signal %d\n", (int)t.pid,
		 SIGTERM);
	T_CHECK(!strcmp(line, want));
	no_children();
	/* a command that cannot run */
	T_EQ_I64(lat_sched_target_spawn(&t, missing), 0);
	T_EQ_I64(lat_sched_target_release(&t), -ENOENT);
	lat_sched_target_end(&t, 0);
	no_children();
	/* a running process (ours), and one that does not exist */
	T_EQ_I64(lat_sched_target_follow(&t, getpid()), 0);
	T_EQ_I64(lat_sched_target_release(&t), 0);
	T_CHECK(!lat_sched_target_wait(&t, 10e6, false, NULL, NULL));
	lat_sched_target_end(&t, 0);
	line_of(&t, NULL, line, sizeof(line));
	snprintf(want, sizeof(want), "process: %d\n", (int)getpid());
	T_CHECK(!strcmp(line, want));
	T_EQ_I64(lat_sched_target_follow(&t, 4194300), -ESRCH);
}

int main(void)
{
	test_spawn();
	test_spawn_two();
	test_spawn_sigmask();
	test_target();
	T_DONE();
}
