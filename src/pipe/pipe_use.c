/*
 * The USE audit's measurements: per-thread schedstat (on-CPU time and
 * run-queue delay, any user), the non-idle time of the hot threads' CPUs
 * from /proc/stat, the process's memory and faults, and the CPU quota
 * experiment's counters. All read at the run's edges, never inside it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "latlab/stats.h"
#include "latlab/sysfile.h"
#include "pipe_int.h"

/*
 * On-CPU time from CLOCK_THREAD_CPUTIME_ID, which counts the slice in
 * progress (schedstat's first field lags by up to a scheduler tick for
 * a running thread); the run-queue delay from schedstat, whose second
 * field only moves while the thread is not running.
 */
void pipe_sched_read(struct pipe_sched *s)
{
	char buf[128];
	unsigned long long on, delay;
	struct timespec ts;

	s->ok = lat_sysfile_read(buf, sizeof(buf), 1,
				 "/proc/thread-self/schedstat") > 0 &&
		sscanf(buf, "%llu %llu", &on, &delay) == 2 &&
		!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	s->on_cpu_ns = s->ok ? (uint64_t)ts.tv_sec * 1000000000u +
				       (uint64_t)ts.tv_nsec
			     : 0;
	s->run_delay_ns = s->ok ? delay : 0;
}

