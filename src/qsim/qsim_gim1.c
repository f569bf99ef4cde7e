/*
 * lat_qsim exact GI/M/1: the arrival-epoch queue length is geometric with
 * ratio sigma, the root in (0, 1) of sigma = A*(mu (1 - sigma)), A* the
 * Laplace-Stieltjes transform of the inter-arrival time. Then (mu = 1)
 * P(W_q > t) = sigma e^-(1-sigma)t and the sojourn is exponential with
 * rate 1 - sigma. Also the second moments of the wait for the models
 * whose mean lat_qsim_formulas() gives exactly.
 */
#include <errno.h>
#include <math.h>

#include "latlab/qsim.h"

/* E[e^-sX] of a uniform piece [lo, lo + w): the exact integral. */
static double uniform_lst(double lo, double w, double s)
{
	if (w <= 0 || s * w < 1e-9)
		return exp(-s * (lo + w / 2));
	return exp(-s * lo) * -expm1(-s * w) / (s * w);
}

double lat_qsim_dist_lst(const struct lat_qsim_dist *d, double s)
{
	double v = 0, prev = 0;

	if (!(s >= 0))
		return NAN;
	switch (d->kind) {
	case LAT_QSIM_DET:
		return exp(-s);
	case LAT_QSIM_EXP:
		return 1 / (1 + s);
	case LAT_QSIM_ERLANG:
		return pow(1 + s / d->k, -(double)d->k);
	case LAT_QSIM_GAMMA:
		return pow(1 + s / d->shape, -d->shape);
	case LAT_QSIM_HYPER:
		return d->p1 / (1 + s * d->m1) +
		       (1 - d->p1) / (1 + s * d->m2);
	case LAT_QSIM_UNIFORM:
		return uniform_lst(d->lo, d->width, s);
	case LAT_QSIM_EMPIRICAL:
		for (size_t i = 0; i < d->slots; i++) {
			v += (d->cdf[i] - prev) *
			     uniform_lst(d->slot_lo[i], d->slot_w[i], s);
			prev = d->cdf[i];
		}
		return v;
	default: /* lognormal: no closed form */
		return NAN;
	}
}

/* f(sigma) = A*(c (1 - sigma) ) - sigma with arrivals of mean 1/(c rho) */
static double gim_f(const struct lat_qsim_dist *a, double rho, unsigned c,
		    double sigma)
{
	return lat_qsim_dist_lst(a, c * (1 - sigma) / (c * rho)) - sigma;
}

int lat_qsim_gim_sigma(const struct lat_qsim_dist *arrival, double rho,
		       unsigned c, double *sigma)
{
	double lo = 0, hi = 0.5, gap = 0.5;

	if (!(rho > 0 && rho < 1) || c < 1 ||
	    isnan(lat_qsim_dist_lst(arrival, 1)))
		return -EINVAL;
	/* f(0) = A*(1/rho) > 0; near 1, f ~ (1 - sigma)(1 - 1/rho) < 0:
	 * walk hi towards 1 until f changes sign, then bisect. */
	while (gim_f(arrival, rho, c, hi) >= 0) {
		lo = hi;
		gap /= 2;
		hi = 1 - gap;
		if (gap < 1e-15)
			return -ERANGE; /* rho too close to 1 for doubles */
	}
	for (int i = 0; i < 200 && hi - lo > 1e-16; i++) {
		double mid = (lo + hi) / 2;

		if (gim_f(arrival, rho, c, mid) >= 0)
			lo = mid;
		else
			hi = mid;
	}
	*sigma = (lo + hi) / 2;
	return 0;
}

double lat_qsim_gim1_wait(double sigma)
{
	return sigma / (1 - sigma);
}

double lat_qsim_gim1_wait2(double sigma)
{
	return 2 * sigma / ((1 - sigma) * (1 - sigma));
}

/* E[S^3] of a unit-mean distribution, NaN without a closed form. */
double lat_qsim_dist_m3(const struct lat_qsim_dist *d)
{
	double a, hi;

	switch (d->kind) {
	case LAT_QSIM_DET:
		return 1;
	case LAT_QSIM_EXP:
		return 6;
	case LAT_QSIM_ERLANG:
		a = d->k;
		return (a + 1) * (a + 2) / (a * a);
	case LAT_QSIM_GAMMA:
		a = d->shape;
		return (a + 1) * (a + 2) / (a * a);
	case LAT_QSIM_HYPER:
		return 6 * (d->p1 * pow(d->m1, 3) +
			    (1 - d->p1) * pow(d->m2, 3));
	case LAT_QSIM_UNIFORM:
		hi = d->lo + d->width;
		if (d->width <= 0)
			return pow(d->lo, 3);
		return (pow(hi, 4) - pow(d->lo, 4)) / (4 * d->width);
	case LAT_QSIM_LOGNORMAL:
		return exp(3 * d->mu + 4.5 * d->sigma * d->sigma);
	default:
		return NAN;
	}
}

double lat_qsim_mg1_wait2(double rho, const struct lat_qsim_dist *service)
{
	double w = lat_qsim_pk(rho, service->cv);

	/* Takacs: E[W^2] = 2 E[W]^2 + lambda E[S^3] / (3 (1 - rho)) */
	return 2 * w * w + rho * lat_qsim_dist_m3(service) / (3 * (1 - rho));
}
