/*
 * Output files: refuse bad names up front (naming the flag); write each
 * through lat_outfile (beside it, renamed into place when whole) and keep
 * the ones open so that any exit removes their temporaries.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "latlab/outfile.h"
#include "out_file.h"

/* the outputs being written, so that every exit can remove what is
 * still a temporary */
static struct lat_outfile_set pending;

void cli_out_dir_check(const char *cmd, const char *flag, const char *dir)
{
	int rc = lat_outfile_dir(dir);

	if (rc == -ENOTDIR)
		cli_usage_error(cmd, "%s '%s' is not a directory", flag, dir);
	if (rc)
		cli_usage_error(cmd, "%s '%s': %s", flag, dir,
				lat_strerror(rc));
}

void cli_out_check(const char *cmd, const char *flag, const char *path,
		   const char *const *others, int n, const char *role)
{
	int rc = lat_outfile_check(path, others, n);
	char dir[PATH_MAX];

	/* dirname() may modify its argument: it gets the copy */
	snprintf(dir, sizeof(dir), "%s", path);
	if (rc && !*path)
		cli_usage_error(cmd, "%s: empty file name", flag);
	if (rc == -ENOENT)
		cli_usage_error(cmd, "%s '%s': directory '%s' does not exist",
				flag, path, dirname(dir));
	if (rc == -EEXIST)
		cli_usage_error(cmd, "%s '%s' is %s; refusing to overwrite it",
				flag, path, role);
	if (rc == -EISDIR)
		cli_usage_error(cmd, "%s '%s' is a directory", flag, path);
	if (rc == -EINVAL)
		cli_usage_error(cmd, "%s '%s' is not a regular file", flag,
				path);
	if (rc == -ENAMETOOLONG)
		cli_usage_error(cmd, "%s: file name too long", flag);
	if (rc)
		cli_usage_error(cmd, "%s '%s': cannot write into '%s': %s",
				flag, path, dirname(dir), lat_strerror(rc));
}

void cli_outs_check(const char *cmd, const struct cli_out *out, int n,
		    const char *const *inputs, int n_in, bool dash_is_stdout)
{
	const char *others[CLI_OUTS_MAX] = { NULL };
	int n_stdout = 0;

	/* a command's fixed lists: more is this program's bug */
	if (n_in < 0 || n < 0 || n_in + n > CLI_OUTS_MAX)
		cli_fail(cmd, "internal error: %d inputs and outputs to "
			 "check, at most %d", n_in + n, CLI_OUTS_MAX);
	for (int i = 0; i < n_in; i++)
		others[i] = inputs[i];
	for (int i = 0; i < n; i++) {
		if (!out[i].path)
			continue;
		if (dash_is_stdout && !strcmp(out[i].path, "-")) {
			if (++n_stdout > 1)
				cli_usage_error(cmd, "only one output may be "
						"'-' (stdout)");
			continue;
		}
		/* the others: every output but this one (NULL is skipped) */
		for (int k = 0; k < n; k++)
			others[n_in + k] = k == i ? NULL : out[k].path;
		cli_out_check(cmd, out[i].flag, out[i].path, others, n_in + n,
			      n_in ? "an input or another output"
				   : "another output of this run");
	}
}

FILE *cli_out_open(const char *cmd, const char *path)
{
	FILE *f;
	int rc = lat_outfile_set_open(&pending, path, &f);

	if (rc)
		cli_fail(cmd, "cannot create '%s': %s", path, lat_strerror(rc));
	return f;
}

void cli_out_close(const char *cmd, const char *path, FILE *f, int rc)
{
	rc = lat_outfile_set_commit(&pending, f, rc);
	if (rc)
		cli_fail(cmd, "writing '%s': %s", path, lat_strerror(rc));
}

void cli_out_abandon_all(void)
{
	lat_outfile_set_abandon(&pending);
}
