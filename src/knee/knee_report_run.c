/*
 * lat_knee report driver: the wake-up floor, the work it allows, then
 * every work distribution calibrated and swept rho by rho, into one
 * struct lat_knee_report (what `latlab knee` prints).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "latlab/knee.h"
#include "latlab/fmt.h"

int lat_knee_report_floor(struct lat_knee_report *rep,
			  const struct lat_knee_runner *r)
{
	rep->floor_rate = LAT_KNEE_FLOOR_RATE;
	return lat_knee_floor(r, rep->floor_rate, LAT_KNEE_FLOOR_EVENTS,
			      &rep->floor_ns);
}

double lat_knee_min_work_ns(double floor_ns)
{
	return LAT_KNEE_FLOOR_FACTOR * floor_ns;
}

int lat_knee_default_work(double floor_ns, double *work_ns)
{
	double need = lat_knee_min_work_ns(floor_ns);

	if (need > LAT_KNEE_MAX_WORK_NS)
		return -ERANGE;
	*work_ns = ceil(fmax(need, 20000) / 10000) * 10000;
	return 0;
}

/* Calibrate tau for one distribution. 0, 1 stopped, or -err. */
static int calibrate_one(struct lat_knee_report *rep,
			 const struct lat_knee_runner *r,
			 struct lat_knee_run *run, FILE *progress)
{
	/* half the nominal capacity, for a second (at least 500 events) */
	double rate = 0.5e9 / rep->base.work_ns;
	uint64_t events = (uint64_t)fmax(500, rate);
	struct lat_knee_cal cal;
	char t[LAT_FMT_LEN];
	int rc;

	rep->kp.base.work_dist = run->dist;
	rc = lat_knee_calibrate(r, rate, events, rep->base.seed, &cal);
	if (rc)
		return rc;
	run->tau_ns = cal.tau_ns;
	run->cal_cs = cal.cs;
	run->tau_queued_ns = cal.tau_queued_ns;
	run->wake_ns = cal.wake_ns;
	run->started = true;
	run->work_cv = rep->kp.last.work_table.cv;
	if (progress)
		fprintf(progress, "latlab knee: work %s: tau %s calibrated\n",
			lat_work_dist_name(&run->dist),
			lat_fmt_ns(t, sizeof(t), run->tau_ns));
	return 0;
}

struct progress {
	const struct lat_knee_report *rep;
	FILE *out;
};

static void on_point(void *ctx, const struct lat_knee_point *p)
{
	const struct progress *pr = ctx;
	char w[LAT_FMT_LEN];

	if (!pr->out)
		return;
	fprintf(pr->out, "latlab knee: %s rho %.3f (asked %.3f): W_q %s "
		"= %.3g tau over %llu events\n",
		lat_work_dist_name(&pr->rep->kp.base.work_dist), p->rho,
		p->rho_asked, lat_fmt_ns(w, sizeof(w), p->wait.mean),
		p->wait_tau, (unsigned long long)p->events);
}

/* The pipeline's stop, asked between the replays of a point. */
static bool replay_stop(void *ctx)
{
	const struct lat_knee_pipe *kp = ctx;

	return kp->stop && kp->stop(kp->stop_ctx, 0, 0);
}

/*
 * Calibrate every distribution, then run the points rho by rho, each
 * distribution in turn at the same rho: a comparison of det and exp then
 * sees the same minutes of a shared machine, not two different ones.
 */
int lat_knee_report_sweep(struct lat_knee_report *rep,
			  const struct lat_work_dist *dists, int n_dists,
			  const struct lat_knee_runner *r, FILE *progress)
{
	struct progress pr = { rep, progress };
	bool stopped;
	int rc = 0, ref = 0;

	if (n_dists < 1 || n_dists > LAT_KNEE_MAX_DISTS ||
	    !(rep->base.work_ns > 0))
		return -EINVAL;
	for (int d = 0; d < n_dists && !rc; d++) {
		rep->runs[d].dist = dists[d];
		rep->n_runs = d + 1;
		rc = calibrate_one(rep, r, &rep->runs[d], progress);
	}
	/* Every distribution has the same mean work, so they differ only in
	 * variance if they see the same arrival rate: drive them all from
	 * the shortest calibrated tau (a neighbour's slice only ever adds
	 * time, so the shortest is the least disturbed). */
	rep->rate_tau_ns = INFINITY;
	for (int d = 0; d < rep->n_runs; d++)
		if (rep->runs[d].started &&
		    rep->runs[d].tau_ns < rep->rate_tau_ns) {
			rep->rate_tau_ns = rep->runs[d].tau_ns;
			ref = d;
			rep->kc.tau_ns = rep->runs[d].tau_queued_ns;
			rep->kc.wake_ns = rep->runs[d].wake_ns;
		}
	rep->kc.seed = rep->base.seed;
	rep->kc.stop = replay_stop;
	rep->kc.stop_ctx = &rep->kp;
	for (size_t i = 0; i < rep->kc.n_rho && !rc; i++) {
		/* the reference run's own points set the level from now on:
		 * one rate for every distribution at this rho */
		lat_knee_sweep_adapt(&rep->kc, &rep->runs[ref].sweep);
		for (int d = 0; d < rep->n_runs && !rc; d++) {
			struct lat_knee_run *run = &rep->runs[d];

			rep->kp.base.work_dist = run->dist;
			rc = lat_knee_sweep_point(&rep->kc, r, &run->sweep, i,
						  on_point, &pr);
			if (!rc && run->sweep.interrupted)
				rc = 1;
		}
	}
	/* a stop (1, or -EINTR from a run's clock calibration) loses every
	 * run's remaining points, not only the one it fell in */
	stopped = rc == 1 || rc == -EINTR;
	for (int d = 0; d < rep->n_runs; d++) {
		rep->runs[d].sweep.interrupted |= stopped;
		lat_knee_sweep_knees(&rep->runs[d].sweep, rep->kc.knee_slope);
	}
	return rc == 1 ? 0 : rc;
}
