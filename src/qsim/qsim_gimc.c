/*
 * lat_qsim exact GI/M/c: the probability of waiting, the mean and second
 * moment of the wait and the sojourn quantiles of the FCFS queue with
 * renewal arrivals and c exponential servers.
 *
 * Sources (found with the project's search tool; the derivation is in the
 * books, the evaluation below is ours): L. Takács, "Introduction to the
 * Theory of Queues", Oxford University Press 1962, ch. 5 (the GI/M/m
 * queue by binomial moments of the arrival-epoch queue length); L.
 * Kleinrock, "Queueing Systems Volume 1: Theory", Wiley 1975, §6.4 "The
 * queue G/M/m", which states the result in this form. The same boundary
 * system, set up as a dense linear system in factorials, is what
 * xabarov/most-queue (theory/fifo/gi_m_n.py) solves; read for the idea,
 * not copied.
 *
 * With service rate 1 per server, arrival LST A*, beta_k = A*(k) and
 * sigma the root of sigma = A*(c (1 - sigma)), an arriving customer finds
 * n >= c in the system with probability J sigma^(n-c) (J = q_c), so
 *   P(W_q > 0) = J / (1 - sigma),  P(W_q > t) = P(W_q > 0) e^-c(1-sigma)t.
 * The c boundary probabilities q_0 .. q_{c-1} solve a finite system whose
 * solution Takács gives through binomial moments; normalising it gives
 *   1/J = 1/(1 - sigma) + sum_{k=1..c} binom(c, k) / (C_k (1 - beta_k))
 *                                       * R_k,
 *   C_k = prod_{i=1..k} beta_i / (1 - beta_i),
 *   R_k = (c (1 - beta_k) - k) / (c (1 - sigma) - k).
 * So P(W_q > 0) = 1 / (1 + (1 - sigma) S) with S the sum.
 *
 * Why this is stable, which the textbook form is not as written:
 *  - every term is positive: with g(s) = c (1 - A*(s)) - s, concave with
 *    g(0) = g(c (1 - sigma)) = 0, R_k = g(k) / (c (1 - sigma) - k) > 0.
 *    No alternating sums, so no cancellation between terms;
 *  - R_k has a removable singularity where c (1 - sigma) is an integer
 *    (M/M/10 at rho 0.9); written as R_k = 1 + c DD_k with DD_k the
 *    divided difference (A*(c (1 - sigma)) - A*(k)) / (c (1 - sigma) - k)
 *    evaluated in closed form per distribution (expm1/log1p, never a
 *    difference of two close values), it is exact at and near the
 *    singularity;
 *  - 1 - beta_k is computed directly (-expm1, s / (1 + s), ...), not as
 *    1 - A*(k), which loses digits when beta_1 is near 1 (large c);
 *  - the terms are summed in logarithms (binom(c, k) / C_k overflows for c
 *    in the hundreds): log-sum-exp, then P = 1 / (1 + e^L).
 * Cost O(c) LST evaluations (O(c * slots) for an empirical table).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>

#include "latlab/qsim.h"

/* ---- 16-point Gauss-Legendre on [0, 1], for uniform pieces -------------- */

#define GL_N 16
static double gl_x[GL_N], gl_w[GL_N];
static pthread_once_t gl_once = PTHREAD_ONCE_INIT;

/* Nodes by Newton's method on the Legendre recurrence (exact to ~1e-16
 * after a few steps from the Chebyshev guess). */
static void gl_build(void)
{
	for (int i = 0; i < GL_N; i++) {
		double x = cos(M_PI * (i + 0.75) / (GL_N + 0.5)), dp = 1;

		for (int it = 0; it < 100; it++) {
			double p0 = 1, p1 = x, dx;

			for (int n = 2; n <= GL_N; n++) {
				double p2 = ((2 * n - 1) * x * p1 -
					     (n - 1) * p0) / n;

				p0 = p1;
				p1 = p2;
			}
			dp = GL_N * (x * p1 - p0) / (x * x - 1);
			dx = p1 / dp;
			x -= dx;
			if (fabs(dx) < 1e-17)
				break;
		}
		gl_x[i] = (1 - x) / 2;
		gl_w[i] = 1 / ((1 - x * x) * dp * dp);
	}
}

/* What is integrated against the arrival distribution at t. */
enum kernel { K_COMPLEMENT, K_DD };

/* 1 - e^-st, or (e^-xt - e^-yt) / (x - y) (x <= y), for a point at t. */
static double point_kernel(enum kernel k, double t, double x, double y)
{
	double d = y - x;

	if (k == K_COMPLEMENT)
		return -expm1(-x * t);
	if (d == 0)
		return -t * exp(-x * t);
	return exp(-x * t) * expm1(-d * t) / d;
}

/* The kernel averaged over a uniform piece [lo, lo + w). */
static double piece_kernel(enum kernel k, double lo, double w, double x,
			   double y)
{
	double v = 0;

	if (w <= 0)
		return point_kernel(k, lo, x, y);
	pthread_once(&gl_once, gl_build);
	for (int i = 0; i < GL_N; i++)
		v += gl_w[i] * point_kernel(k, lo + w * gl_x[i], x, y);
	return v;
}

