/*
 * Why a run's tail is what it is: facts from the result, computed once
 * (lat_pipe_diagnose) and rendered twice, as the table's "tail:" lines and
 * as the JSON's "diagnosis" object, so scripts read the same findings
 * people do.
 */
#include <inttypes.h>
#include <string.h>

#include "pipe_int.h"

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
	if (d->stolen)
		fprintf(out, "tail: the hypervisor stole %.1f%% of CPU time "
			"during the run; each steal is a gap of tens of "
			"microseconds in whichever thread it hits\n",
			d->steal_pct);
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
	lat_json_obj_end(j);
}
