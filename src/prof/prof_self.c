/*
 * Profiling this very process while it runs something (latlab pipeline
 * --profile, the overhead experiment): a reader thread drains the rings
 * so the caller's threads need not, and the results go to a directory as
 * folded stacks and flame graphs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/outfile.h"
#include "prof_int.h"

struct lat_prof_self {
	struct lat_prof *p;
	pthread_t reader;
	atomic_bool stop;
	int err;                /* first error of the reader, or 0 */
};

static void *reader_main(void *arg)
{
	struct lat_prof_self *s = arg;

	while (!atomic_load(&s->stop)) {
		int rc = lat_prof_poll(s->p, 50);

		if (rc < 0 && rc != -EINTR && !s->err)
			s->err = rc;
	}
	return NULL;
}

int lat_prof_self_begin(const struct lat_prof_config *cfg,
			struct lat_prof_self **out, char *why, size_t len)
{
	struct lat_prof_self *s = calloc(1, sizeof(*s));
	sigset_t block, old;
	int rc;

	*out = NULL;
	if (why && len)
		why[0] = '\0';
	if (!s)
		return -ENOMEM;
	rc = lat_prof_create(cfg, &s->p);
	if (!rc) {
		rc = lat_prof_attach_pid(s->p, getpid(), false);
		if (rc && why)
			snprintf(why, len, "%s", lat_prof_error_note(s->p));
	}
	if (!rc)
		rc = lat_prof_start(s->p);
	if (rc) {
		lat_prof_free(s->p);
		free(s);
		return rc;
	}
	/* the reader never takes the caller's Ctrl-C */
	sigfillset(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = -pthread_create(&s->reader, NULL, reader_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		lat_prof_free(s->p);
		free(s);
		return rc;
	}
	(void)pthread_setname_np(s->reader, "prof-reader");
	*out = s;
	return 0;
}

int lat_prof_self_end(struct lat_prof_self *s, struct lat_prof **out)
{
	int rc;

	atomic_store(&s->stop, true);
	pthread_join(s->reader, NULL);
	rc = lat_prof_stop(s->p);
	if (!rc)
		rc = s->err;
	*out = s->p;
	free(s);
	return rc;
}

/* @f into DIR/@name: its graph when @st is given, else folded stacks. */
static int write_file(const char *dir, const char *name,
		      const struct lat_prof_folded *f,
		      const struct lat_prof_stats *st, bool off,
		      const char *what)
{
	struct lat_outfile out; /* whole or not at all */
	char path[4096];
	int rc;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	rc = lat_outfile_open(&out, path);
	if (rc)
		return rc;
	return lat_outfile_commit(&out, st ? lat_prof_svg_write_run(f, st, off,
						what, NULL, out.f)
					   : lat_prof_folded_write(f, out.f));
}

/* One profile (on or off CPU) as DIR/<stem>.folded and DIR/<stem>.svg; an
 * empty profile gets an empty folded file and no graph. */
static int write_pair(const char *dir, const char *stem,
		      const struct lat_prof_folded *f,
		      const struct lat_prof_stats *st, bool off,
		      const char *what)
{
	char name[64];
	int rc;

	snprintf(name, sizeof(name), "%s.folded", stem);
	rc = write_file(dir, name, f, NULL, off, what);
	if (rc || !f->total)
		return rc;
	snprintf(name, sizeof(name), "%s.svg", stem);
	return write_file(dir, name, f, st, off, what);
}

int lat_prof_write_dir(struct lat_prof *p, const char *dir,
		       const char *what)
{
	struct lat_prof_folded on, off;
	struct lat_prof_stats st;
	struct stat sb;
	int rc;

	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	lat_prof_get_stats(p, &st);
	lat_prof_folded_init(&on);
	lat_prof_folded_init(&off);
	rc = lat_prof_fold(p, &on);
	if (!rc)
		rc = lat_prof_fold_offcpu(p, &off);
	if (!rc)
		rc = write_pair(dir, "oncpu", &on, &st, false, what);
	if (!rc && st.offcpu)
		rc = write_pair(dir, "offcpu", &off, &st, true, what);
	lat_prof_folded_release(&on);
	lat_prof_folded_release(&off);
	return rc;
}
