/*
 * The scheduler probe's state machine, driven by synthetic records (no
 * kernel, no privilege): the rules for run-queue latency, off-CPU reasons,
 * switch counting, the silence verdict, windows and unpaired records;
 * the /proc fallback (snapshots, window, its report).
 * The live probe is tested in test_sched_threads.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_test.h"
#include "latlab/sched_attr.h"
#include "sched/sched_int.h"

#define US 1000ull
#define MS 1000000ull

static struct lat_sched_ev ev(uint32_t type, uint64_t ts, uint32_t cpu)
{
	struct lat_sched_ev e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.ts = ts;
	e.cpu = cpu;
	return e;
}

/* A switch on @cpu from @prev to @next; pid 100.. are ours. */
static void sw(struct lat_sched_state *st, uint64_t ts, uint32_t cpu,
	       uint32_t prev, uint32_t prev_state, bool preempt, uint32_t next,
	       const char *next_comm)
{
	struct lat_sched_ev e = ev(LAT_SCHED_EV_SWITCH, ts, cpu);

	e.pid = e.tgid = prev;
	e.pid2 = e.tgid2 = next;
	e.arg = prev_state;
	e.arg2 = (preempt ? LAT_SCHED_SW_PREEMPT : 0) |
		 (prev >= 100 && prev < 200 ? LAT_SCHED_SW_PREV_OURS : 0) |
		 (next >= 100 && next < 200 ? LAT_SCHED_SW_NEXT_OURS : 0);
	snprintf(e.comm, sizeof(e.comm), "task%u", prev);
	snprintf(e.comm2, sizeof(e.comm2), "%s", next_comm);
	T_EQ_I64(lat_sched_state_feed(st, &e), 0);
}

static void wake(struct lat_sched_state *st, uint64_t ts, uint32_t tid)
{
	struct lat_sched_ev e = ev(LAT_SCHED_EV_WAKEUP, ts, 0);

	e.pid = e.tgid = tid;
	snprintf(e.comm, sizeof(e.comm), "task%u", tid);
	T_EQ_I64(lat_sched_state_feed(st, &e), 0);
}

/* Sleep/wake cycles: voluntary switches, blocked time, rq_wakeup. */
static void test_sleeps(void)
{
	struct lat_sched_state st;
	struct lat_sched_result r;
	const struct lat_sched_thread *t;
	uint64_t ts = 1000 * MS;
	int i;

	T_EQ_I64(lat_sched_state_init(&st, true, false, NULL, 0), 0);
	sw(&st, ts, 0, 0, 0, false, 100, "task100");
	for (i = 0; i < 5; i++) {
		sw(&st, ts += 10 * US, 0, 100, 1 /* INTERRUPTIBLE */, false,
		   0, "swapper/0");
		wake(&st, ts += 1 * MS, 100);
		sw(&st, ts += 7 * US, 0, 0, 0, false, 100, "task100");
	}
	lat_sched_state_finish(&st, ts + 10 * US, &r);
	T_EQ_I64(r.n_threads, 1);
	t = lat_sched_find_thread(&r, 100);
	T_CHECK(t != NULL);
	if (t) {
		T_EQ_I64(t->switches_vol, 5);
		T_EQ_I64(t->switches_invol, 0);
		T_EQ_I64(t->wakeups, 5);
		T_EQ_I64(t->rq_wakeup->total_count, 5);
		T_CHECK(lat_hist_values_equivalent(
			t->rq_wakeup, lat_hist_max(t->rq_wakeup), 7 * US));
		T_EQ_I64(t->blocked->total_count, 5);
		T_EQ_I64(t->blocked_ns, 5 * MS);
		T_EQ_I64(t->runnable_ns, 35 * US);
		T_EQ_I64(t->oncpu_ns, 6 * 10 * US);
		T_EQ_I64(t->rq_preempt->total_count, 0);
	}
	T_EQ_I64(r.unpaired, 0);
	lat_sched_state_destroy(&st);
}

/*
 * Preemption: kept apart from wakeups, the preemptor named, and on a
 * watched CPU the exact tasks it waited behind; the silence verdict.
 */
