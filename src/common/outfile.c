/*
 * lat_outfile: a result written beside its name and renamed into place
 * when whole (see include/latlab/outfile.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "latlab/outfile.h"
#include "latlab/stats.h"

/*
 * The temporary's name: ".<name>.XXXXXX" with six random letters and
 * digits, like mkstemp's, opened O_EXCL. mkstemp itself is not used: it
 * creates mode 0600, and setting the umask's mode afterwards means
 * changing the process's umask to read it, which races with other threads.
 */
static int create_tmp(struct lat_outfile *o, const char *dir,
		      const char *base)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	struct timespec ts;
	uint64_t seed;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	seed = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	seed ^= (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)o;
	for (int attempt = 0; attempt < 100; attempt++) {
		uint64_t r = lat_splitmix64(&seed);
		char x[7];
		int fd;

		for (int i = 0; i < 6; i++, r /= sizeof(abc) - 1)
			x[i] = abc[r % (sizeof(abc) - 1)];
		x[6] = 0;
		snprintf(o->tmp, sizeof(o->tmp), "%s/.%.200s.%s", dir, base, x);
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  0666);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int lat_outfile_open(struct lat_outfile *o, const char *path)
{
	char d[PATH_MAX], b[PATH_MAX];
	struct stat st;
	int fd;

	o->f = NULL;
	if (strlen(path) >= sizeof(o->path) - 16)
		return -ENAMETOOLONG;
	/* rename() would put the result in place of a device, a FIFO or
	 * a socket (as root, /dev/null itself); a directory would refuse
	 * it only after the whole result was written */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	/* dirname() and basename() may modify their argument: copies */
	snprintf(d, sizeof(d), "%s", path);
	snprintf(b, sizeof(b), "%s", path);
	snprintf(o->path, sizeof(o->path), "%s", path);
	fd = create_tmp(o, dirname(d), basename(b));
	if (fd < 0)
		return fd;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;

		close(fd);
		unlink(o->tmp);
		return -e;
	}
	return 0;
}

int lat_outfile_commit(struct lat_outfile *o, int rc)
{
	if (!o->f)
		return -EBADF;
	if (fflush(o->f) && !rc)
		rc = -errno;
	if (fclose(o->f) && !rc)
		rc = -EIO;
	o->f = NULL;
	if (!rc && rename(o->tmp, o->path))
		rc = -errno;
	if (rc)
		unlink(o->tmp);
	return rc;
}

void lat_outfile_abandon(struct lat_outfile *o)
{
	if (!o->f)
		return;
	fclose(o->f);
	o->f = NULL;
	unlink(o->tmp);
}
