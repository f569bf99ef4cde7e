/*
 * lat_bench ring figures: one set of measurement loops for any bounded
 * queue, so latlab's ring and a peer (Concurrency Kit's ck_ring in
 * bench/bench_ring_peer.c) are timed by exactly the same code.
 *
 * LAT_BENCH_RING(prefix, ring_t, elem_t, PUSH, POP) defines, for a queue
 * whose operations are
 *   bool PUSH(ring_t *r, elem_t *e);  bool POP(ring_t *r, elem_t *e);
 * (false: full / empty; names of functions or function-like macros):
 *
 *   double prefix_same_thread_ns(ring_t *r, uint64_t iters);
 *      ns per push+pop pair on one thread, ring hot in L1.
 *   int prefix_handoff_ns(const struct lat_bench_place *p, ring_t *fwd,
 *                         ring_t *back, uint64_t iters, double *ns);
 *      one-way handoff: a pushes to fwd, b pops it and pushes it to back,
 *      a pops it; ns = round trip / 2.
 *   int prefix_throughput(const struct lat_bench_place *p, ring_t *r,
 *                         uint64_t iters, double *msgs_per_s);
 *      a pushes @iters elements as fast as it can, b pops them.
 *
 * LAT_BENCH_RING_BURST(prefix, ring_t, elem_t, PUSH_BURST, POP_BURST, n)
 * adds prefix_throughput_burst (same contract) for a queue with
 *   size_t PUSH_BURST(ring_t *r, const elem_t *e, size_t n);
 *   size_t POP_BURST(ring_t *r, elem_t *e, size_t n);
 * moving up to @n elements per call.
 *
 * The element's first 8 bytes carry a sequence number; the consumer sums
 * them and the functions return -EPROTO when the sum is not the one sent
 * (the queue lost, duplicated or tore something: no figure is reported).
 * Waiting is a pause loop on both sides for every queue alike.
 */
#ifndef LATLAB_BENCH_RING_H
#define LATLAB_BENCH_RING_H

#include <errno.h>
#include <string.h>

#include "latlab/bench.h"
#include "latlab/wait.h"

/* The sequence number in an element's first 8 bytes. */
static inline uint64_t lat_bench_seq_of(const void *elem)
{
	uint64_t seq;

	memcpy(&seq, elem, sizeof(seq));
	return seq;
}

/* Generated functions: an includer may use only some of them. */
#define LAT_BENCH_FN static __attribute__((unused))

/* lat_bench_pair_seq of @produce and @consume on @job (whose sum of
 * arrived sequence numbers is at @sum), as messages per second: the one
 * figure every ring's throughput, single or burst, comes to. */
LAT_BENCH_FN int lat_bench_ring_rate(const struct lat_bench_place *p,
				     lat_bench_fn produce, lat_bench_fn consume,
				     void *job, const uint64_t *sum,
				     uint64_t iters, double *msgs_per_s)
{
	double el;
	int rc = lat_bench_pair_seq(p, produce, consume, job, sum, iters, &el);

	if (!rc)
		*msgs_per_s = (double)iters / el * 1e9;
	return rc;
}

/* Prebuilt messages cycled through by the same-thread loop. */
#define LAT_BENCH_SRC 64u

/* Sum of i % LAT_BENCH_SRC for i in 0..n-1. */
static inline uint64_t lat_bench_src_sum(uint64_t n)
{
	uint64_t full = n / LAT_BENCH_SRC, rest = n % LAT_BENCH_SRC;

	return full * (LAT_BENCH_SRC * (LAT_BENCH_SRC - 1) / 2) +
	       rest * (rest - 1) / 2;
}

