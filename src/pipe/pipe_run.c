/*
 * Pipeline lifecycle: set up, start the threads together, stop, join and
 * fill the results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipe_int.h"
#include "latlab/stats.h"

/* Buffer the --noise thread streams over: larger than most LLCs. */
#define NOISE_BYTES ((size_t)64 << 20)
/* Event 0 is due this long after the start line opens. */
#define START_LEAD_NS 2000000

static double wall_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Steal and total CPU ticks of all CPUs from /proc/stat's "cpu" line
 * (user nice system idle iowait irq softirq steal). 0 when unknown.
 */
static int cpu_ticks(uint64_t *steal, uint64_t *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	*steal = *total = 0;
	if (!f)
		return -errno;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return -LAT_EFORMAT;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*steal = v[7];
	return 0;
}

/* The run's stop, polled while setting up (nothing produced yet). */
static bool setup_stop(void *ctx)
{
	struct lat_pipe *p = ctx;

	return p->setup_stop(p->setup_stop_ctx, 0, 0);
}

/*
 * Calibrate the work on the CPU stage 1 will run on (cores may differ in
 * speed), then give the caller its affinity back.
 */
static int calibrate_work(struct lat_pipe *p)
{
	cpu_set_t saved;
	bool moved = false;
	int rc;

	if (p->cfg.pin &&
	    !pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved))
		moved = !lat_topo_pin_self(p->cfg.cpu[1]);
	rc = lat_work_calibrate_until(&p->work, p->cfg.work_ns, &p->cal,
				      p->setup_stop ? setup_stop : NULL, p);
	/* the seed is the arrivals' one, moved: arrivals and work draws
	 * must not be the same random numbers */
	if (!rc && p->cfg.work_dist.kind != LAT_WORK_DET)
		rc = lat_work_table_init(&p->table, &p->cfg.work_dist, &p->work,
					 p->cfg.seed ^ 0x5851f42d4c957f2dULL,
					 &p->cal);
	if (moved)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return rc;
}

static int setup_rings(struct lat_pipe *p)
{
	int n_rings = p->cfg.stages + 1, rc;

	p->wait = aligned_alloc(LAT_PAD_BYTES,
				sizeof(*p->wait) * (size_t)n_rings);
	if (!p->wait)
		return -ENOMEM;
	for (int i = 0; i < n_rings; i++) {
		rc = lat_seqring_create(p->cfg.capacity, p->msg_size,
					&p->ring[i]);
		if (!rc)
			rc = lat_wait_pair_init(&p->wait[i], p->cfg.wait,
						p->cfg.wait_spins);
		if (rc)
			return rc;
	}
	rc = lat_spsc_create(LAT_PIPE_SAMPLE_RING, p->msg_size, &p->samples);
	if (rc)
		return rc;
	p->counters = aligned_alloc(LAT_PAD_BYTES, sizeof(*p->counters));
	if (!p->counters)
		return -ENOMEM;
	memset(p->counters, 0, sizeof(*p->counters));
	/* --share-line: neighbours on one line; else two lines apart, out
	 * of reach of the adjacent-line prefetcher too */
	p->stage_counter = &p->counters->slot[0];
	p->consumer_counter = &p->counters->slot[p->cfg.share_line
						 ? 1 : LAT_PAD_BYTES / 8];
	return 0;
}

/*
 * Start a thread named @name ("producer", "stage1", "consumer", ...): the
 * name is the comm that profilers, top and perf show, and the root frame
 * of each thread in `latlab pipeline --profile`.
 */
static int create(struct lat_pipe *p, pthread_t *tid, void *(*fn)(void *),
		  void *arg, const char *name)
{
	sigset_t block, old;
	int rc;

	/* threads inherit the mask: keep SIGINT/SIGTERM for the caller */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = -pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!rc)
		(void)pthread_setname_np(*tid, name); /* cosmetic if it fails */
	(void)p;
	return rc;
}

