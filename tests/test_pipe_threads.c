/*
 * Description: the pipeline library on small runs: exact accounting,
 * every delta histogram holds every event, every sample's stamps are in
 * order and e2e equals the sum of its parts within rounding, hooks see
 * each hot thread and each sample once, a stop drains, --share-line
 * addresses, the stall hook, no-stamps mode, config validation, and
 * what a run asks of the scheduler (nice, guards) given back after it.
 * No timing is asserted except lower bounds that busy-waits guarantee.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>

#include "latlab/pipe.h"
#include "t_test.h"

/* The tests run on whatever machine this is: place as the CLI does. */
static void placed(struct lat_pipe_config *c, int stages, uint64_t events,
		   bool noise)
{
	lat_pipe_config_init(c);
	c->stages = stages;
	c->events = events;
	c->calibrate_ms = 20;
	c->noise = noise;
	T_EQ_I64(lat_pipe_autoplace(c, false, NULL), 0);
}

struct seen {
	atomic_int begins, ends;
	uint64_t samples;        /* aggregator thread only */
	uint64_t out_of_order;   /* stamps not monotone within a sample */
	uint64_t sum_mismatch;   /* hook's own e2e vs parts check */
	uint64_t seq_gaps;       /* samples not in seq order */
	uint64_t next_seq;
	int n_deltas;
};

static void on_begin(void *ctx, int index, enum lat_pipe_role role)
{
	struct seen *s = ctx;

	(void)index;
	(void)role;
	atomic_fetch_add(&s->begins, 1);
}

static void on_end(void *ctx, int index, enum lat_pipe_role role)
{
	struct seen *s = ctx;

	(void)index;
	(void)role;
	atomic_fetch_add(&s->ends, 1);
}

/* An independent check of every sample, on the aggregator thread. */
static void on_sample(void *ctx, const struct lat_pipe_msg *m,
		      const int64_t *d, int n)
{
	struct seen *s = ctx;
	int stages = (n - 3) / 2;
	lat_cycles_t prev = m->t0;
	int64_t sum = 0;

	s->samples++;
	s->n_deltas = n;
	if (m->seq != s->next_seq)
		s->seq_gaps++;
	s->next_seq = m->seq + 1;
	if (n == 1)
		return;
	for (int k = 0; k < stages; k++) {
		if (m->work[k].begin < prev || m->work[k].end <
		    m->work[k].begin)
			s->out_of_order++;
		prev = m->work[k].end;
	}
	if (m->t_sent < m->t0 || m->t_final < prev)
		s->out_of_order++;
	for (int i = 0; i + 1 < n; i++)
		sum += d[i];
	if (d[n - 1] < sum || d[n - 1] > sum + n - 1)
		s->sum_mismatch++;
}

static void check_exact(const struct lat_pipe_result *r, uint64_t events)
{
	T_CHECK(r->exact);
	T_EQ_I64(r->produced, events);
	T_EQ_I64(r->consumed, events);
	T_EQ_I64(r->recorded + r->dropped, events);
	/* a run that fits in the sample ring cannot drop: every delta
	 * histogram then holds exactly one value per event */
	if (events <= LAT_PIPE_SAMPLE_RING)
		T_EQ_I64(r->dropped, 0);
	T_EQ_I64(r->clock_backwards, 0);
	T_EQ_I64(r->sum_check_failures, 0);
	T_CHECK(!r->interrupted);
	for (int i = 0; i < r->n_deltas; i++)
		T_EQ_I64(r->delta[i].hist.total_count +
			 r->delta[i].hist.overflow_count, r->recorded);
}

static void test_baseline(void)
{
	static struct seen s;
	struct lat_pipe_config c;
	struct lat_pipe_result r;
	char name[16];

	placed(&c, 1, 20000, false);
	c.hooks = (struct lat_pipe_hooks){ &s, on_begin, on_end, on_sample,
					   NULL };
	T_EQ_I64(lat_pipe_run(&c, &r), 0);
	check_exact(&r, 20000);
	T_EQ_I64(r.n_deltas, 5);
	T_CHECK(!strcmp(r.delta[0].name, "pace"));
	T_CHECK(!strcmp(r.delta[1].name, "q1+wake"));
	T_CHECK(!strcmp(r.delta[2].name, "work1"));
	T_CHECK(!strcmp(r.delta[3].name, "q2+wake"));
	T_CHECK(!strcmp(r.delta[4].name, "e2e"));
	T_CHECK(!strcmp(lat_pipe_delta_name(3, 6, name, sizeof(name)),
			"work3"));
	T_EQ_I64(atomic_load(&s.begins), 3);
	T_EQ_I64(atomic_load(&s.ends), 3);
	T_EQ_I64(s.samples, r.recorded);
	T_EQ_I64(s.n_deltas, 5);
	T_EQ_I64(s.out_of_order, 0);
	T_EQ_I64(s.sum_mismatch, 0);
	T_EQ_I64(s.seq_gaps, 0);
	/* each event bumped both counters once; default: two lines apart */
	T_EQ_I64(r.stage_counter, 20000);
	T_EQ_I64(r.consumer_counter, 20000);
	T_EQ_I64(r.consumer_counter_addr - r.stage_counter_addr, 128);
	T_CHECK(r.stage_counter_addr / 64 != r.consumer_counter_addr / 64);
	T_CHECK(r.work.steps > 0);
	lat_pipe_result_destroy(&r);
}

