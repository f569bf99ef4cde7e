/*
 * lat_knee sweep: the wake-up floor, the service-time calibration, then
 * one run per utilization, each measured and predicted, then the knees.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "latlab/knee.h"

void lat_knee_config_init(struct lat_knee_config *c)
{
	memset(c, 0, sizeof(*c));
	lat_knee_config_span(c, 0.3, 0.95, 14);
	c->point_s = 8;
	c->min_events = 200;
	c->poisson = true;
	c->seed = 1;
	c->rho_tol = 0.01;
	lat_qsim_config_init(&c->sim);
	c->knee_slope = LAT_QSIM_KNEE_SLOPE;
}

int lat_knee_config_span(struct lat_knee_config *c, double lo, double hi,
			 size_t n)
{
	if (n < 2 || n > LAT_KNEE_MAX_POINTS || !(lo > 0 && lo < hi && hi < 1))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		c->rho[i] = lo + (hi - lo) * (double)i / (double)(n - 1);
	c->n_rho = n;
	return 0;
}

int lat_knee_config_check(const struct lat_knee_config *c, const char **why)
{
	const char *msg = NULL;

	if (c->n_rho < 2 || c->n_rho > LAT_KNEE_MAX_POINTS)
		msg = "a sweep needs 2 to 64 utilizations";
	for (size_t i = 0; !msg && i < c->n_rho; i++)
		if (!(c->rho[i] > 0 && c->rho[i] < 1))
			msg = "every utilization must be above 0 and below 1";
		else if (i && !(c->rho[i] > c->rho[i - 1]))
			msg = "utilizations must increase";
	if (!msg && !(c->point_s > 0 && c->point_s <= 3600))
		msg = "time per point must be above 0 and at most 1 hour";
	else if (!msg && !(c->knee_slope > 0 && isfinite(c->knee_slope)))
		msg = "knee slope must be above 0";
	else if (!msg && !(isfinite(c->wake_ns) && c->tau_ns + c->wake_ns >= 0))
		msg = "the service time at rho 0 must be 0 or more";
	else if (!msg && lat_qsim_config_check(&c->sim))
		msg = "bad simulator settings";
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

/* One run into a fresh accumulator; the caller destroys it. */
static int run_one(const struct lat_knee_runner *r,
		   const struct lat_knee_req *q, struct lat_knee_acc *a,
		   struct lat_knee_info *info)
{
	int rc = lat_knee_acc_init(a, q->events);

	memset(info, 0, sizeof(*info));
	info->loadavg = info->steal_pct = -1;
	if (!rc)
		rc = r->run(r->ctx, q, a, info);
	if (!rc && !(info->cycles_per_ns > 0))
		rc = -EINVAL;
	return rc;
}

int lat_knee_floor(const struct lat_knee_runner *r, double rate,
		   uint64_t events, double *floor_ns)
{
	struct lat_knee_req q = { LAT_KNEE_FLOOR, rate, events, 0, 0, 0 };
	struct lat_knee_acc a;
	struct lat_knee_info info;
	int rc = run_one(r, &q, &a, &info);

	if (!rc && a.wake.total_count < 1)
		rc = -ENODATA;
	if (!rc)
		*floor_ns = (double)lat_hist_value_at_percentile(&a.wake, 50) /
			    info.cycles_per_ns;
	lat_knee_acc_destroy(&a);
	return rc;
}

int lat_knee_calibrate(const struct lat_knee_runner *r, double rate,
		       uint64_t events, uint64_t seed,
		       struct lat_knee_cal *cal)
{
	struct lat_knee_req q = { LAT_KNEE_CALIBRATE, rate, events, 0, 0,
				  seed };
	struct lat_knee_acc a;
	struct lat_knee_info info;
	struct lat_knee_point p;
	int rc = run_one(r, &q, &a, &info);

