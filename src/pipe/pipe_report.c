/*
 * Pipeline results for people (table), scripts (JSON) and tools (.hgrm).
 * Everything here reads struct lat_pipe_result only: a new column is a
 * new field there plus a line in each printer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/fmt.h"
#include "latlab/outfile.h"
#include "pipe_int.h"

static const double levels[] = { 50, 99, 99.9 };

static const char *fmt_ns(char *buf, int64_t ns)
{
	return lat_fmt_ns(buf, LAT_FMT_LEN, (double)ns);
}

static void print_deltas(FILE *out, const struct lat_pipe_result *r)
{
	char b[4][LAT_FMT_LEN];

	fprintf(out, "%-10s %10s %10s %10s %10s %10s\n", "delta", "count",
		"p50", "p99", "p99.9", "max");
	for (int i = 0; i < r->n_deltas; i++) {
		const struct lat_hist *h = &r->delta[i].hist;

		for (int k = 0; k < 3; k++)
			fmt_ns(b[k], lat_hist_value_at_percentile(h,
								  levels[k]));
		fmt_ns(b[3], lat_hist_max(h));
		fprintf(out, "%-10s %10" PRId64 " %10s %10s %10s %10s\n",
			r->delta[i].name, h->total_count, b[0], b[1], b[2],
			b[3]);
	}
}

static void print_threads(FILE *out, const struct lat_pipe_result *r)
{
	fprintf(out, "threads:");
	for (int i = 0; i < r->n_hot; i++) {
		const struct lat_pipe_thread_result *t = &r->thread[i];

		if (t->cpu >= 0)
			fprintf(out, "%s %s on cpu %d", i ? "," : "", t->name,
				t->cpu);
		else
			fprintf(out, "%s %s unpinned (ended on cpu %d)",
				i ? "," : "", t->name, t->ran_on);
	}
	if (r->config.agg_cpu >= 0)
		fprintf(out, "; aggregator on cpu %d\n", r->config.agg_cpu);
	else if (r->config.agg_slice)
		fprintf(out, "; aggregator unpinned, yields every %u samples\n",
			r->config.agg_slice);
	else
		fprintf(out, "; aggregator unpinned\n");
	for (unsigned f = 1; f <= LAT_TOPO_CHOSEN; f <<= 1)
		if ((r->config.place_flags & f) && f != LAT_TOPO_CHOSEN)
			fprintf(out, "placement: %s\n", lat_topo_flag_text(f));
	fprintf(out, "wait: %s", lat_wait_kind_name(r->config.wait));
	if (r->config.wait != LAT_WAIT_SPIN)
		fprintf(out, " after %u pauses", r->config.wait_spins
			? r->config.wait_spins : LAT_WAIT_DEFAULT_SPINS);
	for (int i = 0; i < r->n_hot; i++) {
		const struct lat_wait_stats *w = &r->thread[i].wait;

		if (w->yields || w->sleeps)
			fprintf(out, "; %s %" PRIu64 " yields %" PRIu64
				" sleeps", r->thread[i].name, w->yields,
				w->sleeps);
	}
	fprintf(out, "\n");
}

static void print_accounting(FILE *out, const struct lat_pipe_result *r)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], w[LAT_FMT_LEN];

	/* lat_fmt_ns: a short run's wall is 512 us, not "0.00 s" */
	fprintf(out, "rate: offered %s, achieved %s, wall %s%s\n",
		lat_fmt_rate(a, sizeof(a), r->offered_rate),
		lat_fmt_rate(b, sizeof(b), r->achieved_rate),
		lat_fmt_ns(w, sizeof(w), r->wall_s * 1e9),
		r->interrupted ? " (interrupted: partial results)" : "");
	fprintf(out, "accounting: planned %" PRIu64 ", produced %" PRIu64
		", consumed %" PRIu64 ", recorded %" PRIu64 ", dropped %"
		PRIu64 " -> %s\n", r->config.events, r->produced, r->consumed,
		r->recorded, r->dropped, r->exact ? "exact" : "MISMATCH");
	fprintf(out, "            over histogram range %" PRIu64
		", clock backwards %" PRIu64 ", e2e != sum of parts %"
		PRIu64 "\n", r->over_range, r->clock_backwards,
		r->sum_check_failures);
	if (r->dropped)
		fprintf(out, "dropped: the aggregator fell %" PRIu64
			" samples behind a full sample ring; those events "
			"were processed but are not in the histograms\n",
			r->dropped);
}

