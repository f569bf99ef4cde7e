/*
 * lat_knee points: the measured queue of one run, and beside it Kingman,
 * Pollaczek-Khinchine and the simulator fed with the measured histograms.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "latlab/knee.h"

static double cv_of(double sum, double sq, double n)
{
	double m = sum / n, var = sq / n - m * m;

	return m > 0 ? sqrt(var > 0 ? var : 0) / m : NAN;
}

static void dist_of(struct lat_knee_dist *d, const struct lat_hist *h,
		    double cpn)
{
	d->mean = lat_hist_mean(h) / cpn;
	d->p50 = (double)lat_hist_value_at_percentile(h, 50) / cpn;
	d->p99 = (double)lat_hist_value_at_percentile(h, 99) / cpn;
	d->p999 = (double)lat_hist_value_at_percentile(h, 99.9) / cpn;
}

int lat_knee_point_measure(struct lat_knee_point *p,
			   const struct lat_knee_acc *a, double cpn)
{
	double x[LAT_KNEE_BATCHES], n = (double)a->events;
	struct lat_qsim_ci ci;
	unsigned nb = 0;

	if (a->events < 2 || !(cpn > 0) || a->last_d <= a->first_a)
		return -EINVAL;
	p->events = a->events;
	p->unchained = a->unchained;
	p->rho = (double)a->busy / (double)(a->last_d - a->first_a);
	p->tau_ns = (double)a->busy / n / cpn;
	p->ca = cv_of((double)a->gap_sum, a->gap_sq, (double)a->gaps);
	p->cs = cv_of((double)a->busy, a->svc_sq, n);
	p->p_wait = (double)a->waited / n;
	dist_of(&p->wait, &a->wait, cpn);
	dist_of(&p->e2e, &a->e2e, cpn);
	/* the exact mean, not the histogram's bucket-midpoint one */
	p->wait.mean = (double)a->wait_sum / n / cpn;
	for (unsigned i = 0; i < LAT_KNEE_BATCHES; i++)
		if (a->batch_n[i])
			x[nb++] = a->batch_wait[i] / (double)a->batch_n[i] /
				  cpn;
	p->wait_half = NAN;
	if (nb >= 2) {
		lat_qsim_ci_from_batches(&ci, p->wait.mean, x, nb);
		p->wait_half = ci.half;
	}
	p->pickup_p50_ns =
		(double)lat_hist_value_at_percentile(&a->pickup, 50) / cpn;
	p->wait_tau = p->wait.mean / p->tau_ns;
	return 0;
}

/*
 * The simulator with the measured gap and service histograms: rho is the
 * ratio of their means (what the queue saw), times come back in units of
 * the service histogram's mean. @stop reaches the simulator, which asks
 * it every LAT_QSIM_STOP_EVERY customers (at --customers 1e8 a run takes
 * seconds); stopped, it returns 1 and sim_ns stays NaN like the other
 * predictions a stop cuts short (the batches done are not reported).
 */
static int simulate(struct lat_knee_point *p, const struct lat_knee_acc *a,
		    const struct lat_qsim_config *sim, double cpn,
		    lat_knee_stop_fn stop, void *stop_ctx)
{
	struct lat_qsim_config c = *sim;
	struct lat_qsim_result r;
	double tau;
	int rc;

	memset(&r, 0, sizeof(r));
	c.stop = stop;
	c.stop_ctx = stop_ctx;
	rc = lat_qsim_dist_init_hist(&c.arrival, &a->gap);
	if (!rc)
		rc = lat_qsim_dist_init_hist(&c.service, &a->service);
	if (!rc) {
		c.servers = 1;
		c.rho = c.service.scale_ns / c.arrival.scale_ns;
		tau = c.service.scale_ns / cpn;
		c.service.mean = 1;
		if (c.rho > 0 && c.rho < 0.999) {
			rc = lat_qsim_run(&c, &r);
			if (!rc) {
				p->sim_ns = r.wait.mean * tau;
				p->sim_half = r.wait.half * tau;
				p->sim_p99_ns = lat_qsim_hist_tau(&r.wait_hist,
								  99) * tau;
			} else if (rc == -EINTR) {
				rc = 1;
			}
		}
	}
	lat_qsim_result_destroy(&r);
	lat_qsim_dist_destroy(&c.arrival);
	lat_qsim_dist_destroy(&c.service);
	return rc;
}

/*
 * The measured arrival process as it came: the point's gaps in their
 * order, each service drawn independently from the measured service
 * histogram at the exact measured mean. Lindley's recursion as in the
 * replays (a restart takes its measured wait). What this keeps of the
 * measurement is the arrival path; what it redraws is the services and
 * their place (a wake-up paid by an event that found the stage idle).
 */
