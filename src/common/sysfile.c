/*
 * Small text files of /proc, /sys and cgroupfs: read, parse one number,
 * write one value. One place for the open/read/close/errno dance that
 * every machine reader needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latlab/sysfile.h"

#define PATH_LEN 1024

static int vpath(char *path, const char *fmt, va_list ap)
{
	int n = vsnprintf(path, PATH_LEN, fmt, ap);

	return n < 0 || n >= PATH_LEN ? -ENAMETOOLONG : 0;
}

static int read_path(char *buf, size_t len, int trim, const char *path)
{
	size_t n = 0;
	int fd;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* procfs hands out a file in pieces: read until EOF or full */
	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, len - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;

			close(fd);
			buf[0] = '\0';
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	while (trim && n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

int lat_sysfile_read(char *buf, size_t len, int trim, const char *fmt, ...)
{
	char path[PATH_LEN];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vpath(path, fmt, ap);
	va_end(ap);
	if (rc) {
		if (len)
			buf[0] = '\0';
		return rc;
	}
	return read_path(buf, len, trim, path);
}

int lat_sysfile_i64(int64_t *out, const char *fmt, ...)
{
	char path[PATH_LEN], buf[64], *end;
	va_list ap;
	long long v;
	int rc;

	va_start(ap, fmt);
	rc = vpath(path, fmt, ap);
	va_end(ap);
	if (!rc)
		rc = read_path(buf, sizeof(buf), 1, path);
	if (rc < 0)
		return rc;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (end == buf || errno)
		return -LAT_EFORMAT;
	*out = v;
	return 0;
}

int lat_sysfile_write(const char *text, const char *fmt, ...)
{
	char path[PATH_LEN];
	size_t len = strlen(text);
	va_list ap;
	ssize_t w;
	int fd, rc;

	va_start(ap, fmt);
	rc = vpath(path, fmt, ap);
	va_end(ap);
	if (rc)
		return rc;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		w = write(fd, text, len);
	while (w < 0 && errno == EINTR);
	rc = w < 0 ? -errno : (size_t)w == len ? 0 : -EIO;
	close(fd);
	return rc;
}

int lat_sysfile_key_u64(const char *text, const char *key, uint64_t *out)
{
	size_t k = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1
								    : NULL) {
		char *end;

		if (strncmp(p, key, k) || (p[k] != ' ' && p[k] != ':' &&
					   p[k] != '\t' && p[k] != '='))
			continue;
		p += k + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return -LAT_EFORMAT;
		errno = 0;
		*out = strtoull(p, &end, 10);
		return errno ? -LAT_EFORMAT : 0;
	}
	return -ENOENT;
}
