/*
 * What the two ring stress tests (test_spsc_threads, test_seqring_threads)
 * share, written once for either ring: the run a producer and a consumer
 * share, the consumer's check of each element, the pinning, the counts
 * they must end with, the stop test, and the element count from argv.
 *
 * Include after defining, for the ring under test:
 *   T_RING                                  its type (struct lat_spsc)
 *   T_RING_CREATE(cap, size, &r)            0 or -errno
 *   T_RING_WAIT_PUSH(r, w, e, size, stop, st), T_RING_WAIT_POP(...)
 *                                           the lat_wait_pair helpers
 *   T_RING_COUNT(r), T_RING_FREE(r)
 */
#ifndef LATLAB_T_RING_RUN_H
#define LATLAB_T_RING_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/bench.h"
#include "latlab/topo.h"
#include "latlab/wait.h"
#include "t_ring_elem.h"
#include "t_test.h"

#define T_RING_DEFAULT_ELEMS 200000ull
#define T_RING_SANITIZED_MAX_ELEMS 100000ull

static uint64_t n_elems = T_RING_DEFAULT_ELEMS;
static struct lat_bench_place place; /* producer cpu[0], consumer cpu[1] */

static void pin(int side)
{
	if (place.pinned)
		T_EQ_I64(lat_topo_pin_self(place.cpu[side]), 0);
}

struct run {
	T_RING *r;
	struct lat_wait_pair w;
	size_t size;
	uint64_t n;
	/* results, each written by one thread, read after join */
	uint64_t sent_sum;
	uint64_t recv_sum;
	uint64_t received;
	uint64_t bad_seq;     /* first sequence number out of place + 1 */
	uint64_t bad_payload; /* elements whose payload words differ */
	struct lat_wait_stats prod_st, cons_st;
};

static void check(struct run *ru, const unsigned char *src)
{
	uint64_t seq;
	bool ok = t_elem_check(src, ru->size, &seq, &ru->recv_sum);

	if (seq != ru->received && !ru->bad_seq)
		ru->bad_seq = ru->received + 1;
	ru->bad_payload += !ok;
	ru->received++;
}

/* A run of @n elements of @size bytes on a new ring; false if none. */
static bool run_init(struct run *ru, size_t capacity, size_t size,
		     enum lat_wait_kind kind)
{
	memset(ru, 0, sizeof(*ru));
	ru->size = size;
	ru->n = n_elems;
	T_EQ_I64(T_RING_CREATE(capacity, size, &ru->r), 0);
	T_EQ_I64(lat_wait_pair_init(&ru->w, kind, 0), 0);
	return ru->r != NULL;
}

/* Both threads of @ru, consumer first; the seconds they took. */
static double run_threads(struct run *ru, void *(*producer)(void *),
			  void *(*consumer)(void *))
{
	pthread_t pt, ct;
	double t0 = lat_bench_now_ns();

	T_EQ_I64(pthread_create(&ct, NULL, consumer, ru), 0);
	T_EQ_I64(pthread_create(&pt, NULL, producer, ru), 0);
	pthread_join(pt, NULL);
	pthread_join(ct, NULL);
	return (lat_bench_now_ns() - t0) / 1e9;
}

/* Everything sent arrived once, in order, intact; the ring is empty. */
static void run_check_and_free(struct run *ru, size_t capacity,
			       enum lat_wait_kind kind, double secs)
{
	T_EQ_I64(ru->received, ru->n);
	T_EQ_I64(ru->bad_seq, 0);
	T_EQ_I64(ru->bad_payload, 0);
	T_EQ_I64(ru->recv_sum, ru->sent_sum);
	T_EQ_I64(T_RING_COUNT(ru->r), 0);
	printf("%-5s cap %4zu x %2zu B: %llu moved in %.2f s; producer "
	       "waited %llu (yields %llu, sleeps %llu), consumer waited %llu "
	       "(yields %llu, sleeps %llu), wakes paid %llu\n",
	       lat_wait_kind_name(kind), capacity, ru->size,
	       (unsigned long long)ru->received, secs,
	       (unsigned long long)ru->prod_st.waits,
	       (unsigned long long)ru->prod_st.yields,
	       (unsigned long long)ru->prod_st.sleeps,
	       (unsigned long long)ru->cons_st.waits,
	       (unsigned long long)ru->cons_st.yields,
	       (unsigned long long)ru->cons_st.sleeps,
	       (unsigned long long)(ru->prod_st.wakes + ru->cons_st.wakes));
	T_RING_FREE(ru->r);
}

/* Stop: the consumer pops until told to stop; it must still get all. */
struct stop_run {
	T_RING *r;
	struct lat_wait_pair w;
	atomic_bool stop;
	uint64_t got[8];
	int n_got;
	bool returned_false;
};

static void *stop_consumer(void *arg)
{
	struct stop_run *s = arg;
	uint64_t v;

	while (T_RING_WAIT_POP(s->r, &s->w, &v, sizeof(v), &s->stop, NULL)) {
		if (s->n_got < 8)
			s->got[s->n_got] = v;
		s->n_got++;
	}
	s->returned_false = true;
	return NULL;
}

static void test_stop(enum lat_wait_kind kind)
{
	struct stop_run s;
	pthread_t t;

	memset(&s, 0, sizeof(s));
	atomic_init(&s.stop, false);
	T_EQ_I64(T_RING_CREATE(4, sizeof(uint64_t), &s.r), 0);
	T_EQ_I64(lat_wait_pair_init(&s.w, kind, 1), 0);
	if (!s.r)
		return;
	T_EQ_I64(pthread_create(&t, NULL, stop_consumer, &s), 0);
	for (uint64_t v = 1; v <= 3; v++)
		T_CHECK(T_RING_WAIT_PUSH(s.r, &s.w, &v, sizeof(v), NULL,
					 NULL));
	/* release pairs with the acquire loads of stop in the waiting pop:
	 * the three pushes are visible to whoever sees stop */
	atomic_store_explicit(&s.stop, true, memory_order_release);
	lat_wait_notify(&s.w.data, NULL);
	pthread_join(t, NULL);
	T_CHECK(s.returned_false);
	T_EQ_I64(s.n_got, 3);
	for (int i = 0; i < 3 && i < s.n_got; i++)
		T_EQ_I64(s.got[i], i + 1);
	T_RING_FREE(s.r);
}

/* The element count (argv[1], capped under sanitizers) and placement. */
static void ring_test_setup(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		n_elems = strtoull(argv[1], NULL, 10);
#ifdef LATLAB_SANITIZED
	if (n_elems > T_RING_SANITIZED_MAX_ELEMS)
		n_elems = T_RING_SANITIZED_MAX_ELEMS;
#endif
	T_CHECK(n_elems > 0);
	T_EQ_I64(lat_bench_place_pair(&place), 0);
	printf("%llu elements per run; %s\n", (unsigned long long)n_elems,
	       place.desc);
}

#endif
