/*
 * lat_lab_row_from_result: one pipeline run, summarised for the judge.
 */
#include <string.h>

#include "latlab/lab.h"

static void fill_metrics(struct lat_lab_row *w, const struct lat_instr *in)
{
	uint64_t minor, major;

	w->ipc = -1;
	if (!in)
		return;
	w->has_metric[LAT_LAB_CTX_SWITCHES] = lat_instr_sum(in,
		LAT_PERF_CTX_SWITCHES, &w->metric[LAT_LAB_CTX_SWITCHES]);
	w->has_metric[LAT_LAB_MIGRATIONS] = lat_instr_sum(in,
		LAT_PERF_MIGRATIONS, &w->metric[LAT_LAB_MIGRATIONS]);
	w->has_metric[LAT_LAB_PAGE_FAULTS] =
		lat_instr_sum(in, LAT_PERF_MINOR_FAULTS, &minor) &&
		lat_instr_sum(in, LAT_PERF_MAJOR_FAULTS, &major);
	w->metric[LAT_LAB_PAGE_FAULTS] =
		w->has_metric[LAT_LAB_PAGE_FAULTS] ? minor + major : 0;
	w->has_metric[LAT_LAB_ALLOCATIONS] = lat_instr_allocs(in,
		&w->metric[LAT_LAB_ALLOCATIONS]);
	w->has_metric[LAT_LAB_RUN_DELAY_NS] = lat_instr_sum(in,
		LAT_PERF_RUN_DELAY, &w->metric[LAT_LAB_RUN_DELAY_NS]);
	w->ipc = lat_instr_ipc(in);
}

/*
 * The window's story in three numbers: which part holds the trigger's
 * excess over its median, whether it was slow only there (one slow event)
 * and which part is slow in a run right after it (the events queued
 * behind).
 */
static void fill_flight(struct lat_lab_flight *fl, struct lat_flight *f)
{
	struct lat_flight_col col[LAT_FLIGHT_MAX_DELTAS + 1];
	size_t n, parts;
	double best = 0;

	fl->trigger_part = -1;
	if (!f->ring || f->state != LAT_FLIGHT_FROZEN)
		return;
	fl->frozen = true;
	fl->threshold_ns = (double)f->threshold_ns;
	n = lat_flight_analyze(f, col);
	if (n < 2)
		return;
	parts = n - 1;
	fl->trigger_e2e_ns = (double)col[parts].at_trigger_ns;
	for (size_t i = 0; i < parts; i++) {
		double excess = (double)col[i].at_trigger_ns -
				(double)col[i].median_ns;

		if (col[i].slow_at_trigger && excess > best) {
			best = excess;
			fl->trigger_part = (int)i;
			fl->trigger_only = col[i].after_trigger == 0;
		}
		if (i < LAT_LAB_MAX_PARTS)
			fl->slow_after[i] = (uint32_t)col[i].after_trigger;
	}
}

void lat_lab_row_from_result(struct lat_lab_row *w,
			     const struct lat_pipe_result *r,
			     struct lat_instr *in)
{
	const struct lat_hist *e2e = &r->delta[r->n_deltas - 1].hist;

	w->events = r->recorded;
	w->events_planned = r->config.events;
	w->p50_ns = (double)lat_hist_value_at_percentile(e2e, 50.0);
	w->p90_ns = (double)lat_hist_value_at_percentile(e2e, 90.0);
	w->p99_ns = (double)lat_hist_value_at_percentile(e2e, 99.0);
	w->p999_ns = (double)lat_hist_value_at_percentile(e2e, 99.9);
	w->max_ns = (double)lat_hist_max(e2e);
	w->mean_ns = lat_hist_mean(e2e);
	w->n_parts = r->n_deltas - 1;
	if (w->n_parts > LAT_LAB_MAX_PARTS)
		w->n_parts = LAT_LAB_MAX_PARTS;
	for (int i = 0; i < w->n_parts; i++) {
		const struct lat_hist *h = &r->delta[i].hist;

		memcpy(w->part[i], r->delta[i].name, sizeof(w->part[i]));
		w->part[i][sizeof(w->part[i]) - 1] = '\0';
		w->part_mean_ns[i] = lat_hist_mean(h);
		w->part_p50_ns[i] =
			(double)lat_hist_value_at_percentile(h, 50.0);
		w->part_p99_ns[i] =
			(double)lat_hist_value_at_percentile(h, 99.0);
		w->part_p999_ns[i] =
			(double)lat_hist_value_at_percentile(h, 99.9);
	}
	w->offered_per_s = r->offered_rate;
	w->achieved_per_s = r->achieved_rate;
	w->wall_s = r->wall_s;
	w->exact = r->exact;
	w->interrupted = r->interrupted;
	w->fell_behind = !r->interrupted &&
			 r->achieved_rate < LAT_LAB_BEHIND * r->offered_rate;
	w->dropped = r->dropped;
	w->stall_ns = r->config.stall_ns;
	fill_metrics(w, in);
	w->flight.trigger_part = -1;
	if (in)
		fill_flight(&w->flight, &in->flight);
}