#define LAT_BENCH_RING(prefix, ring_t, elem_t, PUSH, POP)                   \
	struct prefix##_job {                                               \
		ring_t *fwd, *back;                                         \
		uint64_t iters;                                             \
		uint64_t sum;                                               \
	};                                                                  \
	LAT_BENCH_FN double prefix##_same_thread_ns(ring_t *r, uint64_t iters) \
	{                                                                   \
		/* messages built beforehand, as a real sender's are: an  \
		 * 8-byte seq store right before a wide copy would time a  \
		 * store-forwarding stall, not the queue */                \
		static elem_t src[LAT_BENCH_SRC];                           \
		elem_t out;                                                 \
		uint64_t sum = 0;                                           \
		double t0, t1;                                              \
                                                                            \
		memset(src, 0, sizeof(src));                                \
		for (uint64_t k = 0; k < LAT_BENCH_SRC; k++)                \
			memcpy(&src[k], &k, sizeof(k));                     \
		memset(&out, 0, sizeof(out));                               \
		t0 = lat_bench_now_ns();                                    \
		for (uint64_t i = 0; i < iters; i++) {                      \
			if (!PUSH(r, &src[i % LAT_BENCH_SRC]) ||            \
			    !POP(r, &out))                                  \
				return -1;                                  \
			sum += lat_bench_seq_of(&out);                      \
			lat_bench_keep(sum);                                \
		}                                                           \
		t1 = lat_bench_now_ns();                                    \
		if (sum != lat_bench_src_sum(iters))                        \
			return -1;                                          \
		return (t1 - t0) / (double)iters;                           \
	}                                                                   \
	LAT_BENCH_FN void prefix##_ping(void *arg)                                \
	{                                                                   \
		/* the job's fields in locals and the sum written once at  \
		 * the end: a per-message store into *j would share its    \
		 * line with the fields the other thread reloads, adding a \
		 * line transfer to every handoff */                        \
		struct prefix##_job *j = arg;                               \
		ring_t *fwd = j->fwd, *back = j->back;                      \
		uint64_t iters = j->iters, sum = 0;                         \
		elem_t e;                                                   \
                                                                            \
		memset(&e, 0, sizeof(e));                                   \
		for (uint64_t i = 0; i < iters; i++) {                      \
			memcpy(&e, &i, sizeof(i));                          \
			while (!PUSH(fwd, &e))                              \
				lat_wait_pause();                           \
			while (!POP(back, &e))                              \
				lat_wait_pause();                           \
			sum += lat_bench_seq_of(&e);                        \
		}                                                           \
		j->sum = sum;                                               \
	}                                                                   \
	LAT_BENCH_FN void prefix##_pong(void *arg)                                \
	{                                                                   \
		struct prefix##_job *j = arg;                               \
		ring_t *fwd = j->fwd, *back = j->back;                      \
		uint64_t iters = j->iters;                                  \
		elem_t e;                                                   \
                                                                            \
		for (uint64_t i = 0; i < iters; i++) {                      \
			while (!POP(fwd, &e))                               \
				lat_wait_pause();                           \
			while (!PUSH(back, &e))                             \
				lat_wait_pause();                           \
		}                                                           \
	}                                                                   \
	LAT_BENCH_FN int prefix##_handoff_ns(const struct lat_bench_place *p,     \
				       ring_t *fwd, ring_t *back,           \
				       uint64_t iters, double *ns)          \
	{                                                                   \
		struct prefix##_job j = { fwd, back, iters, 0 };            \
		double el;                                                  \
		int rc = lat_bench_pair_seq(p, prefix##_ping,               \
					    prefix##_pong, &j, &j.sum,      \
					    iters, &el);                    \
                                                                            \
		if (!rc)                                                    \
			*ns = el / (2.0 * (double)iters);                   \
		return rc;                                                  \
	}                                                                   \
	LAT_BENCH_FN void prefix##_produce(void *arg)                             \
	{                                                                   \
		struct prefix##_job *j = arg;                               \
		ring_t *fwd = j->fwd;                                       \
		uint64_t iters = j->iters;                                  \
		elem_t e;                                                   \
                                                                            \
		memset(&e, 0, sizeof(e));                                   \
		for (uint64_t i = 0; i < iters; i++) {                      \
			memcpy(&e, &i, sizeof(i));                          \
			while (!PUSH(fwd, &e))                              \
				lat_wait_pause();                           \
		}                                                           \
	}                                                                   \
	LAT_BENCH_FN void prefix##_consume(void *arg)                             \
	{                                                                   \
		struct prefix##_job *j = arg;                               \
		ring_t *fwd = j->fwd;                                       \
		uint64_t iters = j->iters, sum = 0;                         \
		elem_t e;                                                   \
                                                                            \
		for (uint64_t i = 0; i < iters; i++) {                      \
			while (!POP(fwd, &e))                               \
				lat_wait_pause();                           \
			sum += lat_bench_seq_of(&e);                        \
		}                                                           \
		j->sum = sum;                                               \
	}                                                                   \
	LAT_BENCH_FN int prefix##_throughput(const struct lat_bench_place *p,     \
				       ring_t *r, uint64_t iters,           \
				       double *msgs_per_s)                  \
	{                                                                   \
		struct prefix##_job j = { r, NULL, iters, 0 };              \
                                                                            \
		return lat_bench_ring_rate(p, prefix##_produce,             \
					   prefix##_consume, &j, &j.sum,    \
					   iters, msgs_per_s);              \
	}

#define LAT_BENCH_RING_BURST(prefix, ring_t, elem_t, PUSH_BURST, POP_BURST,  \
			     burst)                                         \
	LAT_BENCH_FN void prefix##_produce_burst(void *arg)                       \
	{                                                                   \
		struct prefix##_job *j = arg;                               \
		elem_t e[burst];                                            \
		uint64_t next = 0;                                          \
                                                                            \
		memset(e, 0, sizeof(e));                                    \
		while (next < j->iters) {                                   \
			size_t n = burst, got;                              \
                                                                            \
			if (n > j->iters - next)                            \
				n = (size_t)(j->iters - next);              \
			for (size_t k = 0; k < n; k++) {                    \
				uint64_t s = next + k;                      \
				memcpy(&e[k], &s, sizeof(s));               \
			}                                                   \
			got = PUSH_BURST(j->fwd, e, n);                     \
			if (got == 0)                                       \
				lat_wait_pause();                           \
			next += got;                                        \
		}                                                           \
	}                                                                   \
	LAT_BENCH_FN void prefix##_consume_burst(void *arg)                       \
	{                                                                   \
		struct prefix##_job *j = arg;                               \
		elem_t e[burst];                                            \
		uint64_t got_all = 0, sum = 0;                              \
                                                                            \
		while (got_all < j->iters) {                                \
			size_t got = POP_BURST(j->fwd, e, burst);           \
                                                                            \
			if (got == 0)                                       \
				lat_wait_pause();                           \
			for (size_t k = 0; k < got; k++)                    \
				sum += lat_bench_seq_of(&e[k]);      \
			got_all += got;                                     \
		}                                                           \
		j->sum = sum;                                               \
	}                                                                   \
	LAT_BENCH_FN int prefix##_throughput_burst(const struct lat_bench_place *p,\
					     ring_t *r, uint64_t iters,     \
					     double *msgs_per_s)            \
	{                                                                   \
		struct prefix##_job j = { r, NULL, iters, 0 };              \
                                                                            \
		return lat_bench_ring_rate(p, prefix##_produce_burst,       \
					   prefix##_consume_burst, &j,      \
					   &j.sum, iters, msgs_per_s);      \
	}

#endif
