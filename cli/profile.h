/*
 * latlab profile: the pieces behind cmd_profile.c — starting a command
 * under the profiler, the sampling loop, writing the outputs.
 */
#ifndef LATLAB_CLI_PROFILE_H
#define LATLAB_CLI_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "latlab/prof.h"

/*
 * Fork @argv[0] (searched in PATH), attach @p to it before it execs
 * (events start at the exec), let it exec. Returns 0 with *pid set, or
 * -ENOENT/-EACCES/... when the command cannot be executed (the child is
 * reaped), or the error of lat_prof_attach_pid() (the child is killed).
 */
int cli_profile_spawn(struct lat_prof *p, char **argv, pid_t *pid);

/*
 * Sample until @duration_ns passes (0: no limit), the target exits, or a
 * stop signal arrives. @child: the target is our child (reap it; its exit
 * status goes to *status). Returns 0 or a -errno from the sampler.
 */
int cli_profile_loop(struct lat_prof *p, pid_t pid, bool child,
		 double duration_ns, int *status);

/*
 * --profile <dir> of a command that runs latlab's own threads: make or
 * check the directory (exit 2 if unusable) and start profiling this
 * process, on and off CPU (exit 1 if sampling is unavailable); at the end
 * write <dir>/{on,off}cpu.{folded,svg} and say so on stderr.
 */
struct lat_prof_self *cli_profile_self_begin(const char *cmd, const char *dir);
/* The directory check alone, for the command's up-front checks. */
void cli_profile_dir_check(const char *cmd, const char *dir);
void cli_profile_self_end(const char *cmd, struct lat_prof_self *s,
			  const char *dir, const char *what);

/* latlab profile --overhead (profile_overhead.c); 0 = the default. */
int cli_profile_overhead(uint64_t events, int rounds, bool json);

#endif
