/*
 * lat_mem read-mostly: N readers and one writer over a 16-entry table,
 * behind a pthread rwlock, an RCU-style pointer swap, or 64 padded
 * mutexes (a reader takes only its shard's; the writer takes them all).
 *
 * What separates them is what a reader writes. A rwlock reader writes
 * the lock word, one line shared by every reader, twice per lookup, so
 * with readers on two cores that line moves on nearly every lookup. A
 * sharded reader writes only its own shard's mutex. An RCU-style reader
 * writes only its own slot and never waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/mem.h"
#include "latlab/wait.h"
#include "mem_int.h"

/* Every entry carries the table's version; a lookup that sees two
 * versions saw a half-written table. */
struct table {
	_Alignas(LAT_PAD_BYTES) uint64_t e[LAT_MEM_RM_TABLE];
};

struct shard {
	_Alignas(LAT_PAD_BYTES) pthread_mutex_t m;
};

/* One 128-byte-aligned region per reader: its counts and histogram
 * header change on every lookup (adjacent readers would otherwise
 * falsely share lines and every kind would pay for it). */
struct rm_reader {
	_Alignas(LAT_PAD_BYTES) struct rm *rm;
	int id;
	int cpu;
	int pin_err;
	uint64_t reads;
	uint64_t torn;
	struct lat_hist h;
};

struct rm {
	_Alignas(LAT_PAD_BYTES) _Atomic int stop;
	_Alignas(LAT_PAD_BYTES) _Atomic int ready;
	_Atomic int go;
	_Atomic int reading;       /* readers past their first lookup */
	enum lat_mem_rm_kind kind;
	double interval_ns;
	pthread_rwlock_t rw;
	struct table *tab;         /* rwlock and sharded: the one table */
	struct table *spare;       /* rcu: the writer's next table */
	struct lat_mem_rcu rcu;
	struct shard *shards;      /* LAT_MEM_RM_SHARDS */
	_Alignas(LAT_PAD_BYTES) uint64_t writes; /* the writer's own */
	struct lat_hist wh;
};

static void start_together(struct rm *rm)
{
	/* release pairs with the starter's acquire load of ready */
	atomic_fetch_add_explicit(&rm->ready, 1, memory_order_release);
	/* acquire pairs with the release store of go */
	while (!atomic_load_explicit(&rm->go, memory_order_acquire))
		sched_yield(); /* readers may outnumber the CPUs */
}

static inline uint64_t check(const struct table *t, unsigned key,
			     uint64_t *torn)
{
	uint64_t v = t->e[key];

	*torn += v != t->e[0];
	return v;
}

static void *reader(void *arg)
{
	struct rm_reader *r = arg;
	struct rm *rm = r->rm;
	struct shard *mine = rm->shards ?
		&rm->shards[r->id % LAT_MEM_RM_SHARDS] : NULL;
	uint64_t sum = 0;
	unsigned key = 0;

	if (r->cpu >= 0)
		r->pin_err = lat_topo_pin_self(r->cpu);
	start_together(rm);
	while (!atomic_load_explicit(&rm->stop, memory_order_relaxed)) {
		lat_cycles_t t0 = lat_clock_start(), t1;
		const struct table *t;

		key = (key + 1) % LAT_MEM_RM_TABLE;
		switch (rm->kind) {
		case LAT_MEM_RM_RWLOCK:
			pthread_rwlock_rdlock(&rm->rw);
			sum += check(rm->tab, key, &r->torn);
			pthread_rwlock_unlock(&rm->rw);
			break;
		case LAT_MEM_RM_RCU:
			t = lat_mem_rcu_read_begin(&rm->rcu, r->id);
			sum += check(t, key, &r->torn);
			lat_mem_rcu_read_end(&rm->rcu, r->id);
			break;
		case LAT_MEM_RM_SHARDED:
			pthread_mutex_lock(&mine->m);
			sum += check(rm->tab, key, &r->torn);
			pthread_mutex_unlock(&mine->m);
			break;
		}
		t1 = lat_clock_end();
		lat_hist_record(&r->h, (int64_t)(t1 - t0));
		/* release pairs with the starter's acquire: one lookup done */
		if (r->reads++ == 0)
			atomic_fetch_add_explicit(&rm->reading, 1,
						  memory_order_release);
	}
	lat_bench_keep(sum);
	return NULL;
}

static void fill(struct table *t, uint64_t version)
{
	for (int i = 0; i < LAT_MEM_RM_TABLE; i++)
		t->e[i] = version;
}

