/*
 * lat_sched /proc fallback over a window: snapshots of every thread of a
 * process, and the report of their difference, for people and as JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "latlab/json.h"
#include "latlab/sched.h"

int lat_sched_proc_snapshot(pid_t pid, struct lat_sched_proc_snap *s)
{
	s->n = 0;
	s->v = calloc(LAT_SCHED_PROC_MAX_THREADS, sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	return lat_sched_proc_read_all(pid, s->v, LAT_SCHED_PROC_MAX_THREADS,
				       &s->n);
}

void lat_sched_proc_snap_free(struct lat_sched_proc_snap *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

void lat_sched_proc_report(FILE *out, const char *why,
			   const struct lat_sched_proc_snap *d)
{
	fprintf(out, "probe: unavailable: %s\n"
		"fallback: /proc/<pid>/task/<tid>/schedstat and status: "
		"totals over the window, no histogram, no attribution\n", why);
	lat_sched_proc_print(out, d->v, d->n);
}

void lat_sched_proc_report_json(struct lat_json *j, const char *why,
				const struct lat_sched_proc_snap *d)
{
	lat_json_str(j, "source", "proc");
	lat_json_str(j, "probe_unavailable", why);
	lat_sched_proc_json(j, "threads", d->v, d->n);
}
