/*
 * The whole experiment of `latlab knee` in one call: place the pipeline,
 * raise the priorities, measure the wake-up floor, decide the work it
 * allows, sweep; progress on the caller's FILE *, refusals as data.
 */
#include <errno.h>
#include <stdio.h>

#include "latlab/fmt.h"
#include "latlab/knee.h"

/* The floor and the work it allows; 0 to go on, else the session's end. */
static int floor_and_work(struct lat_knee_session *s,
			  const struct lat_knee_runner *run)
{
	struct lat_knee_report *r = s->rep;
	char f[LAT_FMT_LEN], w[LAT_FMT_LEN];
	int rc;

	fprintf(s->progress, "%smeasuring the wake-up floor (%d events at "
		"%.0f/s)\n", s->prefix, LAT_KNEE_FLOOR_EVENTS,
		LAT_KNEE_FLOOR_RATE);
	s->step = "measuring the wake-up floor";
	rc = lat_knee_report_floor(r, run);
	if (rc)
		return rc == 1 ? -EINTR : rc;
	s->verdict = lat_knee_report_work(r, s->dists, s->n_dists,
					  s->work_set, &s->bad_dist, &s->why);
	if (s->verdict == LAT_KNEE_WORK_TOO_BUSY ||
	    s->verdict == LAT_KNEE_WORK_BAD_DIST)
		return -ECANCELED;
	lat_fmt_ns(f, sizeof(f), r->floor_ns);
	lat_fmt_ns(w, sizeof(w), r->base.work_ns);
	fprintf(s->progress, "%swake-up floor %s; stage 1 work %s\n",
		s->prefix, f, w);
	if (s->verdict == LAT_KNEE_WORK_OK)
		return 0;
	if (!s->force)
		return -ECANCELED;
	fprintf(s->progress, "%sWARNING: tau %s is below 20 x the wake-up "
		"floor %s: the waits measured are largely wake-ups, not "
		"queueing (forced)\n", s->prefix, w, f);
	return 0;
}

int lat_knee_session_run(struct lat_knee_session *s)
{
	struct lat_knee_runner run;
	int rc;

	s->verdict = LAT_KNEE_WORK_OK;
	s->bad_dist = -1;
	s->why = NULL;
	s->swept = false;
	if (!s->prefix)
		s->prefix = "";
	s->step = "cannot place the pipeline";
	rc = lat_knee_report_setup(s->rep, s->hlog_dir, s->stop, s->stop_ctx,
				   &run);
	if (rc)
		return rc;
	/* every way out (a refusal after the floor, a failure, a fatal
	 * signal) gives the session its weight back; a failure to raise is
	 * in the report, not fatal */
	(void)lat_knee_report_raise(s->rep);
	rc = floor_and_work(s, &run);
	if (rc)
		return rc;
	s->step = "sweeping";
	s->swept = true;
	return lat_knee_report_sweep(s->rep, s->dists, s->n_dists, &run,
				     s->progress);
}