/* Non-idle ticks of @cpu (-1: all CPUs) from /proc/stat; false if none. */
static bool busy_ticks(int cpu, uint64_t *out)
{
	char want[16], line[512];
	FILE *in = fopen("/proc/stat", "r");
	bool found = false;

	if (!in)
		return false;
	if (cpu < 0)
		snprintf(want, sizeof(want), "cpu ");
	else
		snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (!found && fgets(line, sizeof(line), in)) {
		unsigned long long v[7];

		if (strncmp(line, want, strlen(want)))
			continue;
		/* user nice system idle iowait irq softirq: busy is all
		 * but idle and iowait (steal is time the CPU was not ours) */
		found = sscanf(line + strlen(want),
			       "%llu %llu %llu %llu %llu %llu %llu", &v[0],
			       &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) == 7;
		if (found)
			*out = v[0] + v[1] + v[2] + v[5] + v[6];
	}
	fclose(in);
	return found;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void pipe_use_start(struct lat_pipe *p)
{
	struct rusage ru;

	p->n_use_cpus = 0;
	if (!p->cfg.pin)
		p->use_cpu[p->n_use_cpus++] = -1;
	for (int i = 0; p->cfg.pin && i < p->n_hot; i++) {
		bool seen = false;

		for (int k = 0; k < p->n_use_cpus; k++)
			seen |= p->use_cpu[k] == p->cfg.cpu[i];
		if (!seen)
			p->use_cpu[p->n_use_cpus++] = p->cfg.cpu[i];
	}
	for (int k = 0; k < p->n_use_cpus; k++)
		if (!busy_ticks(p->use_cpu[k], &p->busy0[k]))
			p->busy0[k] = UINT64_MAX;
	if (!getrusage(RUSAGE_SELF, &ru)) {
		p->minflt0 = (uint64_t)ru.ru_minflt;
		p->majflt0 = (uint64_t)ru.ru_majflt;
	}
	p->go_wall_s = mono_s();
}

static void fill_sched(struct lat_pipe_thread_result *t,
		       const struct pipe_sched *a, const struct pipe_sched *b)
{
	t->sched_known = a->ok && b->ok && b->on_cpu_ns >= a->on_cpu_ns &&
			 b->run_delay_ns >= a->run_delay_ns;
	t->on_cpu_ns = t->sched_known ? b->on_cpu_ns - a->on_cpu_ns : 0;
	t->run_delay_ns = t->sched_known ? b->run_delay_ns - a->run_delay_ns
					 : 0;
}

static void fill_rings(struct lat_pipe *p, struct lat_pipe_result *r)
{
	struct pipe_agg *a = &p->agg;

	r->n_rings = a->n_rings;
	for (int i = 0; i < a->n_rings; i++) {
		struct lat_pipe_ring_use *u = &r->ring[i];
		const struct lat_hist *h = &a->depth[i];
		bool last = i + 1 == a->n_rings;

		if (last)
			snprintf(u->name, sizeof(u->name), "samples");
		else
			snprintf(u->name, sizeof(u->name), "q%d", i + 1);
		u->capacity = pipe_ring_capacity(p, i);
		u->looks = (uint64_t)h->total_count;
		u->nonempty = a->nonempty[i];
		u->full = a->full[i];
		/* the histogram's values are its buckets' highest
		 * equivalents: never report more than the ring holds */
		u->depth_max = (int64_t)a->depth_max[i];
		u->depth_p50 = u->looks ? lat_hist_value_at_percentile(h, 50)
					: 0;
		u->depth_p99 = u->looks ? lat_hist_value_at_percentile(h, 99)
					: 0;
		if (u->depth_p50 > u->depth_max)
			u->depth_p50 = u->depth_max;
		if (u->depth_p99 > u->depth_max)
			u->depth_p99 = u->depth_max;
		u->errors = last ? r->dropped : 0;
	}
}

static void fill_memory(struct lat_pipe *p, struct lat_pipe_result *r)
{
	char buf[4096];
	struct rusage ru;
	uint64_t kb;
	long pages, resident;

	if (lat_sysfile_read(buf, sizeof(buf), 1, "/proc/self/statm") > 0 &&
	    sscanf(buf, "%ld %ld", &pages, &resident) == 2)
		r->rss_bytes = (uint64_t)resident *
			       (uint64_t)sysconf(_SC_PAGESIZE);
	if (lat_sysfile_read(buf, sizeof(buf), 0, "/proc/self/status") > 0 &&
	    !lat_sysfile_key_u64(buf, "VmSwap", &kb))
		r->swap_bytes = kb * 1024;
	if (!getrusage(RUSAGE_SELF, &ru)) {
		r->minflt = (uint64_t)ru.ru_minflt - p->minflt0;
		r->majflt = (uint64_t)ru.ru_majflt - p->majflt0;
	}
	for (int i = 0; i < p->n_hot; i++)
		r->alloc_failures += p->hot[i].alloc_failures;
}

/* Leave and remove the quota group; the counters and the spikes' rhythm. */
static void fill_quota(struct lat_pipe *p, struct lat_pipe_result *r)
{
	struct lat_pipe_quota *q = &r->quota;
	struct pipe_agg *a = &p->agg;
	uint64_t gaps[LAT_PIPE_MAX_SPIKES];
	size_t n = 0;

	if (!p->quota.created)
		return;
	q->applied = p->quota.entered;
	q->quota_us = p->quota.quota_us;
	q->period_us = p->quota.period_us;
	snprintf(q->group, sizeof(q->group), "%.*s", (int)sizeof(q->group) - 1,
		 p->quota.child.path);
	q->version = (int)p->quota.child.version;
	q->error = lat_cgroup_quota_end(&p->quota);
	q->nr_periods = p->quota.stat.nr_periods;
	q->nr_throttled = p->quota.stat.nr_throttled;
	q->throttled_ns = p->quota.stat.throttled_ns;
	q->spikes = a->spikes;
	for (uint64_t i = 1; i < a->spikes; i++)
		if (a->spike_t0[i] > a->spike_t0[i - 1])
			gaps[n++] = a->spike_t0[i] - a->spike_t0[i - 1];
	if (n) {
		qsort(gaps, n, sizeof(gaps[0]), lat_cmp_u64);
		q->spike_gap_ns = (double)lat_clock_to_ns(&p->cal,
							  gaps[n / 2]);
	}
}

void pipe_use_fill(struct lat_pipe *p, struct lat_pipe_result *r)
{
	long hz = sysconf(_SC_CLK_TCK);

	for (int i = 0; i < p->n_hot; i++)
		fill_sched(&r->thread[i], &p->hot[i].sched0,
			   &p->hot[i].sched1);
	snprintf(r->agg.name, sizeof(r->agg.name), "aggregator");
	r->agg.cpu = -1;
	r->agg.ran_on = -1;
	fill_sched(&r->agg, &p->agg.sched0, &p->agg.sched1);
	r->run_ns = (uint64_t)((mono_s() - p->go_wall_s) * 1e9);
	for (int k = 0; k < LAT_PIPE_MAX_HOT; k++)
		r->cpu_busy_ns[k] = UINT64_MAX;
	for (int k = 0; k < p->n_use_cpus; k++) {
		uint64_t t;

		r->use_cpu[k] = p->use_cpu[k];
		if (p->busy0[k] != UINT64_MAX && hz > 0 &&
		    busy_ticks(p->use_cpu[k], &t) && t >= p->busy0[k])
			r->cpu_busy_ns[k] = (t - p->busy0[k]) * 1000000000ull /
					    (uint64_t)hz;
	}
	r->n_use_cpus = p->n_use_cpus;
	fill_rings(p, r);
	fill_memory(p, r);
	fill_quota(p, r);
}
