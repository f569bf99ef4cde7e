/*
 * Description: lat_mem's threaded parts, no timings asserted.
 * RCU-style reclamation: readers check every object they are handed
 * (never one the writer has retired: it is poisoned before it is freed,
 * and under ThreadSanitizer any access to it after the grace period is a
 * reported race); a grace period waits for a reader that began before
 * the swap; every object allocated is freed exactly once. The read-mostly
 * runs see no torn table under any kind; the false-sharing run's counts
 * are exact.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/mem.h"
#include "t_test.h"

#define LIVE 0x4c495645u
#define DEAD 0xdeadbeefu
#define SLOTS 8

struct obj {
	unsigned magic;
	uint64_t version;
	uint64_t v[SLOTS];
};

#ifdef LATLAB_SANITIZED
#define UPDATES 500
#else
#define UPDATES 1000
#endif
#define READERS 2

static struct lat_mem_rcu rcu;
static _Atomic int writer_done, readers_up;
static _Atomic long allocs, frees;

struct reader_res {
	int id;
	uint64_t reads, bad, backwards;
};

static void *reader(void *arg)
{
	struct reader_res *r = arg;
	uint64_t last = 0;

	/* acquire pairs with the writer's release store of writer_done */
	while (!atomic_load_explicit(&writer_done, memory_order_acquire)) {
		const struct obj *o = lat_mem_rcu_read_begin(&rcu, r->id);
		int ok = o->magic == LIVE;

		for (int i = 0; i < SLOTS; i++)
			ok &= o->v[i] == o->version;
		r->bad += !ok;
		r->backwards += o->version < last;
		last = o->version;
		lat_mem_rcu_read_end(&rcu, r->id);
		if (r->reads++ == 0)
			atomic_fetch_add(&readers_up, 1);
	}
	return NULL;
}

static struct obj *make(uint64_t version)
{
	struct obj *o = malloc(sizeof(*o));

	if (!o)
		abort();
	o->magic = LIVE;
	o->version = version;
	for (int i = 0; i < SLOTS; i++)
		o->v[i] = version;
	atomic_fetch_add(&allocs, 1);
	return o;
}

static void retire(struct obj *o)
{
	/* poison first: a reader still holding it would see DEAD */
	memset(o, 0xdd, sizeof(*o));
	o->magic = DEAD;
	free(o);
	atomic_fetch_add(&frees, 1);
}

static void test_rcu_reclamation(void)
{
	pthread_t t[READERS];
	struct reader_res res[READERS];
	uint64_t reads = 0;

	T_EQ_I64(lat_mem_rcu_init(&rcu, READERS, make(1)), 0);
	for (int i = 0; i < READERS; i++) {
		res[i] = (struct reader_res){ .id = i };
		T_EQ_I64(pthread_create(&t[i], NULL, reader, &res[i]), 0);
	}
	/* the writer starts once every reader is reading, so the updates
	 * always race with readers, however the machine schedules us */
	while (atomic_load(&readers_up) < READERS)
		sched_yield();
	for (uint64_t v = 2; v < UPDATES; v++) {
		struct obj *old = lat_mem_rcu_publish(&rcu, make(v));

		lat_mem_rcu_synchronize(&rcu);
		retire(old);
	}
	/* release pairs with the readers' acquire loads */
	atomic_store_explicit(&writer_done, 1, memory_order_release);
	for (int i = 0; i < READERS; i++) {
		pthread_join(t[i], NULL);
		T_EQ_I64(res[i].bad, 0);
		T_EQ_I64(res[i].backwards, 0);
		reads += res[i].reads;
	}
	T_CHECK(reads > 0);
	retire(atomic_load(&rcu.ptr));
	/* every object allocated was freed exactly once */
	T_EQ_I64(atomic_load(&allocs), UPDATES - 1);
	T_EQ_I64(atomic_load(&frees), atomic_load(&allocs));
	lat_mem_rcu_destroy(&rcu);
}

/* A grace period cannot end while a reader that began before the swap
 * is still inside its section; it ends once that reader leaves. */
static _Atomic int sync_done;

static void *synchronizer(void *arg)
{
	(void)arg;
	lat_mem_rcu_synchronize(&rcu);
	atomic_store(&sync_done, 1);
	return NULL;
}