int lat_knee_point_simulate_trace(struct lat_knee_point *p,
				  const struct lat_knee_acc *a, uint64_t seed,
				  lat_knee_stop_fn stop, void *stop_ctx)
{
	const struct lat_knee_ev *ev = a->trace;
	uint64_t n = a->trace_n;
	double x[LAT_KNEE_TRACE_REPS], tau_c, cpn, sum = 0, sq = 0, var;
	struct lat_qsim_dist svc;
	struct lat_qsim_rng r;
	int rc;

	p->sim_trace_ns = p->sim_trace_half = NAN;
	if (n < 2 || !(p->tau_ns > 0) || a->events < 1)
		return -EINVAL;
	tau_c = (double)a->busy / (double)a->events;
	cpn = tau_c / p->tau_ns;
	rc = lat_qsim_dist_init_hist(&svc, &a->service);
	if (rc)
		return rc;
	lat_qsim_rng_seed(&r, seed);
	for (int k = 0; k < LAT_KNEE_TRACE_REPS; k++) {
		double w = 0, s_prev = 0, tot = 0;

		if (stop && stop(stop_ctx)) {
			lat_qsim_dist_destroy(&svc);
			return 1;
		}
		for (uint64_t i = 0; i < n; i++) {
			if (ev[i].restart || i == 0)
				w = (double)ev[i].wait;
			else
				w = fmax(0, w + s_prev - (double)ev[i].gap);
			tot += w;
			s_prev = lat_qsim_dist_sample(&svc, &r) * tau_c;
		}
		x[k] = tot / (double)n / cpn;
		sum += x[k];
		sq += x[k] * x[k];
	}
	lat_qsim_dist_destroy(&svc);
	p->sim_trace_ns = sum / LAT_KNEE_TRACE_REPS;
	var = (sq - sum * sum / LAT_KNEE_TRACE_REPS) / (LAT_KNEE_TRACE_REPS - 1);
	p->sim_trace_half = lat_qsim_t975(LAT_KNEE_TRACE_REPS - 1) *
			    sqrt(var > 0 ? var : 0) / sqrt(LAT_KNEE_TRACE_REPS);
	return 0;
}

static double log_err(double pred, double meas)
{
	return pred > 0 && meas > 0 && isfinite(pred) && isfinite(meas) ?
	       log(pred / meas) : NAN;
}

int lat_knee_point_predict(struct lat_knee_point *p,
			   const struct lat_knee_acc *a, bool poisson,
			   const struct lat_qsim_config *sim,
			   lat_knee_stop_fn stop, void *stop_ctx)
{
	double cpn;
	int rc, trc = 0, arc = 0;

	p->kingman_ns = p->pk_ns = p->sim_ns = p->sim_half = NAN;
	p->sim_p99_ns = p->sim_trace_ns = p->sim_trace_half = NAN;
	for (int k = 0; k < LAT_KNEE_PREDS; k++)
		p->log_err[k] = NAN;
	if (!(p->tau_ns > 0) || a->events < 2)
		return -EINVAL;
	cpn = (double)a->busy / (double)a->events / p->tau_ns;
	if (p->rho < 1) {
		p->kingman_ns = lat_qsim_kingman(p->rho, p->ca, p->cs) *
				p->tau_ns;
		if (poisson)
			p->pk_ns = lat_qsim_pk(p->rho, p->cs) * p->tau_ns;
	}
	rc = simulate(p, a, sim, cpn, stop, stop_ctx);
	/* each its own stream: the replays' permutations, the trace's
	 * service draws and the simulator's must not share uniforms */
	if (!rc)
		trc = lat_knee_point_simulate_trace(p, a, lat_knee_point_seed(
							    sim->seed, 2),
						    stop, stop_ctx);
	if (!rc && trc != 1)
		arc = lat_knee_point_attribute(p, a, sim->seed, stop,
					       stop_ctx);
	p->log_err[LAT_KNEE_PRED_KINGMAN] = log_err(p->kingman_ns,
						    p->wait.mean);
	p->log_err[LAT_KNEE_PRED_SIM] = log_err(p->sim_ns, p->wait.mean);
	p->log_err[LAT_KNEE_PRED_TRACE] = log_err(p->sim_trace_ns,
						  p->wait.mean);
	lat_knee_point_explain(p);
	if (rc)
		return rc;
	if (trc == 1 || arc == 1)
		return 1;
	return trc == -ENOMEM || arc == -ENOMEM ? -ENOMEM : 0;
}