static void update(struct rm *rm, uint64_t version)
{
	struct table *old;

	switch (rm->kind) {
	case LAT_MEM_RM_RWLOCK:
		pthread_rwlock_wrlock(&rm->rw);
		fill(rm->tab, version);
		pthread_rwlock_unlock(&rm->rw);
		break;
	case LAT_MEM_RM_RCU:
		/* copy-update: the spare is no reader's, then swap, then
		 * wait out the readers of the old one before reusing it */
		fill(rm->spare, version);
		old = lat_mem_rcu_publish(&rm->rcu, rm->spare);
		lat_mem_rcu_synchronize(&rm->rcu);
		rm->spare = old;
		break;
	case LAT_MEM_RM_SHARDED:
		/* always in index order: two writers could not deadlock */
		for (int i = 0; i < LAT_MEM_RM_SHARDS; i++)
			pthread_mutex_lock(&rm->shards[i].m);
		fill(rm->tab, version);
		for (int i = LAT_MEM_RM_SHARDS - 1; i >= 0; i--)
			pthread_mutex_unlock(&rm->shards[i].m);
		break;
	}
}

static void *writer(void *arg)
{
	struct rm *rm = arg;
	uint64_t version = 1;

	start_together(rm);
	while (!atomic_load_explicit(&rm->stop, memory_order_relaxed)) {
		lat_cycles_t t0, t1;

		lat_mem_sleep_ns(rm->interval_ns);
		t0 = lat_clock_start();
		update(rm, ++version);
		t1 = lat_clock_end();
		lat_hist_record(&rm->wh, (int64_t)(t1 - t0));
		rm->writes++;
	}
	return NULL;
}

const char *lat_mem_rm_kind_name(enum lat_mem_rm_kind k)
{
	switch (k) {
	case LAT_MEM_RM_RWLOCK:
		return "rwlock";
	case LAT_MEM_RM_RCU:
		return "rcu";
	case LAT_MEM_RM_SHARDED:
		return "sharded";
	}
	return "?";
}

/* Everything lat_mem_rm_run sets up, in one place to tear down. */
static void rm_teardown(struct rm *rm, struct rm_reader *rd, int n)
{
	for (int i = 0; i < n; i++)
		lat_hist_destroy(&rd[i].h);
	lat_hist_destroy(&rm->wh);
	if (rm->kind == LAT_MEM_RM_RCU) {
		free(atomic_load(&rm->rcu.ptr));
		lat_mem_rcu_destroy(&rm->rcu);
	}
	if (rm->shards)
		for (int i = 0; i < LAT_MEM_RM_SHARDS; i++)
			pthread_mutex_destroy(&rm->shards[i].m);
	if (rm->kind == LAT_MEM_RM_RWLOCK)
		pthread_rwlock_destroy(&rm->rw);
	free(rm->shards);
	free(rm->tab);
	free(rm->spare);
	free(rd);
	free(rm);
}