static int start_hot_threads(struct lat_pipe *p)
{
	for (int i = 0; i < p->n_hot; i++) {
		struct pipe_hot *h = &p->hot[i];
		void *(*fn)(void *) = pipe_stage_main;
		char name[16];
		int rc;

		h->p = p;
		h->index = i;
		h->role = LAT_PIPE_STAGE;
		h->ran_on = -1;
		if (i == 0) {
			h->role = LAT_PIPE_PRODUCER;
			fn = pipe_producer_main;
		} else if (i == p->n_hot - 1) {
			h->role = LAT_PIPE_CONSUMER;
			fn = pipe_consumer_main;
		}
		if (h->role == LAT_PIPE_STAGE)
			snprintf(name, sizeof(name), "stage%d", i);
		else
			snprintf(name, sizeof(name), "%s",
				 h->role == LAT_PIPE_PRODUCER ? "producer"
							      : "consumer");
		rc = create(p, &h->tid, fn, h, name);
		if (rc)
			return rc;
		h->created = true;
	}
	return 0;
}

/* Wait for every created hot thread at the start line; first error. */
static int start_line(struct lat_pipe *p)
{
	int created = 0, err = 0;

	for (int i = 0; i < p->n_hot; i++)
		created += p->hot[i].created;
	/* acquire pairs with each thread's release increment: their pin
	 * results are visible */
	while (atomic_load_explicit(&p->ready, memory_order_acquire) < created)
		sched_yield();
	for (int i = 0; i < p->n_hot && !err; i++)
		err = p->hot[i].err;
	return err;
}

static int start_cold_threads(struct lat_pipe *p)
{
	int rc = create(p, &p->agg_tid, pipe_agg_main, p, "aggregator");

	if (rc)
		return rc;
	p->agg_created = true;
	for (int i = 0; i < p->cfg.burst_threads; i++) {
		char name[16];

		snprintf(name, sizeof(name), "burst%d", i + 1);
		rc = create(p, &p->burst_tid[i], pipe_burst_main, p, name);
		if (rc)
			return rc;
		p->n_burst++;
	}
	for (int i = 0; p->cfg.guard_ns > 0 && p->cfg.pin && i < p->n_hot;
	     i++) {
		struct pipe_guard *g = &p->guard[p->n_guard];
		bool seen = false;

		for (int j = 0; j < p->n_guard; j++)
			seen |= p->guard[j].cpu == p->cfg.cpu[i];
		if (seen)
			continue;
		g->p = p;
		g->cpu = p->cfg.cpu[i];
		rc = create(p, &g->tid, pipe_guard_main, g, "guard");
		if (rc)
			return rc;
		p->n_guard++;
	}
	if (!p->cfg.noise)
		return 0;
	p->noise_len = NOISE_BYTES;
	p->noise_buf = malloc(p->noise_len);
	if (!p->noise_buf)
		return -ENOMEM;
	memset(p->noise_buf, 1, p->noise_len); /* fault it in now */
	rc = create(p, &p->noise_tid, pipe_noise_main, p, "noise");
	p->noise_created = !rc;
	return rc;
}

static int open_hlog(struct lat_pipe *p)
{
	struct lat_hlog_writer_opts opts = {
		.start_time_s = p->start_wall_s,
		.comment = "latlab pipeline: one tag per delta, values in ns",
	};

	if (!p->cfg.hlog)
		return 0;
	return lat_hlog_writer_open_stream(p->cfg.hlog, &opts, &p->agg.hlog);
}

/* Stop and join the cold helpers: noise and burst threads. */
static void stop_helpers(struct lat_pipe *p)
{
	atomic_store_explicit(&p->noise_stop, true, memory_order_relaxed);
	if (p->noise_created)
		pthread_join(p->noise_tid, NULL);
	p->noise_created = false;
	for (; p->n_burst > 0; p->n_burst--)
		pthread_join(p->burst_tid[p->n_burst - 1], NULL);
	for (int i = 0; i < p->n_guard; i++) {
		pthread_join(p->guard[i].tid, NULL);
		if (!p->guard_err)
			p->guard_err = p->guard[i].err;
	}
	p->n_guard_ran += p->n_guard;
	p->n_guard = 0;
}

