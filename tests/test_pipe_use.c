/*
 * Description: the USE audit (lat_pipe_use) and the CPU quota's
 * fingerprint (lat_pipe_diagnose) on results built by hand: CPU rows
 * group the hot threads by their pinned CPU and add their CPU time, an
 * unpinned run is one "cpus" row over all CPUs, ring depths and errors
 * land in the right rows, unknown figures stay unknown; the freezes'
 * median gap is "recurring" at one or two periods and not at one and a
 * half; the table and the JSON both show it. With perf counts, a CPU
 * row counts the hot threads by task-clock and shows the CPU clocks'
 * surplus per context switch.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/pipe.h"
#include "t_test.h"

static struct lat_pipe_result r;

static void fake(bool pin)
{
	static const char *const names[] = { "producer", "stage1", "consumer" };
	static const int cpus[] = { 1, 0, 0 };

	memset(&r, 0, sizeof(r));
	lat_pipe_config_init(&r.config);
	r.config.pin = pin;
	r.n_hot = 3;
	r.online_cpus = 4;
	r.run_ns = 1000000000;
	for (int i = 0; i < 3; i++) {
		snprintf(r.thread[i].name, sizeof(r.thread[i].name), "%s",
			 names[i]);
		r.thread[i].cpu = pin ? cpus[i] : -1;
		r.thread[i].sched_known = true;
		r.thread[i].on_cpu_ns = 100000000u * (uint64_t)(i + 1);
		r.thread[i].run_delay_ns = 10000000;
	}
	if (pin) {
		r.n_use_cpus = 2;
		r.use_cpu[0] = 1;
		r.use_cpu[1] = 0;
		r.cpu_busy_ns[0] = 500000000;
		r.cpu_busy_ns[1] = UINT64_MAX; /* unknown */
	} else {
		r.n_use_cpus = 1;
		r.use_cpu[0] = -1;
		r.cpu_busy_ns[0] = 2000000000; /* of 4 CPUs x 1 s */
	}
	r.n_rings = 3;
	snprintf(r.ring[0].name, 16, "q1");
	snprintf(r.ring[1].name, 16, "q2");
	snprintf(r.ring[2].name, 16, "samples");
	for (int i = 0; i < 3; i++) {
		r.ring[i].capacity = 4096;
		r.ring[i].looks = 1000;
		r.ring[i].nonempty = 250;
		r.ring[i].depth_p50 = 1;
		r.ring[i].depth_p99 = 30;
		r.ring[i].depth_max = 40;
	}
	r.dropped = 7;
	r.over_range = 2;
	r.clock_backwards = 1;
	r.rss_bytes = 1 << 20;
	r.alloc_failures = 3;
	r.steal_pct = -1;
	r.loadavg = -1;
}

static const struct lat_pipe_use_row *row(const struct lat_pipe_use *u,
					  const char *name)
{
	for (int i = 0; i < u->n; i++)
		if (!strcmp(u->row[i].name, name))
			return &u->row[i];
	fprintf(stderr, "no USE row %s\n", name);
	t_failures++;
	return &u->row[0];
}

static void test_use(void)
{
	struct lat_pipe_use u;
	const struct lat_pipe_use_row *w;

	fake(true);
	lat_pipe_use(&r, &u);
	T_EQ_I64(u.n, 2 + 2 + 3); /* 2 CPUs, 2 hot rings, agg, samples, mem */
	T_CHECK(u.sched_known);
	w = row(&u, "cpu1");
	T_CHECK(!strcmp(w->users, "producer"));
	T_EQ_I64(w->ours_ns, 100000000);
	T_NEAR(w->util_pct, 50, 1e-9);
	T_NEAR(w->ours_pct, 10, 1e-9);
	w = row(&u, "cpu0");
	T_CHECK(!strcmp(w->users, "stage1, consumer"));
	T_EQ_I64(w->ours_ns, 500000000);
	T_EQ_I64(w->run_delay_ns, 20000000);
	T_NEAR(w->waiting, 0.02, 1e-12);
	T_CHECK(w->util_pct < 0); /* /proc/stat unknown: not 0 */
	w = row(&u, "q1");
	T_NEAR(w->util_pct, 25, 1e-9);
	T_EQ_I64(w->depth_p99, 30);
	T_EQ_I64(w->errors, 0);
	w = row(&u, "samples");
	T_EQ_I64(w->errors, 7);
	w = row(&u, "aggregator");
	T_EQ_I64(w->errors, 3);
	w = row(&u, "memory");
	T_EQ_I64(w->errors, 3);
	T_EQ_I64(w->rss_bytes, 1 << 20);

	/* unpinned: one row over every CPU */
	fake(false);
	lat_pipe_use(&r, &u);
	w = row(&u, "cpus");
	T_EQ_I64(w->ours_ns, 600000000);
	T_NEAR(w->util_pct, 50, 1e-9);
	T_NEAR(w->ours_pct, 15, 1e-9);
}

static char *table(void);

/*
 * With perf's counts for every thread of a CPU, the hot share is their
 * task-clock (so it adds up with the counters table) and the CPU clocks'
 * surplus is shown per switch, of either sign; one thread without
 * counts on a CPU puts that row back on the CPU clocks.
 */
