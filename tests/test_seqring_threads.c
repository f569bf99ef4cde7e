/*
 * Description: two threads move sequence-numbered elements through
 * lat_seqring rings (8 slots of 64 bytes, 4096 slots of 8 bytes, 2 slots
 * of 48 bytes starting next to 2^64, 4 slots of 200 bytes: four lines,
 * each with its own mark, so a consumer that took a half-written slot
 * would show a torn element) under every lat_wait strategy,
 * with lat_seqring_wait_push/pop and the bare try_ operations mixed:
 * nothing lost, duplicated or reordered, every byte as sent. Then a stop
 * flag ends a waiting pop only after everything sent before it arrived.
 * Producer and consumer are pinned to two CPUs when there are two.
 * 2*10^5 elements per run (10^5 under sanitizers); argv[1] overrides.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/bench.h"
#include "latlab/seqring.h"
#include "latlab/topo.h"
#include "ring/seqring_int.h"
#include "t_ring_elem.h"
#include "t_test.h"

#define MAX_ELEM 200

static uint64_t n_elems = 200000;
static struct lat_bench_place place;

struct run {
	struct lat_seqring *r;
	struct lat_wait_pair w;
	size_t size;
	uint64_t n;
	uint64_t sent_sum, recv_sum, received, bad_seq, bad_payload;
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

static void *producer(void *arg)
{
	struct run *ru = arg;
	unsigned char e[MAX_ELEM];

	if (place.pinned)
		T_EQ_I64(lat_topo_pin_self(place.cpu[0]), 0);
	for (uint64_t seq = 0; seq < ru->n; seq++) {
		ru->sent_sum += t_elem_fill(e, seq, ru->size);
		if (seq % 3 == 0 && lat_seqring_try_push_raw(ru->r, e, ru->size)) {
			lat_wait_notify(&ru->w.data, &ru->prod_st);
			continue;
		}
		T_CHECK(lat_seqring_wait_push(ru->r, &ru->w, e, ru->size, NULL,
					      &ru->prod_st));
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct run *ru = arg;
	unsigned char e[MAX_ELEM];

	if (place.pinned)
		T_EQ_I64(lat_topo_pin_self(place.cpu[1]), 0);
	while (ru->received < ru->n) {
		if (ru->received % 5 == 0 &&
		    lat_seqring_try_pop_raw(ru->r, e, ru->size)) {
			lat_wait_notify(&ru->w.space, &ru->cons_st);
		} else {
			T_CHECK(lat_seqring_wait_pop(ru->r, &ru->w, e, ru->size,
						     NULL, &ru->cons_st));
		}
		check(ru, e);
	}
	return NULL;
}

static void test_transfer(size_t capacity, size_t size, uint64_t start,
			  enum lat_wait_kind kind)
{
	struct run ru;
	pthread_t pt, ct;

	memset(&ru, 0, sizeof(ru));
	ru.size = size;
	ru.n = n_elems;
	T_EQ_I64(lat_seqring_create(capacity, size, &ru.r), 0);
	T_EQ_I64(lat_wait_pair_init(&ru.w, kind, 0), 0);
	if (!ru.r)
		return;
	lat_seqring_test_set_pos(ru.r, start);
	T_EQ_I64(pthread_create(&ct, NULL, consumer, &ru), 0);
	T_EQ_I64(pthread_create(&pt, NULL, producer, &ru), 0);
	pthread_join(pt, NULL);
	pthread_join(ct, NULL);
	T_EQ_I64(ru.received, ru.n);
	T_EQ_I64(ru.bad_seq, 0);
	T_EQ_I64(ru.bad_payload, 0);
	T_EQ_I64(ru.recv_sum, ru.sent_sum);
	T_EQ_I64(lat_seqring_count(ru.r), 0);
	printf("%-5s cap %4zu x %2zu B: %llu moved; producer waited %llu, "
	       "consumer waited %llu, wakes paid %llu\n",
	       lat_wait_kind_name(kind), capacity, size,
	       (unsigned long long)ru.received,
	       (unsigned long long)ru.prod_st.waits,
	       (unsigned long long)ru.cons_st.waits,
	       (unsigned long long)(ru.prod_st.wakes + ru.cons_st.wakes));
	lat_seqring_free(ru.r);
}

struct stop_run {
	struct lat_seqring *r;
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

	while (lat_seqring_wait_pop(s->r, &s->w, &v, sizeof(v), &s->stop,
				    NULL)) {
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
	T_EQ_I64(lat_seqring_create(4, sizeof(uint64_t), &s.r), 0);
	T_EQ_I64(lat_wait_pair_init(&s.w, kind, 1), 0);
	if (!s.r)
		return;
	T_EQ_I64(pthread_create(&t, NULL, stop_consumer, &s), 0);
	for (uint64_t v = 1; v <= 3; v++)
		T_CHECK(lat_seqring_wait_push(s.r, &s.w, &v, sizeof(v), NULL,
					      NULL));
	/* release pairs with the acquire loads of stop in the wait */
	atomic_store_explicit(&s.stop, true, memory_order_release);
	lat_wait_notify(&s.w.data, NULL);
	pthread_join(t, NULL);
	T_CHECK(s.returned_false);
	T_EQ_I64(s.n_got, 3);
	for (int i = 0; i < 3 && i < s.n_got; i++)
		T_EQ_I64(s.got[i], i + 1);
	lat_seqring_free(s.r);
}

int main(int argc, char **argv)
{
	static const enum lat_wait_kind kinds[] = {
		LAT_WAIT_SPIN, LAT_WAIT_YIELD, LAT_WAIT_BLOCK,
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		n_elems = strtoull(argv[1], NULL, 10);
#ifdef LATLAB_SANITIZED
	if (n_elems > 100000)
		n_elems = 100000;
#endif
	T_CHECK(n_elems > 0);
	T_EQ_I64(lat_bench_place_pair(&place), 0);
	printf("%llu elements per run; %s\n", (unsigned long long)n_elems,
	       place.desc);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		test_transfer(8, 64, 0, kinds[k]);
		test_transfer(4096, 8, 0, kinds[k]);
		test_transfer(2, 48, UINT64_MAX - 7, kinds[k]);
		test_transfer(4, 200, UINT64_MAX - 2, kinds[k]);
		test_stop(kinds[k]);
	}
	T_DONE();
}