/*
 * The CFS-throttling experiment: into the child group after the
 * calibrations (they must not be throttled), before any thread exists.
 */
static int enter_quota(struct lat_pipe *p)
{
	if (!(p->cfg.cpu_quota > 0))
		return 0;
	/* the weight of every thread the run will have: hot ones, the
	 * aggregator, the burst pool and the caller */
	return lat_cgroup_quota_begin(&p->quota, p->cfg.cgroup_root,
				      p->cfg.cpu_quota, p->cfg.cpu_period_us,
				      p->n_hot + 2 + p->cfg.burst_threads +
					      (p->cfg.noise ? 1 : 0));
}

/*
 * hot_nice < 0: thread nice values weigh only against threads of the same
 * scheduler autogroup (a session); against every other session's tasks
 * the whole group weighs as its autogroup nice says. So the run takes
 * that too, and gives it back in autogroup_leave. Refused (no
 * CAP_SYS_NICE, no autogroups) is not an error: the result says so.
 */
static void autogroup_enter(struct lat_pipe *p)
{
	/* in the quota experiment's own cpu group no autogroup weighs (it
	 * applies to the root group only), and a run killed there (the
	 * tests do, with SIGKILL) would leave the session's weight behind */
	if (p->cfg.hot_nice >= 0 || p->cfg.cpu_quota > 0)
		return;
	p->autogroup_err = lat_cgroup_autogroup_raise(p->cfg.hot_nice,
						      &p->autogroup_old);
	p->autogroup_set = !p->autogroup_err;
	p->autogroup_changed = p->autogroup_set;
}

static void autogroup_leave(struct lat_pipe *p)
{
	if (p->autogroup_set)
		(void)lat_cgroup_autogroup_restore();
	p->autogroup_set = false;
}

/* Stop everything started so far, before the start line opened. */
static void abort_start(struct lat_pipe *p)
{
	atomic_store_explicit(&p->consumer_done, true, memory_order_release);
	atomic_store_explicit(&p->go, PIPE_ABORT, memory_order_release);
	for (int i = 0; i < p->n_hot; i++)
		if (p->hot[i].created) {
			pthread_join(p->hot[i].tid, NULL);
			p->hot[i].created = false;
		}
	atomic_store_explicit(&p->noise_stop, true, memory_order_relaxed);
	if (p->agg_created)
		pthread_join(p->agg_tid, NULL);
	p->agg_created = false;
	stop_helpers(p);
}

