/*
 * Output files: refuse bad names up front; write each to a temporary file
 * beside it and rename() it into place only when the whole of it was
 * written, so that a refused, failed or killed run never leaves an empty
 * or half-written file where the user's previous result stood.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "latlab/common.h"
#include "out_file.h"

/* the outputs being written: at most a handful per run */
#define MAX_PENDING 16

static struct pending {
	FILE *f;
	char tmp[PATH_MAX];
	char path[PATH_MAX];
} pending[MAX_PENDING];

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
	struct pending *p = NULL;
	char copy[PATH_MAX];
	mode_t mask;
	int fd;

	for (int i = 0; i < MAX_PENDING && !p; i++)
		if (!pending[i].f)
			p = &pending[i];
	if (!p || strlen(path) >= sizeof(copy) - 16)
		cli_fail(cmd, "cannot create '%s': %s", path,
			 strerror(p ? ENAMETOOLONG : EMFILE));
	snprintf(copy, sizeof(copy), "%s", path);
	const char *base = basename(copy);
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(p->tmp, sizeof(p->tmp), "%s/.%.200s.XXXXXX", dirname(dir),
		 base);
	snprintf(p->path, sizeof(p->path), "%s", path);
	fd = mkstemp(p->tmp);
	if (fd < 0)
		cli_fail(cmd, "cannot create '%s': %s", path, strerror(errno));
	/* mkstemp makes 0600; the result gets what fopen would give it */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		/* harmless: the file stays private */
	}
	p->f = fdopen(fd, "w");
	if (!p->f) {
		int e = errno;

		close(fd);
		unlink(p->tmp);
		cli_fail(cmd, "cannot create '%s': %s", path, strerror(e));
	}
	return p->f;
}

static struct pending *find(FILE *f)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i].f && pending[i].f == f)
			return &pending[i];
	return NULL;
}

int cli_out_commit(FILE *f, int rc)
{
	struct pending *p = find(f);

	if (!p)
		return -EINVAL;
	if (fflush(f) && !rc)
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -EIO;
	p->f = NULL;
	if (!rc && rename(p->tmp, p->path))
		rc = -errno;
	if (rc)
		unlink(p->tmp);
	return rc;
}

void cli_out_close(const char *cmd, const char *path, FILE *f, int rc)
{
	rc = cli_out_commit(f, rc);
	if (rc)
		cli_fail(cmd, "writing '%s': %s", path, lat_strerror(rc));
}

void cli_out_abandon_all(void)
{
	for (int i = 0; i < MAX_PENDING; i++) {
		if (!pending[i].f)
			continue;
		fclose(pending[i].f);
		pending[i].f = NULL;
		unlink(pending[i].tmp);
	}
}
