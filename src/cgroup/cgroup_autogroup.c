/*
 * lat_cgroup_autogroup: the session's scheduler autogroup weight, raised
 * for a run and given back, by every latlab run of the session together.
 *
 * The autogroup nice (/proc/self/autogroup) belongs to the whole session
 * (a shell and all it started), so two runs started from one shell, or
 * the tests ctest starts at once, share it. Each run saving "the old
 * value" for itself cannot work: a run that starts while another holds
 * the group raised saves the raised value and, leaving last, writes it
 * back for good. So the holders are written down in one record per
 * autogroup, /run/latlab/autogroup-<id>, changed only under flock: the
 * value before the first holder came, the value last written, and each
 * holder's pid and nice. The group runs at the lowest nice any
 * live holder asked for; the last one to leave writes the first value
 * back. A holder that died without leaving (SIGKILL) is dropped when the
 * next run reads the record (its pid is gone), and its raise is undone
 * then. A user who changes the nice by hand meanwhile wins: the record's
 * "last" no longer matches and nothing is written back over it. A
 * process holds the group once: a second raise changes what it asks for,
 * the first restore ends its hold.
 *
 * Every function here uses open/read/write/flock/kill/unlink and no
 * stdio or heap, so a fatal-signal handler may call the restore.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/cgroup.h"

#define AG_DIR "/run/latlab"
#define AG_MAX_HOLDERS 64
#define AG_UNKNOWN (-100) /* no first value on record (nice is -20..19) */

struct ag_holder {
	int pid, nice;
};

struct ag_record {
	int orig, last, n;
	struct ag_holder h[AG_MAX_HOLDERS];
};

/* Digits of v (with its sign) ending at *end; returns the first char. */
static char *put_int(char *end, long v)
{
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;

	do
		*--end = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--end = '-';
	return end;
}

/* The next integer at or after *p (skipping anything else); false at
 * the end of the text. */
static bool get_int(const char **p, long *v)
{
	const char *s = *p;
	bool neg;

	while (*s && !(*s == '-' || (*s >= '0' && *s <= '9')))
		s++;
	if (!*s)
		return false;
	neg = *s == '-';
	s += neg;
	if (*s < '0' || *s > '9')
		return false;
	for (*v = 0; *s >= '0' && *s <= '9' && *v < 1000000000L; s++)
		*v = *v * 10 + (*s - '0');
	if (neg)
		*v = -*v;
	*p = s;
	return true;
}

/* The whole small file at fd into buf (NUL-terminated): its length or
 * -errno. */
