/*
 * Description: two threads move sequence-numbered elements through
 * lat_spsc rings (8 slots of 64 bytes, 4096 slots of 8 bytes) under every
 * lat_wait strategy, each side mixing single, burst and zero-copy
 * operations: nothing lost, nothing duplicated, order kept, every byte as
 * sent (checksums equal). Then the wait protocol's two edges: a stop flag
 * ends a blocked pop after everything sent before it was delivered, and a
 * notify on an announced sleeper pays exactly one wake.
 * The producer and consumer are pinned to two distinct CPUs when there
 * are two (else unpinned, and the placement is printed).
 * 2*10^5 elements per run by default (seconds here); a count as the first
 * argument overrides it: ctest's test_spsc_stress_threads_slow runs
 * 10^7 (label slow, `make test-slow`). Sanitizer builds cap it at 10^5.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/bench.h"
#include "latlab/spsc.h"
#include "latlab/topo.h"
#include "latlab/wait.h"
#include "t_ring_elem.h"
#include "t_test.h"

#define DEFAULT_ELEMS 200000ull
#define SANITIZED_MAX_ELEMS 100000ull

static uint64_t n_elems = DEFAULT_ELEMS;
static struct lat_bench_place place; /* producer cpu[0], consumer cpu[1] */

static void pin(int side)
{
	if (place.pinned)
		T_EQ_I64(lat_topo_pin_self(place.cpu[side]), 0);
}
#define MAX_ELEM 64
#define MAX_BURST 16