static void test_preempt_and_cpu(void)
{
	struct lat_sched_state st;
	struct lat_sched_result r;
	const struct lat_sched_thread *t;
	const struct lat_sched_cpu *c0, *c1;
	int cpus[2] = { 0, 1 };
	uint64_t ts = 1000 * MS;

	T_EQ_I64(lat_sched_state_init(&st, true, false, cpus, 2), 0);
	/* cpu 0: ours, preempted by kworker (3 ms), then ksoftirqd (1 ms) */
	sw(&st, ts, 0, 0, 0, false, 100, "task100");
	sw(&st, ts += 1 * MS, 0, 100, 0, true, 7, "kworker/0:1");
	sw(&st, ts += 3 * MS, 0, 7, 1, false, 9, "ksoftirqd/0");
	sw(&st, ts += 1 * MS, 0, 9, 1, false, 100, "task100");
	/* cpu 1: only idle <-> ours: silent */
	sw(&st, 1000 * MS, 1, 0, 0, false, 101, "task101");
	sw(&st, 1002 * MS, 1, 101, 1, false, 0, "swapper/1");
	lat_sched_state_finish(&st, ts + 1 * MS, &r);
	t = lat_sched_find_thread(&r, 100);
	T_CHECK(t != NULL);
	if (t) {
		T_EQ_I64(t->switches_invol, 1);
		T_EQ_I64(t->preempted, 1);
		T_EQ_I64(t->rq_preempt->total_count, 1);
		T_CHECK(lat_hist_values_equivalent(
			t->rq_preempt, lat_hist_max(t->rq_preempt), 4 * MS));
		T_EQ_I64(t->rq_wakeup->total_count, 0);
		T_EQ_I64(t->preempted_by.n, 1);
		T_EQ_I64(t->preempted_by.top[0].pid, 7);
		T_EQ_I64(t->preempted_by.top[0].ns, 4 * MS);
		T_EQ_I64(t->waited_behind.n, 2);
		T_EQ_I64(t->waited_behind.top[0].pid, 7);
		T_EQ_I64(t->waited_behind.top[0].ns, 3 * MS);
		T_CHECK(!strcmp(t->waited_behind.top[0].comm, "kworker/0:1"));
		T_EQ_I64(t->waited_behind.top[1].ns, 1 * MS);
	}
	c0 = lat_sched_find_cpu(&r, 0);
	c1 = lat_sched_find_cpu(&r, 1);
	T_CHECK(c0 && c1);
	if (c0 && c1) {
		T_CHECK(!lat_sched_cpu_silent(c0));
		T_EQ_I64(c0->intrusions, 2);
		T_EQ_I64(c0->foreign_ns, 4 * MS);
		T_EQ_I64(c0->longest_ns, 3 * MS);
		T_EQ_I64(c0->longest_pid, 7);
		T_EQ_I64(c0->own_ns, 2 * MS);
		T_CHECK(lat_sched_cpu_silent(c1));
		T_EQ_I64(c1->own_ns, 2 * MS);
		T_EQ_I64(c1->foreign_ns, 0);
	}
	lat_sched_state_destroy(&st);
}

/*
 * A batch of hand-offs between our threads (what the kernel sends instead
 * of one record per yield on a watched CPU) stands for exactly the switch
 * records it replaces: the same counts, histograms and CPU time, fed one
 * way or the other. A hop naming a thread slot the batch does not have
 * is refused.
 */