static int start(const struct lat_pipe_config *c, struct lat_pipe **out,
		 lat_pipe_stop_fn stop, void *ctx)
{
	struct lat_pipe *p;
	lat_cycles_t start;
	int rc;

	*out = NULL;
	if (lat_pipe_config_check(c, NULL))
		return -EINVAL;
	/* aligned: the per-thread blocks inside must not share lines */
	p = aligned_alloc(LAT_PAD_BYTES, sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	p->cfg = *c;
	p->setup_stop = stop;
	p->setup_stop_ctx = ctx;
	p->n_hot = lat_pipe_n_hot(c->stages);
	p->msg_size = LAT_PIPE_MSG_SIZE(c->stages);
	rc = lat_clock_calibrate(&p->cal, c->calibrate_ms);
	if (!rc)
		rc = calibrate_work(p);
	p->stall_cycles = lat_clock_from_ns(&p->cal, (lat_ns_t)c->stall_ns);
#ifdef M_MMAP_THRESHOLD
	/* glibc raises its mmap threshold after the first free of an
	 * mmapped block, so --alloc=1M would fault only once; fixing it at
	 * the default 128 KiB keeps every large block an mmap + munmap */
	if (c->alloc_bytes)
		mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	if (!rc)
		rc = enter_quota(p);
	if (!rc)
		autogroup_enter(p);
	if (!rc)
		rc = setup_rings(p);
	if (!rc)
		rc = pipe_agg_init(p);
	if (!rc)
		rc = start_hot_threads(p);
	if (!rc)
		rc = start_line(p);
	if (!rc) {
		start = lat_clock_now() + lat_clock_from_ns(&p->cal,
							    START_LEAD_NS);
		p->start_wall_s = wall_now_s() + START_LEAD_NS / 1e9;
		atomic_store_explicit(&p->start, start, memory_order_relaxed);
		rc = open_hlog(p);
	}
	if (!rc)
		rc = start_cold_threads(p);
	if (rc) {
		abort_start(p);
		lat_pipe_free(p);
		return rc;
	}
	cpu_ticks(&p->steal0, &p->ticks0);
	p->loadavg = lat_loadavg();
	pipe_use_start(p);
	/* release pairs with the threads' acquire at the start line: the
	 * start time and everything set up above are visible to them */
	atomic_store_explicit(&p->go, PIPE_GO, memory_order_release);
	*out = p;
	return 0;
}

int lat_pipe_start(const struct lat_pipe_config *c, struct lat_pipe **out)
{
	return start(c, out, NULL, NULL);
}

void lat_pipe_stop(struct lat_pipe *p)
{
	atomic_store_explicit(&p->stop, true, memory_order_relaxed);
}

bool lat_pipe_progress(struct lat_pipe *p, uint64_t *produced,
		       double *elapsed_s)
{
	lat_cycles_t start = atomic_load_explicit(&p->start,
						  memory_order_relaxed);
	lat_cycles_t now = lat_clock_now();

	if (produced)
		*produced = atomic_load_explicit(&p->produced_pub,
						 memory_order_relaxed);
	if (elapsed_s)
		*elapsed_s = now > start ? (double)lat_clock_to_ns(
						   &p->cal, now - start) / 1e9
					 : 0;
	return atomic_load_explicit(&p->finished, memory_order_acquire);
}

static void fill_threads(struct lat_pipe *p, struct lat_pipe_result *r)
{
	r->n_hot = p->n_hot;
	for (int i = 0; i < p->n_hot; i++) {
		struct lat_pipe_thread_result *t = &r->thread[i];
		const struct pipe_hot *h = &p->hot[i];

		if (h->role == LAT_PIPE_PRODUCER)
			snprintf(t->name, sizeof(t->name), "producer");
		else if (h->role == LAT_PIPE_CONSUMER)
			snprintf(t->name, sizeof(t->name), "consumer");
		else
			snprintf(t->name, sizeof(t->name), "stage%d", i);
		t->cpu = p->cfg.pin ? p->cfg.cpu[i] : -1;
		t->ran_on = h->ran_on;
		t->wait = h->wait;
		if (!r->nice_error)
			r->nice_error = h->nice_err;
		if (!r->slice_error)
			r->slice_error = h->slice_err;
	}
	r->autogroup_error = p->autogroup_err;
	r->autogroup_changed = p->autogroup_changed;
	r->guards = p->n_guard_ran;
	r->guard_error = p->guard_err;
}

static void fill_result(struct lat_pipe *p, struct lat_pipe_result *r)
{
	struct pipe_agg *a = &p->agg;
	const struct pipe_hot *cons = &p->hot[p->n_hot - 1];
	lat_cycles_t start = atomic_load_explicit(&p->start,
						  memory_order_relaxed);
	uint64_t steal, ticks;

	r->config = p->cfg;
	fill_threads(p, r);
	r->n_deltas = a->n_deltas;
	r->produced = p->hot[0].count;
	r->consumed = cons->count;
	r->dropped = cons->dropped;
	r->recorded = a->recorded;
	r->clock_backwards = a->clock_backwards;
	r->sum_check_failures = a->sum_check_failures;
	r->exact = r->produced == r->consumed &&
		   r->consumed == r->recorded + r->dropped;
	for (int i = 0; i < a->n_deltas; i++) {
		struct lat_pipe_delta *d = &r->delta[i];

		memcpy(d->name, a->name[i], sizeof(d->name));
		d->hist = a->total[i]; /* the result owns the counts now */
		memset(&a->total[i], 0, sizeof(a->total[i]));
		r->over_range += (uint64_t)d->hist.overflow_count;
		if ((uint64_t)(d->hist.total_count + d->hist.overflow_count) !=
		    r->recorded)
			r->exact = false;
	}
	r->offered_rate = p->cfg.rate;
	if (a->recorded && a->last_final > start)
		r->wall_s = (double)lat_clock_to_ns(&p->cal, a->last_final -
								start) / 1e9;
	r->achieved_rate = r->wall_s > 0 ? (double)r->consumed / r->wall_s : 0;
	r->interrupted = atomic_load_explicit(&p->stop, memory_order_relaxed) &&
			 r->produced < p->cfg.events;
	r->cal = p->cal;
	r->work = p->work;
	r->work_table = p->table;
	r->work_table.steps = NULL;
	r->loadavg = p->loadavg;
	r->online_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	r->steal_pct = -1;
	if (p->ticks0 && !cpu_ticks(&steal, &ticks) && ticks > p->ticks0)
		r->steal_pct = 100.0 * (double)(steal - p->steal0) /
			       (double)(ticks - p->ticks0);
	r->stage_counter_addr = (uintptr_t)p->stage_counter;
	r->consumer_counter_addr = (uintptr_t)p->consumer_counter;
	r->stage_counter = atomic_load(p->stage_counter);
	r->consumer_counter = atomic_load(p->consumer_counter);
	r->hlog_intervals = a->hlog_intervals;
	r->hlog_error = a->hlog_error;
	pipe_use_fill(p, r);
}

int lat_pipe_wait(struct lat_pipe *p, struct lat_pipe_result *r)
{
	int err = 0;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < p->n_hot; i++)
		if (p->hot[i].created) {
			pthread_join(p->hot[i].tid, NULL);
			p->hot[i].created = false;
			if (!err)
				err = p->hot[i].err;
		}
	if (p->agg_created)
		pthread_join(p->agg_tid, NULL);
	p->agg_created = false;
	stop_helpers(p);
	autogroup_leave(p);
	fill_result(p, r);
	if (!err)
		err = r->hlog_error;
	return err;
}

