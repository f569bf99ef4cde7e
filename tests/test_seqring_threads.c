/*
 * Description: two threads move sequence-numbered elements through
 * lat_seqring rings (8 slots of 64 bytes, 4096 slots of 8 bytes, 2 slots
 * of 48 bytes starting next to 2^64, 4 slots of 200 bytes: four lines
 * behind one mark, so a consumer that took a half-written slot would
 * show a torn element) under every lat_wait strategy (a ring that fills
 * while the consumer is behind puts it under pressure: free marks),
 * with lat_seqring_wait_push/pop and the bare try_ operations mixed:
 * nothing lost, duplicated or reordered, every byte as sent. Then a stop
 * flag ends a waiting pop only after everything sent before it arrived.
 * Producer and consumer are pinned to two CPUs when there are two.
 * 2*10^5 elements per run (10^5 under sanitizers); argv[1] overrides.
 */
#include "latlab/seqring.h"
#include "ring/seqring_int.h"

#define T_RING struct lat_seqring
#define T_RING_CREATE lat_seqring_create
#define T_RING_WAIT_PUSH lat_seqring_wait_push
#define T_RING_WAIT_POP lat_seqring_wait_pop
#define T_RING_COUNT lat_seqring_count
#define T_RING_FREE lat_seqring_free
#include "t_ring_run.h"

#define MAX_ELEM 200

static void *producer(void *arg)
{
	struct run *ru = arg;
	unsigned char e[MAX_ELEM];

	pin(0);
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

	pin(1);
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

	if (!run_init(&ru, capacity, size, kind))
		return;
	lat_seqring_test_set_pos(ru.r, start);
	run_check_and_free(&ru, capacity, kind,
			   run_threads(&ru, producer, consumer));
}

int main(int argc, char **argv)
{
	static const enum lat_wait_kind kinds[] = {
		LAT_WAIT_SPIN, LAT_WAIT_YIELD, LAT_WAIT_BLOCK,
	};

	ring_test_setup(argc, argv);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		test_transfer(8, 64, 0, kinds[k]);
		test_transfer(4096, 8, 0, kinds[k]);
		test_transfer(2, 48, UINT64_MAX - 7, kinds[k]);
		test_transfer(4, 200, UINT64_MAX - 2, kinds[k]);
		test_stop(kinds[k]);
	}
	T_DONE();
}