static void test_batch(void)
{
	struct lat_sched_state a, b;
	struct lat_sched_result ra, rb;
	struct lat_sched_batch bt;
	struct lat_sched_ev e;
	int cpus[1] = { 1 };
	uint64_t t0 = 1000 * MS, ts;
	uint32_t i;
	int k;

	T_EQ_I64(lat_sched_state_init(&a, true, false, cpus, 1), 0);
	T_EQ_I64(lat_sched_state_init(&b, true, false, cpus, 1), 0);
	/* 101 comes on; then 101 and 102 yield to each other 10 times,
	 * 3 us apart, the odd ones preempted */
	sw(&a, t0, 1, 0, 0, false, 101, "task101");
	sw(&b, t0, 1, 0, 0, false, 101, "task101");
	memset(&bt, 0, sizeof(bt));
	bt.type = LAT_SCHED_EV_BATCH;
	bt.cpu = 1;
	bt.ts = t0 + 5 * US;
	bt.n_threads = 2;
	bt.thread[0].pid = bt.thread[0].tgid = 101;
	bt.thread[1].pid = bt.thread[1].tgid = 102;
	snprintf(bt.thread[0].comm, 16, "task101");
	snprintf(bt.thread[1].comm, 16, "task102");
	for (k = 0, ts = bt.ts; k < 10; k++, ts += 3 * US) {
		uint32_t prev = k % 2 ? 102 : 101, next = k % 2 ? 101 : 102;

		sw(&a, ts, 1, prev, 0, k % 2, next, k % 2 ? "task101"
							  : "task102");
		bt.hop[k].dt = (uint32_t)(ts - bt.ts);
		bt.hop[k].prev = (uint8_t)(k % 2);
		bt.hop[k].next = (uint8_t)!(k % 2);
		bt.hop[k].preempt = (uint8_t)(k % 2);
	}
	bt.n = 10;
	for (i = 0; i < bt.n; i++) {
		T_CHECK(lat_sched_batch_hop(&bt, i, &e));
		T_EQ_I64(lat_sched_state_feed(&b, &e), 0);
	}
	T_CHECK(!lat_sched_batch_hop(&bt, bt.n, &e)); /* past the hops */
	bt.hop[0].next = 2;                            /* no such slot */
	T_CHECK(!lat_sched_batch_hop(&bt, 0, &e));
	lat_sched_state_finish(&a, ts + 10 * US, &ra);
	lat_sched_state_finish(&b, ts + 10 * US, &rb);
	T_EQ_I64(ra.n_threads, 2);
	T_EQ_I64(rb.n_threads, 2);
	for (k = 0; k < 2; k++) {
		const struct lat_sched_thread *x =
			lat_sched_find_thread(&ra, 101 + k);
		const struct lat_sched_thread *y =
			lat_sched_find_thread(&rb, 101 + k);

		T_CHECK(x && y);
		if (!x || !y)
			continue;
		T_EQ_I64(y->switches_invol, 5);
		T_EQ_I64(y->switches_invol, x->switches_invol);
		T_EQ_I64(y->switches_vol, x->switches_vol);
		T_EQ_I64(y->preempted, x->preempted);
		T_EQ_I64(y->oncpu_ns, x->oncpu_ns);
		T_EQ_I64(y->runnable_ns, x->runnable_ns);
		T_EQ_I64(y->rq_preempt->total_count,
			 x->rq_preempt->total_count);
		T_EQ_I64(lat_hist_max(y->rq_preempt),
			 lat_hist_max(x->rq_preempt));
		T_CHECK(!strcmp(y->comm, x->comm));
	}
	T_EQ_I64(lat_sched_find_cpu(&rb, 1)->own_ns,
		 lat_sched_find_cpu(&ra, 1)->own_ns);
	T_EQ_I64(rb.unpaired, ra.unpaired);
	lat_sched_state_destroy(&a);
	lat_sched_state_destroy(&b);
}

/*
 * Events the kernel did not report (this VM traces nothing while its
 * agent's threads run): a sleep whose wakeup is missing, a sleep whose
 * wakeup and switch-in are both missing. Each is one hidden stretch with
 * its whole time, in none of the other times, never a blocked interval.
 * And a thread preempted after setting its sleep state stays queued: it
 * comes back without a wakeup, as a preemption, not as hidden. An exit
 * ends the thread's time.
 */