static void test_grace_waits(void)
{
	static int a = 1, b = 2;
	pthread_t t;
	void *seen;

	T_EQ_I64(lat_mem_rcu_init(&rcu, 2, &a), 0);
	seen = lat_mem_rcu_read_begin(&rcu, 1); /* a section on the old */
	T_CHECK(seen == &a);
	T_CHECK(lat_mem_rcu_publish(&rcu, &b) == &a);
	T_EQ_I64(pthread_create(&t, NULL, synchronizer, NULL), 0);
	/* Until the synchronizer is seen waiting for reader 1 (or, wrongly,
	 * done): a count of yields would not do, since on a loaded machine
	 * it may not have run at all by then, and reader 1 would leave
	 * before it looked. */
	while (atomic_load(&rcu.grace_waits) == 0 &&
	       atomic_load(&sync_done) == 0)
		sched_yield();
	T_EQ_I64(atomic_load(&sync_done), 0);
	/* a new section of another reader sees the new object */
	T_CHECK(lat_mem_rcu_read_begin(&rcu, 0) == &b);
	lat_mem_rcu_read_end(&rcu, 0);
	lat_mem_rcu_read_end(&rcu, 1);
	pthread_join(t, NULL);
	T_EQ_I64(atomic_load(&sync_done), 1);
	T_CHECK(atomic_load(&rcu.grace_waits) >= 1);
	lat_mem_rcu_destroy(&rcu);
	T_EQ_I64(lat_mem_rcu_init(&rcu, 0, NULL), -22);
}

static void test_read_mostly(void)
{
	int cpus[2] = { 0, 0 };

	cpus[1] = sched_getcpu() >= 0 ? sched_getcpu() : 0;
	cpus[0] = cpus[1];
	for (int k = LAT_MEM_RM_RWLOCK; k <= LAT_MEM_RM_SHARDED; k++) {
		struct lat_mem_rm_cfg cfg = {
			.kind = (enum lat_mem_rm_kind)k, .readers = 2,
			.cpus = cpus, .n_cpus = 1, .duration_ns = 20e6,
			.write_interval_ns = 0,
		};
		struct lat_mem_rm_result res;
		struct lat_hist rh, wh;

		T_EQ_I64(lat_hist_init(&rh, 1, INT64_C(1) << 42, 3), 0);
		T_EQ_I64(lat_hist_init(&wh, 1, INT64_C(1) << 42, 3), 0);
		T_EQ_I64(lat_mem_rm_run(&cfg, &rh, &wh, &res), 0);
		T_EQ_I64(res.torn, 0);
		T_CHECK(res.reads > 0);
		T_CHECK(res.writes > 0);
		/* every read and write is in the histograms, none lost */
		T_EQ_I64(rh.total_count + rh.overflow_count, res.reads);
		T_EQ_I64(wh.total_count + wh.overflow_count, res.writes);
		lat_hist_destroy(&rh);
		lat_hist_destroy(&wh);
		cfg.readers = 0;
		T_EQ_I64(lat_mem_rm_run(&cfg, NULL, NULL, &res), -22);
	}
}

static void test_false_sharing_counts(void)
{
	struct lat_clock_cal cal;
	struct lat_mem_share_cfg cfg = { .offset = 8, .duration_ns = 5e6 };
	struct lat_mem_share_result res;
	struct lat_hist h;
	int cpu = sched_getcpu() >= 0 ? sched_getcpu() : 0;

	lat_clock_calibrate(&cal, 20);
	cfg.cpu[0] = cfg.cpu[1] = cpu;
	T_EQ_I64(lat_hist_init(&h, 1, INT64_C(1) << 40, 3), 0);
	T_EQ_I64(lat_mem_share_run(&cfg, &cal, &h, &res), 0);
	T_CHECK(res.exact);
	T_CHECK(res.increments[0] + res.increments[1] > 0);
	/* every batch timed, none lost */
	T_EQ_I64((h.total_count + h.overflow_count) * LAT_MEM_SHARE_BATCH,
		 res.increments[0] + res.increments[1]);
	T_CHECK(!res.fifo);
	cfg.offset = 12;
	T_EQ_I64(lat_mem_share_run(&cfg, &cal, NULL, &res), -22);
	lat_hist_destroy(&h);
}

int main(void)
{
	test_rcu_reclamation();
	test_grace_waits();
	test_read_mostly();
	test_false_sharing_counts();
	T_DONE();
}
