/*
 * The hot threads: producer, stages, consumer (and the noise thread).
 *
 * Each hot thread has exactly one place where its measured run begins
 * (hot_enter, after pinning and the start line) and one where it ends
 * (hot_leave): per-thread counters belong there, not in the loops.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latlab/pace.h"
#include "pipe_int.h"

/* Pin, wait at the start line; false when the run was aborted. */
static bool hot_enter(struct pipe_hot *h)
{
	struct lat_pipe *p = h->p;
	int go;

	if (p->cfg.pin)
		h->err = lat_topo_pin_self(p->cfg.cpu[h->index]);
	h->slice_err = pipe_sched_prepare(&p->cfg, &h->nice_err);
	if (p->cfg.hooks.thread_prepare)
		p->cfg.hooks.thread_prepare(p->cfg.hooks.ctx, h->index,
					    h->role);
	/* release pairs with the acquire in lat_pipe_start: our err is
	 * visible once our arrival is counted */
	atomic_fetch_add_explicit(&p->ready, 1, memory_order_release);
	/* yield, not spin: several threads may share one CPU here */
	while ((go = atomic_load_explicit(&p->go, memory_order_acquire)) ==
	       PIPE_WAIT)
		sched_yield();
	if (go != PIPE_GO)
		return false;
	/* the schedstat window holds the counters' window (USE checks
	 * one against the other) */
	pipe_sched_read(&h->sched0);
	if (p->cfg.hooks.thread_begin)
		p->cfg.hooks.thread_begin(p->cfg.hooks.ctx, h->index, h->role);
	return true;
}

static void hot_leave(struct pipe_hot *h)
{
	struct lat_pipe *p = h->p;

	h->ran_on = lat_topo_current_cpu();
	if (p->cfg.hooks.thread_end)
		p->cfg.hooks.thread_end(p->cfg.hooks.ctx, h->index, h->role);
	pipe_sched_read(&h->sched1);
}

/* Single-writer counter bump: a plain store, no locked instruction. */
static inline void bump(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed)
				 + 1, memory_order_relaxed);
}

static bool ring_has_space(void *ctx)
{
	return lat_seqring_can_push(ctx);
}

/*
 * Publish @m into q1. t_sent is the pacer's release time (its last clock
 * read, a few ns before the push: no extra stamp on the common path);
 * when q1 is full it is re-stamped before every further attempt, so the
 * successful one carries the time of publication after the wait for
 * space: pace = t_sent - t0 includes back-pressure from a full q1.
 */
static inline void publish(struct lat_seqring *q, struct lat_wait_pair *w,
			   struct lat_pipe_msg *m, size_t size, bool stamps,
			   lat_cycles_t released, struct lat_wait_stats *st)
{
	if (stamps)
		m->t_sent = released;
	while (!lat_seqring_try_push_raw(q, m, size)) {
		lat_wait_until(&w->space, ring_has_space, q, st);
		if (stamps)
			m->t_sent = lat_clock_start();
	}
	lat_wait_notify(&w->data, st);
}

/*
 * Wait for @due, spinning or (when the CPU is shared with the pipeline)
 * yielding, and yielding anyway while @due is more than @yield_above
 * away (0: never): whoever else wants this CPU gets the early time, and
 * the producer is back in its spin well before the send; the clock at
 * release, as lat_pace_wait returns it, or 0 when a stop came first.
 * lat_pace_wait itself would not look at the stop flag: at --rate 0.01
 * a Ctrl-C would wait up to 100 s for the next due time. The relaxed
 * load is of a line nobody writes until the stop.
 */
static inline lat_cycles_t pace_wait_or_stop(const atomic_bool *stop,
					     lat_cycles_t due, bool yielding,
					     lat_cycles_t yield_above)
{
	lat_cycles_t now;

	while ((int64_t)((now = lat_clock_now()) - due) < 0) {
		if (LAT_UNLIKELY(atomic_load_explicit(stop,
						      memory_order_relaxed)))
			return 0;
		if (yielding || (yield_above &&
				 (int64_t)(due - now) > (int64_t)yield_above))
			sched_yield();
		else
			lat_wait_pause();
	}
	return now;
}

static void push_end(struct lat_seqring *q, struct lat_wait_pair *w,
		     size_t size, struct lat_wait_stats *st)
{
	struct lat_pipe_msg end;

	memset(&end, 0, sizeof(end));
	end.seq = PIPE_SEQ_END;
	lat_seqring_wait_push(q, w, &end, size, NULL, st);
}