static void test_hidden(void)
{
	struct lat_sched_state st;
	struct lat_sched_result r;
	const struct lat_sched_thread *t;
	uint64_t t0 = 1000 * MS, ts = t0;

	T_EQ_I64(lat_sched_state_init(&st, true, false, NULL, 0), 0);
	sw(&st, ts, 0, 0, 0, false, 100, "task100");
	/* asleep 5 ms; its wakeup unreported, its switch-in seen */
	sw(&st, ts += 1 * MS, 0, 100, 1, false, 0, "swapper/0");
	sw(&st, ts += 5 * MS, 0, 0, 0, false, 100, "task100");
	/* asleep 7 ms; wakeup and switch-in unreported: next seen leaving */
	sw(&st, ts += 1 * MS, 0, 100, 1, false, 0, "swapper/0");
	sw(&st, ts += 7 * MS, 0, 100, 1, false, 0, "swapper/0");
	/* woken, runs, preempted in state S (preempt=1, prev_state 1) */
	wake(&st, ts += 2 * MS, 100);
	sw(&st, ts += 3 * US, 0, 0, 0, false, 100, "task100");
	sw(&st, ts += 1 * MS, 0, 100, 1, true, 7, "kworker/0:1");
	sw(&st, ts += 4 * US, 0, 7, 1, false, 100, "task100");
	/* exits (TASK_DEAD): its time ends there, not blocked till the end */
	sw(&st, ts += 1 * MS, 0, 100, 0x80, false, 0, "swapper/0");
	lat_sched_state_finish(&st, ts + 5 * MS, &r);
	t = lat_sched_find_thread(&r, 100);
	T_CHECK(t != NULL);
	if (t) {
		T_EQ_I64(t->hidden, 2);
		T_EQ_I64(t->hidden_ns, 5 * MS + 7 * MS);
		T_EQ_I64(t->blocked->total_count, 1); /* the 2 ms, woken */
		T_EQ_I64(t->blocked_ns, 2 * MS);
		T_EQ_I64(t->rq_wakeup->total_count, 1);
		T_EQ_I64(t->rq_preempt->total_count, 1);
		T_CHECK(lat_hist_values_equivalent(
			t->rq_preempt, lat_hist_max(t->rq_preempt), 4 * US));
		T_EQ_I64(t->switches_vol, 4);
		T_EQ_I64(t->switches_invol, 1);
		T_CHECK(t->exited);
		T_EQ_I64(t->oncpu_ns + t->runnable_ns + t->blocked_ns +
				 t->hidden_ns,
			 ts - t0);
	}
	T_EQ_I64(r.total.hidden, 2);
	T_EQ_I64(r.total.hidden_ns, 12 * MS);
	T_EQ_I64(r.unpaired, 0);
	lat_sched_state_destroy(&st);
}

/* The timeline at its memory cap: spans are counted as dropped, and the
 * earliest one's start is where the timeline stops being whole (the
 * attribution leaves events after it unattributed). */
static void test_timeline_cut(void)
{
	struct lat_sched_state st;
	int cpus[1] = { 0 };
	uint64_t ts = 1000 * MS;

	T_EQ_I64(lat_sched_state_init(&st, false, true, cpus, 1), 0);
	sw(&st, ts, 0, 0, 0, false, 100, "task100");
	sw(&st, ts + 1 * MS, 0, 100, 1, false, 0, "swapper/0");
	T_EQ_I64(st.timeline_dropped, 0);
	T_EQ_I64(st.timeline_cut_ns, 0);
	st.timeline_bytes = LAT_SCHED_TIMELINE_MAX; /* as if full */
	/* fill what the first allocation left, then one more */
	for (int i = 0; i < 300; i++) {
		wake(&st, ts + (2 + 2 * (uint64_t)i) * MS, 100);
		sw(&st, ts + (2 + 2 * (uint64_t)i) * MS + 5 * US, 0, 0, 0,
		   false, 100, "task100");
		sw(&st, ts + (3 + 2 * (uint64_t)i) * MS, 0, 100, 1, false, 0,
		   "swapper/0");
	}
	T_CHECK(st.timeline_dropped > 0);
	T_CHECK(st.timeline_cut_ns > ts);
	T_CHECK(st.timeline_cut_ns < ts + 602 * MS);
	lat_sched_state_destroy(&st);
}