struct run {
	struct lat_spsc *r;
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

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *producer(void *arg)
{
	struct run *ru = arg;
	struct lat_wait_ring_ctx ctx = { ru->r, NULL };
	unsigned char batch[MAX_BURST * MAX_ELEM];
	uint64_t sums[MAX_BURST];
	uint64_t rng = 0x1234567, seq = 0;

	pin(0);
	while (seq < ru->n) {
		uint64_t pick = xorshift(&rng);
		size_t want = 1 + (size_t)(pick >> 8) % MAX_BURST, got;
		unsigned char *slots;

		if (want > ru->n - seq)
			want = (size_t)(ru->n - seq);
		switch (pick % 3) {
		case 0: /* one element, the waiting helper */
			ru->sent_sum += t_elem_fill(batch, seq, ru->size);
			lat_wait_push(ru->r, &ru->w, batch, ru->size, NULL,
				      &ru->prod_st);
			seq++;
			continue;
		case 1: /* burst: whatever prefix fits goes */
			for (size_t i = 0; i < want; i++)
				sums[i] = t_elem_fill(batch + i * ru->size, seq + i,
					       ru->size);
			got = lat_spsc_push_burst_raw(ru->r, batch, want,
						      ru->size);
			/* only the pushed prefix was sent; the rest are
			 * still ours and go again next time */
			for (size_t i = 0; i < got; i++)
				ru->sent_sum += sums[i];
			break;
		default: /* zero copy */
			got = want;
			slots = lat_spsc_reserve(ru->r, &got);
			for (size_t i = 0; i < got; i++)
				ru->sent_sum += t_elem_fill(slots + i * ru->size,
						     seq + i, ru->size);
			if (got)
				lat_spsc_commit(ru->r, got);
			break;
		}
		if (got) {
			seq += got;
			lat_wait_notify(&ru->w.data, &ru->prod_st);
		} else {
			lat_wait_until(&ru->w.space, lat_wait_ring_has_space_,
				       &ctx, &ru->prod_st);
		}
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct run *ru = arg;
	struct lat_wait_ring_ctx ctx = { ru->r, NULL };
	unsigned char batch[MAX_BURST * MAX_ELEM];
	uint64_t rng = 0x7654321;

	pin(1);
	while (ru->received < ru->n) {
		uint64_t pick = xorshift(&rng);
		size_t want = 1 + (size_t)(pick >> 8) % MAX_BURST, got;
		const unsigned char *slots;

		switch (pick % 3) {
		case 0:
			lat_wait_pop(ru->r, &ru->w, batch, ru->size, NULL,
				     &ru->cons_st);
			check(ru, batch);
			continue;
		case 1:
			got = lat_spsc_pop_burst_raw(ru->r, batch, want,
						     ru->size);
			for (size_t i = 0; i < got; i++)
				check(ru, batch + i * ru->size);
			break;
		default:
			got = want;
			slots = lat_spsc_peek(ru->r, &got);
			for (size_t i = 0; i < got; i++)
				check(ru, slots + i * ru->size);
			if (got)
				lat_spsc_consume(ru->r, got);
			break;
		}
		if (got)
			lat_wait_notify(&ru->w.space, &ru->cons_st);
		else
			lat_wait_until(&ru->w.data, lat_wait_ring_has_data_,
				       &ctx, &ru->cons_st);
	}
	return NULL;
}

static void test_transfer(size_t capacity, size_t size,
			  enum lat_wait_kind kind)
{
	struct run ru;
	pthread_t pt, ct;
	double t0, secs;

	memset(&ru, 0, sizeof(ru));
	ru.size = size;
	ru.n = n_elems;
	T_EQ_I64(lat_spsc_create(capacity, size, &ru.r), 0);
	T_EQ_I64(lat_wait_pair_init(&ru.w, kind, 0), 0);
	if (!ru.r)
		return;
	t0 = lat_bench_now_ns();
	T_EQ_I64(pthread_create(&ct, NULL, consumer, &ru), 0);
	T_EQ_I64(pthread_create(&pt, NULL, producer, &ru), 0);
	pthread_join(pt, NULL);
	pthread_join(ct, NULL);
	secs = (lat_bench_now_ns() - t0) / 1e9;

	T_EQ_I64(ru.received, ru.n);
	T_EQ_I64(ru.bad_seq, 0);
	T_EQ_I64(ru.bad_payload, 0);
	T_EQ_I64(ru.recv_sum, ru.sent_sum);
	T_EQ_I64(lat_spsc_count(ru.r), 0);
	printf("%-5s cap %4zu x %2zu B: %llu moved in %.2f s; producer waited %llu "
	       "(yields %llu, sleeps %llu), consumer waited %llu (yields "
	       "%llu, sleeps %llu), wakes paid %llu\n",
	       lat_wait_kind_name(kind), capacity, size,
	       (unsigned long long)ru.received, secs,
	       (unsigned long long)ru.prod_st.waits,
	       (unsigned long long)ru.prod_st.yields,
	       (unsigned long long)ru.prod_st.sleeps,
	       (unsigned long long)ru.cons_st.waits,
	       (unsigned long long)ru.cons_st.yields,
	       (unsigned long long)ru.cons_st.sleeps,
	       (unsigned long long)(ru.prod_st.wakes + ru.cons_st.wakes));
	lat_spsc_free(ru.r);
}

/* Stop: the consumer pops until told to stop; it must still get all. */
struct stop_run {
	struct lat_spsc *r;
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

	while (lat_wait_pop(s->r, &s->w, &v, sizeof(v), &s->stop, NULL)) {
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
	T_EQ_I64(lat_spsc_create(4, sizeof(uint64_t), &s.r), 0);
	T_EQ_I64(lat_wait_pair_init(&s.w, kind, 1), 0);
	if (!s.r)
		return;
	T_EQ_I64(pthread_create(&t, NULL, stop_consumer, &s), 0);
	for (uint64_t v = 1; v <= 3; v++)
		T_CHECK(lat_wait_push(s.r, &s.w, &v, sizeof(v), NULL, NULL));
	/* release pairs with the acquire loads of stop in lat_wait_pop:
	 * the three pushes are visible to whoever sees stop */
	atomic_store_explicit(&s.stop, true, memory_order_release);
	lat_wait_notify(&s.w.data, NULL);
	pthread_join(t, NULL);
	T_CHECK(s.returned_false);
	T_EQ_I64(s.n_got, 3);
	for (int i = 0; i < 3 && i < s.n_got; i++)
		T_EQ_I64(s.got[i], i + 1);
	lat_spsc_free(s.r);
}

/* Wake: notify on an announced sleeper pays one wake and it wakes. */
static void *wake_consumer(void *arg)
{
	struct stop_run *s = arg;
	uint64_t v = 0;
	struct lat_wait_stats st = { 0 };

	T_CHECK(lat_wait_pop(s->r, &s->w, &v, sizeof(v), NULL, &st));
	s->got[0] = v;
	s->n_got = 1;
	return NULL;
}

static void test_wake_paid_only_for_sleeper(void)
{
	struct stop_run s;
	struct lat_wait_stats st = { 0 };
	pthread_t t;
	uint64_t v = 42;

	memset(&s, 0, sizeof(s));
	T_EQ_I64(lat_spsc_create(4, sizeof(uint64_t), &s.r), 0);
	T_EQ_I64(lat_wait_pair_init(&s.w, LAT_WAIT_BLOCK, 1), 0);
	if (!s.r)
		return;
	/* nobody waits: a push and notify pay no wake */
	T_CHECK(!lat_wait_notify(&s.w.data, &st));
	T_EQ_I64(pthread_create(&t, NULL, wake_consumer, &s), 0);
	/* wait (spinning, not sleeping) until the consumer has announced
	 * itself on the data channel: from then on a wake must be paid */
	while (atomic_load_explicit(&s.w.data.sleepers,
				    memory_order_acquire) == 0)
		lat_wait_pause();
	T_CHECK(lat_spsc_try_push_raw(s.r, &v, sizeof(v)));
	T_CHECK(lat_wait_notify(&s.w.data, &st));
	pthread_join(t, NULL);
	T_EQ_I64(st.wakes, 1);
	T_EQ_I64(s.n_got, 1);
	T_EQ_I64(s.got[0], 42);
	lat_spsc_free(s.r);
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
	if (n_elems > SANITIZED_MAX_ELEMS)
		n_elems = SANITIZED_MAX_ELEMS;
#endif
	T_CHECK(n_elems > 0);
	T_EQ_I64(lat_bench_place_pair(&place), 0);
	printf("%llu elements per run; %s\n", (unsigned long long)n_elems,
	       place.desc);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		test_transfer(8, 64, kinds[k]);
		test_transfer(4096, 8, kinds[k]);
		test_stop(kinds[k]);
	}
	test_wake_paid_only_for_sleeper();
	T_DONE();
}
