/*
 * Description: lat_seqring (the latency-mode ring) on one thread: sizing
 * and init errors, slot strides, capacity, full and empty hand the
 * element back untouched, FIFO order over many laps, positions crossing
 * 2^64, count, the typed wrappers and the readiness tests the waits use;
 * elements of several lines (one mark after the payload: a slot whose
 * mark does not read full is not popped); a pop on an idle ring never writes the
 * slot's lines, one under pressure writes only the first mark, "free",
 * and the producer takes the slot on it; against a model queue, a push
 * fails exactly when the ring is full, with the pressure coming and
 * going.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/seqring.h"
#include "ring/seqring_int.h"
#include "t_test.h"

struct msg {
	uint64_t seq;
	uint64_t pad[7];
};

LAT_SEQRING_TYPED(t_msg_q, struct msg)
LAT_SEQRING_TYPED(t_u64_q, uint64_t)

static void test_sizes(void)
{
	_Alignas(LAT_PAD_BYTES) static unsigned char buf[4096];
	struct lat_seqring r;
	struct lat_seqring *heap = (void *)1;

	T_EQ_I64(lat_seqring_stride(8), 16);
	T_EQ_I64(lat_seqring_stride(9), 32);
	T_EQ_I64(lat_seqring_stride(48), 64);  /* the pipeline's message */
	T_EQ_I64(lat_seqring_stride(56), 64);
	T_EQ_I64(lat_seqring_stride(57), 128); /* whole lines above one */
	T_EQ_I64(lat_seqring_stride(64), 128);
	/* the payload from the slot's start, the mark after it */
	T_EQ_I64(lat_seqring_stride(120), 128);
	T_EQ_I64(lat_seqring_stride(121), 192);
	T_EQ_I64(lat_seqring_stride(200), 256);
	T_EQ_I64(lat_seqring_stride(LAT_SEQRING_MAX_ELEM), 65 * 64);
	T_EQ_I64(lat_seqring_stride(0), 0);
	T_EQ_I64(lat_seqring_stride(LAT_SEQRING_MAX_ELEM + 1), 0);
	T_EQ_I64(lat_seqring_buffer_size(8, 8), 128);
	T_EQ_I64(lat_seqring_buffer_size(12, 8), 0);
	T_EQ_I64(lat_seqring_buffer_size(0, 8), 0);
	T_EQ_I64(lat_seqring_buffer_size(LAT_SEQRING_MAX_CAPACITY * 2, 8), 0);

	T_EQ_I64(lat_seqring_init(&r, buf, 8, 8), 0);
	T_EQ_I64(lat_seqring_capacity(&r), 8);
	T_EQ_I64(lat_seqring_elem_size(&r), 8);
	T_EQ_I64(lat_seqring_init(&r, buf, 6, 8), -EINVAL);
	T_EQ_I64(lat_seqring_init(&r, NULL, 8, 8), -EINVAL);
	T_EQ_I64(lat_seqring_init(NULL, buf, 8, 8), -EINVAL);
	/* a buffer off a line boundary would let slots straddle lines */
	T_EQ_I64(lat_seqring_init(&r, buf + 8, 8, 8), -EINVAL);
	T_EQ_I64(lat_seqring_create(3, 8, &heap), -EINVAL);
	T_CHECK(heap == NULL);
	T_EQ_I64(lat_seqring_create(8, 8, NULL), -EINVAL);
	lat_seqring_free(NULL);
}

/* Fill to full, refuse, drain in order, refuse; many laps from @start. */
static void test_laps(uint64_t start)
{
	struct lat_seqring *r;
	uint64_t v, next_in = 0, next_out = 0;

	T_EQ_I64(t_u64_q_create(4, &r), 0);
	if (!r)
		return;
	lat_seqring_test_set_pos(r, start);
	for (int lap = 0; lap < 10; lap++) {
		T_CHECK(!lat_seqring_can_pop(r));
		v = 12345;
		T_CHECK(!t_u64_q_try_pop(r, &v));
		T_EQ_I64(v, 12345); /* untouched when empty */
		/* a partial fill first, so laps cross at every offset */
		for (int i = 0; i < 1 + lap % 4; i++) {
			T_CHECK(t_u64_q_try_push(r, &next_in));
			next_in++;
		}
		T_CHECK(t_u64_q_try_pop(r, &v));
		T_EQ_I64(v, next_out++);
		while (lat_seqring_can_push(r)) {
			T_CHECK(t_u64_q_try_push(r, &next_in));
			next_in++;
		}
		T_EQ_I64(lat_seqring_count(r), 4);
		v = 999;
		T_CHECK(!t_u64_q_try_push(r, &v)); /* full: still ours */
		T_EQ_I64(v, 999);
		while (t_u64_q_try_pop(r, &v))
			T_EQ_I64(v, next_out++);
		T_EQ_I64(lat_seqring_count(r), 0);
	}
	T_EQ_I64(next_in, next_out);
	lat_seqring_free(r);
}

