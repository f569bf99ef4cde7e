/*
 * Output files: refuse bad names up front (naming the flag); write each
 * through lat_outfile (beside it, renamed into place when whole) and keep
 * the ones open so that any exit removes their temporaries.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "latlab/outfile.h"
#include "out_file.h"

/* the outputs being written (at most a handful per run), so that every
 * exit can remove what is still a temporary */
#define MAX_PENDING 16

static struct lat_outfile pending[MAX_PENDING];

static bool same_file(const struct stat *a, const char *path)
{
	struct stat b;

	return !stat(path, &b) && a->st_dev == b.st_dev &&
	       a->st_ino == b.st_ino;
}

/*
 * Two names for one file that may not exist yet ("x" and "./x"): the
 * same directory (by device and inode) and the same last component.
 */
static bool same_name(const char *x, const char *y)
{
	char dx[PATH_MAX], dy[PATH_MAX], bx[PATH_MAX], by[PATH_MAX];
	struct stat a, b;

	if (!strcmp(x, y))
		return true;
	if (strlen(x) >= sizeof(dx) || strlen(y) >= sizeof(dy))
		return false;
	strcpy(dx, x);
	strcpy(bx, x);
	strcpy(dy, y);
	strcpy(by, y);
	return !strcmp(basename(bx), basename(by)) &&
	       !stat(dirname(dx), &a) && !stat(dirname(dy), &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void cli_out_dir_check(const char *cmd, const char *flag, const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) && errno != EEXIST)
		cli_usage_error(cmd, "cannot create directory '%s': %s", dir,
				strerror(errno));
	if (stat(dir, &st))
		cli_usage_error(cmd, "cannot use '%s': %s", dir,
				strerror(errno));
	if (!S_ISDIR(st.st_mode))
		cli_usage_error(cmd, "%s '%s' is not a directory", flag, dir);
	if (access(dir, W_OK | X_OK))
		cli_usage_error(cmd, "cannot write into '%s': %s", dir,
				strerror(errno));
}

void cli_out_check(const char *cmd, const char *flag, const char *path,
		   const char *const *others, int n, const char *role)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!*path)
		cli_usage_error(cmd, "%s: empty file name", flag);
	if (strlen(path) >= sizeof(dir) - 16)
		cli_usage_error(cmd, "%s: file name longer than %zu bytes",
				flag, sizeof(dir) - 16);
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
		if (others[i] && same_name(path, others[i]))
			cli_usage_error(cmd, "%s '%s' is %s; refusing to "
					    "overwrite it", flag, path, role);
	if (stat(path, &st))
		return; /* a new file */
	if (S_ISDIR(st.st_mode))
		cli_usage_error(cmd, "%s '%s' is a directory", flag, path);
	if (!S_ISREG(st.st_mode))
		cli_usage_error(cmd, "%s '%s' is not a regular file", flag,
				path);
	for (int i = 0; i < n; i++)
		if (others[i] && same_file(&st, others[i]))
			cli_usage_error(cmd, "%s '%s' is %s; refusing to "
					    "overwrite it", flag, path, role);
}

FILE *cli_out_open(const char *cmd, const char *path)
{
	struct lat_outfile *p = NULL;
	int rc;

	for (int i = 0; i < MAX_PENDING && !p; i++)
		if (!pending[i].f)
			p = &pending[i];
	rc = p ? lat_outfile_open(p, path) : -EMFILE;
	if (rc)
		cli_fail(cmd, "cannot create '%s': %s", path, strerror(-rc));
	return p->f;
}

int cli_out_commit(FILE *f, int rc)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i].f && pending[i].f == f)
			return lat_outfile_commit(&pending[i], rc);
	return -EINVAL;
}

void cli_out_close(const char *cmd, const char *path, FILE *f, int rc)
{
	rc = cli_out_commit(f, rc);
	if (rc)
		cli_fail(cmd, "writing '%s': %s", path, lat_strerror(rc));
}

void cli_out_abandon_all(void)
{
	for (int i = 0; i < MAX_PENDING; i++)
		lat_outfile_abandon(&pending[i]);
}