static void print_work(FILE *out, const struct lat_pipe_result *r)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];

	fprintf(out, "work: asked %s per stage; %" PRIu64 " steps of %s, "
		"startup check p50 %s (%+.0f%%)\n",
		lat_fmt_ns(a, sizeof(a), r->work.target_ns), r->work.steps,
		lat_fmt_ns(b, sizeof(b), r->work.ns_per_step),
		lat_fmt_ns(c, sizeof(c), r->work.check_p50_ns),
		100 * r->work.check_error);
	if (r->config.work_dist.kind == LAT_WORK_DET)
		return;
	fprintf(out, "work: stage 1 draws %s (mean %s, cv %.3g; %" PRIu64
		" draws below the stamp overhead raised to 0 steps); "
		"check over %zu draws: median miss %+.1f%% of the mean\n",
		r->config.work_dist.name,
		lat_fmt_ns(a, sizeof(a), r->work_table.mean_ns),
		r->work_table.cv, r->work_table.raised, r->work_table.checked,
		100 * r->work_table.check_error);
}

int lat_pipe_print_table(FILE *out, const struct lat_pipe_result *r)
{
	struct lat_pipe_diag d;

	print_deltas(out, r);
	fprintf(out, "\n");
	print_threads(out, r);
	pipe_print_sched_ask(out, r);
	print_accounting(out, r);
	print_work(out, r);
	pipe_print_quota(out, r);
	lat_pipe_diagnose(r, &d);
	pipe_print_diag(out, r, &d);
	pipe_print_use(out, r);
	return ferror(out) ? -EIO : 0;
}

static void json_config(struct lat_json *j, const struct lat_pipe_config *c)
{
	lat_json_obj_begin(j, "config");
	lat_json_uint(j, "events", c->events);
	lat_json_double(j, "rate", c->rate);
	lat_json_str(j, "arrivals", lat_pace_kind_name(c->arrivals));
	lat_json_int(j, "stages", c->stages);
	lat_json_uint(j, "capacity", c->capacity);
	lat_json_double(j, "work_ns", c->work_ns);
	lat_json_str(j, "wait", lat_wait_kind_name(c->wait));
	lat_json_uint(j, "wait_spins", c->wait_spins ? c->wait_spins
						    : LAT_WAIT_DEFAULT_SPINS);
	lat_json_bool(j, "pin", c->pin);
	lat_json_bool(j, "stamps", c->stamps);
	lat_json_uint(j, "alloc_bytes", c->alloc_bytes);
	lat_json_bool(j, "share_line", c->share_line);
	lat_json_bool(j, "noise", c->noise);
	if (c->stall_ns > 0) {
		lat_json_uint(j, "stall_seq", c->stall_seq);
		lat_json_double(j, "stall_ns", c->stall_ns);
	}
	lat_json_double(j, "interval_s", c->interval_s);
	lat_json_double(j, "cpu_quota", c->cpu_quota);
	lat_json_uint(j, "cpu_period_us", c->cpu_period_us);
	lat_json_int(j, "burst_threads", c->burst_threads);
	lat_json_obj_end(j);
}

static void json_threads(struct lat_json *j, const struct lat_pipe_result *r)
{
	lat_json_obj_begin(j, "placement");
	lat_json_bool(j, "oversubscribed",
		      r->config.place_flags & LAT_TOPO_SHARED_CPU);
	lat_json_arr_begin(j, "compromises");
	for (unsigned f = 1; f <= LAT_TOPO_CHOSEN; f <<= 1)
		if ((r->config.place_flags & f) && f != LAT_TOPO_CHOSEN)
			lat_json_str(j, NULL, lat_topo_flag_text(f));
	lat_json_arr_end(j);
	lat_json_arr_begin(j, "threads");
	for (int i = 0; i < r->n_hot; i++) {
		const struct lat_pipe_thread_result *t = &r->thread[i];

		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "name", t->name);
		lat_json_int(j, "cpu", t->cpu);
		lat_json_int(j, "ran_on", t->ran_on);
		lat_json_uint(j, "waits", t->wait.waits);
		lat_json_uint(j, "yields", t->wait.yields);
		lat_json_uint(j, "sleeps", t->wait.sleeps);
		lat_json_uint(j, "wakes", t->wait.wakes);
		if (t->sched_known) {
			lat_json_uint(j, "on_cpu_ns", t->on_cpu_ns);
			lat_json_uint(j, "run_delay_ns", t->run_delay_ns);
		} else {
			lat_json_null(j, "on_cpu_ns");
			lat_json_null(j, "run_delay_ns");
		}
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_int(j, "aggregator_cpu", r->config.agg_cpu);
	lat_json_uint(j, "aggregator_slice", r->config.agg_slice);
	lat_json_bool(j, "producer_yields_while_early", r->config.pace_yield);
	lat_json_double(j, "producer_yields_above_ns",
			r->config.pace_yield_above_ns);
	lat_json_obj_end(j);
}

