/*
 * Start a command with the profiler attached from its first instruction:
 * the child is held before exec (lat_spawn) until the events are open
 * (enable_on_exec).
 */
#include "latlab/prof.h"
#include "latlab/spawn.h"

int lat_prof_spawn(struct lat_prof *p, char **argv, pid_t *pid)
{
	struct lat_spawn sp;
	int rc = lat_spawn_held(argv, &sp);

	if (rc)
		return rc;
	rc = lat_prof_attach_pid(p, sp.pid, true);
	if (rc) {
		lat_spawn_abandon(&sp);
		return rc;
	}
	rc = lat_spawn_release(&sp);
	if (!rc)
		*pid = sp.pid;
	return rc;
}