/* A window zeroes the counts but keeps the state; stale records. */
static void test_window_and_unpaired(void)
{
	struct lat_sched_state st;
	struct lat_sched_result r;
	const struct lat_sched_thread *t;
	uint64_t ts = 1000 * MS;

	T_EQ_I64(lat_sched_state_init(&st, false, false, NULL, 0), 0);
	sw(&st, ts, 0, 0, 0, false, 100, "task100");
	sw(&st, ts += 1 * MS, 0, 100, 1, false, 0, "swapper/0");
	lat_sched_state_reset(&st, ts + 1 * MS);
	/* blocked across the window start: counted from it */
	wake(&st, ts += 3 * MS, 100);
	wake(&st, ts += 1 * US, 100);   /* second wakeup: the first counts */
	sw(&st, ts += 9 * US, 0, 0, 0, false, 100, "task100");
	wake(&st, ts += 1 * US, 100);   /* still on its CPU: unpaired */
	wake(&st, ts - 5 * US, 100);    /* before its last switch: stale */
	lat_sched_state_finish(&st, ts + 1 * MS, &r);
	T_EQ_I64(r.n_threads, 1);
	t = lat_sched_find_thread(&r, 100);
	T_CHECK(t != NULL);
	if (t) {
		T_EQ_I64(t->switches_vol, 0); /* before the window */
		T_EQ_I64(t->blocked_ns, 2 * MS);
		T_EQ_I64(t->runnable_ns, 10 * US);
		T_CHECK(t->rq_wakeup == NULL); /* totals only */
	}
	T_EQ_I64(r.total.rq_wakeup->total_count, 1);
	T_EQ_I64(r.total.blocked->total_count, 1);
	T_EQ_I64(r.unpaired, 2);
	lat_sched_state_destroy(&st);
}

/* Interrupts on a watched CPU, and a CPU without any switch. */
static void test_irqs(void)
{
	struct lat_sched_state st;
	struct lat_sched_result r;
	struct lat_sched_ev e = ev(LAT_SCHED_EV_IRQ, 1000 * MS, 3);
	int cpu = 3;

	T_EQ_I64(lat_sched_state_init(&st, false, true, &cpu, 1), 0);
	e.arg = 2500;
	e.arg2 = LAT_SCHED_IRQ_LOCAL_TIMER;
	T_EQ_I64(lat_sched_state_feed(&st, &e), 0);
	e.type = LAT_SCHED_EV_SOFTIRQ;
	e.arg2 = 1; /* TIMER */
	T_EQ_I64(lat_sched_state_feed(&st, &e), 0);
	/* a device irq is named after its handler, as the kernel sent it
	 * (16 bytes, maybe without a NUL) */
	e.type = LAT_SCHED_EV_IRQ;
	e.arg2 = LAT_SCHED_IRQ_HANDLER;
	e.pid2 = 24;
	memcpy(e.comm, "virtio0-input.0X", 16);
	T_EQ_I64(lat_sched_state_feed(&st, &e), 0);
	lat_sched_state_finish(&st, 1001 * MS, &r);
	T_EQ_I64(r.n_cpus, 1);
	T_EQ_I64(r.cpus[0].irq_count[LAT_SCHED_IRQ_LOCAL_TIMER], 1);
	T_EQ_I64(r.cpus[0].irq_ns[LAT_SCHED_IRQ_LOCAL_TIMER], 2500);
	T_EQ_I64(r.cpus[0].softirq_count[1], 1);
	T_CHECK(lat_sched_cpu_silent(&r.cpus[0]));
	T_EQ_I64(r.cpus[0].unknown_ns, 1001 * MS); /* from 0, no switch */
	T_EQ_I64(st.cpu[0].irqs.n, 3);
	if (st.cpu[0].irqs.n == 3) {
		const struct lat_sched_cspan *q = st.cpu[0].irqs.v;

		/* three who-table keys, none the same */
		T_CHECK(q[0].tgid != q[1].tgid && q[1].tgid != q[2].tgid &&
			q[0].tgid != q[2].tgid);
		T_CHECK(!strcmp(q[2].comm, "virtio0-input.0"));
		T_EQ_I64(q[2].pid, 24);
	}
	T_CHECK(!strcmp(lat_sched_softirq_name(1), "TIMER"));
	T_CHECK(!strcmp(lat_sched_softirq_name(42), "?"));
	{
		/* the three spans overlap (one instant, 2.5 us each): an
		 * on-CPU stretch around them counts that time once, and its
		 * causes add up to the stretch */
		uint64_t ns[LAT_SCHED_NCAUSES] = { 0 }, sum = 0;

		T_EQ_I64(lat_sched_attr_on_cpu_ns(&st, cpu, 999 * MS,
						  1001 * MS, 100, ns), 0);
		T_EQ_I64(ns[LAT_SCHED_CAUSE_IRQ], 2500);
		T_EQ_I64(ns[LAT_SCHED_CAUSE_NORMAL], 100);
		for (int c = 0; c < LAT_SCHED_NCAUSES; c++)
			sum += ns[c];
		T_EQ_I64(sum, 2 * MS);
	}
	lat_sched_state_destroy(&st);
}