/*
 * pace_sleep_ns: sleep while the next due time is more than @above away,
 * leaving the last @above to the spin or yield. A producer that shares
 * its CPU with a loaded machine then gives the CPU away instead of
 * taking turns with every neighbour, and wakes from a timer rather than
 * waiting for its next turn. Slices of at most 1 ms keep a stop prompt.
 */
static void pace_sleep(const atomic_bool *stop, lat_cycles_t due,
		       lat_cycles_t above, const struct lat_clock_cal *cal)
{
	for (;;) {
		int64_t early = (int64_t)(due - lat_clock_now());
		lat_ns_t ns;
		struct timespec ts;

		if (early <= (int64_t)above ||
		    atomic_load_explicit(stop, memory_order_relaxed))
			return;
		ns = lat_clock_to_ns(cal, (lat_cycles_t)early - above);
		if (ns > 1000000)
			ns = 1000000;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)ns;
		nanosleep(&ts, NULL);
	}
}

void *pipe_producer_main(void *arg)
{
	struct pipe_hot *h = arg;
	struct lat_pipe *p = h->p;
	const struct lat_pipe_config *c = &p->cfg;
	struct lat_seqring *q = p->ring[0];
	struct lat_wait_pair *w = &p->wait[0];
	const size_t size = p->msg_size;
	const bool stamps = c->stamps, yielding = c->pace_yield;
	const lat_cycles_t sleep_above =
		c->pace_sleep_ns > 0 ? lat_clock_from_ns(&p->cal,
							  (lat_ns_t)c->pace_sleep_ns)
				     : 0;
	const lat_cycles_t yield_above =
		c->pace_yield_above_ns > 0
			? lat_clock_from_ns(&p->cal,
					    (lat_ns_t)c->pace_yield_above_ns)
			: 0;
	struct lat_pipe_msg m;
	struct lat_pace pace;
	lat_cycles_t released;
	uint64_t seq;

	memset(&m, 0, sizeof(m));
	if (!hot_enter(h))
		return NULL;
	/* the config was checked, so this cannot fail; if it did, produce
	 * nothing rather than garbage, and say why */
	h->err = lat_pace_init(&pace, c->arrivals, c->rate, 1, &p->cal,
			       atomic_load_explicit(&p->start,
						    memory_order_relaxed),
			       c->seed);
	for (seq = 0; !h->err && seq < c->events; seq++) {
		if (atomic_load_explicit(&p->stop, memory_order_relaxed))
			break;
		m.seq = seq;
		m.t0 = lat_pace_due(&pace);
		if (sleep_above)
			pace_sleep(&p->stop, m.t0, sleep_above, &p->cal);
		released = pace_wait_or_stop(&p->stop, m.t0, yielding,
					     yield_above);
		if (LAT_UNLIKELY(!released))
			break;
		lat_pace_advance(&pace);
		publish(q, w, &m, size, stamps, released, &h->wait);
		if ((seq & 1023) == 1023)
			atomic_store_explicit(&p->produced_pub, seq + 1,
					      memory_order_relaxed);
	}
	h->count = seq;
	atomic_store_explicit(&p->produced_pub, seq, memory_order_relaxed);
	push_end(q, w, size, &h->wait);
	hot_leave(h);
	return NULL;
}

/* --alloc: one heap block per event, touched once per page. */
static void alloc_touch_free(struct pipe_hot *h, size_t bytes, uint64_t seq)
{
	unsigned char *b = malloc(bytes);

	if (!b) {
		h->alloc_failures++;
		return;
	}
	for (size_t i = 0; i < bytes; i += 4096)
		b[i] = (unsigned char)seq;
	b[bytes - 1] = (unsigned char)seq;
	/* the block escapes into an opaque asm, so the compiler cannot
	 * remove the malloc/free pair */
	__asm__ __volatile__("" : : "r"(b) : "memory");
	free(b);
}

/* --stall-at (up to 60 s): cut short by a stop, so Ctrl-C is prompt. */
static void stall(const atomic_bool *stop, lat_cycles_t cycles)
{
	lat_cycles_t until = lat_clock_now() + cycles;

	while ((int64_t)(lat_clock_now() - until) < 0 &&
	       !atomic_load_explicit(stop, memory_order_relaxed))
		lat_wait_pause();
}

