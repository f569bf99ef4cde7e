/*
 * Why a run's tail is what it is: facts from the result, computed once
 * (lat_pipe_diagnose) and rendered twice, as the table's "tail:" lines and
 * as the JSON's "diagnosis" object, so scripts read the same findings
 * people do.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "latlab/fmt.h"
#include "pipe_int.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* The probe's largest cause above p99.9: the first of equals, so the
 * answer does not depend on more than the facts. */
static void diagnose_probe(const struct lat_pipe_tail_probe *p,
			   struct lat_pipe_diag *d)
{
	d->probe_largest = -1;
	if (!p->ran)
		return;
	d->probe = p;
	for (int c = 0; c < p->n_causes && c < LAT_PIPE_TAIL_CAUSES; c++)
		if (p->cause[c].ns && (d->probe_largest < 0 ||
		    p->cause[c].ns > p->cause[d->probe_largest].ns))
			d->probe_largest = c;
	if (d->probe_largest >= 0)
		d->probe_largest_pct = pct(p->cause[d->probe_largest].ns,
					   p->total_ns);
}

void lat_pipe_diagnose(const struct lat_pipe_result *r,
		       struct lat_pipe_diag *d)
{
	int stages = r->config.stages;

	memset(d, 0, sizeof(*d));
	d->worst_delta = -1;
	d->worst_p999_ns = -1;
	/* the parts only: e2e is their sum, always the largest */
	for (int i = 0; i + 1 < r->n_deltas; i++) {
		int64_t x = lat_hist_value_at_percentile(&r->delta[i].hist,
							 99.9);

		if (x > d->worst_p999_ns) {
			d->worst_p999_ns = x;
			d->worst_delta = i;
		}
	}
	if (d->worst_delta >= 0)
		d->worst_part = lat_pipe_delta_part(stages, d->worst_delta);
	for (int i = 0; i < r->n_hot; i++) {
		d->yields += r->thread[i].wait.yields;
		d->sleeps += r->thread[i].wait.sleeps;
	}
	d->shared_cpus = r->config.place_flags & LAT_TOPO_SHARED_CPU;
	d->loadavg = r->loadavg;
	d->online_cpus = r->online_cpus;
	d->loaded = r->loadavg >= 1;
	d->steal_pct = r->steal_pct;
	d->stolen = r->steal_pct >= LAT_PIPE_STEAL_PCT;
	d->work = lat_work_check(&r->work);
	d->dropped = r->dropped;
	d->throttled = r->quota.applied && r->quota.nr_throttled > 0;
	if (r->quota.applied) {
		const struct lat_pipe_quota *q = &r->quota;
		double k = q->spike_gap_ns / ((double)q->period_us * 1e3);

		d->stall_ns = ((int64_t)q->period_us - q->quota_us) * 1000;
		/* the spikes come back once a period, or every few periods
		 * when the pipeline can ride out some of them */
		d->recurring = q->spikes >= 2 && k >= 1 - LAT_PIPE_GAP_TOL &&
			       fabs(k - round(k)) <= LAT_PIPE_GAP_TOL;
	}
	diagnose_probe(&r->sched, d);
}

/* What a large part of each kind means. */
static const char *meaning(enum lat_pipe_part k)
{
	switch (k) {
	case LAT_PIPE_PART_PACE:
		return "the producer sent late: it was off its CPU, or q1 "
		       "was full";
	case LAT_PIPE_PART_QUEUE:
		return "events waited in a ring: the thread after it was not "
		       "running";
	default:
		return "the work itself was interrupted (preemption, faults)";
	}
}

/* The CFS bandwidth fingerprint, named. */
static void print_throttled(FILE *out, const struct lat_pipe_result *r,
			    const struct lat_pipe_diag *d)
{
	const struct lat_pipe_quota *q = &r->quota;
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN], g[LAT_FMT_LEN];

	fprintf(out, "tail: CPU quota throttling: the group used its %s of "
		"CPU per %s period %" PRIu64 " times and every thread of it "
		"froze until the period ended, %s in all (summed over the CPUs "
		"it was held back on, so it can exceed the wall time); the "
		"fingerprint is an e2e spike of up to period - quota = %s",
		lat_fmt_ns(a, sizeof(a), (double)q->quota_us * 1e3),
		lat_fmt_ns(b, sizeof(b), (double)q->period_us * 1e3),
		q->nr_throttled,
		lat_fmt_ns(c, sizeof(c), (double)q->throttled_ns),
		lat_fmt_ns(g, sizeof(g), (double)d->stall_ns));
	if (d->recurring)
		fprintf(out, " recurring at the period (%" PRIu64 " spikes, "
			"median gap %s)\n", q->spikes,
			lat_fmt_ns(a, sizeof(a), q->spike_gap_ns));
	else
		fprintf(out, " (%" PRIu64 " spikes seen%s%s)\n", q->spikes,
			q->spikes >= 2 ? ", median gap " : "",
			q->spikes >= 2 ? lat_fmt_ns(a, sizeof(a), q->spike_gap_ns) : "");
}