/*
 * The attribution of a hot thread's runnable time when the probe's own
 * reader (tid 150, "latlab-sched") held its CPU: that time is the cause
 * "probe", not "own"; the stretch another of our threads held stays
 * "own". Without the reader's tid the same records are all "own": the
 * tid is what sets them apart.
 */
static void test_reader_on_hot_cpu(void)
{
	struct lat_sched_state st;
	struct lat_sched_result r;
	uint64_t t0 = 1000 * MS, t1 = t0 + 1 * MS, t2 = t1 + 3 * MS,
		 t3 = t2 + 1 * MS;
	uint64_t ns[LAT_SCHED_NCAUSES] = { 0 }, blind[LAT_SCHED_NCAUSES] = { 0 };
	int cpu = 0;

	T_EQ_I64(lat_sched_state_init(&st, true, true, &cpu, 1), 0);
	sw(&st, t0, 0, 0, 0, false, 101, "stage1");
	sw(&st, t1, 0, 101, 0, true, 150, "latlab-sched"); /* stage1 runnable */
	sw(&st, t2, 0, 150, 1, false, 102, "stage2");      /* reader sleeps */
	sw(&st, t3, 0, 102, 0, true, 101, "stage1");
	lat_sched_state_finish(&st, t3 + 1 * MS, &r);
	T_EQ_I64(lat_sched_attr_runnable_ns(&st, 0, t1, t3, 150, ns), 0);
	T_EQ_I64(ns[LAT_SCHED_CAUSE_PROBE], 3 * MS);
	T_EQ_I64(ns[LAT_SCHED_CAUSE_OWN], 1 * MS);
	T_EQ_I64(ns[LAT_SCHED_CAUSE_FOREIGN], 0);
	T_CHECK(!strcmp(lat_sched_cause_name(LAT_SCHED_CAUSE_PROBE), "probe"));
	T_CHECK(strstr(lat_sched_cause_text(LAT_SCHED_CAUSE_PROBE),
		       "latlab-sched") != NULL);
	T_EQ_I64(lat_sched_attr_runnable_ns(&st, 0, t1, t3, 0, blind), 0);
	T_EQ_I64(blind[LAT_SCHED_CAUSE_PROBE], 0);
	T_EQ_I64(blind[LAT_SCHED_CAUSE_OWN], 4 * MS);
	lat_sched_state_destroy(&st);
}

