/*
 * The aggregator: a cold thread (on a CPU no hot thread uses when there
 * is one, else unpinned and yielding every slice) that drains the sample
 * ring, converts stamps to ns deltas, checks them, records the per-delta and
 * per-interval histograms and writes the interval log.
 *
 * pipe_agg_consume() is the one function every sample passes through
 * (the place for a flight recorder or any other per-sample consumer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pipe_int.h"

/* Samples handled between two looks at the consumer's done flag. */
#define AGG_BURST 256

int pipe_agg_init(struct lat_pipe *p)
{
	struct pipe_agg *a = &p->agg;
	int stages = p->cfg.stages;

	memset(a, 0, sizeof(*a));
	a->n_deltas = p->cfg.stamps ? lat_pipe_n_deltas(stages) : 1;
	for (int i = 0; i < a->n_deltas; i++) {
		int rc;

		if (p->cfg.stamps)
			lat_pipe_delta_name(stages, i, a->name[i],
					    sizeof(a->name[i]));
		else
			snprintf(a->name[i], sizeof(a->name[i]), "e2e");
		rc = lat_hist_init(&a->total[i], 1, LAT_PIPE_HIST_MAX_NS,
				   LAT_PIPE_HIST_SIG_FIGS);
		if (!rc && p->cfg.hlog)
			rc = lat_hist_init(&a->interval[i], 1,
					   LAT_PIPE_HIST_MAX_NS,
					   LAT_PIPE_HIST_SIG_FIGS);
		if (rc) {
			pipe_agg_destroy(a);
			return rc;
		}
	}
	/* USE: the hot rings' and the sample ring's depth, 0..capacity */
	a->n_rings = stages + 2;
	for (int i = 0; i < a->n_rings; i++) {
		int rc = lat_hist_init(&a->depth[i], 1,
				       (int64_t)pipe_ring_capacity(p, i),
				       LAT_PIPE_HIST_SIG_FIGS);

		if (rc) {
			pipe_agg_destroy(a);
			return rc;
		}
	}
	/* quota: a freeze of half of (period - quota) or more is a
	 * throttling stall, far above anything else this pipeline does */
	if (p->quota.entered)
		a->freeze_cycles = lat_clock_from_ns(
			&p->cal, (lat_ns_t)(p->quota.period_us -
					    (uint64_t)p->quota.quota_us) * 500);
	return 0;
}

void pipe_agg_destroy(struct pipe_agg *a)
{
	for (int i = 0; i < LAT_PIPE_MAX_DELTAS; i++) {
		lat_hist_destroy(&a->total[i]);
		lat_hist_destroy(&a->interval[i]);
	}
	for (int i = 0; i < LAT_PIPE_MAX_HOT; i++)
		lat_hist_destroy(&a->depth[i]);
	lat_hlog_writer_close(a->hlog);
	a->hlog = NULL;
}

/* @end - @begin in ns; a stamp that went backwards counts and gives 0. */
static int64_t delta_ns(struct lat_pipe *p, lat_cycles_t begin,
			lat_cycles_t end)
{
	if (end < begin) {
		p->agg.clock_backwards++;
		return 0;
	}
	return (int64_t)lat_clock_to_ns(&p->cal, end - begin);
}

/* Stamps of @m in order: t0, t_sent, (begin, end) per stage, t_final. */
static int stamps_of(const struct lat_pipe_msg *m, int stages,
		     lat_cycles_t *s)
{
	int n = 0;

	s[n++] = m->t0;
	s[n++] = m->t_sent;
	for (int k = 0; k < stages; k++) {
		s[n++] = m->work[k].begin;
		s[n++] = m->work[k].end;
	}
	s[n++] = m->t_final;
	return n;
}

