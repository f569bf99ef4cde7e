/*
 * lat_sysfile: small text files of /proc, /sys and cgroupfs, named
 * printf-style so callers can put a root prefix in front ("%s/proc/stat",
 * root) and tests can point them at a directory of fake files.
 *
 * Invariants: a read never overruns @buf and always NUL-terminates it;
 * nothing allocates heap memory or prints. Not for hot paths.
 */
#ifndef LATLAB_SYSFILE_H
#define LATLAB_SYSFILE_H

#include <stddef.h>
#include <stdint.h>

#include "latlab/common.h"

/*
 * Read up to @len - 1 bytes of the file named by @fmt into @buf. With
 * @trim, a trailing newline (and spaces) is cut. Returns the bytes kept,
 * or -errno (-ENAMETOOLONG for a path over 1 KiB).
 */
int lat_sysfile_read(char *buf, size_t len, int trim, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The file's first token as a signed integer. Returns 0, -errno, or
 * -LAT_EFORMAT when it does not start with a number.
 */
int lat_sysfile_i64(int64_t *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Write @text to the file named by @fmt in one write(). Returns 0 or
 * -errno (the kernel's refusal of a cgroup or sysctl value shows here).
 */
int lat_sysfile_write(const char *text, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Find "<key><sep>" at the start of a line of @text and parse the number
 * after it ("nr_throttled 3", "SwapTotal:  0 kB"). Returns 0, -ENOENT
 * when the key is absent, -LAT_EFORMAT when no number follows.
 */
int lat_sysfile_key_u64(const char *text, const char *key, uint64_t *out);

#endif