/* The reader's CPU: a spare one when the machine has it, else none. */
static void test_reader_cpu(void)
{
	struct lat_pipe_config c;
	bool eight[8], five[5];
	int i;

	lat_pipe_config_init(&c);
	c.stages = 3; /* 5 hot threads on cpus 0-4, the aggregator on 5 */
	c.pin = true;
	for (i = 0; i < lat_pipe_n_hot(c.stages); i++)
		c.cpu[i] = i;
	c.agg_cpu = 5;
	for (i = 0; i < 8; i++)
		eight[i] = i != 6; /* 6 outside the affinity mask */
	T_EQ_I64(lat_sched_attr_reader_cpu(&c, eight, 8), 7);
	for (i = 0; i < 5; i++)
		five[i] = true; /* every CPU holds a hot thread */
	c.agg_cpu = -1;
	T_EQ_I64(lat_sched_attr_reader_cpu(&c, five, 5), -1);
	c.pin = false; /* unpinned hot threads: nowhere is away */
	T_EQ_I64(lat_sched_attr_reader_cpu(&c, eight, 8), -1);
}

/* Many threads: the table grows and every one is found again. */
static void test_many_threads(void)
{
	struct lat_sched_state st;
	struct lat_sched_result r;
	uint32_t tid;

	T_EQ_I64(lat_sched_state_init(&st, false, false, NULL, 0), 0);
	for (tid = 1000; tid < 1500; tid++)
		wake(&st, 1000 * MS + tid, tid);
	lat_sched_state_finish(&st, 2000 * MS, &r);
	T_EQ_I64(r.n_threads, 500);
	T_CHECK(lat_sched_find_thread(&r, 1499) != NULL);
	T_CHECK(lat_sched_find_thread(&r, 1500) == NULL);
	T_EQ_I64(r.total.wakeups, 500);
	lat_sched_state_destroy(&st);
}

/* /proc fallback: the window's share per thread, a newborn whole. */
static void test_proc_delta(void)
{
	struct lat_sched_proc before[2] = {
		{ .tid = 10, .oncpu_ns = 1000, .run_delay_ns = 50, .vol = 3,
		  .invol = 1 },
		{ .tid = 11, .oncpu_ns = 7, .vol = 1 },
	};
	struct lat_sched_proc after[2] = {
		{ .tid = 12, .oncpu_ns = 400, .run_delay_ns = 9, .vol = 2 },
		{ .tid = 10, .oncpu_ns = 3500, .run_delay_ns = 80, .vol = 5,
		  .invol = 4 },
	};

	lat_sched_proc_delta(before, 2, after, 2);
	T_EQ_I64(after[0].oncpu_ns, 400);      /* born in the window */
	T_EQ_I64(after[0].run_delay_ns, 9);
	T_EQ_I64(after[1].oncpu_ns, 2500);
	T_EQ_I64(after[1].run_delay_ns, 30);
	T_EQ_I64(after[1].vol, 2);
	T_EQ_I64(after[1].invol, 3);
}

/* Snapshots of a live process (this one thread) and of a gone one, and
 * the fallback's report of them. */
static void test_proc_snapshot(void)
{
	struct lat_sched_proc_snap s;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	pid_t gone = fork();

	if (gone == 0)
		_exit(0);
	T_CHECK(gone > 0);
	waitpid(gone, NULL, 0);
	T_EQ_I64(lat_sched_proc_snapshot(gone, &s), -ESRCH);
	T_EQ_I64(s.n, 0);
	lat_sched_proc_snap_free(&s);

	T_EQ_I64(lat_sched_proc_snapshot(getpid(), &s), 0);
	T_EQ_I64(s.n, 1);
	T_EQ_I64(s.v[0].tid, getpid());
	f = open_memstream(&text, &len);
	T_CHECK(f != NULL);
	lat_sched_proc_report(f, "no probe here", &s);
	fclose(f);
	T_CHECK(!strncmp(text, "probe: unavailable: no probe here\n"
			 "fallback: ", 44));
	T_CHECK(strstr(text, "no attribution\n") != NULL);
	free(text);
	lat_sched_proc_snap_free(&s);
	T_CHECK(s.v == NULL);
}

int main(void)
{
	test_proc_delta();
	test_proc_snapshot();
	test_sleeps();
	test_preempt_and_cpu();
	test_batch();
	test_window_and_unpaired();
	test_hidden();
	test_timeline_cut();
	test_irqs();
	test_many_threads();
	test_reader_on_hot_cpu();
	test_reader_cpu();
	T_DONE();
}