void lat_pipe_free(struct lat_pipe *p)
{
	if (!p)
		return;
	for (int i = 0; i < LAT_PIPE_MAX_HOT - 1; i++)
		lat_seqring_free(p->ring[i]);
	lat_spsc_free(p->samples);
	free(p->wait);
	free(p->counters);
	free(p->noise_buf);
	lat_work_table_destroy(&p->table);
	pipe_agg_destroy(&p->agg);
	/* a start that failed after entering the group still leaves it */
	lat_cgroup_quota_end(&p->quota);
	autogroup_leave(p);
	free(p);
}

bool lat_pipe_watch(struct lat_pipe *p, lat_pipe_stop_fn stop, void *ctx)
{
	const struct timespec tick = { 0, LAT_PIPE_POLL_MS * 1000000L };
	bool stopped = false;
	uint64_t done;
	double t;

	/* short polls so a stop is relayed at once */
	while (!lat_pipe_progress(p, &done, &t)) {
		if (!stopped && stop && stop(ctx, done, t)) {
			lat_pipe_stop(p);
			stopped = true;
		}
		nanosleep(&tick, NULL);
	}
	return stopped;
}

int lat_pipe_run_until(const struct lat_pipe_config *c,
		       struct lat_pipe_result *r, lat_pipe_stop_fn stop,
		       void *ctx)
{
	struct lat_pipe *p;
	int rc = start(c, &p, stop, ctx);

	if (rc) {
		memset(r, 0, sizeof(*r));
		return rc;
	}
	lat_pipe_watch(p, stop, ctx);
	rc = lat_pipe_wait(p, r);
	lat_pipe_free(p);
	return rc;
}

int lat_pipe_run(const struct lat_pipe_config *c, struct lat_pipe_result *r)
{
	return lat_pipe_run_until(c, r, NULL, NULL);
}

void lat_pipe_result_destroy(struct lat_pipe_result *r)
{
	for (int i = 0; i < LAT_PIPE_MAX_DELTAS; i++)
		lat_hist_destroy(&r->delta[i].hist);
}
