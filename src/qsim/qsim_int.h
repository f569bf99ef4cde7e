/*
 * lat_qsim internals shared by the simulation files: growable containers
 * for the departure times of the customers in the system.
 */
#ifndef LATLAB_QSIM_INT_H
#define LATLAB_QSIM_INT_H

#include <stddef.h>
#include <stdint.h>

/* FIFO of doubles (c = 1: departures leave in arrival order). */
struct qsim_fifo {
	double *buf;
	size_t cap;     /* power of two */
	uint64_t head;  /* next to pop */
	uint64_t tail;  /* next to push */
};

/* Binary min-heap of doubles (c > 1: departures leave out of order; also
 * the c server free times). */
struct qsim_heap {
	double *v;
	size_t n, cap;
};

int qsim_fifo_init(struct qsim_fifo *q, size_t cap);
void qsim_fifo_destroy(struct qsim_fifo *q);
/* Double the capacity keeping the order; 0 or -ENOMEM. */
int qsim_fifo_grow(struct qsim_fifo *q);
/* Subtract @dt from every stored value (time rebase). */
void qsim_fifo_shift(struct qsim_fifo *q, double dt);

int qsim_heap_init(struct qsim_heap *h, size_t cap);
void qsim_heap_destroy(struct qsim_heap *h);
/* Push @x, growing if needed; 0 or -ENOMEM. */
int qsim_heap_push(struct qsim_heap *h, double x);
/* Remove the minimum (n > 0). */
void qsim_heap_pop(struct qsim_heap *h);
/* Replace the minimum by @x and restore the heap (n > 0). */
void qsim_heap_replace_top(struct qsim_heap *h, double x);
void qsim_heap_shift(struct qsim_heap *h, double dt);


/*
 * Exponential(1) by the ziggurat method (Marsaglia & Tsang 2000), 256
 * layers, 64-bit variant: the low 8 bits choose the layer, the top 53
 * the position, so the two are independent. ~98.9% of samples cost one
 * random number, one compare and one multiply; the rest take
 * qsim_exp_slow() (wedges and the tail beyond r = 7.697). The tables are
 * built once by qsim_zig_init() (pthread_once; every exponential-based
 * distribution calls it when it is set up).
 */
#include "latlab/qsim.h"

extern uint64_t qsim_zig_k[256];
extern double qsim_zig_w[256];
extern double qsim_zig_f[256];

void qsim_zig_init(void);
double qsim_exp_slow(struct lat_qsim_rng *r, uint64_t bits);

static inline double qsim_exp_unit(struct lat_qsim_rng *r)
{
	uint64_t bits = lat_qsim_rng_next(r);
	unsigned i = bits & 255;
	uint64_t u = bits >> 11;

	if (LAT_LIKELY(u < qsim_zig_k[i]))
		return (double)u * qsim_zig_w[i];
	return qsim_exp_slow(r, bits);
}

/* A sample with the common kinds inline (the simulation's hot path). */
static inline double qsim_sample(const struct lat_qsim_dist *d,
				 struct lat_qsim_rng *r)
{
	if (d->kind == LAT_QSIM_EXP)
		return d->mean * qsim_exp_unit(r);
	if (d->kind == LAT_QSIM_DET)
		return d->mean;
	return lat_qsim_dist_sample(d, r);
}

#endif
