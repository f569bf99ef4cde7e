/*
 * lat_qsim planning answers: the knee of a wait curve and the highest
 * utilization that meets a p99 target.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "latlab/qsim.h"

int lat_qsim_knee(const double *rho, const double *w, size_t n, double slope,
		  double *knee)
{
	double prev_mid = NAN, prev_slope = NAN;

	if (n < 2 || !(slope > 0))
		return -EINVAL;
	for (size_t i = 0; i + 1 < n; i++) {
		double dr = rho[i + 1] - rho[i];
		double mid = (rho[i] + rho[i + 1]) / 2, s;

		if (!isfinite(w[i]) || !isfinite(w[i + 1]) || !(dr > 0))
			break;
		s = (w[i + 1] - w[i]) / dr;
		if (s >= slope) {
			if (isnan(prev_mid))
				*knee = mid;
			else
				*knee = prev_mid + (mid - prev_mid) *
					(slope - prev_slope) /
					(s - prev_slope);
			return 0;
		}
		prev_mid = mid;
		prev_slope = s;
	}
	return -ENOENT;
}

double lat_qsim_kingman_knee(double ca, double cs, double slope)
{
	/* d/dρ [ρ/(1-ρ) g] = g/(1-ρ)^2 = slope. */
	double g = (ca * ca + cs * cs) / 2;
	double k = 1 - sqrt(g / slope);

	return k > 0 && k < 1 ? k : NAN;
}

static int p99_at(const struct lat_qsim_config *cfg, double rho, double *p99)
{
	struct lat_qsim_config c = *cfg;
	struct lat_qsim_result res;
	int err;

	c.rho = rho;
	err = lat_qsim_run(&c, &res);
	*p99 = res.p99.mean;
	lat_qsim_result_destroy(&res);
	return err;
}

int lat_qsim_target_p99(const struct lat_qsim_config *cfg, double target,
			double tol, struct lat_qsim_target *out)
{
	double lo = LAT_QSIM_TARGET_LO, hi = LAT_QSIM_TARGET_HI, p;
	bool above = false;
	unsigned n = 0;
	int err;

	if (!out || !(tol >= 1e-6) || !(target > 0))
		return -EINVAL;
	err = p99_at(cfg, lo, &p);
	n++;
	if (!err && p >= target)
		err = -ENOENT;
	if (!err) {
		err = p99_at(cfg, hi, &p);
		n++;
		if (!err && p < target) {
			lo = hi;
			above = true;
		}
	}
	while (!err && !above && hi - lo > tol) {
		double mid = (lo + hi) / 2;

		err = p99_at(cfg, mid, &p);
		n++;
		if (p < target)
			lo = mid;
		else
			hi = mid;
	}
	out->runs = n;
	out->rho = lo;
	out->above_range = above;
	return err;
}

int lat_qsim_target_search(const struct lat_qsim_config *cfg, double target,
			   double tol, struct lat_qsim_target_run *t)
{
	struct lat_qsim_config at = *cfg;
	int err;

	memset(t, 0, sizeof(*t));
	t->tol = tol;
	t->status = lat_qsim_target_p99(cfg, target, tol, &t->found);
	if (t->status == -ENOENT)
		return 0;
	if (t->status)
		return t->status;
	at.rho = t->found.rho;
	err = lat_qsim_run(&at, &t->at);
	t->stopped = err == -EINTR;
	if (err)
		lat_qsim_result_destroy(&t->at);
	return err;
}
