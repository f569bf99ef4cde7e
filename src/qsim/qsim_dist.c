/*
 * lat_qsim distributions: parse a spec, set parameters for mean 1 and a
 * coefficient of variation, sample.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/qsim.h"
#include "qsim_int.h"

#define SQRT3 1.7320508075688772

/* Every set_*() starts from a clean struct with mean 1 and its cv. */
static void reset(struct lat_qsim_dist *d, enum lat_qsim_kind kind,
		  double cv)
{
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->mean = 1;
	d->cv = cv;
}

static void set_det(struct lat_qsim_dist *d)
{
	reset(d, LAT_QSIM_DET, 0);
	snprintf(d->name, sizeof(d->name), "det");
}

static void set_exp(struct lat_qsim_dist *d)
{
	reset(d, LAT_QSIM_EXP, 1);
	qsim_zig_init();
	snprintf(d->name, sizeof(d->name), "exp");
}

static void set_erlang(struct lat_qsim_dist *d, unsigned k)
{
	reset(d, LAT_QSIM_ERLANG, 1 / sqrt((double)k));
	d->k = k;
	snprintf(d->name, sizeof(d->name), "erlang:%u", k);
}

/*
 * Balanced means (p1/λ1 = p2/λ2) is the usual one-parameter H2 family: it
 * reaches every cv >= 1 and keeps both phases' means finite and positive.
 */
static void set_hyper(struct lat_qsim_dist *d, double cv)
{
	double c2 = cv * cv;

	reset(d, LAT_QSIM_HYPER, cv);
	qsim_zig_init();
	d->p1 = 0.5 * (1 + sqrt((c2 - 1) / (c2 + 1)));
	d->m1 = 1 / (2 * d->p1);
	d->m2 = 1 / (2 * (1 - d->p1));
	snprintf(d->name, sizeof(d->name), "hyper:%g", cv);
}

static void set_lognormal(struct lat_qsim_dist *d, double cv)
{
	reset(d, LAT_QSIM_LOGNORMAL, cv);
	d->sigma = sqrt(log1p(cv * cv));
	d->mu = -0.5 * d->sigma * d->sigma;
	snprintf(d->name, sizeof(d->name), "lognormal:%g", cv);
}

static void set_gamma(struct lat_qsim_dist *d, double cv)
{
	double a = 1 / (cv * cv);

	reset(d, LAT_QSIM_GAMMA, cv);
	d->shape = a;
	/* Marsaglia-Tsang needs shape >= 1; below, boost by one and scale
	 * by u^(1/a) when sampling. */
	d->gd = (a < 1 ? a + 1 : a) - 1.0 / 3;
	d->gc = 1 / sqrt(9 * d->gd);
	snprintf(d->name, sizeof(d->name), "gamma:%g", cv);
}

static void set_uniform(struct lat_qsim_dist *d, double cv)
{
	reset(d, LAT_QSIM_UNIFORM, cv);
	d->lo = 1 - SQRT3 * cv;
	d->width = 2 * SQRT3 * cv;
	snprintf(d->name, sizeof(d->name), "uniform:%.4g", cv);
}

int lat_qsim_dist_from_cv(struct lat_qsim_dist *d, double cv)
{
	double k;

	if (!(cv == 0 || (cv >= LAT_QSIM_CV_MIN && cv <= LAT_QSIM_CV_MAX)))
		return -EINVAL;
	if (cv == 0)
		set_det(d);
	else if (cv == 1)
		set_exp(d);
	else if (cv > 1)
		set_hyper(d, cv);
	else {
		k = 1 / (cv * cv);
		if (k <= 1000 && fabs(k - nearbyint(k)) < 1e-9 * k)
			set_erlang(d, (unsigned)nearbyint(k));
		else
			set_gamma(d, cv);
	}
	return 0;
}

/* A finite decimal after "name:", nothing after it. */
static int parse_param(const char *s, double *v)
{
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v))
		return -EINVAL;
	return 0;
}

