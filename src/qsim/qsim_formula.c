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

void lat_qsim_formulas(const struct lat_qsim_config *cfg,
		       struct lat_qsim_formulas *f)
{
	enum lat_qsim_kind a = cfg->arrival.kind, s = cfg->service.kind;
	double rho = cfg->rho, ca = cfg->arrival.cv, cs = cfg->service.cv;
	unsigned c = cfg->servers;

	f->has_exact_quantiles = false;
	f->exact_p50 = f->exact_p90 = f->exact_p99 = f->exact_p999 = NAN;
	f->exact_name = NULL;
	f->exact_wait = NAN;
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
		f->exact_wait = 0;
	} else if (a == LAT_QSIM_EXP && c == 1) {
		f->exact_name = s == LAT_QSIM_EXP ? "M/M/1" :
				s == LAT_QSIM_DET ? "M/D/1" : "M/G/1 (P-K)";
		f->exact_wait = lat_qsim_pk(rho, cs);
		if (s == LAT_QSIM_EXP) {
			f->has_exact_quantiles = true;
			f->exact_p50 = lat_qsim_mm1_sojourn_quantile(rho, .5);
			f->exact_p90 = lat_qsim_mm1_sojourn_quantile(rho, .9);
			f->exact_p99 = lat_qsim_mm1_sojourn_quantile(rho, .99);
			f->exact_p999 =
				lat_qsim_mm1_sojourn_quantile(rho, .999);
		}
	} else if (a == LAT_QSIM_EXP && s == LAT_QSIM_EXP) {
		f->exact_name = "M/M/c (Erlang C)";
		f->exact_wait = lat_qsim_mmc_wait(c, rho);
	}
}