static ssize_t read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size) {
		ssize_t got = pread(fd, buf + n, size - 1 - n, (off_t)n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (!got)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	return (ssize_t)n;
}

/* "/autogroup-7 nice -20": the group's id and nice. */
static int ag_read(long *id, int *nice)
{
	char buf[96];
	const char *p = buf;
	int fd = open("/proc/self/autogroup", O_RDONLY | O_CLOEXEC);
	long v;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read_all(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return (int)n;
	/* the id's '-' is the name's, not a sign */
	while (*p && (*p < '0' || *p > '9'))
		p++;
	if (!get_int(&p, id) || !get_int(&p, &v))
		return -LAT_EFORMAT;
	*nice = (int)v;
	return 0;
}

static int ag_write(int nice)
{
	char buf[16], *end = buf + sizeof(buf) - 1, *p;
	int fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	*end = '\n';
	p = put_int(end, nice);
	if (write(fd, p, (size_t)(end + 1 - p)) < 0)
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

/*
 * The record of autogroup @id, opened and locked (@lock_op: LOCK_EX, or
 * LOCK_EX | LOCK_NB from a signal handler, which must not wait for a lock
 * its own thread may hold); fd or -errno. A record unlinked by its last
 * holder between our open and our lock is not the record any more: open
 * again until the locked file is the one the path names.
 */
static int rec_open(long id, char *path, size_t size, int lock_op)
{
	char num[24], *p = put_int(num + sizeof(num) - 1, id);
	static const char pre[] = AG_DIR "/autogroup-";
	size_t len = (size_t)(num + sizeof(num) - 1 - p);

	if (sizeof(pre) + len > size)
		return -ENAMETOOLONG;
	memcpy(path, pre, sizeof(pre) - 1);
	memcpy(path + sizeof(pre) - 1, p, len);
	path[sizeof(pre) - 1 + len] = '\0';
	if (mkdir(AG_DIR, 0700) && errno != EEXIST)
		return -errno;
	for (;;) {
		struct stat held, named;
		int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			      0600), rc = 0;

		if (fd < 0)
			return -errno;
		while (flock(fd, lock_op))
			if (errno != EINTR) {
				rc = -errno;
				break;
			}
		if (!rc && fstat(fd, &held))
			rc = -errno;
		if (!rc && !stat(path, &named) && named.st_ino == held.st_ino &&
		    named.st_dev == held.st_dev)
			return fd;
		close(fd);
		if (rc)
			return rc;
	}
}

/* "orig last" then "pid nice" per holder; a record that does not
 * parse is read as empty (n = 0, orig AG_UNKNOWN). */
static void rec_load(int fd, struct ag_record *r)
{
	char buf[4096];
	const char *p = buf;
	long v[3];

	r->n = 0;
	r->orig = r->last = AG_UNKNOWN;
	if (read_all(fd, buf, sizeof(buf)) <= 0 || !get_int(&p, &v[0]) ||
	    !get_int(&p, &v[1]))
		return;
	r->orig = (int)v[0];
	r->last = (int)v[1];
	while (r->n < AG_MAX_HOLDERS && get_int(&p, &v[0]) &&
	       get_int(&p, &v[1])) {
		r->h[r->n] = (struct ag_holder){ (int)v[0], (int)v[1] };
		r->n++;
	}
}

static int rec_store(int fd, const struct ag_record *r)
{
	char buf[4096], *p = buf + sizeof(buf);

	/* built backwards from the end, holders last to first */
	for (int i = r->n - 1; i >= 0; i--) {
		*--p = '\n';
		p = put_int(p, r->h[i].nice);
		*--p = ' ';
		p = put_int(p, r->h[i].pid);
	}
	*--p = '\n';
	p = put_int(p, r->last);
	*--p = ' ';
	p = put_int(p, r->orig);
	if (ftruncate(fd, 0) ||
	    pwrite(fd, p, (size_t)(buf + sizeof(buf) - p), 0) < 0)
		return -errno;
	return 0;
}

/* Drop the holders whose process is gone. */
static void rec_prune(struct ag_record *r)
{
	int k = 0;

	for (int i = 0; i < r->n; i++)
		if (!(kill(r->h[i].pid, 0) && errno == ESRCH))
			r->h[k++] = r->h[i];
	r->n = k;
}

static int rec_find(const struct ag_record *r, int pid)
{
	for (int i = 0; i < r->n; i++)
		if (r->h[i].pid == pid)
			return i;
	return -1;
}

/* The nice the group runs at while these hold it: the lowest asked. */
static int rec_wanted(const struct ag_record *r)
{
	int nice = r->h[0].nice;

	for (int i = 1; i < r->n; i++)
		if (r->h[i].nice < nice)
			nice = r->h[i].nice;
	return nice;
}

/*
 * With the holders settled: write what the group should run at (the
 * lowest nice asked, or the first value once nobody holds it) unless the
 * user changed it since we last wrote, and keep the record (or remove it
 * when it has nothing left to remember).
 */
static int rec_settle(int fd, const char *path, struct ag_record *r, int now)
{
	int want = r->n ? rec_wanted(r) : r->orig, rc = 0;

	if (now == r->last && want != now)
		rc = ag_write(want);
	if (!rc && now == r->last)
		r->last = want;
	if (!r->n) {
		unlink(path);
		return rc;
	}
	return rc ? rc : rec_store(fd, r);
}

/* Read the group (its nice in *@now), open its record under @lock_op
 * and load it into @r: the record's fd, or -errno. */
static int rec_begin(struct ag_record *r, char *path, size_t size, int *now,
		     int lock_op)
{
	long id;
	int fd = ag_read(&id, now);

	if (fd)
		return fd;
	fd = rec_open(id, path, size, lock_op);
	if (fd >= 0)
		rec_load(fd, r);
	return fd;
}

int lat_cgroup_autogroup_raise(int nice, int *was)
{
	char path[64];
	struct ag_record r;
	int fd, i, now, rc, pid = (int)getpid();

	fd = rec_begin(&r, path, sizeof(path), &now, LOCK_EX);
	if (fd < 0)
		return fd;
	rec_prune(&r);
	/* nobody alive holds it: the value to give back is what the group
	 * had before the (dead) holders came, while their raise is still in
	 * place; else, or with no record, it is the value now */
	if (!r.n && !(r.orig != AG_UNKNOWN && now == r.last))
		r.orig = now;
	*was = r.orig;
	i = rec_find(&r, pid);
	if (i >= 0) {
		r.h[i].nice = nice; /* one hold per process: the last ask */
	} else if (r.n == AG_MAX_HOLDERS) {
		close(fd);
		return -EBUSY;
	} else {
		r.h[r.n++] = (struct ag_holder){ pid, nice };
	}
	/* a raise is a request: it is written even over a value the user
	 * set by hand since the last write */
	r.last = now;
	rc = rec_settle(fd, path, &r, now);
	if (rc && (i = rec_find(&r, pid)) >= 0) {
		/* not raised after all: leave no holder behind */
		r.h[i] = r.h[--r.n];
		(void)rec_settle(fd, path, &r, now);
	}
	close(fd); /* the lock goes with it */
	return rc;
}

static int restore(int lock_op)
{
	char path[64];
	struct ag_record r;
	int fd, i, now, rc;

	fd = rec_begin(&r, path, sizeof(path), &now, lock_op);
	if (fd < 0)
		return fd;
	i = rec_find(&r, (int)getpid());
	if (i < 0) { /* not a holder: nothing of ours to give back */
		if (!r.n && r.orig == AG_UNKNOWN)
			unlink(path); /* made by this open */
		close(fd);
		return 0;
	}
	r.h[i] = r.h[--r.n];
	rec_prune(&r);
	rc = rec_settle(fd, path, &r, now);
	close(fd);
	return rc;
}

int lat_cgroup_autogroup_restore(void)
{
	return restore(LOCK_EX);
}

int lat_cgroup_autogroup_restore_nowait(void)
{
	return restore(LOCK_EX | LOCK_NB);
}
