/*
 * Output files named on the command line (--svg, --hlog, --hgrm, ...):
 * checked before any work so that a bad name costs nothing, and written
 * through lat_outfile (beside the final name, renamed into place when
 * whole), so that a refused, failed or interrupted run never destroys
 * the file that stood there. The order every command follows (check,
 * 'if (cli_parsed()) return 0;', open, write, close) and what an
 * interrupted run keeps are in docs/architecture.md ("Outputs"); any
 * exit through cli_usage_error()/cli_fail() removes the temporaries.
 */
#ifndef LATLAB_CLI_OUT_FILE_H
#define LATLAB_CLI_OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Exit 2 with one line naming @flag when @path cannot be created: its
 * directory is missing or not writable, it is a directory or not a
 * regular file, or it is the same file as one of @others (@n paths,
 * @role saying what they are, e.g. "an input"). Nothing is created.
 */
void cli_out_check(const char *cmd, const char *flag, const char *path,
		   const char *const *others, int n, const char *role);

/* One output named on the command line: its flag, its path (NULL: not
 * given). */
struct cli_out {
	const char *flag, *path;
};

/*
 * Every output of one run, each checked as by cli_out_check() and also
 * against the @n_in @inputs and the other outputs, in @out's order, so
 * the first refused names its flag. With @dash_is_stdout, "-" is
 * stdout, not a file, and at most one output may name it. At most
 * CLI_OUTS_MAX outputs and inputs together.
 */
#define CLI_OUTS_MAX 16
void cli_outs_check(const char *cmd, const struct cli_out *out, int n,
		    const char *const *inputs, int n_in, bool dash_is_stdout);

/*
 * An output directory (--hgrm, --profile): made if missing; exit 2 with
 * one line naming @flag when it cannot be, is not a directory or is not
 * writable, refused before a run whose results it would lose.
 */
void cli_out_dir_check(const char *cmd, const char *flag, const char *dir);

/*
 * A new temporary file beside @path (".<name>.XXXXXX" in its directory)
 * open for writing, or exit 1 with one line naming @path.
 */
FILE *cli_out_open(const char *cmd, const char *path);

/*
 * Close @f; when that and @rc (the writer's result) succeeded, rename it
 * to its final name; otherwise remove it and exit 1 with one line naming
 * @path. The previous file at @path is untouched until the rename.
 */
void cli_out_close(const char *cmd, const char *path, FILE *f, int rc);

/*
 * Open, write and close at once: open @path's temporary as FILE *@f,
 * then close it with what @call (a writer given @f) returned.
 *   if (a.svg) CLI_OUT_WRITE(CMD, a.svg, f, lat_lab_write_svg(f, &L));
 */
#define CLI_OUT_WRITE(cmd, path, f, call)                                 \
	do {                                                              \
		FILE *f = cli_out_open((cmd), (path));                    \
		cli_out_close((cmd), (path), f, (call));                  \
	} while (0)

/* Remove every temporary still open (exit paths). */
void cli_out_abandon_all(void);

#endif
