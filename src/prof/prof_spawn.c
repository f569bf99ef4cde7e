/*
 * Start a command with the profiler attached from its first instruction:
 * the child waits on a pipe until the events are open (enable_on_exec),
 * then execs; a second, close-on-exec pipe carries exec's errno back, so
 * a command that does not exist is an error here, not a silent empty
 * profile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latlab/prof.h"

static void child(int go, int report, char **argv)
{
	char c;
	int err;

	/* wait for the parent to attach; EOF means it gave up */
	if (read(go, &c, 1) != 1)
		_exit(127);
	execvp(argv[0], argv);
	err = errno;
	if (write(report, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

int lat_prof_spawn(struct lat_prof *p, char **argv, pid_t *pid)
{
	int go[2], report[2], err = 0, rc;
	ssize_t n;
	pid_t c;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(report, O_CLOEXEC) < 0) {
		rc = -errno;
		close(go[0]);
		close(go[1]);
		return rc;
	}
	c = fork();
	if (c < 0) {
		rc = -errno;
		close(go[0]);
		close(go[1]);
		close(report[0]);
		close(report[1]);
		return rc;
	}
	if (c == 0) {
		close(go[1]);
		close(report[0]);
		child(go[0], report[1], argv);
	}
	close(go[0]);
	close(report[1]);
	rc = lat_prof_attach_pid(p, c, true);
	if (rc) {
		close(go[1]); /* EOF: the child exits without exec */
		close(report[0]);
		waitpid(c, NULL, 0);
		return rc;
	}
	if (write(go[1], "g", 1) != 1)
		err = errno;
	close(go[1]);
	do
		n = read(report[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == sizeof(err) || (n < 0 && err)) {
		waitpid(c, NULL, 0);
		return -(err ? err : EIO);
	}
	*pid = c;
	return 0;
}