static void write_intervals(struct lat_pipe *p, double length_s)
{
	struct pipe_agg *a = &p->agg;
	double start_s = (double)a->interval_index * p->cfg.interval_s;

	if (!a->interval_dirty)
		return;
	for (int i = 0; i < a->n_deltas; i++) {
		int rc = lat_hlog_writer_write_interval(a->hlog, a->name[i],
							start_s, length_s,
							&a->interval[i]);

		if (rc && !a->hlog_error)
			a->hlog_error = rc;
		if (!rc)
			a->hlog_intervals++;
		lat_hist_reset(&a->interval[i]);
	}
	a->interval_dirty = false;
}

/* Close the interval log's current interval if @t0 lies beyond it. */
static void roll_interval(struct lat_pipe *p, lat_cycles_t t0)
{
	struct pipe_agg *a = &p->agg;
	lat_cycles_t start = atomic_load_explicit(&p->start,
						  memory_order_relaxed);
	uint64_t idx = t0 > start ? (t0 - start) / a->interval_cycles : 0;

	if (idx == a->interval_index)
		return;
	write_intervals(p, p->cfg.interval_s);
	a->interval_index = idx;
}

static void record(struct lat_pipe *p, int i, int64_t ns)
{
	struct pipe_agg *a = &p->agg;

	/* a refused value lands in overflow_count, which is reported */
	lat_hist_record(&a->total[i], ns);
	if (a->hlog)
		lat_hist_record(&a->interval[i], ns);
}

/*
 * A throttled group runs no thread: the consumer's stamps stop for longer
 * than the gap between the intended send times explains. Each freeze is
 * kept by its end, the first stamp after it: the kernel lifts a throttle
 * when it refills the quota, at a period boundary.
 */
static void watch_freeze(struct pipe_agg *a, const struct lat_pipe_msg *m)
{
	lat_cycles_t out, planned;

	if (!a->freeze_cycles || !a->recorded ||
	    m->t_final <= a->last_final || m->t0 < a->last_t0)
		return;
	out = m->t_final - a->last_final;
	planned = m->t0 - a->last_t0;
	if (out > planned && out - planned >= a->freeze_cycles &&
	    a->spikes < LAT_PIPE_MAX_SPIKES)
		a->spike_t0[a->spikes++] = m->t_final;
}

/* Every sample passes through here, exactly once. */
static void pipe_agg_consume(struct lat_pipe *p, const struct lat_pipe_msg *m)
{
	struct pipe_agg *a = &p->agg;
	lat_cycles_t s[LAT_PIPE_MAX_DELTAS];
	int64_t d[LAT_PIPE_MAX_DELTAS];
	int n = a->n_deltas;

	if (a->hlog)
		roll_interval(p, m->t0);
	d[n - 1] = delta_ns(p, m->t0, m->t_final);
	if (p->cfg.stamps) {
		int ns = stamps_of(m, p->cfg.stages, s);
		int64_t sum = 0;

		for (int i = 0; i + 1 < ns; i++) {
			d[i] = delta_ns(p, s[i], s[i + 1]);
			sum += d[i];
		}
		/* each part is truncated to whole ns, so e2e exceeds the sum
		 * by less than one ns per part, and is never below it */
		if (d[n - 1] < sum || d[n - 1] > sum + (n - 1))
			a->sum_check_failures++;
	}
	for (int i = 0; i < n; i++)
		record(p, i, d[i]);
	a->interval_dirty = a->hlog != NULL;
	watch_freeze(a, m);
	a->recorded++;
	a->last_t0 = m->t0;
	a->last_final = m->t_final;
	if (p->cfg.hooks.sample)
		p->cfg.hooks.sample(p->cfg.hooks.ctx, m, d, n);
}

/*
 * USE: how full each ring is, sampled here, off the hot path, about every
 * millisecond: reading a ring's two indices is all it takes.
 */
