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
#include "latlab/spsc.h"

#define T_RING struct lat_spsc
#define T_RING_CREATE lat_spsc_create
#define T_RING_WAIT_PUSH lat_wait_push
#define T_RING_WAIT_POP lat_wait_pop
#define T_RING_COUNT lat_spsc_count
#define T_RING_FREE lat_spsc_free
#include "t_ring_run.h"

#define MAX_ELEM 64
#define MAX_BURST 16

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

	if (run_init(&ru, capacity, size, kind))
		run_check_and_free(&ru, capacity, kind,
				   run_threads(&ru, producer, consumer));
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

	ring_test_setup(argc, argv);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		test_transfer(8, 64, kinds[k]);
		test_transfer(4096, 8, kinds[k]);
		test_stop(kinds[k]);
	}
	test_wake_paid_only_for_sleeper();
	T_DONE();
}