/* The probe's own reader on a hot CPU, when it was not the largest
 * cause: the cost of observing, shown, never folded into ours. */
static void print_probe_cost(FILE *out, const struct lat_pipe_diag *d)
{
	const struct lat_pipe_tail_probe *p = d->probe;

	for (int c = 0; c < p->n_causes && c < LAT_PIPE_TAIL_CAUSES; c++)
		if (c != d->probe_largest && p->cause[c].ns &&
		    !strcmp(p->cause[c].name, "probe"))
			fprintf(out, "tail: the probe's reader (latlab-sched) "
				"held a hot CPU for %.1f%% of the time above "
				"p99.9: the cost of observing, not the "
				"pipeline's\n",
				pct(p->cause[c].ns, p->total_ns));
}

/* What the scheduler probe saw the slowest events wait for. */
static void print_probe(FILE *out, const struct lat_pipe_diag *d)
{
	const struct lat_pipe_tail_cause *c;

	if (d->probe_largest < 0)
		return;
	c = &d->probe->cause[d->probe_largest];
	fprintf(out, "tail: with the scheduler probe: %.0f%% of the time above "
		"p99.9 was %s", d->probe_largest_pct, c->text);
	if (c->who_foreign)
		fprintf(out, ", most of it %s (pid %d, another process)",
			c->who, c->who_pid);
	else if (c->who_pid < 0)
		fprintf(out, ", most of it a task the probe did not see "
			"switch in");
	else if (c->who[0])
		fprintf(out, ", most of it %s", c->who);
	fprintf(out, "\n");
	print_probe_cost(out, d);
}

void pipe_print_diag(FILE *out, const struct lat_pipe_result *r,
		     const struct lat_pipe_diag *d)
{
	if (d->worst_delta >= 0)
		fprintf(out, "tail: the largest p99.9 part is %s: %s\n",
			r->delta[d->worst_delta].name, meaning(d->worst_part));
	if (d->shared_cpus)
		fprintf(out, "tail: hot threads share CPUs, so a hand-off "
			"waits for the other thread on that CPU to give it "
			"up (%" PRIu64 " yields, %" PRIu64 " sleeps)\n",
			d->yields, d->sleeps);
	if (d->loaded)
		fprintf(out, "tail: the load average was %.1f on %d CPUs when "
			"the run started: other processes took turns on the "
			"pipeline's CPUs\n", d->loadavg, d->online_cpus);
	if (d->throttled)
		print_throttled(out, r, d);
	if (d->stolen)
		fprintf(out, "tail: the hypervisor stole %.1f%% of CPU time "
			"during the run; each steal is a gap of tens of "
			"microseconds in whichever thread it hits\n",
			d->steal_pct);
	print_probe(out, d);
}

/* The probe's facts under "diagnosis": every cause's share of the time
 * above p99.9 and the largest, or null when the probe did not run. */