/* Three stages, Poisson arrivals, share-line, alloc and noise together. */
static void test_three_stages(void)
{
	static struct seen s;
	struct lat_pipe_config c;
	struct lat_pipe_result r;

	placed(&c, 3, 10000, true);
	c.arrivals = LAT_PACE_POISSON;
	c.share_line = true;
	c.alloc_bytes = 300000; /* above the mmap threshold */
	c.capacity = 64;
	c.hooks = (struct lat_pipe_hooks){ &s, on_begin, on_end, on_sample,
					   NULL };
	T_EQ_I64(lat_pipe_run(&c, &r), 0);
	check_exact(&r, 10000);
	T_EQ_I64(r.n_deltas, 9);
	T_CHECK(!strcmp(r.delta[7].name, "q4+wake"));
	T_EQ_I64(atomic_load(&s.begins), 5);
	T_EQ_I64(s.out_of_order, 0);
	T_EQ_I64(s.sum_mismatch, 0);
	T_EQ_I64(r.consumer_counter_addr - r.stage_counter_addr, 8);
	T_CHECK(r.stage_counter_addr / 64 == r.consumer_counter_addr / 64);
	lat_pipe_result_destroy(&r);
}

/*
 * Stage 1 busy-waits 3 ms on event 500: that sample's work1 is at least
 * the stall (a lower bound the busy-wait guarantees, not a timing claim).
 */
static void test_stall_and_no_pin(void)
{
	struct lat_pipe_config c;
	struct lat_pipe_result r;

	placed(&c, 1, 2000, false);
	c.pin = false;
	c.stall_seq = 500;
	c.stall_ns = 3e6;
	T_EQ_I64(lat_pipe_run(&c, &r), 0);
	check_exact(&r, 2000);
	T_CHECK(lat_hist_max(&r.delta[2].hist) >= 2990000);
	T_EQ_I64(r.thread[1].cpu, -1);
	lat_pipe_result_destroy(&r);
}

static void test_no_stamps(void)
{
	struct lat_pipe_config c;
	struct lat_pipe_result r;

	placed(&c, 2, 5000, false);
	c.stamps = false;
	T_EQ_I64(lat_pipe_run(&c, &r), 0);
	check_exact(&r, 5000);
	T_EQ_I64(r.n_deltas, 1);
	T_CHECK(!strcmp(r.delta[0].name, "e2e"));
	lat_pipe_result_destroy(&r);
}

struct stop_at {
	uint64_t produced;       /* stop once this many were published ... */
	const atomic_int *seen;  /* ... and this counter reached ... */
	int samples;             /* ... this many samples */
	int polls;
};

/* lat_pipe_stop_fn: progress decides, never the clock. */
static bool stop_when(void *ctx, uint64_t done, double elapsed_s)
{
	struct stop_at *s = ctx;

	(void)elapsed_s;
	s->polls++;
	return done >= s->produced &&
	       (!s->seen || atomic_load(s->seen) >= s->samples);
}

/*
 * Run @c with lat_pipe_run_until until the producer has published
 * @produced events and the aggregator has seen @samples samples (or the
 * run ended), then stop it and collect the result.
 */
static void run_then_stop(const struct lat_pipe_config *c, uint64_t produced,
			  const atomic_int *seen, int samples,
			  struct lat_pipe_result *r)
{
	struct stop_at s = { produced, seen, samples, 0 };

	T_EQ_I64(lat_pipe_run_until(c, r, stop_when, &s), 0);
	T_CHECK(s.polls > 0);
}

/* Stop after some events: the producer stops, everything sent drains. */
static void test_stop_drains(void)
{
	struct lat_pipe_config c;
	struct lat_pipe_result r;

	placed(&c, 1, 100000000, false);
	run_then_stop(&c, 2048, NULL, 0, &r);
	T_CHECK(r.interrupted);
	T_CHECK(r.produced >= 2048 && r.produced < c.events);
	T_CHECK(r.exact);
	T_EQ_I64(r.consumed, r.produced);
	T_EQ_I64(r.sum_check_failures, 0);
	lat_pipe_result_destroy(&r);
}

static void count_sample(void *ctx, const struct lat_pipe_msg *m,
			 const int64_t *d, int n)
{
	(void)m;
	(void)d;
	(void)n;
	atomic_fetch_add((atomic_int *)ctx, 1);
}

/*
 * Regression: a stop while the producer waits for a far-off due time.
 * At 10^-4 events/s event 1 is due 10^4 s after event 0; the producer
 * used to spin until then, so Ctrl-C on a slow --rate hung the run (this
 * test then outlives ctest's timeout). It must leave the wait at once.
 */
