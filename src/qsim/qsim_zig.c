/*
 * lat_qsim ziggurat tables and slow path for exponential samples (see
 * qsim_int.h). Constants from Marsaglia & Tsang, "The Ziggurat Method for
 * Generating Random Variables" (2000): r = 7.69711747013104972 and the
 * layer area v = 3.949659822581572e-3 for 256 layers.
 */
#include <math.h>
#include <pthread.h>

#include "qsim_int.h"

#define ZIG_R 7.69711747013104972
#define ZIG_V 3.949659822581572e-3
#define TWO53 9007199254740992.0

uint64_t qsim_zig_k[256];
double qsim_zig_w[256];
double qsim_zig_f[256];

static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

static void zig_build(void)
{
	double de = ZIG_R, te = ZIG_R, q = ZIG_V / exp(-de);

	/* Layer 0 is the base strip plus the tail: its "x" is v / f(r). */
	qsim_zig_k[0] = (uint64_t)(de / q * TWO53);
	qsim_zig_k[1] = 0;
	qsim_zig_w[0] = q / TWO53;
	qsim_zig_w[255] = de / TWO53;
	qsim_zig_f[0] = 1;
	qsim_zig_f[255] = exp(-de);
	for (int i = 254; i >= 1; i--) {
		de = -log(ZIG_V / de + exp(-de));
		qsim_zig_k[i + 1] = (uint64_t)(de / te * TWO53);
		te = de;
		qsim_zig_f[i] = exp(-de);
		qsim_zig_w[i] = de / TWO53;
	}
}

void qsim_zig_init(void)
{
	pthread_once(&zig_once, zig_build);
}

double qsim_exp_slow(struct lat_qsim_rng *r, uint64_t bits)
{
	for (;;) {
		unsigned i = bits & 255;
		uint64_t u = bits >> 11;
		double x;

		if (u < qsim_zig_k[i])
			return (double)u * qsim_zig_w[i];
		/* Memorylessness: the tail beyond r is r + Exp(1). */
		if (i == 0)
			return ZIG_R - log(lat_qsim_rng_unit(r));
		x = (double)u * qsim_zig_w[i];
		if (qsim_zig_f[i] + lat_qsim_rng_unit(r) *
		    (qsim_zig_f[i - 1] - qsim_zig_f[i]) < exp(-x))
			return x;
		bits = lat_qsim_rng_next(r);
	}
}
