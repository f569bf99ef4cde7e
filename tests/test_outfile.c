/*
 * lat_outfile: a result is in place whole or not at all, the previous
 * file untouched until then, no temporary left behind, and the mode
 * fopen would have given it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/outfile.h"
#include "t_test.h"

static char dir[] = "/tmp/t_outfile.XXXXXX";

/* Entries of the test directory (hidden temporaries included). */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* @path's whole content, or "" (a static buffer). */
static const char *content(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

static void test_commit(const char *path)
{
	struct lat_outfile o;
	char prefix[4096];
	struct stat st;

	umask(022);
	T_EQ_I64(lat_outfile_open(&o, path), 0);
	/* the temporary is hidden beside the final name */
	snprintf(prefix, sizeof(prefix), "%s/.res.txt.", dir);
	T_CHECK(!strncmp(o.tmp, prefix, strlen(prefix)));
	T_EQ_I64(strlen(o.tmp), strlen(prefix) + 6);
	T_EQ_I64(access(path, F_OK), -1); /* nothing at the name yet */
	fputs("first\n", o.f);
	T_EQ_I64(lat_outfile_commit(&o, 0), 0);
	T_CHECK(o.f == NULL);
	T_CHECK(!strcmp(content(path), "first\n"));
	T_EQ_I64(entries(), 1);
	T_EQ_I64(stat(path, &st), 0);
	T_EQ_I64(st.st_mode & 0777, 0644);
	/* replaced whole, with the umask of now */
	umask(077);
	T_EQ_I64(lat_outfile_open(&o, path), 0);
	fputs("second\n", o.f);
	T_EQ_I64(lat_outfile_commit(&o, 0), 0);
	T_CHECK(!strcmp(content(path), "second\n"));
	T_EQ_I64(stat(path, &st), 0);
	T_EQ_I64(st.st_mode & 0777, 0600);
	T_EQ_I64(entries(), 1);
	umask(022);
}

/* A writer's error, or giving up: the previous file stays as it was. */
static void test_failures(const char *path)
{
	struct lat_outfile o, z;
	char longp[PATH_MAX + 8];

	T_EQ_I64(lat_outfile_open(&o, path), 0);
	fputs("half", o.f);
	T_EQ_I64(lat_outfile_commit(&o, -EIO), -EIO);
	T_CHECK(!strcmp(content(path), "second\n"));
	T_EQ_I64(entries(), 1);
	T_EQ_I64(lat_outfile_commit(&o, 0), -EBADF); /* closed already */
	T_EQ_I64(lat_outfile_open(&o, path), 0);
	fputs("never", o.f);
	T_EQ_I64(entries(), 2);
	lat_outfile_abandon(&o);
	lat_outfile_abandon(&o); /* safe twice */
	T_CHECK(!strcmp(content(path), "second\n"));
	T_EQ_I64(entries(), 1);
	memset(&z, 0, sizeof(z));
	lat_outfile_abandon(&z); /* and on a zeroed one */
	/* refusals: no directory, a name too long */
	snprintf(longp, sizeof(longp), "%s/none/x.svg", dir);
	T_EQ_I64(lat_outfile_open(&o, longp), -ENOENT);
	T_CHECK(o.f == NULL);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	T_EQ_I64(lat_outfile_open(&o, longp), -ENAMETOOLONG);
	/* a name in the current directory gets "./" as its directory */
	T_EQ_I64(chdir(dir), 0);
	T_EQ_I64(lat_outfile_open(&o, "here.txt"), 0);
	T_CHECK(!strncmp(o.tmp, "./.here.txt.", 12));
	T_EQ_I64(lat_outfile_commit(&o, 0), 0);
	T_EQ_I64(unlink("here.txt"), 0);
}

/* A name that is not a regular file: refused before anything is
 * created (a directory, a FIFO); a symbolic link is replaced, its target
 * untouched. */
static void test_not_regular(void)
{
	struct lat_outfile o;
	char sub[4096], fifo[4096], link[4096], target[4096];

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	T_EQ_I64(mkdir(sub, 0777), 0);
	T_EQ_I64(lat_outfile_open(&o, sub), -EISDIR);
	T_CHECK(o.f == NULL);
	T_EQ_I64(mkfifo(fifo, 0666), 0);
	T_EQ_I64(lat_outfile_open(&o, fifo), -EINVAL);
	T_EQ_I64(entries(), 3); /* res.txt, sub, fifo: no temporary */
	T_EQ_I64(rmdir(sub), 0);
	T_EQ_I64(unlink(fifo), 0);
	T_EQ_I64(lat_outfile_open(&o, target), 0);
	fputs("target\n", o.f);
	T_EQ_I64(lat_outfile_commit(&o, 0), 0);
	T_EQ_I64(symlink("target", link), 0);
	T_EQ_I64(lat_outfile_open(&o, link), 0);
	fputs("result\n", o.f);
	T_EQ_I64(lat_outfile_commit(&o, 0), 0);
	T_CHECK(!strcmp(content(target), "target\n"));
	T_CHECK(!strcmp(content(link), "result\n"));
	T_EQ_I64(readlink(link, sub, sizeof(sub)), -1); /* no longer a link */
	T_EQ_I64(unlink(link), 0);
	T_EQ_I64(unlink(target), 0);
}

/* A set: each file found by its FILE, the full set refused, and one
 * abandon removes every temporary still open, finished ones kept. */
static void test_set(const char *path)
{
	static struct lat_outfile_set set;
	FILE *f[LAT_OUTFILE_SET_MAX], *extra = stdout;
	char name[4096 + 16]; /* @path and a suffix */

	for (int i = 0; i < LAT_OUTFILE_SET_MAX; i++) {
		snprintf(name, sizeof(name), "%s.%d", path, i);
		T_EQ_I64(lat_outfile_set_open(&set, name, &f[i]), 0);
		fprintf(f[i], "r%d", i);
	}
	T_EQ_I64(lat_outfile_set_open(&set, path, &extra), -EMFILE);
	T_EQ_I64(entries(), LAT_OUTFILE_SET_MAX);
	T_EQ_I64(lat_outfile_set_commit(&set, f[3], 0), 0);
	T_EQ_I64(lat_outfile_set_commit(&set, f[3], 0), -EBADF);
	T_EQ_I64(lat_outfile_set_commit(&set, stdout, 0), -EBADF);
	T_EQ_I64(lat_outfile_set_commit(&set, f[5], -EIO), -EIO);
	/* the freed place is taken again */
	T_EQ_I64(lat_outfile_set_open(&set, path, &extra), 0);
	T_CHECK(extra != stdout && extra != NULL);
	lat_outfile_set_abandon(&set);
	lat_outfile_set_abandon(&set); /* twice: nothing left to do */
	snprintf(name, sizeof(name), "%s.3", path);
	T_CHECK(!strcmp(content(name), "r3"));
	T_EQ_I64(entries(), 1);
	unlink(name);
}

int main(void)
{
	char path[4096];

	T_CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/res.txt", dir);
	test_commit(path);
	test_failures(path);
	test_not_regular();
	unlink(path);
	test_set(path);
	T_EQ_I64(entries(), 0);
	rmdir(dir);
	T_DONE();
}
