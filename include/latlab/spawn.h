/*
 * lat_spawn: start a command held before its exec, so that an observer
 * (the profiler's events, the scheduler probe) is in place for its first
 * instruction. The child waits on a socket for lat_spawn_release(); exec's
 * errno comes back through a second, close-on-exec pipe, so a command
 * that cannot run is an error here, not a silent empty trace.
 *
 * Not for hot paths (fork, pipes). Nothing prints.
 */
#ifndef LATLAB_SPAWN_H
#define LATLAB_SPAWN_H

#include <sys/types.h>

#include "latlab/common.h"

struct lat_spawn {
	pid_t pid;     /* the held child */
	int go_fd;     /* 'g' here lets it exec; 'q' or EOF makes it exit
			* 127 (another child held meanwhile keeps a copy of
			* this end, so EOF alone may never come) */
	int err_fd;    /* exec's errno comes back here */
};

/*
 * Fork @argv (argv[0] looked up in PATH) and hold it before exec. The
 * command starts with an empty signal mask (not the caller's).
 * Returns 0 or -errno (pipe, fork); nothing is left open on failure.
 */
int lat_spawn_held(char *const *argv, struct lat_spawn *sp);

/*
 * Let the held child exec. Returns 0 once it did, or -errno of the exec
 * that failed (-ENOENT: no such command), or -EPIPE when the child was
 * gone before its release (killed while held: it never ran); the child
 * is then reaped. The pipes are closed either way; sp->pid stays the
 * child's.
 */
int lat_spawn_release(struct lat_spawn *sp);

/* Give up on the held child: it exits without exec and is reaped. */
void lat_spawn_abandon(struct lat_spawn *sp);

#endif
