/*
 * lat_qsim formulas: Kingman, Allen-Cunneen, Pollaczek-Khinchine, Erlang C
 * and the M/M/1 distribution, in units of the mean service time.
 */
#include <math.h>
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

/* Kendall's letter for the arrivals of a GI/M/1 queue. */
static const char *gim1_name(const struct lat_qsim_dist *a)
{
	switch (a->kind) {
	case LAT_QSIM_DET:
		return "D/M/1";
	case LAT_QSIM_ERLANG:
		return "Ek/M/1";
	case LAT_QSIM_HYPER:
		return "H2/M/1";
	case LAT_QSIM_GAMMA:
		return "G/M/1 (gamma)";
	default:
		return "GI/M/1";
	}
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
		f->exact_name = gim1_name(&cfg->arrival);
		f->exact_wait = lat_qsim_gim1_wait(f->sigma);
		f->exact_wait2 = lat_qsim_gim1_wait2(f->sigma);
		f->exact_p_wait = f->sigma;
		sojourn_exp(f, 1 - f->sigma);
	} else if (a == LAT_QSIM_EXP && s == LAT_QSIM_EXP) {
		double pc = lat_qsim_erlang_c(c, rho);

		f->exact_name = "M/M/c (Erlang C)";
		f->exact_wait = lat_qsim_mmc_wait(c, rho);
		f->exact_wait2 = 2 * pc / ((c * (1 - rho)) * (c * (1 - rho)));
		f->exact_p_wait = pc;
	}
}