/* 64-byte elements span two lines: every byte must come back. */
static void test_wide_elements(void)
{
	struct lat_seqring *r;
	struct msg in, out;

	T_EQ_I64(t_msg_q_create(2, &r), 0);
	if (!r)
		return;
	for (uint64_t s = 0; s < 7; s++) {
		in.seq = s;
		for (int k = 0; k < 7; k++)
			in.pad[k] = s * 100 + (uint64_t)k;
		T_CHECK(t_msg_q_try_push(r, &in));
		memset(&out, 0, sizeof(out));
		T_CHECK(t_msg_q_try_pop(r, &out));
		T_CHECK(!memcmp(&in, &out, sizeof(in)));
	}
	/* size-less forms take the size from the ring */
	T_CHECK(lat_seqring_try_push(r, &in));
	memset(&out, 0, sizeof(out));
	T_CHECK(lat_seqring_try_pop(r, &out));
	T_CHECK(!memcmp(&in, &out, sizeof(in)));
	lat_seqring_free(r);
}

/* A fresh 2-slot ring of 64-byte elements (stride 128), or NULL. */
static struct lat_seqring *two_wide_slots(void)
{
	struct lat_seqring *r = NULL;

	T_EQ_I64(t_msg_q_create(2, &r), 0);
	return r;
}

/*
 * On an idle ring the consumer publishes only its own position: a pop
 * leaves every byte of the slot's lines as the producer wrote them (this
 * is what keeps a hand-off at the slot's lines, latlab/seqring.h).
 */
static void test_pop_leaves_slot(void)
{
	struct lat_seqring *r = two_wide_slots();
	struct msg in, out;
	unsigned char before[128];

	if (!r)
		return;
	T_EQ_I64(r->prod.stride, sizeof(before));
	for (uint64_t s = 0; s < 5; s++) {
		unsigned char *slot = r->prod.slots + (s & r->prod.mask) *
							      r->prod.stride;

		memset(&in, (int)s + 1, sizeof(in));
		T_CHECK(t_msg_q_try_push(r, &in));
		memcpy(before, slot, sizeof(before));
		T_CHECK(t_msg_q_try_pop(r, &out));
		T_CHECK(!memcmp(&in, &out, sizeof(in)));
		T_CHECK(!memcmp(before, slot, sizeof(before)));
		T_EQ_I64(lat_seqring_count(r), 0);
	}
	lat_seqring_free(r);
}

/*
 * Under pressure (the producer found a quarter or less of the ring free)
 * a pop writes the slot's mark, "free", and nothing else; the producer
 * then takes that slot on the mark alone.
 */
static void test_pop_under_pressure(void)
{
	struct lat_seqring *r = two_wide_slots();
	struct msg in, out;
	unsigned char before[128];

	if (!r)
		return;
	memset(&in, 7, sizeof(in));
	T_CHECK(t_msg_q_try_push(r, &in));
	T_CHECK(t_msg_q_try_push(r, &in));
	T_EQ_I64(atomic_load(&r->cons.pressed), 0); /* not asked yet */
	T_CHECK(!t_msg_q_try_push(r, &in));         /* full: asks */
	T_EQ_I64(atomic_load(&r->cons.pressed), 1);
	memcpy(before, r->prod.slots, sizeof(before));
	T_CHECK(t_msg_q_try_pop(r, &out));
	T_CHECK(!memcmp(&in, &out, sizeof(in)));
	/* only the mark (after the 64-byte payload) changed, to position
	 * 0's free mark */
	T_EQ_I64(atomic_load(lat_seqring_mark_(&r->prod, 0)),
		 1 + LAT_SEQRING_FREED);
	T_CHECK((unsigned char *)lat_seqring_mark_(&r->prod, 0) ==
		r->prod.slots + 64);
	T_CHECK(!memcmp(before, r->prod.slots, 64));
	T_CHECK(!memcmp(before + 72, r->prod.slots + 72, sizeof(before) - 72));
	/* hide the consumer's position: the push must go on the mark */
	atomic_store(&r->cons.pos, 0);
	T_CHECK(t_msg_q_try_push(r, &in));
	atomic_store(&r->cons.pos, 1);
	T_CHECK(!t_msg_q_try_push(r, &in)); /* full again */
	/* the consumer drains it and, finding it empty, lifts the pressure */
	T_CHECK(t_msg_q_try_pop(r, &out));
	T_CHECK(t_msg_q_try_pop(r, &out));
	T_EQ_I64(atomic_load(&r->cons.pressed), 1);
	T_CHECK(!t_msg_q_try_pop(r, &out));
	T_EQ_I64(atomic_load(&r->cons.pressed), 0);
	lat_seqring_free(r);
}