void *pipe_stage_main(void *arg)
{
	struct pipe_hot *h = arg;
	struct lat_pipe *p = h->p;
	const int k = h->index; /* 1..K */
	struct lat_seqring *in = p->ring[k - 1], *out = p->ring[k];
	struct lat_wait_pair *win = &p->wait[k - 1], *wout = &p->wait[k];
	const size_t size = p->msg_size, alloc = p->cfg.alloc_bytes;
	const bool stamps = p->cfg.stamps, first = k == 1;
	const uint64_t steps = p->work.steps, stall_seq = p->cfg.stall_seq;
	/* stage 1's drawn work times, or NULL: every event the same */
	const struct lat_work_table *table = first && p->table.steps ?
					     &p->table : NULL;
	_Atomic uint64_t *counter = p->stage_counter;
	struct lat_pipe_msg m;
	uint64_t sink = 0;

	if (!hot_enter(h))
		return NULL;
	for (;;) {
		lat_seqring_wait_pop(in, win, &m, size, NULL, &h->wait);
		if (LAT_UNLIKELY(m.seq == PIPE_SEQ_END))
			break;
		if (stamps)
			m.work[k - 1].begin = lat_clock_start();
		sink += lat_work_run(table ? lat_work_table_steps(table, m.seq)
				   : steps, m.seq);
		if (first) {
			if (LAT_UNLIKELY(m.seq == stall_seq))
				stall(&p->stop, p->stall_cycles);
			if (alloc)
				alloc_touch_free(h, alloc, m.seq);
			bump(counter);
		}
		if (stamps)
			m.work[k - 1].end = lat_clock_end();
		lat_seqring_wait_push(out, wout, &m, size, NULL, &h->wait);
		h->count++;
	}
	lat_seqring_wait_push(out, wout, &m, size, NULL, &h->wait);
	h->sink = sink;
	hot_leave(h);
	return NULL;
}

void *pipe_consumer_main(void *arg)
{
	struct pipe_hot *h = arg;
	struct lat_pipe *p = h->p;
	struct lat_seqring *in = p->ring[h->index - 1];
	struct lat_wait_pair *win = &p->wait[h->index - 1];
	struct lat_spsc *samples = p->samples;
	const size_t size = p->msg_size;
	_Atomic uint64_t *counter = p->consumer_counter;
	struct lat_pipe_msg m;

	if (!hot_enter(h)) {
		atomic_store_explicit(&p->consumer_done, true,
				      memory_order_release);
		return NULL;
	}
	for (;;) {
		lat_seqring_wait_pop(in, win, &m, size, NULL, &h->wait);
		if (LAT_UNLIKELY(m.seq == PIPE_SEQ_END))
			break;
		m.t_final = lat_clock_end();
		bump(counter);
		/* never block on the aggregator: a full ring is a counted
		 * drop, shown in the accounting */
		if (LAT_UNLIKELY(!lat_spsc_try_push_raw(samples, &m, size)))
			h->dropped++;
		h->count++;
	}
	hot_leave(h);
	/* release pairs with the aggregator's acquire: every sample pushed
	 * above is visible to it once it sees done */
	atomic_store_explicit(&p->consumer_done, true, memory_order_release);
	return NULL;
}

/*
 * --noise: stream writes over a buffer larger than a last-level cache,
 * one store per line, so the memory bus and the shared cache are busy
 * beside the hot threads. Not a hot thread: no start line, no hooks.
 */
void *pipe_noise_main(void *arg)
{
	struct lat_pipe *p = arg;

	if (p->cfg.noise_cpu >= 0)
		(void)lat_topo_pin_self(p->cfg.noise_cpu);
	while (!atomic_load_explicit(&p->noise_stop, memory_order_relaxed))
		for (size_t i = 0; i < p->noise_len; i += LAT_CACHELINE) {
			p->noise_buf[i]++;
			if (!(i & 0xffff) &&
			    atomic_load_explicit(&p->noise_stop,
						 memory_order_relaxed))
				break;
		}
	return NULL;
}

/*
 * --burst-threads: a worker pool that bursts past the CPU quota. Each
 * thread spins for a quarter of every CFS period, then sleeps to the next
 * period, so together they eat the quota early in each period and the
 * whole group, the pipeline included, is throttled for the rest of it.
 */
void *pipe_burst_main(void *arg)
{
	struct lat_pipe *p = arg;
	const int64_t period_ns = (int64_t)p->cfg.cpu_period_us * 1000;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load_explicit(&p->noise_stop, memory_order_relaxed)) {
		lat_cycles_t until = lat_clock_now() +
				     lat_clock_from_ns(&p->cal,
						       (lat_ns_t)period_ns / 4);

		while ((int64_t)(lat_clock_now() - until) < 0 &&
		       !atomic_load_explicit(&p->noise_stop,
					     memory_order_relaxed))
			lat_wait_pause();
		pipe_timespec_add(&next, period_ns);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}
