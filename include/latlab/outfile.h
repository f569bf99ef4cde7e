/*
 * lat_outfile: write a result file whole or not at all.
 *
 * A result (an .hlog, an SVG, a folded profile) is written into a new
 * hidden file beside its final name, ".<name>.XXXXXX" in the same
 * directory, and renamed over the final name only when every byte of it
 * was written: rename() within one directory is atomic, so a reader sees
 * the previous file or the new one, and a failed, refused or killed run
 * never leaves an empty or half-written file where a result stood.
 *
 *     struct lat_outfile o;
 *     int rc = lat_outfile_open(&o, "run.svg");
 *     if (!rc)
 *             rc = lat_outfile_commit(&o, write_my_svg(o.f));
 *
 * Invariants:
 *  - The new file gets the mode fopen(path, "w") would give it (0666
 *    less the umask); the process's umask is never changed, so other
 *    threads creating files meanwhile are not affected.
 *  - lat_outfile_commit and lat_outfile_abandon each close the file; after
 *    either, o->f is NULL and the temporary is gone (renamed or removed).
 *  - Nothing is allocated; one struct lat_outfile per file, used by one
 *    thread at a time.
 *  - Errors: 0 or a negative errno (lat_strerror()).
 */
#ifndef LATLAB_OUTFILE_H
#define LATLAB_OUTFILE_H

#include <limits.h>
#include <stdio.h>

#include "latlab/common.h"

struct lat_outfile {
	FILE *f;                /* write the result here; NULL when closed */
	char tmp[PATH_MAX];     /* the temporary beside the final name */
	char path[PATH_MAX];    /* the final name */
};

/*
 * Create the temporary for @path (whose directory must exist) and open it
 * for writing in o->f. Returns 0, -ENAMETOOLONG, -EISDIR when @path is a
 * directory, -EINVAL when it is another file that is not a regular one
 * (a device, a FIFO: renaming over it would replace it, not write to
 * it), or the -errno of creating the temporary (-ENOENT: no such
 * directory, -EACCES: not writable, ...). A symbolic link at @path is
 * replaced by the result; its target is left as it was.
 */
int lat_outfile_open(struct lat_outfile *o, const char *path);

/*
 * Finish @o: flush and close it; when that and @rc (the writer's result,
 * 0 or a negative code) both succeeded, rename it to its final name,
 * otherwise remove it. Returns the first error: @rc, the flush or close
 * error, or rename's; 0 when the file is in place. -EBADF if @o is not
 * open.
 */
int lat_outfile_commit(struct lat_outfile *o, int rc);

/* Close and remove the temporary; the final name is untouched. Safe on a
 * closed or zeroed @o. */
void lat_outfile_abandon(struct lat_outfile *o);

/*
 * The results a program has open at once, so that one call on an error
 * or exit path removes every temporary still open: a fixed table (no
 * allocation), zeroed to start (a static one is).
 */
#define LAT_OUTFILE_SET_MAX 16

struct lat_outfile_set {
	struct lat_outfile o[LAT_OUTFILE_SET_MAX];
};

/* lat_outfile_open() into a free place of @set, its file in *@f; -EMFILE
 * when all LAT_OUTFILE_SET_MAX are open. */
int lat_outfile_set_open(struct lat_outfile_set *set, const char *path,
			 FILE **f);

/* lat_outfile_commit() of the one of @set writing into @f; -EBADF when
 * none is. */
int lat_outfile_set_commit(struct lat_outfile_set *set, FILE *f, int rc);

/* lat_outfile_abandon() every one of @set still open. */
void lat_outfile_set_abandon(struct lat_outfile_set *set);

/*
 * Before a long run, whether @path can be written as a result: refused
 * now, the run costs nothing. Nothing is created. Returns 0 (a new name,
 * or a regular file the result will replace), -ENOENT when @path is
 * empty or its directory does not exist (or is not one), -ENAMETOOLONG,
 * the -errno of access() when that directory is not writable (-EACCES,
 * -EROFS), -EEXIST when it names the same file as one of the @n paths
 * @others (an input, another output; NULL entries are skipped; a file
 * not created yet is matched by its directory and name, so "x" and "./x"
 * are one), -EISDIR when it is a directory, -EINVAL when it is another
 * file that is not a regular one (as lat_outfile_open).
 */
int lat_outfile_check(const char *path, const char *const *others, int n);

/*
 * A directory results go into: made (mode 0777 less the umask) if
 * missing. Returns 0 when it is a directory this process can write
 * into, -ENOTDIR when @dir is another file, else the -errno of making
 * or using it.
 */
int lat_outfile_dir(const char *dir);

#endif