int lat_qsim_dist_parse(struct lat_qsim_dist *d, const char *spec)
{
	const char *colon = strchr(spec, ':');
	const char *arg = colon ? colon + 1 : NULL;
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	double v = 0;

#define IS(name) (len == strlen(name) && !strncmp(spec, name, len))
	if (IS("det") || IS("exp")) {
		if (arg)
			return -EINVAL;
		if (IS("det"))
			set_det(d);
		else
			set_exp(d);
		return 0;
	}
	if (IS("uniform") && !arg) {
		set_uniform(d, 1 / SQRT3);
		return 0;
	}
	if (parse_param(arg, &v))
		return -EINVAL;
	if (IS("erlang")) {
		if (v < 1 || v > 1000 || v != floor(v))
			return -EINVAL;
		if (v == 1)
			set_exp(d);
		else
			set_erlang(d, (unsigned)v);
	} else if (IS("hyper")) {
		if (v < 1)
			return -EINVAL;
		if (v == 1)
			set_exp(d);
		else
			set_hyper(d, v);
	} else if (IS("lognormal")) {
		if (!(v > 0))
			return -EINVAL;
		set_lognormal(d, v);
	} else if (IS("gamma")) {
		if (!(v > 0))
			return -EINVAL;
		set_gamma(d, v);
	} else if (IS("uniform")) {
		if (v < 0 || v > 1 / SQRT3 + 1e-12)
			return -EINVAL;
		set_uniform(d, fmin(v, 1 / SQRT3));
	} else if (IS("cv")) {
		return lat_qsim_dist_from_cv(d, v);
	} else {
		return -EINVAL;
	}
#undef IS
	return 0;
}

/* Standard normal by Marsaglia's polar method (one of the pair used). */
static double normal(struct lat_qsim_rng *r)
{
	double u, v, s;

	do {
		u = 2 * lat_qsim_rng_unit(r) - 1;
		v = 2 * lat_qsim_rng_unit(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}

static double gamma_unit(const struct lat_qsim_dist *d,
			 struct lat_qsim_rng *r)
{
	double x, v, u, g;

	for (;;) {
		do {
			x = normal(r);
			v = 1 + d->gc * x;
		} while (v <= 0);
		v = v * v * v;
		u = lat_qsim_rng_unit(r);
		if (u < 1 - 0.0331 * x * x * x * x ||
		    log(u) < 0.5 * x * x + d->gd * (1 - v + log(v)))
			break;
	}
	g = d->gd * v;
	if (d->shape < 1)
		g *= pow(lat_qsim_rng_unit(r), 1 / d->shape);
	/* gamma(shape, 1) has mean shape; scale to mean 1. */
	return g / d->shape;
}

static double erlang_unit(const struct lat_qsim_dist *d,
			  struct lat_qsim_rng *r)
{
	double sum = 0, prod = 1;
	unsigned i;

	/* A product of uniforms needs one log per 16 phases; 16 factors of
	 * at least 2^-53 cannot underflow a double. */
	for (i = 0; i < d->k; i++) {
		prod *= lat_qsim_rng_unit(r);
		if ((i & 15) == 15) {
			sum -= log(prod);
			prod = 1;
		}
	}
	return (sum - log(prod)) / d->k;
}

static double empirical_unit(const struct lat_qsim_dist *d,
			     struct lat_qsim_rng *r)
{
	double u = lat_qsim_rng_unit(r);
	size_t lo = 0, hi = d->slots - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return d->slot_lo[lo] + d->slot_w[lo] * lat_qsim_rng_unit(r);
}

double lat_qsim_dist_sample(const struct lat_qsim_dist *d,
			    struct lat_qsim_rng *r)
{
	double x;

	switch (d->kind) {
	case LAT_QSIM_DET:
		return d->mean;
	case LAT_QSIM_EXP:
		return d->mean * qsim_exp_unit(r);
	case LAT_QSIM_ERLANG:
		x = erlang_unit(d, r);
		break;
	case LAT_QSIM_HYPER:
		x = lat_qsim_rng_unit(r) <= d->p1 ? d->m1 : d->m2;
		x *= qsim_exp_unit(r);
		break;
	case LAT_QSIM_LOGNORMAL:
		x = exp(d->mu + d->sigma * normal(r));
		break;
	case LAT_QSIM_GAMMA:
		x = gamma_unit(d, r);
		break;
	case LAT_QSIM_UNIFORM:
		x = d->lo + d->width * lat_qsim_rng_unit(r);
		break;
	case LAT_QSIM_EMPIRICAL:
		x = empirical_unit(d, r);
		break;
	default:
		x = 1;
	}
	return d->mean * x;
}
