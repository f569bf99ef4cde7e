/*
 * Output files named on the command line (--svg): checked before any work
 * so that a bad name costs nothing and leaves nothing behind.
 */
#ifndef LATLAB_CLI_OUT_FILE_H
#define LATLAB_CLI_OUT_FILE_H

#include <stdio.h>

/*
 * Exit 2 with one line naming @flag when @path cannot be created: its
 * directory is missing or not writable, it is a directory, or it is the
 * same file as one of @others (@n paths, @role saying what they are, e.g.
 * "an input"). Nothing is created.
 */
void cli_out_check(const char *cmd, const char *flag, const char *path,
		   const char *const *others, int n, const char *role);

/* fopen(@path, "w") or exit 1 with one line. */
FILE *cli_out_open(const char *cmd, const char *path);

/*
 * Close @f; when that or @rc (the writer's result) failed, remove the
 * partial @path and exit 1 with one line.
 */
void cli_out_close(const char *cmd, const char *path, FILE *f, int rc);

#endif