static void test_use_task_clock(void)
{
	struct lat_pipe_use u;
	const struct lat_pipe_use_row *w;
	char *t;

	fake(true);
	for (int i = 0; i < 3; i++) {
		r.thread[i].counters_known = true;
		r.thread[i].counters_by_perf = true;
		r.thread[i].switches = 1000;
	}
	r.thread[0].task_clock_ns = 100000000 + 300000; /* preempted */
	r.thread[1].task_clock_ns = 200000000 - 700000;
	r.thread[2].task_clock_ns = 300000000 - 800000;
	lat_pipe_use(&r, &u);
	w = row(&u, "cpu1");
	T_CHECK(w->ours_by_task_clock && w->switching_known);
	T_EQ_I64(w->ours_ns, 100300000);
	T_EQ_I64(w->clock_ns, 100000000);
	T_EQ_I64(w->switching_ns, -300000);
	T_NEAR(w->switching_pct, -0.03, 1e-12);
	w = row(&u, "cpu0");
	T_EQ_I64(w->ours_ns, 498500000);
	T_EQ_I64(w->switching_ns, 1500000);
	T_EQ_I64(w->switches, 2000);
	T_NEAR(w->ours_pct + w->switching_pct, 50, 1e-9); /* = CPU clocks */
	t = table();
	T_CHECK(t && strstr(t, "hot threads 49.9% by task-clock; CPU clocks "
			       "+0.1% = 2000 switches x +750 ns)"));
	T_CHECK(t && strstr(t, "= 1000 switches x -300 ns)"));
	free(t);

	r.thread[2].counters_known = false; /* its counters failed */
	lat_pipe_use(&r, &u);
	w = row(&u, "cpu0");
	T_CHECK(!w->ours_by_task_clock && !w->switching_known);
	T_EQ_I64(w->ours_ns, 500000000);
	T_CHECK(row(&u, "cpu1")->ours_by_task_clock);
	t = table();
	T_CHECK(t && strstr(t, "hot threads 50.0% by CPU clocks)"));
	free(t);

	/* counted but the CPU clocks unknown: task-clock, no surplus */
	r.thread[2].counters_known = true;
	r.thread[1].sched_known = false;
	lat_pipe_use(&r, &u);
	w = row(&u, "cpu0");
	T_CHECK(w->ours_by_task_clock && !w->switching_known);
	T_NEAR(w->ours_pct, 49.85, 1e-9);

	/* counted from /proc: the table's task-clock, no surplus story */
	r.thread[1].sched_known = true;
	for (int i = 0; i < 3; i++)
		r.thread[i].counters_by_perf = false;
	lat_pipe_use(&r, &u);
	w = row(&u, "cpu0");
	T_CHECK(w->ours_by_task_clock && !w->ours_by_perf);
	T_CHECK(!w->switching_known);
	T_EQ_I64(w->ours_ns, 498500000);
	t = table();
	T_CHECK(t && strstr(t, "hot threads 49.9% by task-clock from /proc)"));
	free(t);
}

/* Freezes whose median gap is @gap_periods periods. */
static void quota(double gap_periods, uint64_t spikes)
{
	fake(true);
	r.quota.applied = true;
	r.quota.quota_us = 20000;
	r.quota.period_us = 100000;
	r.quota.nr_periods = 10;
	r.quota.nr_throttled = 8;
	r.quota.throttled_ns = 500000000;
	r.quota.spikes = spikes;
	r.quota.spike_gap_ns = gap_periods * 1e8;
	snprintf(r.quota.group, sizeof(r.quota.group), "/latlab-1");
}

static char *table(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	T_EQ_I64(lat_pipe_print_table(f, &r), 0);
	fclose(f);
	return buf;
}

static void test_quota_fingerprint(void)
{
	struct lat_pipe_diag d;
	struct lat_pipe_use u;
	char *t;

	quota(1.03, 6);
	lat_pipe_diagnose(&r, &d);
	T_CHECK(d.throttled);
	T_EQ_I64(d.stall_ns, 80000000);
	T_CHECK(d.recurring);
	lat_pipe_use(&r, &u);
	T_EQ_I64(row(&u, "cpu0")->throttled, 8);
	T_EQ_I64(row(&u, "cpu0")->errors, 8);
	t = table();
	T_CHECK(t && strstr(t, "cpu quota: 20.0 ms per 100 ms period"));
	T_CHECK(t && strstr(t, "tail: CPU quota throttling") &&
		strstr(t, "recurring at the period"));
	free(t);

	quota(2.1, 4); /* the pipeline rode out every other one */
	lat_pipe_diagnose(&r, &d);
	T_CHECK(d.recurring);
	quota(1.5, 6);
	lat_pipe_diagnose(&r, &d);
	T_CHECK(!d.recurring);
	quota(1.0, 1); /* one freeze is no rhythm */
	lat_pipe_diagnose(&r, &d);
	T_CHECK(!d.recurring);
	quota(1.0, 6);
	r.quota.nr_throttled = 0;
	lat_pipe_diagnose(&r, &d);
	T_CHECK(!d.throttled);
	/* no quota: nothing about it anywhere */
	fake(true);
	lat_pipe_diagnose(&r, &d);
	T_CHECK(!d.throttled && !d.recurring);
	t = table();
	T_CHECK(t && !strstr(t, "cpu quota") && strstr(t, "USE ("));
	free(t);
}

int main(void)
{
	test_use();
	test_use_task_clock();
	test_quota_fingerprint();
	T_DONE();
}