static void write_probe_json(struct lat_json *j, const struct lat_pipe_diag *d)
{
	const struct lat_pipe_tail_probe *p = d->probe;

	if (!p) {
		lat_json_null(j, "scheduler");
		return;
	}
	lat_json_obj_begin(j, "scheduler");
	lat_json_int(j, "threshold_ns", p->threshold_ns);
	lat_json_uint(j, "events", p->events);
	lat_json_uint(j, "total_ns", p->total_ns);
	lat_json_obj_begin(j, "shares");
	for (int c = 0; c < p->n_causes && c < LAT_PIPE_TAIL_CAUSES; c++)
		lat_json_double(j, p->cause[c].name,
				pct(p->cause[c].ns, p->total_ns) / 100);
	lat_json_obj_end(j);
	if (d->probe_largest >= 0) {
		const struct lat_pipe_tail_cause *c =
			&p->cause[d->probe_largest];

		lat_json_obj_begin(j, "largest");
		lat_json_str(j, "cause", c->name);
		lat_json_double(j, "share", d->probe_largest_pct / 100);
		if (c->who[0])
			lat_json_str(j, "who", c->who);
		else
			lat_json_null(j, "who");
		lat_json_int(j, "who_pid", c->who_pid);
		lat_json_bool(j, "who_foreign", c->who_foreign);
		lat_json_obj_end(j);
	} else {
		lat_json_null(j, "largest");
	}
	lat_json_obj_end(j);
}

void pipe_write_diag_json(struct lat_json *j,
			  const struct lat_pipe_result *r,
			  const struct lat_pipe_diag *d)
{
	lat_json_obj_begin(j, "diagnosis");
	if (d->worst_delta >= 0) {
		lat_json_obj_begin(j, "worst_part");
		lat_json_str(j, "name", r->delta[d->worst_delta].name);
		lat_json_str(j, "kind", lat_pipe_part_name(d->worst_part));
		lat_json_int(j, "p999_ns", d->worst_p999_ns);
		lat_json_obj_end(j);
	} else {
		lat_json_null(j, "worst_part");
	}
	lat_json_bool(j, "shared_cpus", d->shared_cpus);
	lat_json_uint(j, "yields", d->yields);
	lat_json_uint(j, "sleeps", d->sleeps);
	lat_json_bool(j, "loaded", d->loaded);
	lat_json_bool(j, "stolen", d->stolen);
	lat_json_str(j, "work_calibration", lat_work_verdict_name(d->work));
	lat_json_bool(j, "dropped", d->dropped > 0);
	lat_json_bool(j, "throttled", d->throttled);
	if (r->quota.applied) {
		lat_json_int(j, "stall_ns", d->stall_ns);
		lat_json_bool(j, "spikes_recur_at_period", d->recurring);
	}
	write_probe_json(j, d);
	lat_json_obj_end(j);
}

void pipe_print_quota(FILE *out, const struct lat_pipe_result *r)
{
	const struct lat_pipe_quota *q = &r->quota;
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];

	if (!q->applied && !q->error)
		return;
	fprintf(out, "cpu quota: %s per %s period (%.0f%% of one CPU), "
		"cgroup %s %s: %" PRIu64 " periods, %" PRIu64 " throttled, "
		"%s throttled time (summed over CPUs)%s%s\n",
		lat_fmt_ns(a, sizeof(a), (double)q->quota_us * 1e3),
		lat_fmt_ns(b, sizeof(b), (double)q->period_us * 1e3),
		100.0 * (double)q->quota_us / (double)q->period_us,
		lat_cgroup_version_name((enum lat_cgroup_version)q->version),
		q->group, q->nr_periods, q->nr_throttled,
		lat_fmt_ns(c, sizeof(c), (double)q->throttled_ns),
		q->error ? "; cleaning up failed: " : "",
		q->error ? lat_strerror(q->error) : "");
}

void pipe_write_quota_json(struct lat_json *j, const struct lat_pipe_result *r)
{
	const struct lat_pipe_quota *q = &r->quota;

	if (!q->applied && !q->error) {
		lat_json_null(j, "cpu_quota");
		return;
	}
	lat_json_obj_begin(j, "cpu_quota");
	lat_json_int(j, "quota_us", q->quota_us);
	lat_json_uint(j, "period_us", q->period_us);
	lat_json_str(j, "cgroup", q->group);
	lat_json_str(j, "cgroup_version",
		     lat_cgroup_version_name((enum lat_cgroup_version)
					     q->version));
	lat_json_uint(j, "nr_periods", q->nr_periods);
	lat_json_uint(j, "nr_throttled", q->nr_throttled);
	lat_json_uint(j, "throttled_ns", q->throttled_ns);
	lat_json_uint(j, "spikes", q->spikes);
	lat_json_double(j, "spike_gap_ns", q->spike_gap_ns);
	if (q->error)
		lat_json_str(j, "cleanup_error", lat_strerror(q->error));
	else
		lat_json_null(j, "cleanup_error");
	lat_json_obj_end(j);
}