	memset(&p, 0, sizeof(p));
	if (!rc)
		rc = lat_knee_point_measure(&p, &a, info.cycles_per_ns);
	if (!rc) {
		double cpn = info.cycles_per_ns;
		uint64_t queued = a.events - a.idle_n;

		cal->tau_ns = p.tau_ns;
		cal->cs = p.cs;
		cal->tau_queued_ns = p.tau_ns;
		cal->wake_ns = 0;
		/* both kinds seen: the split; else one tau for all */
		if (a.idle_n && queued) {
			double idle = (double)a.svc_idle_sum /
				      (double)a.idle_n / cpn;

			cal->tau_queued_ns = (double)(a.busy - a.svc_idle_sum) /
					     (double)queued / cpn;
			cal->wake_ns = fmax(0, idle - cal->tau_queued_ns);
		}
	}
	lat_knee_acc_destroy(&a);
	return rc;
}

uint64_t lat_knee_point_seed(uint64_t seed, size_t i)
{
	/* splitmix64's finalizer over the seed moved by the index: seeds
	 * next to each other give unrelated paths (the pacer's own
	 * generator steps its state by the same constant, so seed + i
	 * alone would give point i the path of point 0 shifted by i) */
	uint64_t z = seed + 0x9e3779b97f4a7c15u * (uint64_t)(i + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

double lat_knee_point_rate(const struct lat_knee_config *c, size_t i)
{
	return c->rho[i] / (c->tau_ns + (1 - c->rho[i]) * c->wake_ns) * 1e9;
}

/* A correction beyond a factor 2 is not the machine's drift but a
 * service the rates know nothing of (a work near the floor, --force):
 * a retry at that rate would be another experiment, not this point. */
static bool retry_sane(double factor)
{
	return factor >= 0.5 && factor <= 2;
}

int lat_knee_sweep_point(const struct lat_knee_config *c,
			 const struct lat_knee_runner *r,
			 struct lat_knee_sweep *s, size_t i,
			 lat_knee_point_fn on_point, void *ctx)
{
	struct lat_knee_point *p;
	struct lat_knee_req q = { LAT_KNEE_POINT, 0, 0, i, 0, 0 };
	struct lat_qsim_config sim = c->sim;
	struct lat_knee_info info;
	struct lat_knee_acc a;
	int rc;

	if (i >= c->n_rho || s->done >= LAT_KNEE_MAX_POINTS ||
	    !(c->tau_ns > 0))
		return -EINVAL;
	p = &s->pts[s->done];
	q.rho_asked = c->rho[i];
	q.rate = lat_knee_point_rate(c, i);
	q.seed = lat_knee_point_seed(c->seed, i);
	/* the simulator's own stream, not the arrivals': with the same
	 * seed a splitmix generator would draw the very uniforms the pacer
	 * drew, and the fed simulator would replay the measured path */
	sim.seed = lat_knee_point_seed(q.seed ^ c->sim.seed, 1);
	q.events = (uint64_t)ceil(q.rate * c->point_s);
	if (q.events < c->min_events)
		q.events = c->min_events;
	rc = run_one(r, &q, &a, &info);
	memset(p, 0, sizeof(*p));
	p->rho_first = NAN;
	if (!rc)
		rc = lat_knee_point_measure(p, &a, info.cycles_per_ns);
	/* off the asked rho by more than the tolerance: once more, at the
	 * rate that would have hit it (the same arrivals, scaled) */
	if (!rc && c->rho_tol > 0 && p->rho > 0 &&
	    fabs(p->rho - c->rho[i]) > c->rho_tol &&
	    retry_sane(c->rho[i] / p->rho)) {
		p->rho_first = p->rho;
		q.rate *= c->rho[i] / p->rho;
		lat_knee_acc_destroy(&a);
		rc = run_one(r, &q, &a, &info);
		if (!rc)
			rc = lat_knee_point_measure(p, &a,
						    info.cycles_per_ns);
	}
	if (rc == 1) {
		s->interrupted = true; /* this point is not kept */
		rc = 0;
	} else if (!rc) {
		p->rho_asked = c->rho[i];
		p->rate = q.rate;
		p->loadavg = info.loadavg;
		p->steal_pct = info.steal_pct;
		if (!rc)
			rc = lat_knee_point_predict(p, &a, c->poisson, &sim,
						    c->stop, c->stop_ctx);
		/* stopped while predicting: the measurement is whole, so
		 * the point is kept (its missing predictions NaN) */
		if (rc == 1) {
			s->interrupted = true;
			rc = 0;
		}
		if (!rc) {
			s->done++;
			if (on_point)
				on_point(ctx, p);
		}
	}
	lat_knee_acc_destroy(&a);
	return rc;
}

void lat_knee_sweep_adapt(struct lat_knee_config *c,
			  const struct lat_knee_sweep *s)
{
	double w = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, lo = 1, hi = 0;
	double lev = 0;

	for (size_t i = 0; i < s->done; i++) {
		const struct lat_knee_point *p = &s->pts[i];
		double n = (double)p->events;

		if (!(p->tau_ns > 0) || !(p->rho > 0 && p->rho < 1))
			continue;
		w += n;
		sx += n * p->rho;
		sy += n * p->tau_ns;
		sxx += n * p->rho * p->rho;
		sxy += n * p->rho * p->tau_ns;
		lev += n * (p->tau_ns - (1 - p->p_wait) * c->wake_ns);
		lo = fmin(lo, p->rho);
		hi = fmax(hi, p->rho);
	}
	if (!(w > 0))
		return;
	if (s->done >= 3 && hi - lo >= 0.1) {
		/* tau(rho) = a + b rho, events-weighted least squares: the
		 * same line as tau_ns + (1 - rho) wake_ns */
		double b = (sxy - sx * sy / w) / (sxx - sx * sx / w);
		double a = (sy - b * sx) / w;

		if (isfinite(a) && isfinite(b) && a + b > 0 && a > 0) {
			c->tau_ns = a + b;
			c->wake_ns = -b;
			return;
		}
	}
	/* a wake-up that is most of the service (a work near the floor,
	 * --force) can make the split's level nonsense: the plain mean */
	if (lev > 0) {
		c->tau_ns = lev / w;
	} else {
		c->tau_ns = sy / w;
		c->wake_ns = 0;
	}
}

int lat_knee_sweep_run(const struct lat_knee_config *cfg,
		       const struct lat_knee_runner *r, struct lat_knee_sweep *s,
		       lat_knee_point_fn on_point, void *ctx)
{
	struct lat_knee_config c = *cfg;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	if (lat_knee_config_check(&c, NULL) || !(c.tau_ns > 0))
		return -EINVAL;
	for (size_t i = 0; i < c.n_rho && !rc && !s->interrupted; i++) {
		lat_knee_sweep_adapt(&c, s);
		rc = lat_knee_sweep_point(&c, r, s, i, on_point, ctx);
	}
	lat_knee_sweep_knees(s, c.knee_slope);
	return rc;
}

/* The knee of (rho_i, y_i / tau_i) over the points in order of measured
 * rho, skipping any whose rho does not increase (lat_qsim_knee needs a
 * strictly increasing x). NaN when never that steep. */
static double knee_of(const struct lat_knee_sweep *s, size_t off,
		      double slope)
{
	double x[LAT_KNEE_MAX_POINTS], y[LAT_KNEE_MAX_POINTS], k;
	size_t order[LAT_KNEE_MAX_POINTS], n = 0, m = 0;

	for (size_t i = 0; i < s->done; i++) {
		size_t j = m++;

		while (j > 0 && s->pts[order[j - 1]].rho > s->pts[i].rho) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (size_t i = 0; i < m; i++) {
		const struct lat_knee_point *p = &s->pts[order[i]];
		double v = *(const double *)((const char *)p + off);

		if (!isfinite(v) || (n && !(p->rho > x[n - 1])))
			continue;
		x[n] = p->rho;
		y[n++] = v / p->tau_ns;
	}
	return n >= 2 && !lat_qsim_knee(x, y, n, slope, &k) ? k : NAN;
}

void lat_knee_sweep_knees(struct lat_knee_sweep *s, double slope)
{
	s->knee_measured = knee_of(s, offsetof(struct lat_knee_point,
					       wait.mean), slope);
	s->knee_kingman = knee_of(s, offsetof(struct lat_knee_point,
					      kingman_ns), slope);
	s->knee_sim = knee_of(s, offsetof(struct lat_knee_point, sim_ns),
			      slope);
	s->knee_trace = knee_of(s, offsetof(struct lat_knee_point,
					    sim_trace_ns), slope);
	lat_knee_sweep_score(s);
}
