/*
 * Description: lat_spsc and lat_wait on one thread: sizing and init
 * errors, capacity, full and empty hand the element back, FIFO order,
 * counters crossing 2^64, burst and zero-copy operations at the buffer's
 * end, the typed wrappers, and the wait-kind parser.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/spsc.h"
#include "latlab/wait.h"
#include "ring/spsc_int.h"
#include "t_test.h"

struct msg {
	uint64_t seq;
	uint64_t pad[7];
};

LAT_SPSC_TYPED(t_msg_ring, struct msg)
LAT_SPSC_TYPED(t_u64_ring, uint64_t)

static void test_sizes_and_init_errors(void)
{
	static unsigned char buf[64 * 8];
	struct lat_spsc r;
	struct lat_spsc *heap = (void *)1;
	unsigned char *raw;

	T_EQ_I64(lat_spsc_buffer_size(8, 8), 64);
	T_EQ_I64(lat_spsc_buffer_size(1, 1), 1);
	T_EQ_I64(lat_spsc_buffer_size(0, 8), 0);
	T_EQ_I64(lat_spsc_buffer_size(12, 8), 0);
	T_EQ_I64(lat_spsc_buffer_size(8, 0), 0);
	T_EQ_I64(lat_spsc_buffer_size(LAT_SPSC_MAX_CAPACITY * 2, 1), 0);
	T_EQ_I64(lat_spsc_buffer_size(8, LAT_SPSC_MAX_ELEM + 1), 0);

	T_EQ_I64(lat_spsc_init(&r, buf, 8, 8), 0);
	T_EQ_I64(lat_spsc_capacity(&r), 8);
	T_EQ_I64(lat_spsc_elem_size(&r), 8);
	T_EQ_I64(lat_spsc_count(&r), 0);
	T_EQ_I64(lat_spsc_init(&r, buf, 6, 8), -EINVAL);
	T_EQ_I64(lat_spsc_init(&r, NULL, 8, 8), -EINVAL);
	T_EQ_I64(lat_spsc_init(NULL, buf, 8, 8), -EINVAL);

	/* a struct at a misaligned address is refused, not half-used */
	raw = aligned_alloc(LAT_PAD_BYTES, 2 * sizeof(struct lat_spsc));
	T_CHECK(raw != NULL);
	T_EQ_I64(lat_spsc_init((struct lat_spsc *)(void *)(raw + 64), buf, 8,
			       8), -EINVAL);
	free(raw);

	T_EQ_I64(lat_spsc_create(6, 8, &heap), -EINVAL);
	T_CHECK(heap == NULL);
	T_EQ_I64(lat_spsc_create(16, 64, &heap), 0);
	T_CHECK(heap != NULL && (uintptr_t)heap % LAT_PAD_BYTES == 0);
	/* the buffer must not share a line with either index */
	T_CHECK(heap->prod.slots >= (unsigned char *)(heap + 1));
	lat_spsc_free(heap);
	lat_spsc_free(NULL);

	/* the two sides really are on separate padded regions */
	T_CHECK(offsetof(struct lat_spsc, cons) -
		offsetof(struct lat_spsc, prod) >= LAT_PAD_BYTES);
}

static void test_full_empty_fifo(void)
{
	static struct msg buf[8];
	struct lat_spsc r;
	struct msg m, out;

	T_EQ_I64(t_msg_ring_init(&r, buf, 8), 0);
	memset(&out, 0xab, sizeof(out));
	T_CHECK(!t_msg_ring_try_pop(&r, &out));
	T_EQ_I64(out.seq, 0xabababababababab); /* untouched */
	for (uint64_t i = 0; i < 8; i++) {
		memset(&m, 0, sizeof(m));
		m.seq = i;
		m.pad[6] = ~i;
		T_CHECK(t_msg_ring_try_push(&r, &m));
	}
	T_EQ_I64(lat_spsc_count(&r), 8);
	m.seq = 99;
	T_CHECK(!t_msg_ring_try_push(&r, &m)); /* full: handed back */
	T_EQ_I64(m.seq, 99);
	T_EQ_I64(lat_spsc_count(&r), 8);
	for (uint64_t i = 0; i < 8; i++) {
		T_CHECK(t_msg_ring_try_pop(&r, &out));
		T_EQ_I64(out.seq, i);
		T_EQ_I64(out.pad[6], ~i);
	}
	T_CHECK(!t_msg_ring_try_pop(&r, &out));
	/* and it is reusable after draining: the size-less forms */
	m.seq = 7;
	T_CHECK(lat_spsc_try_push(&r, &m));
	T_CHECK(lat_spsc_try_pop(&r, &out));
	T_EQ_I64(out.seq, 7);
}

