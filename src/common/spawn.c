/*
 * A command held before its exec (latlab/spawn.h): used by the profiler
 * and the scheduler probe, which both must be attached before the
 * command's first instruction.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latlab/spawn.h"

/* What the parent sends: run, or give up. */
#define SPAWN_GO 'g'
#define SPAWN_QUIT 'q'

static void child(int go, int report, char *const *argv)
{
	sigset_t none;
	char c;
	int err;

	/* wait for the parent to attach; EOF or a quit means it gave up
	 * (EOF alone is not enough: a sibling held at the same time has a
	 * copy of our socket's other end until it execs) */
	if (read(go, &c, 1) != 1 || c != SPAWN_GO)
		_exit(127);
	/* the command starts with no signal blocked, whatever the thread
	 * that forked it blocked (exec keeps the mask) */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(argv[0], argv);
	err = errno;
	if (write(report, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

static void close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
}

/* The child, reaped; a signal to us does not leave it a zombie. */
static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int lat_spawn_held(char *const *argv, struct lat_spawn *sp)
{
	int go[2], report[2], rc;
	pid_t c;

	if (!argv || !argv[0])
		return -EINVAL;
	/* a socket, not a pipe: the go byte is sent with MSG_NOSIGNAL, so a
	 * child already gone (a terminal's Ctrl-C reaches it while held)
	 * is -EPIPE here, not a SIGPIPE that kills the caller */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) < 0)
		return -errno;
	if (pipe2(report, O_CLOEXEC) < 0) {
		rc = -errno;
		close_pair(go);
		return rc;
	}
	c = fork();
	if (c < 0) {
		rc = -errno;
		close_pair(go);
		close_pair(report);
		return rc;
	}
	if (c == 0) {
		close(go[1]);
		close(report[0]);
		child(go[0], report[1], argv);
	}
	close(go[0]);
	close(report[1]);
	sp->pid = c;
	sp->go_fd = go[1];
	sp->err_fd = report[0];
	return 0;
}

int lat_spawn_release(struct lat_spawn *sp)
{
	int err = 0;
	ssize_t n;

	if (send(sp->go_fd, &(char){ SPAWN_GO }, 1, MSG_NOSIGNAL) != 1) {
		/* gone before its release: it did not exec */
		err = errno ? errno : EIO;
		close(sp->go_fd);
		close(sp->err_fd);
		sp->go_fd = sp->err_fd = -1;
		reap(sp->pid);
		return -err;
	}
	close(sp->go_fd);
	sp->go_fd = -1;
	/* EOF when exec closed the pipe: it ran */
	do
		n = read(sp->err_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(sp->err_fd);
	sp->err_fd = -1;
	if (n == (ssize_t)sizeof(err) || (n < 0 && err)) {
		reap(sp->pid);
		return -(err ? err : EIO);
	}
	return 0;
}

void lat_spawn_abandon(struct lat_spawn *sp)
{
	/* the child exits without exec: told so (it may be gone already),
	 * then EOF */
	(void)send(sp->go_fd, &(char){ SPAWN_QUIT }, 1, MSG_NOSIGNAL);
	close(sp->go_fd);
	close(sp->err_fd);
	sp->go_fd = sp->err_fd = -1;
	reap(sp->pid);
}
