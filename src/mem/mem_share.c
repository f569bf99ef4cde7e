/*
 * lat_mem false sharing: two threads, two counters, a chosen distance
 * between them. The increments are locked read-modify-writes, so each
 * one needs its line exclusive: when the other core holds the line, the
 * increment waits for it to come over.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/mem.h"
#include "mem_int.h"

/* Each side on its own 128-byte-aligned region: its count and histogram
 * header are written on every increment, and sharing a line with the
 * other side's would be false sharing in the harness itself. */
struct share_side {
	_Alignas(LAT_PAD_BYTES) _Atomic uint64_t *ctr;
	int cpu;                  /* where it must run to go real-time */
	bool fifo_asked, fifo_got;
	struct lat_hist h;        /* batch cycles, this thread's */
	uint64_t count;           /* increments done */
	lat_cycles_t deadline;    /* each side ends by its own deadline */
	bool timer;               /* side 0 also stops side 1 */
};

struct share_job {
	_Alignas(LAT_PAD_BYTES) _Atomic int stop;
	_Alignas(LAT_PAD_BYTES) struct share_side side[2];
};

static void share_loop(struct share_job *j, struct share_side *s)
{
	s->fifo_got = s->fifo_asked && lat_mem_fifo_enter(s->cpu);
	s->deadline += lat_clock_now();
	/* relaxed: stop is a request, not a message carrying data; the
	 * results are read after the joins */
	while (!atomic_load_explicit(&j->stop, memory_order_relaxed)) {
		/* a batch per stamp pair: one increment alone would be
		 * mostly stamp and below a VM counter's 10 ns steps */
		lat_cycles_t t0 = lat_clock_start(), t1;

		for (int k = 0; k < LAT_MEM_SHARE_BATCH; k++)
			atomic_fetch_add_explicit(s->ctr, 1,
						  memory_order_relaxed);
		t1 = lat_clock_end();
		lat_hist_record(&s->h, (int64_t)(t1 - t0));
		s->count += LAT_MEM_SHARE_BATCH;
		if (t1 >= s->deadline) {
			if (s->timer)
				atomic_store_explicit(&j->stop, 1,
						      memory_order_relaxed);
			break;
		}
	}
	lat_mem_fifo_leave(s->fifo_got);
}

static void side0(void *arg)
{
	struct share_job *j = arg;

	share_loop(j, &j->side[0]);
}

static void side1(void *arg)
{
	struct share_job *j = arg;

	share_loop(j, &j->side[1]);
}

int lat_mem_share_run(const struct lat_mem_share_cfg *cfg,
		      const struct lat_clock_cal *cal,
		      struct lat_hist *cycles,
		      struct lat_mem_share_result *out)
{
	struct lat_bench_place place;
	struct share_job *j;
	struct lat_hist all = { 0 };
	char *block;
	int rc;

	if (!cfg || !cal || !out || cfg->cpu[0] < 0 || cfg->cpu[1] < 0 ||
	    cfg->offset < 8 || cfg->offset % 8 || cfg->offset > 4096 ||
	    !(cfg->duration_ns > 0) || cal->cycles_per_ns <= 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	block = aligned_alloc(LAT_PAD_BYTES, 4096 + LAT_PAD_BYTES);
	j = aligned_alloc(LAT_PAD_BYTES, sizeof(*j));
	if (!block || !j) {
		free(block);
		free(j);
		return -ENOMEM;
	}
	memset(j, 0, sizeof(*j));
	memset(block, 0, 4096 + LAT_PAD_BYTES);
	rc = lat_hist_init(&j->side[0].h, 1, INT64_C(1) << 40,
			   LAT_HIST_DEFAULT_SIG_FIGS);
	if (!rc)
		rc = lat_hist_init(&j->side[1].h, 1, INT64_C(1) << 40,
				   LAT_HIST_DEFAULT_SIG_FIGS);
	if (!rc)
		rc = lat_hist_init(&all, 1, INT64_C(1) << 40,
				   LAT_HIST_DEFAULT_SIG_FIGS);
	if (rc)
		goto out;
	atomic_init(&j->stop, 0);
	j->side[0].ctr = (_Atomic uint64_t *)block;
	j->side[1].ctr = (_Atomic uint64_t *)(block + cfg->offset);
	atomic_init(j->side[0].ctr, 0);
	atomic_init(j->side[1].ctr, 0);
	j->side[0].timer = true;
	/* relative here; each side adds its start time. Side 1 runs a
	 * little longer, so normally side 0's stop ends both together */
	j->side[0].deadline = lat_clock_from_ns(cal,
						(lat_ns_t)cfg->duration_ns);
	j->side[1].deadline = j->side[0].deadline + j->side[0].deadline / 4;
	for (int s = 0; s < 2; s++) {
		j->side[s].cpu = cfg->cpu[s];
		j->side[s].fifo_asked = cfg->fifo && cfg->cpu[0] != cfg->cpu[1];
	}

	memset(&place, 0, sizeof(place));
	place.cpu[0] = cfg->cpu[0];
	place.cpu[1] = cfg->cpu[1];
	place.pinned = true;
	rc = lat_bench_pair(&place, side0, side1, j, &out->elapsed_ns);
	if (rc)
		goto out;
	/* after the joins: the threads' writes are visible */
	for (int s = 0; s < 2; s++) {
		out->increments[s] = j->side[s].count;
		lat_hist_add(&all, &j->side[s].h);
	}
	out->fifo = j->side[0].fifo_got && j->side[1].fifo_got;
	out->exact = atomic_load(j->side[0].ctr) == j->side[0].count &&
		     atomic_load(j->side[1].ctr) == j->side[1].count;
	out->per_s = (double)(out->increments[0] + out->increments[1]) /
		     out->elapsed_ns * 1e9;
	out->p50_ns = (double)lat_hist_value_at_percentile(&all, 50) /
		      LAT_MEM_SHARE_BATCH / cal->cycles_per_ns;
	out->mean_ns = 2 * out->elapsed_ns /
		       (double)(out->increments[0] + out->increments[1]);
	if (cycles)
		lat_hist_add(cycles, &all);
out:
	lat_hist_destroy(&j->side[0].h);
	lat_hist_destroy(&j->side[1].h);
	lat_hist_destroy(&all);
	free(j);
	free(block);
	return rc;
}