static void test_counter_wrap(void)
{
	static uint64_t buf[4];
	struct lat_spsc r;
	uint64_t v = 0, next_in = 0, next_out = 0;

	T_EQ_I64(t_u64_ring_init(&r, buf, 4), 0);
	lat_spsc_test_set_counters(&r, UINT64_MAX - 5);
	T_EQ_I64(lat_spsc_count(&r), 0);
	/* fill and drain around the wrap, in uneven steps */
	for (int round = 0; round < 6; round++) {
		while (t_u64_ring_try_push(&r, &next_in))
			next_in++;
		T_EQ_I64(lat_spsc_count(&r), 4);
		for (int k = 0; k < 1 + round % 3; k++) {
			T_CHECK(t_u64_ring_try_pop(&r, &v));
			T_EQ_I64(v, next_out);
			next_out++;
		}
	}
	while (t_u64_ring_try_pop(&r, &v)) {
		T_EQ_I64(v, next_out);
		next_out++;
	}
	T_EQ_I64(next_in, next_out);
	T_CHECK(next_in > 8); /* really went past UINT64_MAX */
	T_CHECK(atomic_load(&r.prod.index) < 100);
}

static void test_burst(void)
{
	static uint64_t buf[8];
	struct lat_spsc r;
	uint64_t in[12], out[12];

	for (int i = 0; i < 12; i++)
		in[i] = 100 + (uint64_t)i;
	T_EQ_I64(t_u64_ring_init(&r, buf, 8), 0);
	lat_spsc_test_set_counters(&r, UINT64_MAX - 2);
	/* move the start to slot 5 so the burst wraps the buffer's end */
	T_EQ_I64(t_u64_ring_push_burst(&r, in, 5), 5);
	T_EQ_I64(t_u64_ring_pop_burst(&r, out, 5), 5);
	/* more than fits: exactly capacity go in, in order */
	T_EQ_I64(t_u64_ring_push_burst(&r, in, 12), 8);
	T_EQ_I64(t_u64_ring_push_burst(&r, in, 1), 0);
	memset(out, 0, sizeof(out));
	T_EQ_I64(t_u64_ring_pop_burst(&r, out, 3), 3);
	T_EQ_I64(lat_spsc_pop_burst(&r, out + 3, 12), 5);
	for (int i = 0; i < 8; i++)
		T_EQ_I64(out[i], 100 + i);
	T_EQ_I64(t_u64_ring_pop_burst(&r, out, 4), 0);
	T_EQ_I64(lat_spsc_push_burst(&r, in, 0), 0);
}

static void test_reserve_peek(void)
{
	static uint64_t buf[8];
	struct lat_spsc r;
	uint64_t *w, v = 0;
	const uint64_t *rd;
	size_t n;

	T_EQ_I64(t_u64_ring_init(&r, buf, 8), 0);
	/* start at slot 6: the contiguous run stops at the buffer's end */
	lat_spsc_test_set_counters(&r, 6);
	n = 8;
	w = lat_spsc_reserve(&r, &n);
	T_EQ_I64(n, 2);
	T_CHECK(w == &buf[6]);
	w[0] = 1;
	w[1] = 2;
	lat_spsc_commit(&r, 1); /* publish only a prefix */
	T_EQ_I64(lat_spsc_count(&r), 1);
	n = 8;
	w = lat_spsc_reserve(&r, &n);
	T_EQ_I64(n, 1);
	T_CHECK(w == &buf[7]);
	w[0] = 2;
	lat_spsc_commit(&r, 1);
	n = 3;
	w = lat_spsc_reserve(&r, &n); /* wrapped: slots 0.. */
	T_EQ_I64(n, 3);
	T_CHECK(w == &buf[0]);
	w[0] = 3;
	w[1] = 4;
	w[2] = 5;
	lat_spsc_commit(&r, 3);
	n = 8;
	T_CHECK(lat_spsc_reserve(&r, &n) != NULL);
	T_EQ_I64(n, 3); /* 8 - 5 used */

	n = 8;
	rd = lat_spsc_peek(&r, &n);
	T_EQ_I64(n, 2);
	T_EQ_I64(rd[0], 1);
	T_EQ_I64(rd[1], 2);
	lat_spsc_consume(&r, 2);
	n = 1;
	rd = lat_spsc_peek(&r, &n);
	T_EQ_I64(n, 1);
	T_EQ_I64(rd[0], 3);
	lat_spsc_consume(&r, 1);
	T_CHECK(t_u64_ring_try_pop(&r, &v));
	T_EQ_I64(v, 4);
	T_CHECK(t_u64_ring_try_pop(&r, &v));
	T_EQ_I64(v, 5);
	n = 4;
	T_CHECK(lat_spsc_peek(&r, &n) == NULL);
	T_EQ_I64(n, 0);

	/* full ring: reserve gives nothing */
	while (t_u64_ring_try_push(&r, &v))
		;
	n = 1;
	T_CHECK(lat_spsc_reserve(&r, &n) == NULL);
	T_EQ_I64(n, 0);
}