static void test_stop_while_paced(void)
{
	struct lat_pipe_config c;
	struct lat_pipe_result r;
	atomic_int samples = 0;

	placed(&c, 1, 3, false);
	c.rate = 1e-4;
	c.hooks.ctx = &samples;
	c.hooks.sample = count_sample;
	/* event 0 (due at the start) went through: the producer now waits
	 * for event 1 */
	run_then_stop(&c, 0, &samples, 1, &r);
	T_CHECK(r.interrupted);
	T_EQ_I64(r.produced, 1);
	T_EQ_I64(r.consumed, 1);
	T_CHECK(r.exact);
	lat_pipe_result_destroy(&r);
}

/* The same for --stall-at's busy-wait (up to 60 s): a stop ends it. */
static void test_stop_while_stalled(void)
{
	struct lat_pipe_config c;
	struct lat_pipe_result r;

	placed(&c, 1, 2, false);
	c.stall_seq = 0;
	c.stall_ns = 60e9;
	run_then_stop(&c, 2, NULL, 0, &r);
	T_EQ_I64(r.produced, 2);
	T_EQ_I64(r.consumed, 2);
	T_CHECK(r.exact);
	lat_pipe_result_destroy(&r);
}

/* An aggregator that sleeps 20 us at a time (--vary agg_idle_us in
 * bench_pipe_peer) still records every sample exactly once. */
static void test_agg_idle(void)
{
	struct lat_pipe_config c;
	struct lat_pipe_result r;

	placed(&c, 1, 5000, false);
	c.agg_idle_ns = 20000;
	T_EQ_I64(lat_pipe_run(&c, &r), 0);
	check_exact(&r, 5000);
	T_EQ_I64(r.config.agg_idle_ns, 20000);
	lat_pipe_result_destroy(&r);
}

/*
 * What a run asks of the scheduler: a nice value (positive, so that no
 * privilege is needed, and so the session's autogroup is not touched:
 * other tests of this session run beside this one), a guard per hot CPU.
 * Accounting stays exact, one guard ran per distinct hot CPU, and the
 * caller's own nice is what it was.
 */
static void test_sched_ask(void)
{
	struct lat_pipe_config c;
	struct lat_pipe_result r;
	int cpus = 0;

	placed(&c, 1, 5000, false);
	c.hot_nice = 5;
	c.guard_ns = 100000;
	for (int i = 0; i < lat_pipe_n_hot(1); i++) {
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen |= c.cpu[j] == c.cpu[i];
		cpus += !seen;
	}
	errno = 0;
	T_EQ_I64(getpriority(PRIO_PROCESS, 0), 0);
	T_EQ_I64(lat_pipe_run(&c, &r), 0);
	check_exact(&r, 5000);
	T_EQ_I64(r.nice_error, 0);
	T_EQ_I64(r.guards, cpus);
	T_EQ_I64(r.guard_error, 0);
	T_CHECK(!r.autogroup_changed);
	T_EQ_I64(r.autogroup_error, 0);
	T_EQ_I64(getpriority(PRIO_PROCESS, 0), 0);
	lat_pipe_result_destroy(&r);
}

static void test_config_check(void)
{
	struct lat_pipe_config c;
	const char *why = NULL;

	lat_pipe_config_init(&c);
	c.pin = false;
	T_EQ_I64(lat_pipe_config_check(&c, &why), 0);
	T_CHECK(why == NULL);
	c.rate = 0;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	T_CHECK(why && !strncmp(why, "rate ", 5)); /* the field, not a flag */
	lat_pipe_config_init(&c);
	c.pin = false;
	c.stages = 0;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	c.stages = LAT_PIPE_MAX_STAGES + 1;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	c.stages = 1;
	c.capacity = 1000;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	T_CHECK(why && strstr(why, "power of two"));
	c.capacity = 4096;
	c.events = 0;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	c.events = 10;
	/* the aggregator's idle sleep: 0 is the default, up to 1 s */
	c.agg_idle_ns = -1;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	T_CHECK(why && !strncmp(why, "agg_idle_ns ", 12));
	c.agg_idle_ns = 2e9;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	c.agg_idle_ns = 50000;
	T_EQ_I64(lat_pipe_config_check(&c, &why), 0);
	c.agg_idle_ns = 0;
	/* nice -20..19; a slice of 0.1-100 ms or 0; a guard 50 us-100 ms */
	c.hot_nice = -21;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	T_CHECK(why && !strncmp(why, "hot_nice ", 9));
	c.hot_nice = 19;
	c.hot_slice_ns = 5e4;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	T_CHECK(why && !strncmp(why, "hot_slice_ns ", 13));
	c.hot_slice_ns = 1e5;
	c.guard_ns = 1e4;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	T_CHECK(why && !strncmp(why, "guard_ns ", 9));
	c.guard_ns = 2.5e5;
	T_EQ_I64(lat_pipe_config_check(&c, &why), 0);
	c.pin = true; /* but no CPUs */
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	T_EQ_I64(LAT_PIPE_MSG_SIZE(1), 48);
}

int main(void)
{
	test_config_check();
	test_baseline();
	test_agg_idle();
	test_sched_ask();
	test_three_stages();
	test_stall_and_no_pin();
	test_no_stamps();
	test_stop_drains();
	test_stop_while_paced();
	test_stop_while_stalled();
	T_DONE();
}