static void look_at_rings(struct lat_pipe *p)
{
	struct pipe_agg *a = &p->agg;
	lat_cycles_t now = lat_clock_now();

	if ((int64_t)(now - a->next_look) < 0)
		return;
	a->next_look = now + a->look_every;
	for (int i = 0; i < a->n_rings; i++) {
		size_t depth = pipe_ring_count(p, i);

		lat_hist_record(&a->depth[i], (int64_t)depth);
		a->nonempty[i] += depth > 0;
		a->full[i] += depth >= pipe_ring_capacity(p, i);
		if (depth > a->depth_max[i])
			a->depth_max[i] = depth;
	}
}

/* Sleep when the ring is empty: at 200k events/s, 1 ms is 200 samples,
 * far below the ring's 65,536 slots, and costs 1,000 wake-ups a second.
 * Measured on a 2-vCPU VM (docs/pipeline.md): waking every 10 ms made
 * the e2e p99.9 1.35x worse (longer bursts), every 250 us changed
 * nothing; a sleep long enough to fill the ring drops samples, counted */
static void idle(const struct lat_pipe *p)
{
	double ns = p->cfg.agg_idle_ns > 0 ? p->cfg.agg_idle_ns
					   : LAT_PIPE_AGG_IDLE_NS;
	struct timespec ts = { (time_t)(ns / 1e9),
			       (long)(ns - (double)(time_t)(ns / 1e9) * 1e9) };

	nanosleep(&ts, NULL);
}

void *pipe_agg_main(void *arg)
{
	struct lat_pipe *p = arg;
	struct pipe_agg *a = &p->agg;
	struct lat_pipe_msg m;
	const size_t size = p->msg_size;
	const unsigned slice = p->cfg.agg_slice;

	if (p->cfg.agg_cpu >= 0)
		(void)lat_topo_pin_self(p->cfg.agg_cpu); /* cold: best effort */
	/* stages beyond K never travel: keep them zero for the hooks */
	memset(&m, 0, sizeof(m));
	a->interval_cycles = lat_clock_from_ns(&p->cal,
					       (lat_ns_t)(p->cfg.interval_s *
							  1e9));
	if (!a->interval_cycles)
		a->interval_cycles = 1;
	a->look_every = lat_clock_from_ns(&p->cal, 1000000);
	a->next_look = lat_clock_now();
	pipe_sched_read(&a->sched0);
	for (;;) {
		/* acquire pairs with the consumer's release of done; read it
		 * before popping so that the pops after it see every sample */
		bool done = atomic_load_explicit(&p->consumer_done,
						 memory_order_acquire);
		size_t n = 0;
		unsigned to_slice = slice; /* a countdown: no division per sample */

		while (n < AGG_BURST &&
		       lat_spsc_try_pop_raw(p->samples, &m, size)) {
			pipe_agg_consume(p, &m);
			n++;
			/* woken on a hot thread's CPU, we preempted it: hand
			 * the CPU back every slice (a no-op syscall when
			 * nothing else wants it), unless we are falling
			 * behind: a full sample ring drops samples */
			if (slice && --to_slice == 0) {
				to_slice = slice;
				if (lat_spsc_count(p->samples) <
				    LAT_PIPE_SAMPLE_RING / 4)
					sched_yield();
			}
		}
		if (!n && done)
			break;
		look_at_rings(p);
		if (!n)
			idle(p);
	}
	pipe_sched_read(&a->sched1);
	if (a->hlog && a->recorded) {
		lat_cycles_t start = atomic_load_explicit(&p->start,
							  memory_order_relaxed);
		lat_cycles_t span = a->last_t0 - start;
		double end_s = (double)lat_clock_to_ns(&p->cal, span) / 1e9;
		double len = end_s - (double)a->interval_index *
				     p->cfg.interval_s;

		write_intervals(p, len > 0 ? len : 0);
	}
	/* release pairs with lat_pipe_progress/wait: the results above are
	 * complete once finished reads true */
	atomic_store_explicit(&p->finished, true, memory_order_release);
	return NULL;
}
