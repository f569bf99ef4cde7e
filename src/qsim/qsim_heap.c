/*
 * lat_qsim containers: a FIFO ring and a binary min-heap of doubles. Both
 * grow by doubling, so the simulation allocates only when the number in
 * system reaches a new power of two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qsim_int.h"

int qsim_fifo_init(struct qsim_fifo *q, size_t cap)
{
	memset(q, 0, sizeof(*q));
	q->buf = malloc(cap * sizeof(double));
	if (!q->buf)
		return -ENOMEM;
	q->cap = cap;
	return 0;
}

void qsim_fifo_destroy(struct qsim_fifo *q)
{
	free(q->buf);
	q->buf = NULL;
}

int qsim_fifo_grow(struct qsim_fifo *q)
{
	size_t n = (size_t)(q->tail - q->head);
	double *nb = malloc(2 * q->cap * sizeof(double));

	if (!nb)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		nb[i] = q->buf[(q->head + i) & (q->cap - 1)];
	free(q->buf);
	q->buf = nb;
	q->cap *= 2;
	q->head = 0;
	q->tail = n;
	return 0;
}

void qsim_fifo_shift(struct qsim_fifo *q, double dt)
{
	for (uint64_t i = q->head; i != q->tail; i++)
		q->buf[i & (q->cap - 1)] -= dt;
}

int qsim_heap_init(struct qsim_heap *h, size_t cap)
{
	memset(h, 0, sizeof(*h));
	h->v = malloc(cap * sizeof(double));
	if (!h->v)
		return -ENOMEM;
	h->cap = cap;
	return 0;
}

void qsim_heap_destroy(struct qsim_heap *h)
{
	free(h->v);
	h->v = NULL;
}

static void sift_down(struct qsim_heap *h, size_t i, double x)
{
	double *v = h->v;
	size_t n = h->n;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && v[c + 1] < v[c])
			c++;
		if (v[c] >= x)
			break;
		v[i] = v[c];
		i = c;
	}
	v[i] = x;
}

int qsim_heap_push(struct qsim_heap *h, double x)
{
	size_t i;

	if (h->n == h->cap) {
		double *nv = realloc(h->v, 2 * h->cap * sizeof(double));

		if (!nv)
			return -ENOMEM;
		h->v = nv;
		h->cap *= 2;
	}
	i = h->n++;
	while (i > 0 && h->v[(i - 1) / 2] > x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
	return 0;
}

void qsim_heap_pop(struct qsim_heap *h)
{
	double last = h->v[--h->n];

	if (h->n)
		sift_down(h, 0, last);
}

void qsim_heap_replace_top(struct qsim_heap *h, double x)
{
	sift_down(h, 0, x);
}

void qsim_heap_shift(struct qsim_heap *h, double dt)
{
	for (size_t i = 0; i < h->n; i++)
		h->v[i] -= dt;
}