/* The kernel for @d's unit-mean form; NaN for lognormal (no LST). */
static double dist_kernel(const struct lat_qsim_dist *d, enum kernel k,
			  double x, double y)
{
	double a, u, v = 0, prev = 0, lo = fmin(x, y), hi = fmax(x, y);

	if (k == K_COMPLEMENT)
		lo = hi = x;
	switch (d->kind) {
	case LAT_QSIM_DET:
		return point_kernel(k, 1, lo, hi);
	case LAT_QSIM_EXP:
		return k == K_COMPLEMENT ? x / (1 + x) :
		       -1 / ((1 + lo) * (1 + hi));
	case LAT_QSIM_HYPER:
		for (int i = 0; i < 2; i++) {
			double m = i ? d->m2 : d->m1;
			double p = i ? 1 - d->p1 : d->p1;

			v += p * (k == K_COMPLEMENT ? x * m / (1 + x * m) :
				  -m / ((1 + lo * m) * (1 + hi * m)));
		}
		return v;
	case LAT_QSIM_ERLANG:
	case LAT_QSIM_GAMMA:
		/* A*(s) = (1 + s/a)^-a */
		a = d->kind == LAT_QSIM_ERLANG ? d->k : d->shape;
		if (k == K_COMPLEMENT)
			return -expm1(-a * log1p(x / a));
		u = 1 + lo / a;
		if (hi == lo)
			return -pow(u, -a - 1);
		return pow(u, -a) *
		       expm1(-a * log1p((hi - lo) / (a * u))) / (hi - lo);
	case LAT_QSIM_UNIFORM:
		return piece_kernel(k, d->lo, d->width, lo, hi);
	case LAT_QSIM_EMPIRICAL:
		for (size_t i = 0; i < d->slots; i++) {
			v += (d->cdf[i] - prev) *
			     piece_kernel(k, d->slot_lo[i], d->slot_w[i], lo,
					  hi);
			prev = d->cdf[i];
		}
		return v;
	default:
		return NAN;
	}
}

double lat_qsim_dist_lst_complement(const struct lat_qsim_dist *d, double s)
{
	if (!(s >= 0))
		return NAN;
	return dist_kernel(d, K_COMPLEMENT, s, s);
}

double lat_qsim_dist_lst_dd(const struct lat_qsim_dist *d, double x, double y)
{
	if (!(x >= 0 && y >= 0))
		return NAN;
	return dist_kernel(d, K_DD, x, y);
}

/* ---- Takács ------------------------------------------------------------- */

int lat_qsim_gimc(const struct lat_qsim_dist *arrival, double rho,
		  unsigned c, struct lat_qsim_gimc *g)
{
	/* unit-mean LST at s means arrivals of mean 1/(c rho) at s c rho */
	const double scale = 1 / (c * rho);
	double sigma, s0, log_c = 0, lmax = -INFINITY, sum = 0, l;
	int rc;

	rc = lat_qsim_gim_sigma(arrival, rho, c, &sigma);
	if (rc)
		return rc;
	s0 = c * (1 - sigma);
	/* one pass over k, log-sum-exp kept relative to the largest term so
	 * far (rescaled when a larger one comes): each LST once, which for
	 * an empirical table is slots x 16 quadrature points */
	for (unsigned k = 1; k <= c; k++) {
		double beta = lat_qsim_dist_lst(arrival, k * scale);
		double one_m = lat_qsim_dist_lst_complement(arrival, k * scale);
		double dd = lat_qsim_dist_lst_dd(arrival, s0 * scale,
						 k * scale) * scale;
		double r = 1 + c * dd;

		if (!(beta > 0 && one_m > 0 && r > 0))
			return -ERANGE; /* underflow: not reliable */
		log_c += log(beta) - log(one_m);
		l = lgamma(c + 1.0) - lgamma(k + 1.0) - lgamma(c - k + 1.0) -
		    log_c - log(one_m) + log(r);
		if (l > lmax) {
			sum = sum * exp(lmax - l) + 1;
			lmax = l;
		} else {
			sum += exp(l - lmax);
		}
	}
	/* P = 1 / (1 + e^L), L = log((1 - sigma) S) */
	l = log1p(-sigma) + lmax + log(sum);
	g->sigma = sigma;
	g->rate = s0;
	g->p_wait = l > 0 ? exp(-l) / (1 + exp(-l)) : 1 / (1 + exp(l));
	return 0;
}

double lat_qsim_gimc_wait(const struct lat_qsim_gimc *g)
{
	return g->p_wait / g->rate;
}

double lat_qsim_gimc_wait2(const struct lat_qsim_gimc *g)
{
	return 2 * g->p_wait / (g->rate * g->rate);
}

/*
 * P(W > t) of the sojourn: the service (rate 1) after a wait that is 0
 * with probability 1 - P and exponential with rate a = c (1 - sigma)
 * otherwise: e^-t (1 - P expm1(-(a - 1) t) / (a - 1)), and e^-t (1 + P t)
 * at a = 1.
 */
static double sojourn_tail(const struct lat_qsim_gimc *g, double t)
{
	double b = g->rate - 1;
	double f = b == 0 ? -t : expm1(-b * t) / b;

	return exp(-t) * (1 - g->p_wait * f);
}

double lat_qsim_gimc_sojourn_quantile(const struct lat_qsim_gimc *g,
				      double p)
{
	double lo = 0, hi = 1, q = 1 - p;

	if (!(p >= 0 && p < 1))
		return NAN;
	while (sojourn_tail(g, hi) > q) {
		lo = hi;
		hi *= 2;
		if (hi > 1e300)
			return INFINITY;
	}
	/* the tail is decreasing: bisection to a relative 1e-13 */
	for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (sojourn_tail(g, mid) > q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