static void json_deltas(struct lat_json *j, const struct lat_pipe_result *r)
{
	lat_json_arr_begin(j, "deltas");
	for (int i = 0; i < r->n_deltas; i++) {
		const struct lat_hist *h = &r->delta[i].hist;

		struct lat_hist_summary s;

		lat_hist_summarize(h, 1, &s);
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "name", r->delta[i].name);
		lat_json_int(j, "over_range", h->overflow_count);
		lat_hist_summary_write_json(j, &s);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
}

void lat_pipe_write_json(struct lat_json *j, const struct lat_pipe_result *r)
{
	struct lat_pipe_diag d;

	json_config(j, &r->config);
	json_threads(j, r);
	json_deltas(j, r);
	lat_json_obj_begin(j, "accounting");
	lat_json_uint(j, "planned", r->config.events);
	lat_json_uint(j, "produced", r->produced);
	lat_json_uint(j, "consumed", r->consumed);
	lat_json_uint(j, "recorded", r->recorded);
	lat_json_uint(j, "dropped", r->dropped);
	lat_json_uint(j, "over_range", r->over_range);
	lat_json_uint(j, "clock_backwards", r->clock_backwards);
	lat_json_uint(j, "sum_check_failures", r->sum_check_failures);
	lat_json_bool(j, "exact", r->exact);
	lat_json_obj_end(j);
	lat_json_double(j, "offered_rate", r->offered_rate);
	lat_json_double(j, "achieved_rate", r->achieved_rate);
	lat_json_double(j, "wall_s", r->wall_s);
	lat_json_bool(j, "interrupted", r->interrupted);
	lat_json_double_if(j, "steal_pct", r->steal_pct >= 0, r->steal_pct);
	lat_json_double_if(j, "loadavg", r->loadavg >= 0, r->loadavg);
	lat_json_int(j, "online_cpus", r->online_cpus);
	lat_json_double(j, "cycles_per_ns", r->cal.cycles_per_ns);
	lat_json_obj_begin(j, "work");
	lat_json_double(j, "target_ns", r->work.target_ns);
	lat_json_uint(j, "steps", r->work.steps);
	lat_json_double(j, "ns_per_step", r->work.ns_per_step);
	lat_json_double(j, "stamp_overhead_ns", r->work.overhead_ns);
	lat_json_double(j, "check_p50_ns", r->work.check_p50_ns);
	lat_json_str(j, "dist", lat_work_dist_name(&r->config.work_dist));
	if (r->config.work_dist.kind != LAT_WORK_DET) {
		lat_json_double(j, "dist_mean_ns", r->work_table.mean_ns);
		lat_json_double(j, "dist_cv", r->work_table.cv);
		lat_json_uint(j, "dist_raised", r->work_table.raised);
		lat_json_double(j, "dist_check_mean_ns",
				r->work_table.check_mean_ns);
	}
	lat_json_obj_end(j);
	lat_json_obj_begin(j, "share_line");
	lat_json_uint(j, "stage_counter_addr", r->stage_counter_addr);
	lat_json_uint(j, "consumer_counter_addr", r->consumer_counter_addr);
	lat_json_uint(j, "stage_counter", r->stage_counter);
	lat_json_uint(j, "consumer_counter", r->consumer_counter);
	lat_json_obj_end(j);
	lat_json_uint(j, "hlog_intervals", r->hlog_intervals);
	pipe_write_quota_json(j, r);
	pipe_write_sched_ask_json(j, r);
	lat_pipe_diagnose(r, &d);
	pipe_write_diag_json(j, r, &d);
	pipe_write_use_json(j, r);
}

int lat_pipe_write_hgrm(const char *dir, const struct lat_pipe_result *r)
{
	struct lat_outfile o;
	char path[4096];

	if (mkdir(dir, 0777) && errno != EEXIST)
		return -errno;
	for (int i = 0; i < r->n_deltas; i++) {
		int rc;

		if (snprintf(path, sizeof(path), "%s/%s.hgrm", dir,
			     r->delta[i].name) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		/* a failure never leaves a truncated file where the last
		 * run's stood */
		rc = lat_outfile_open(&o, path);
		if (!rc)
			rc = lat_outfile_commit(&o, lat_hgrm_write(o.f,
						&r->delta[i].hist, 5, 1.0,
						false));
		if (rc)
			return rc;
	}
	return 0;
}
