/* A set of results being written (see latlab/outfile.h). */
#include <errno.h>
#include <stdio.h>

#include "latlab/outfile.h"

int lat_outfile_set_open(struct lat_outfile_set *set, const char *path,
			 FILE **f)
{
	for (int i = 0; i < LAT_OUTFILE_SET_MAX; i++) {
		struct lat_outfile *o = &set->o[i];
		int rc;

		if (o->f)
			continue;
		rc = lat_outfile_open(o, path);
		*f = rc ? NULL : o->f;
		return rc;
	}
	return -EMFILE;
}

int lat_outfile_set_commit(struct lat_outfile_set *set, FILE *f, int rc)
{
	for (int i = 0; f && i < LAT_OUTFILE_SET_MAX; i++)
		if (set->o[i].f == f)
			return lat_outfile_commit(&set->o[i], rc);
	return -EBADF;
}

void lat_outfile_set_abandon(struct lat_outfile_set *set)
{
	for (int i = 0; i < LAT_OUTFILE_SET_MAX; i++)
		lat_outfile_abandon(&set->o[i]);
}
