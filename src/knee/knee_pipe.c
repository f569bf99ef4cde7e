/*
 * lat_knee over the real pipeline: each request is one lat_pipe run whose
 * aggregator feeds every sample to the accumulator (the sample hook runs
 * on the cold aggregator thread, never on a hot one).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "latlab/knee.h"

/* <dir>/knee-<dist>-rho0.950.hlog, the dist name made file-safe. */
static FILE *open_hlog(const struct lat_knee_pipe *kp, double rho, int *err)
{
	char name[PATH_MAX], dist[48];
	const char *d = kp->base.work_dist.kind == LAT_WORK_DET ?
			"det" : kp->base.work_dist.name;
	FILE *f;
	size_t i;

	for (i = 0; d[i] && i + 1 < sizeof(dist); i++)
		dist[i] = d[i] == ':' || d[i] == '/' ? '-' : d[i];
	dist[i] = 0;
	if (snprintf(name, sizeof(name), "%s/knee-%s-rho%.3f.hlog",
		     kp->hlog_dir, dist, rho) >= (int)sizeof(name)) {
		*err = -ENAMETOOLONG;
		return NULL;
	}
	f = fopen(name, "w");
	*err = f ? 0 : -errno;
	return f;
}

static int pipe_run(void *ctx, const struct lat_knee_req *q,
		    struct lat_knee_acc *acc, struct lat_knee_info *info)
{
	struct lat_knee_pipe *kp = ctx;
	struct lat_pipe_config c = kp->base;
	struct lat_pipe_result r;
	FILE *hlog = NULL;
	int rc = 0;

	c.rate = q->rate;
	c.events = q->events;
	c.stamps = true;
	memset(&c.hooks, 0, sizeof(c.hooks));
	c.hooks.sample = lat_knee_acc_sample;
	c.hooks.ctx = acc;
	c.hlog = NULL;
	if (q->phase == LAT_KNEE_FLOOR) {
		c.work_ns = 0;
		memset(&c.work_dist, 0, sizeof(c.work_dist));
	}
	if (q->phase != LAT_KNEE_POINT)
		c.arrivals = LAT_PACE_FIXED;
	else if (kp->hlog_dir && !(hlog = open_hlog(kp, q->rho_asked, &rc)))
		return rc;
	c.hlog = hlog;
	rc = lat_pipe_run_until(&c, &r, kp->stop, kp->stop_ctx);
	if (hlog && fclose(hlog) && !kp->hlog_error)
		kp->hlog_error = -EIO;
	if (!kp->hlog_error)
		kp->hlog_error = r.hlog_error;
	info->cycles_per_ns = r.cal.cycles_per_ns;
	info->loadavg = r.loadavg;
	info->steal_pct = r.steal_pct;
	if (!rc && !r.exact)
		rc = -EPROTO; /* the pipeline's own accounting failed */
	lat_pipe_result_destroy(&r);
	if (rc)
		return rc;
	kp->last = r; /* facts only: its histograms are released */
	kp->have_last = true;
	return r.interrupted ? 1 : 0;
}

int lat_knee_place(struct lat_pipe_config *c, bool *shared)
{
	int rc = lat_pipe_autoplace(c, false, shared);
	int cpus[3];

	c->stages = 1;
	if (rc || !*shared || !c->pin || c->cpu[0] == c->cpu[1])
		return rc;
	cpus[0] = c->cpu[0]; /* producer */
	cpus[1] = c->cpu[1]; /* stage 1, alone */
	cpus[2] = c->cpu[0]; /* consumer beside the producer */
	return lat_pipe_place_pool(c, cpus, 3, false, NULL);
}

void lat_knee_pipe_runner(struct lat_knee_pipe *p, struct lat_knee_runner *r)
{
	r->ctx = p;
	r->run = pipe_run;
}
