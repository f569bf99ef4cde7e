/*
 * lat_qsim statistics: Student t quantiles and batch-means intervals.
 */
#include <math.h>

#include "latlab/qsim.h"

double lat_qsim_t975(unsigned dof)
{
	static const double table[31] = {
		NAN, 12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646,
		2.3060, 2.2622, 2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314,
		2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687,
		2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
	};
	const double z = 1.959963984540054;
	double n = dof, z3 = z * z * z, z5 = z3 * z * z;

	if (dof <= 30)
		return table[dof];
	/* Cornish-Fisher expansion of t around the normal quantile. */
	return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) /
	       (96 * n * n);
}

void lat_qsim_ci_from_batches(struct lat_qsim_ci *ci, double point,
			      const double *x, unsigned n)
{
	double m = 0, var = 0, cov = 0;

	for (unsigned i = 0; i < n; i++)
		m += x[i];
	m /= n;
	for (unsigned i = 0; i < n; i++) {
		var += (x[i] - m) * (x[i] - m);
		if (i + 1 < n)
			cov += (x[i] - m) * (x[i + 1] - m);
	}
	ci->mean = point;
	ci->half = lat_qsim_t975(n - 1) * sqrt(var / (n - 1) / n);
	/* Constant batches (D/D/1: every wait 0) are not correlated. */
	ci->lag1 = var > 0 ? cov / var : 0;
	ci->suspect = ci->lag1 > LAT_QSIM_LAG1_SUSPECT;
}
