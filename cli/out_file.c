/*
 * Output files for --svg: refuse bad names up front; never leave a
 * half-written file behind.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "latlab/common.h"
#include "out_file.h"

static bool same_file(const struct stat *a, const char *path)
{
	struct stat b;

	return !stat(path, &b) && a->st_dev == b.st_dev &&
	       a->st_ino == b.st_ino;
}

void cli_out_check(const char *cmd, const char *flag, const char *path,
		   const char *const *others, int n, const char *role)
{
	char dir[4096];
	struct stat st;

	if (!*path)
		cli_usage_error(cmd, "%s: empty file name", flag);
	snprintf(dir, sizeof(dir), "%s", path);
	/* dirname() may modify its argument: it gets the copy */
	const char *d = dirname(dir);

	if (stat(d, &st) || !S_ISDIR(st.st_mode))
		cli_usage_error(cmd, "%s '%s': directory '%s' does not "
				    "exist", flag, path, d);
	if (access(d, W_OK | X_OK))
		cli_usage_error(cmd, "%s '%s': cannot write into '%s': "
				    "%s", flag, path, d, strerror(errno));
	/* an output not created yet is only known by its name */
	for (int i = 0; i < n; i++)
		if (others[i] && !strcmp(path, others[i]))
			cli_usage_error(cmd, "%s '%s' is %s; refusing to "
					    "overwrite it", flag, path, role);
	if (stat(path, &st))
		return; /* a new file */
	if (S_ISDIR(st.st_mode))
		cli_usage_error(cmd, "%s '%s' is a directory", flag, path);
	for (int i = 0; i < n; i++)
		if (others[i] && same_file(&st, others[i]))
			cli_usage_error(cmd, "%s '%s' is %s; refusing to "
					    "overwrite it", flag, path, role);
}

FILE *cli_out_open(const char *cmd, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		cli_fail(cmd, "cannot create '%s': %s", path,
			     strerror(errno));
	return f;
}

void cli_out_close(const char *cmd, const char *path, FILE *f, int rc)
{
	if (fclose(f) && !rc)
		rc = -EIO;
	if (!rc)
		return;
	unlink(path);
	cli_fail(cmd, "writing '%s': %s", path, lat_strerror(rc));
}
