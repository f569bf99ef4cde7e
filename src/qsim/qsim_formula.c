/*
 * lat_qsim formulas: Kingman, Allen-Cunneen, Pollaczek-Khinchine, Erlang C
 * and the M/M/1 distribution, in units of the mean service time; which
 * exact result applies to a configuration (GI/M/1 and GI/M/c from
 * qsim_gim1.c and qsim_gimc.c).
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "latlab/qsim.h"

double lat_qsim_erlang_c(unsigned c, double rho)
{
	double a = c * rho, b = 1;

	/* Erlang B by B(k) = a B(k-1) / (k + a B(k-1)): every term stays in
	 * [0, 1], unlike a^c/c! which overflows for c in the hundreds. */
	for (unsigned k = 1; k <= c; k++)
		b = a * b / (k + a * b);
	return b / (1 - rho * (1 - b));
}

double lat_qsim_kingman(double rho, double ca, double cs)
{
	return rho / (1 - rho) * (ca * ca + cs * cs) / 2;
}

double lat_qsim_mmc_wait(unsigned c, double rho)
{
	return lat_qsim_erlang_c(c, rho) / (c * (1 - rho));
}

double lat_qsim_allen_cunneen(unsigned c, double rho, double ca, double cs)
{
	return lat_qsim_mmc_wait(c, rho) * (ca * ca + cs * cs) / 2;
}

double lat_qsim_pk(double rho, double cs)
{
	return rho * (1 + cs * cs) / (2 * (1 - rho));
}

double lat_qsim_mmc_wait_quantile(unsigned c, double rho, double p)
{
	double pc = lat_qsim_erlang_c(c, rho);

	if (pc <= 1 - p)
		return 0;
	return log(pc / (1 - p)) / (c * (1 - rho));
}

double lat_qsim_mm1_sojourn_quantile(double rho, double p)
{
	return -log1p(-p) / (1 - rho);
}

double lat_qsim_rel_err(double model, double sim)
{
	if (!(sim != 0) || !isfinite(sim) || !isfinite(model))
		return NAN;
	return (model - sim) / sim;
}

/* Sojourn exponential with @rate (M/M/1, GI/M/1): its quantiles. */
static void sojourn_exp(struct lat_qsim_formulas *f, double rate)
{
	f->has_exact_quantiles = true;
	f->exact_p50 = -log1p(-.5) / rate;
	f->exact_p90 = -log1p(-.9) / rate;
	f->exact_p99 = -log1p(-.99) / rate;
	f->exact_p999 = -log1p(-.999) / rate;
}

/* Kendall's notation for a GI/M/1 (@c 1) or GI/M/c queue. */
static const char *gim_name(const struct lat_qsim_dist *a, unsigned c)
{
	bool one = c == 1;

	switch (a->kind) {
	case LAT_QSIM_DET:
		return one ? "D/M/1" : "D/M/c";
	case LAT_QSIM_ERLANG:
		return one ? "Ek/M/1" : "Ek/M/c";
	case LAT_QSIM_HYPER:
		return one ? "H2/M/1" : "H2/M/c";
	case LAT_QSIM_GAMMA:
		return one ? "G/M/1 (gamma)" : "G/M/c (gamma)";
	default:
		return one ? "GI/M/1" : "GI/M/c";
	}
}

/* GI/M/c sojourn quantiles: the wait's atom at 0 and its exponential
 * tail, convolved with the exponential service. */
static void sojourn_gimc(struct lat_qsim_formulas *f,
			 const struct lat_qsim_gimc *g)
{
	f->has_exact_quantiles = true;
	f->exact_p50 = lat_qsim_gimc_sojourn_quantile(g, .5);
	f->exact_p90 = lat_qsim_gimc_sojourn_quantile(g, .9);
	f->exact_p99 = lat_qsim_gimc_sojourn_quantile(g, .99);
	f->exact_p999 = lat_qsim_gimc_sojourn_quantile(g, .999);
}

void lat_qsim_formulas(const struct lat_qsim_config *cfg,
		       struct lat_qsim_formulas *f)
{
	enum lat_qsim_kind a = cfg->arrival.kind, s = cfg->service.kind;
	double rho = cfg->rho, ca = cfg->arrival.cv, cs = cfg->service.cv;
	unsigned c = cfg->servers;

	f->has_exact_quantiles = false;
	f->exact_p50 = f->exact_p90 = f->exact_p99 = f->exact_p999 = NAN;
	f->exact_name = NULL;
	f->exact_wait = f->exact_wait2 = f->exact_p_wait = f->sigma = NAN;
	if (c == 1) {
		f->approx_name = "Kingman";
		f->approx_wait = lat_qsim_kingman(rho, ca, cs);
	} else {
		f->approx_name = "Allen-Cunneen";
		f->approx_wait = lat_qsim_allen_cunneen(c, rho, ca, cs);
	}
	if (a == LAT_QSIM_DET && s == LAT_QSIM_DET) {
		/* Arrivals 1/(c rho) apart, each server sees one every
		 * 1/rho > 1 service times: nobody ever waits. */
		f->exact_name = c == 1 ? "D/D/1" : "D/D/c";
		f->exact_wait = f->exact_wait2 = f->exact_p_wait = 0;
	} else if (a == LAT_QSIM_EXP && c == 1) {
		f->exact_name = s == LAT_QSIM_EXP ? "M/M/1" :
				s == LAT_QSIM_DET ? "M/D/1" : "M/G/1 (P-K)";
		f->exact_wait = lat_qsim_pk(rho, cs);
		f->exact_wait2 = lat_qsim_mg1_wait2(rho, &cfg->service);
		f->exact_p_wait = rho;
		if (s == LAT_QSIM_EXP)
			sojourn_exp(f, 1 - rho);
	} else if (c == 1 && s == LAT_QSIM_EXP &&
		   !lat_qsim_gim_sigma(&cfg->arrival, rho, 1, &f->sigma)) {
		f->exact_name = gim_name(&cfg->arrival, 1);
		f->exact_wait = lat_qsim_gim1_wait(f->sigma);
		f->exact_wait2 = lat_qsim_gim1_wait2(f->sigma);
		f->exact_p_wait = f->sigma;
		sojourn_exp(f, 1 - f->sigma);
	} else if (a == LAT_QSIM_EXP && s == LAT_QSIM_EXP) {
		struct lat_qsim_gimc g = {
			.sigma = rho, .rate = c * (1 - rho),
			.p_wait = lat_qsim_erlang_c(c, rho),
		};

		f->exact_name = "M/M/c (Erlang C)";
		f->exact_wait = lat_qsim_mmc_wait(c, rho);
		f->exact_wait2 = lat_qsim_gimc_wait2(&g);
		f->exact_p_wait = g.p_wait;
		f->sigma = rho;
		sojourn_gimc(f, &g);
	} else if (s == LAT_QSIM_EXP) {
		struct lat_qsim_gimc g;

		if (lat_qsim_gimc(&cfg->arrival, rho, c, &g))
			return; /* lognormal arrivals, rho too near 1 */
		f->exact_name = gim_name(&cfg->arrival, c);
		f->sigma = g.sigma;
		f->exact_wait = lat_qsim_gimc_wait(&g);
		f->exact_wait2 = lat_qsim_gimc_wait2(&g);
		f->exact_p_wait = g.p_wait;
		sojourn_gimc(f, &g);
	}
}