static int rm_setup(const struct lat_mem_rm_cfg *cfg, struct rm *rm)
{
	pthread_rwlockattr_t a;
	int rc;

	rm->kind = cfg->kind;
	rm->interval_ns = cfg->write_interval_ns;
	rc = lat_hist_init(&rm->wh, 1, INT64_C(1) << 42,
			   LAT_HIST_DEFAULT_SIG_FIGS);
	if (rc)
		return rc;
	rm->tab = aligned_alloc(LAT_PAD_BYTES, sizeof(struct table));
	if (!rm->tab)
		return -ENOMEM;
	fill(rm->tab, 1);
	switch (cfg->kind) {
	case LAT_MEM_RM_RWLOCK:
		/* writer-preferring: glibc's default prefers readers, and
		 * two readers whose sections overlap could starve the writer
		 * for the whole run */
		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(
			&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		rc = -pthread_rwlock_init(&rm->rw, &a);
		pthread_rwlockattr_destroy(&a);
		return rc;
	case LAT_MEM_RM_RCU:
		rm->spare = aligned_alloc(LAT_PAD_BYTES, sizeof(struct table));
		if (!rm->spare)
			return -ENOMEM;
		fill(rm->spare, 0);
		rc = lat_mem_rcu_init(&rm->rcu, cfg->readers, rm->tab);
		if (!rc)
			rm->tab = NULL; /* now the domain's */
		return rc;
	case LAT_MEM_RM_SHARDED:
		rm->shards = aligned_alloc(LAT_PAD_BYTES,
					   LAT_MEM_RM_SHARDS *
					   sizeof(struct shard));
		if (!rm->shards)
			return -ENOMEM;
		for (int i = 0; i < LAT_MEM_RM_SHARDS; i++)
			pthread_mutex_init(&rm->shards[i].m, NULL);
		return 0;
	}
	return -EINVAL;
}

int lat_mem_rm_run(const struct lat_mem_rm_cfg *cfg,
		   struct lat_hist *read_cycles, struct lat_hist *write_cycles,
		   struct lat_mem_rm_result *out)
{
	pthread_t th[LAT_MEM_RM_MAX_READERS + 1];
	struct rm_reader *rd;
	struct rm *rm;
	int n, started = 0, rc;
	double t0, t1;

	if (!cfg || !out || cfg->readers < 1 ||
	    cfg->readers > LAT_MEM_RM_MAX_READERS || !cfg->cpus ||
	    cfg->n_cpus < 1 || !(cfg->duration_ns > 0) ||
	    !(cfg->write_interval_ns >= 0) || cfg->kind < LAT_MEM_RM_RWLOCK ||
	    cfg->kind > LAT_MEM_RM_SHARDED)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	n = cfg->readers;
	rm = aligned_alloc(LAT_PAD_BYTES, sizeof(*rm));
	rd = aligned_alloc(LAT_PAD_BYTES, (size_t)n * sizeof(*rd));
	if (!rm || !rd) {
		free(rm);
		free(rd);
		return -ENOMEM;
	}
	memset(rm, 0, sizeof(*rm));
	memset(rd, 0, (size_t)n * sizeof(*rd));
	atomic_init(&rm->stop, 0);
	atomic_init(&rm->ready, 0);
	atomic_init(&rm->go, 0);
	atomic_init(&rm->reading, 0);
	rc = rm_setup(cfg, rm);
	for (int i = 0; i < n && !rc; i++) {
		rd[i] = (struct rm_reader){ .rm = rm, .id = i,
			.cpu = cfg->cpus[i % cfg->n_cpus] };
		rc = lat_hist_init(&rd[i].h, 1, INT64_C(1) << 42,
				   LAT_HIST_DEFAULT_SIG_FIGS);
	}
	if (rc) {
		rm_teardown(rm, rd, n);
		return rc;
	}
	for (; started < n; started++) {
		rc = -pthread_create(&th[started], NULL, reader, &rd[started]);
		if (rc)
			break;
	}
	if (!rc) {
		rc = -pthread_create(&th[n], NULL, writer, rm);
		if (!rc)
			started++;
	}
	/* acquire pairs with each thread's release increment of ready */
	while (atomic_load_explicit(&rm->ready, memory_order_acquire) <
	       started)
		sched_yield();
	/* release pairs with the threads' acquire loads of go */
	atomic_store_explicit(&rm->go, 1, memory_order_release);
	/* the run's clock starts when every reader is reading: on a loaded
	 * machine a reader may wait longer than the run for its CPU, and
	 * a row with an idle reader would not be N readers */
	while (!rc && atomic_load_explicit(&rm->reading,
					   memory_order_acquire) < n)
		sched_yield();
	t0 = lat_bench_now_ns();
	/* in slices, so a stop request ends a long run within ~50 ms */
	for (double left = cfg->duration_ns; !rc && left > 0; left -= 50e6) {
		if (cfg->stop && cfg->stop(cfg->stop_ctx))
			break;
		lat_mem_sleep_ns(left < 50e6 ? left : 50e6);
	}
	atomic_store_explicit(&rm->stop, 1, memory_order_relaxed);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	t1 = lat_bench_now_ns();
	if (!rc) {
		/* after the joins: every thread's counts are visible */
		for (int i = 0; i < n; i++) {
			out->reads += rd[i].reads;
			out->torn += rd[i].torn;
			if (rd[i].pin_err && !rc)
				rc = rd[i].pin_err;
			if (read_cycles)
				lat_hist_add(read_cycles, &rd[i].h);
		}
		out->writes = rm->writes;
		if (write_cycles)
			lat_hist_add(write_cycles, &rm->wh);
		out->elapsed_ns = t1 - t0;
		out->reads_per_s = (double)out->reads / out->elapsed_ns * 1e9;
		out->writes_per_s = (double)out->writes / out->elapsed_ns * 1e9;
	}
	rm_teardown(rm, rd, n);
	return rc;
}
