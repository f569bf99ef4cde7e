/*
 * --profile <dir> of the commands that run latlab's own threads (latlab
 * pipeline): the flag's checks and messages around lat_prof_self_*.
 */
#ifndef LATLAB_CLI_PROFILE_H
#define LATLAB_CLI_PROFILE_H

#include <stdbool.h>

#include "latlab/prof.h"

/*
 * --profile <dir> of a command that runs latlab's own threads: make or
 * check the directory (exit 2 if unusable) and start profiling this
 * process, on and off CPU (exit 1 if sampling is unavailable); at the end
 * write <dir>/{on,off}cpu.{folded,svg} and say so on stderr.
 */
struct lat_prof_self *cli_profile_self_begin(const char *cmd, const char *dir);
void cli_profile_self_end(const char *cmd, struct lat_prof_self *s,
			  const char *dir, const char *what);

#endif
