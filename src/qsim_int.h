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

#endif