static bool always_ready(void *ctx)
{
	int *calls = ctx;

	(*calls)++;
	return true;
}

static bool ready_after_three(void *ctx)
{
	int *calls = ctx;

	return ++*calls >= 3;
}

static void test_wait_single_thread(void)
{
	enum lat_wait_kind k = LAT_WAIT_BLOCK;
	struct lat_wait w;
	struct lat_wait_pair p;
	struct lat_wait_stats st = { 0 };
	int calls;

	T_EQ_I64(lat_wait_kind_parse("spin", &k), 0);
	T_EQ_I64(k, LAT_WAIT_SPIN);
	T_EQ_I64(lat_wait_kind_parse("yield", &k), 0);
	T_EQ_I64(k, LAT_WAIT_YIELD);
	T_EQ_I64(lat_wait_kind_parse("block", &k), 0);
	T_EQ_I64(k, LAT_WAIT_BLOCK);
	T_EQ_I64(lat_wait_kind_parse("Block", &k), -EINVAL);
	T_EQ_I64(lat_wait_kind_parse("", &k), -EINVAL);
	T_EQ_I64(k, LAT_WAIT_BLOCK); /* untouched on error */
	T_CHECK(!strcmp(lat_wait_kind_name(LAT_WAIT_YIELD), "yield"));
	T_CHECK(!strcmp(lat_wait_kind_name((enum lat_wait_kind)7),
			"unknown"));
	T_EQ_I64(lat_wait_init(&w, (enum lat_wait_kind)3, 0), -EINVAL);
	T_EQ_I64(lat_wait_init(&w, LAT_WAIT_YIELD, 0), 0);
	T_EQ_I64(w.spins, LAT_WAIT_DEFAULT_SPINS);
	T_EQ_I64(lat_wait_pair_init(&p, LAT_WAIT_BLOCK, 4), 0);
	T_EQ_I64(p.space.spins, 4);

	/* ready at once: one call, not counted as a wait */
	calls = 0;
	lat_wait_until(&p.data, always_ready, &calls, &st);
	T_EQ_I64(calls, 1);
	T_EQ_I64(st.waits, 0);
	/* ready during the spin budget: no sleep */
	calls = 0;
	lat_wait_until(&p.data, ready_after_three, &calls, &st);
	T_EQ_I64(calls, 3);
	T_EQ_I64(st.waits, 1);
	T_EQ_I64(st.sleeps, 0);
	/* no sleeper: notify pays no wake, in every kind */
	T_CHECK(!lat_wait_notify(&p.data, &st));
	T_CHECK(!lat_wait_notify(&w, &st));
	T_EQ_I64(st.wakes, 0);
	/* budget spent on a block channel: announces, re-checks, and does
	 * not sleep because the condition came true meanwhile */
	T_EQ_I64(lat_wait_init(&w, LAT_WAIT_BLOCK, 1), 0);
	calls = 0;
	lat_wait_until(&w, ready_after_three, &calls, &st);
	T_EQ_I64(calls, 3);
	T_EQ_I64(st.sleeps, 0);
	T_EQ_I64(atomic_load(&w.sleepers), 0);
}

int main(void)
{
	test_sizes_and_init_errors();
	test_full_empty_fifo();
	test_counter_wrap();
	test_burst();
	test_reserve_peek();
	test_wait_single_thread();
	T_DONE();
}
