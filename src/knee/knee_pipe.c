/*
 * lat_knee over the real pipeline: each request is one lat_pipe run whose
 * aggregator feeds every sample to the accumulator (the sample hook runs
 * on the cold aggregator thread, never on a hot one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "latlab/knee.h"
#include "latlab/pace.h"

/* <dir>/knee-<dist>-rho0.950.hlog, the dist name made file-safe. */
static FILE *open_hlog(const struct lat_knee_pipe *kp, double rho, int *err)
{
	char name[PATH_MAX], dist[48];
	const char *d = lat_work_dist_name(&kp->base.work_dist);
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

/*
 * thread_prepare hook: stage 1 and the producer take the nice value (per
 * thread on Linux); the producer, which sleeps while early, asks for a
 * timer slack of 1 us instead of the default 50 us.
 */
static void hot_prepare(void *ctx, int index, enum lat_pipe_role role)
{
	struct lat_knee_pipe *kp = ctx;

	if (role == LAT_PIPE_PRODUCER)
		(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (!kp->stage_nice || role == LAT_PIPE_CONSUMER ||
	    (role == LAT_PIPE_STAGE && index != 1))
		return;
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid),
			kp->stage_nice) && role == LAT_PIPE_STAGE)
		kp->nice_error = -errno;
}

/* sample hook: the context is the knee pipe; the sample goes on */
static void sample(void *ctx, const struct lat_pipe_msg *m,
		   const int64_t *delta_ns, int n_deltas)
{
	struct lat_knee_pipe *kp = ctx;

	lat_knee_acc_sample(kp->acc, m, delta_ns, n_deltas);
}

/*
 * The rate that makes @c's Poisson path of c->events events span exactly
 * (events - 1) / c->rate: the path is drawn from the seed before the run,
 * so its own mean gap is known, and the rate is scaled by it. Without
 * this a path of n events carries a relative error of 1/sqrt(n) in its
 * realised rate (1% at 10^4 events, 0.01 of rho at 0.95), and the points
 * land off the rho asked by the path's luck. The gaps keep their law up
 * to that scale (a Poisson process conditioned on its span), and every
 * prediction is computed from the measured rho, c_a and gaps anyway.
 */
static double path_rate(const struct lat_pipe_config *c)
{
	/* the pacer's own draws, in units of its interval: one cycle per
	 * ns at 1000 events/s is an interval of 10^6 cycles */
	struct lat_clock_cal unit = { .cycles_per_ns = 1 };
	struct lat_pace pace;
	double span;

	if (c->arrivals != LAT_PACE_POISSON || c->events < 2 ||
	    lat_pace_init(&pace, c->arrivals, 1000, 1, &unit, 0, c->seed))
		return c->rate;
	for (uint64_t i = 0; i + 1 < c->events; i++)
		lat_pace_advance(&pace);
	span = (double)pace.off_int / 1e6 / (double)(c->events - 1);
	return span > 0 ? c->rate * span : c->rate;
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
	c.seed = q->seed;
	if (q->phase != LAT_KNEE_FLOOR)
		c.rate = path_rate(&c);
	c.stamps = true;
	memset(&c.hooks, 0, sizeof(c.hooks));
	c.hooks.sample = sample;
	c.hooks.thread_prepare = hot_prepare;
	c.hooks.ctx = kp;
	kp->acc = acc;
	c.hlog = NULL;
	if (q->phase == LAT_KNEE_FLOOR) {
		c.work_ns = 0;
		memset(&c.work_dist, 0, sizeof(c.work_dist));
	}
	if (q->phase == LAT_KNEE_FLOOR)
		c.arrivals = LAT_PACE_FIXED;
	else if (q->phase == LAT_KNEE_POINT && kp->hlog_dir &&
		 !(hlog = open_hlog(kp, q->rho_asked, &rc)))
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
	int rc, cpus[3];

	c->stages = 1;
	rc = lat_pipe_autoplace(c, false, shared);
	if (rc || !*shared)
		return rc;
	/* the knee's nice is its own (--nice, per session), and a guard's
	 * wake-ups would be part of the service it measures */
	c->hot_nice = 0;
	c->guard_ns = 0;
	/* sharing CPUs with the rest of the machine: a yielding waiter is
	 * run again only after every runnable neighbour (ms on a loaded
	 * box), a futex sleeper is woken within microseconds */
	c->wait = LAT_WAIT_BLOCK;
	/* the producer sleeps while early by more than this, then yields */
	c->pace_sleep_ns = 50000;
	if (!c->pin || c->cpu[0] == c->cpu[1])
		return 0;
	cpus[0] = c->cpu[0]; /* producer */
	cpus[1] = c->cpu[1]; /* stage 1, alone */
	cpus[2] = c->cpu[0]; /* consumer beside the producer */
	rc = lat_pipe_place_pool(c, cpus, 3, true, NULL);
	/* the producer sleeps until 50 us before each send and spins the
	 * rest: a yield there hands the CPU to a neighbour for a whole
	 * slice (ms), and the sends come late and in bunches (c_a 1.4) */
	c->pace_yield = false;
	c->hot_nice = 0; /* placed again: as above */
	c->guard_ns = 0;
	return rc;
}


void lat_knee_pipe_runner(struct lat_knee_pipe *p, struct lat_knee_runner *r)
{
	r->ctx = p;
	r->run = pipe_run;
}
