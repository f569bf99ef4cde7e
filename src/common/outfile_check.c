/*
 * lat_outfile_check, lat_outfile_dir: refuse an output that cannot be
 * written before the run that would produce it (see latlab/outfile.h).
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/outfile.h"

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
	/* dirname() and basename() may modify their argument: copies */
	strcpy(dx, x);
	strcpy(bx, x);
	strcpy(dy, y);
	strcpy(by, y);
	return !strcmp(basename(bx), basename(by)) &&
	       !stat(dirname(dx), &a) && !stat(dirname(dy), &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int lat_outfile_check(const char *path, const char *const *others, int n)
{
	char copy[PATH_MAX];
	const char *dir;
	struct stat st;

	if (!*path)
		return -ENOENT;
	/* as lat_outfile_open: room for the temporary's suffix */
	if (strlen(path) >= sizeof(copy) - 16)
		return -ENAMETOOLONG;
	snprintf(copy, sizeof(copy), "%s", path);
	/* dirname's result, not the copy: for a bare name ("x.svg") it
	 * returns "." and leaves the copy as it was */
	dir = dirname(copy);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	if (access(dir, W_OK | X_OK))
		return -errno;
	/* an output not created yet is only known by its name */
	for (int i = 0; i < n; i++)
		if (others[i] && same_name(path, others[i]))
			return -EEXIST;
	if (stat(path, &st))
		return 0; /* a new file */
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	for (int i = 0; i < n; i++)
		if (others[i] && same_file(&st, others[i]))
			return -EEXIST;
	return 0;
}

int lat_outfile_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return -errno;
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}