/* xorshift64: a fixed sequence of operations, the same every run. */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * The free marks change nothing a caller can see: against a model
 * queue, with pushes and pops in random runs (long ones fill and drain
 * the ring, so the pressure comes and goes) on rings of 1..16 slots and
 * elements of one and of four lines, from next to 2^64: a push succeeds
 * exactly when the ring is not full (a producer waits only while it
 * truly is), a pop exactly when it is not empty, and FIFO order holds.
 * The producer must take some slots on their free mark, and the
 * pressure must be lifted again, or the test is not testing them.
 */
static void test_model(size_t cap, size_t size)
{
	struct lat_seqring *r;
	unsigned char in[200], out[200];
	uint64_t x = 0x9e3779b97f4a7c15u ^ cap ^ (size << 8);
	uint64_t next_in = 0, next_out = 0, on_mark = 0, lifted = 0;
	uint32_t was = 0;

	T_CHECK(size <= sizeof(in));
	T_EQ_I64(lat_seqring_create(cap, size, &r), 0);
	if (!r)
		return;
	lat_seqring_test_set_pos(r, UINT64_MAX - 2 * cap - 1);
	for (int run = 0; run < 4000; run++) {
		uint64_t rnd = next_rand(&x);
		bool push = rnd & 1;
		unsigned len = 1 + (unsigned)((rnd >> 1) % (2 * cap + 1));

		for (unsigned k = 0; k < len; k++) {
			uint64_t full = next_in - next_out == cap;
			uint64_t t = atomic_load(&r->prod.pos);
			uint32_t now;

			if (push) {
				if (t - r->prod.seen >= cap &&
				    atomic_load(lat_seqring_mark_(&r->prod,
								  t)) ==
					    t - cap + 1 + LAT_SEQRING_FREED)
					on_mark++;
				memset(in, (int)(next_in & 0xff), size);
				memcpy(in, &next_in, sizeof(next_in));
				T_EQ_I64(lat_seqring_try_push_raw(r, in, size),
					 !full);
				next_in += !full;
			} else {
				bool empty = next_in == next_out;

				memset(out, 0, size);
				T_EQ_I64(lat_seqring_try_pop_raw(r, out, size),
					 !empty);
				if (!empty) {
					memset(in, (int)(next_out & 0xff), size);
					memcpy(in, &next_out, sizeof(next_out));
					T_CHECK(!memcmp(in, out, size));
					next_out++;
				}
			}
			now = atomic_load(&r->cons.pressed);
			lifted += was && !now;
			was = now;
			T_EQ_I64(lat_seqring_count(r), next_in - next_out);
		}
	}
	T_CHECK(on_mark > 0);
	T_CHECK(lifted > 0);
	lat_seqring_free(r);
}

/*
 * A slot is full only when its mark says so: with a pushed 200-byte
 * element's payload in place (four lines) but the mark rolled back to
 * its previous lap, as a producer still writing would leave it, the pop
 * must wait and leave the output alone; with the mark back, every byte
 * arrives.
 */
static void test_unmarked_slot(void)
{
	struct lat_seqring *r;
	unsigned char in[200], out[200];

	T_EQ_I64(lat_seqring_create(4, sizeof(in), &r), 0);
	if (!r)
		return;
	lat_seqring_test_set_pos(r, UINT64_MAX - 1);
	for (uint64_t k = 0; k < 11; k++) {
		uint64_t pos = UINT64_MAX - 1 + k;
		_Atomic uint64_t *m = lat_seqring_mark_(&r->prod, pos);
		uint64_t full;

		for (size_t i = 0; i < sizeof(in); i++)
			in[i] = (unsigned char)(k * 7 + i);
		T_CHECK(lat_seqring_try_push_raw(r, in, sizeof(in)));
		full = atomic_load(m);
		T_EQ_I64(full, pos + 1);
		atomic_store(m, pos + 1 - 4); /* the previous lap's mark */
		memset(out, 0xee, sizeof(out));
		T_CHECK(!lat_seqring_can_pop(r));
		T_CHECK(!lat_seqring_try_pop_raw(r, out, sizeof(out)));
		T_EQ_I64(out[0], 0xee); /* untouched */
		atomic_store(m, full);
		T_CHECK(lat_seqring_try_pop_raw(r, out, sizeof(out)));
		T_CHECK(!memcmp(in, out, sizeof(in)));
	}
	lat_seqring_free(r);
}

int main(void)
{
	test_sizes();
	test_laps(0);
	test_laps(UINT64_MAX - 5);
	test_wide_elements();
	test_pop_leaves_slot();
	test_unmarked_slot();
	test_pop_under_pressure();
	for (size_t cap = 1; cap <= 16; cap *= 2) {
		test_model(cap, 8);
		test_model(cap, 200);
	}
	T_DONE();
}
