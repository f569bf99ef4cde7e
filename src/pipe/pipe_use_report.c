/*
 * The USE audit as rows (lat_pipe_use), as lines for people and as the
 * "use" object of the JSON. Utilization, saturation and errors of every
 * resource the pipeline runs on, from the result alone.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"
#include "pipe_int.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : -1;
}

static void cpu_rows(const struct lat_pipe_result *r, struct lat_pipe_use *u)
{
	for (int k = 0; k < r->n_use_cpus && u->n < LAT_PIPE_USE_ROWS; k++) {
		struct lat_pipe_use_row *w = &u->row[u->n++];
		int cpu = r->use_cpu[k];
		size_t n = 0;
		uint64_t task_clock = 0;
		bool counted = true, by_perf = true, clocks = true;

		w->kind = LAT_PIPE_RES_CPU;
		w->late_p99_ns = -1;
		if (cpu < 0)
			snprintf(w->name, sizeof(w->name), "cpus");
		else
			snprintf(w->name, sizeof(w->name), "cpu%d", cpu);
		for (int i = 0; i < r->n_hot; i++) {
			const struct lat_pipe_thread_result *t = &r->thread[i];

			if (cpu >= 0 && t->cpu != cpu)
				continue;
			if (n < sizeof(w->users))
				n += (size_t)snprintf(w->users + n,
						      sizeof(w->users) - n,
						      "%s%s", n ? ", " : "",
						      t->name);
			w->clock_ns += t->on_cpu_ns;
			w->run_delay_ns += t->run_delay_ns;
			task_clock += t->task_clock_ns;
			w->switches += t->switches;
			counted &= t->counters_known;
			by_perf &= t->counters_by_perf;
			clocks &= t->sched_known;
		}
		/* task-clock when perf counted every thread here: the USE line
		 * then adds up with the counters table by construction */
		counted &= n > 0;
		w->ours_by_task_clock = counted;
		w->ours_by_perf = counted && by_perf;
		w->ours_ns = counted ? task_clock : w->clock_ns;
		/* the surplus is perf's story: /proc's task-clock is the
		 * CPU clock itself, read a tick or so apart */
		w->switching_known = w->ours_by_perf && clocks;
		if (w->switching_known)
			w->switching_ns = (int64_t)(w->clock_ns - task_clock);
		else
			w->switches = 0;
		/* unpinned: the whole machine's CPUs are the resource */
		{
			uint64_t span = r->run_ns *
					(uint64_t)(cpu < 0 && r->online_cpus > 0
							   ? r->online_cpus
							   : 1);

			w->busy_ns = r->cpu_busy_ns[k];
			w->util_pct = r->cpu_busy_ns[k] == UINT64_MAX
					      ? -1 : pct(r->cpu_busy_ns[k], span);
			/* /proc/stat counts whole ticks (10 ms at USER_HZ
			 * 100): a short run can read a tick over */
			if (w->util_pct > 100)
				w->util_pct = 100;
			w->ours_pct = counted || u->sched_known
					      ? pct(w->ours_ns, span) : -1;
			w->switching_pct =
				w->switching_known && span
					? 100.0 * (double)w->switching_ns /
						  (double)span
					: NAN;
			w->waiting = u->sched_known && r->run_ns
					     ? (double)w->run_delay_ns /
						       (double)r->run_ns
					     : -1;
		}
		w->throttled = r->quota.nr_throttled;
		w->errors = w->throttled;
	}
}

static void ring_row(const struct lat_pipe_result *r,
		     const struct lat_pipe_ring_use *g,
		     struct lat_pipe_use_row *w)
{
	snprintf(w->name, sizeof(w->name), "%s", g->name);
	w->util_pct = pct(g->nonempty, g->looks);
	w->capacity = g->capacity;
	w->looks = g->looks;
	w->full = g->full;
	w->depth_p50 = g->depth_p50;
	w->depth_p99 = g->depth_p99;
	w->depth_max = g->depth_max;
	w->late_p99_ns = -1;
	(void)r;
}

void lat_pipe_use(const struct lat_pipe_result *r, struct lat_pipe_use *u)
{
	struct lat_pipe_use_row *w;

	memset(u, 0, sizeof(*u));
	u->sched_known = r->n_hot > 0;
	for (int i = 0; i < r->n_hot; i++)
		u->sched_known &= r->thread[i].sched_known;
	cpu_rows(r, u);
	for (int i = 0; i + 1 < r->n_rings && u->n < LAT_PIPE_USE_ROWS; i++) {
		w = &u->row[u->n++];
		w->kind = LAT_PIPE_RES_RING;
		ring_row(r, &r->ring[i], w);
		/* q1's saturation shows as the producer sending late */
		if (i == 0 && r->n_deltas > 1 && r->delta[0].hist.total_count)
			w->late_p99_ns = lat_hist_value_at_percentile(
				&r->delta[0].hist, 99);
	}
	if (u->n + 3 > LAT_PIPE_USE_ROWS)
		return;
	w = &u->row[u->n++];
	w->kind = LAT_PIPE_RES_AGG;
	snprintf(w->name, sizeof(w->name), "aggregator");
	w->late_p99_ns = -1;
	w->util_pct = r->agg.sched_known ? pct(r->agg.on_cpu_ns, r->run_ns)
					 : -1;
	w->run_delay_ns = r->agg.run_delay_ns;
	w->waiting = r->agg.sched_known && r->run_ns
			     ? (double)w->run_delay_ns / (double)r->run_ns
			     : -1;
	w->over_range = r->over_range;
	w->clock_backwards = r->clock_backwards;
	w->sum_check = r->sum_check_failures;
	w->errors = w->over_range + w->clock_backwards + w->sum_check;
	if (r->n_rings > 0) {
		w = &u->row[u->n++];
		w->kind = LAT_PIPE_RES_SAMPLES;
		ring_row(r, &r->ring[r->n_rings - 1], w);
		w->dropped = r->dropped;
		w->errors = w->dropped;
	}
	w = &u->row[u->n++];
	w->kind = LAT_PIPE_RES_MEMORY;
	snprintf(w->name, sizeof(w->name), "memory");
	w->late_p99_ns = -1;
	w->util_pct = -1;
	w->rss_bytes = r->rss_bytes;
	w->majflt = r->majflt;
	w->minflt = r->minflt;
	w->swap_bytes = r->swap_bytes;
	w->alloc_failures = r->alloc_failures;
	w->errors = w->alloc_failures;
}

/* @v with @fmt, or "n/a" for an unknown (negative) figure. */
static const char *fmt_or_na(char *buf, size_t len, const char *fmt,
			     double v)
{
	if (v < 0)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

static const char *fmt_pct(char *buf, size_t len, double v)
{
	return fmt_or_na(buf, len, "%.1f%%", v);
}

static void print_row(FILE *out, const struct lat_pipe_use_row *w)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN], d[LAT_FMT_LEN];
	char who[96];

	snprintf(who, sizeof(who), "%s%s%s%s", w->name, *w->users ? " (" : "",
		 w->users, *w->users ? ")" : "");
	fprintf(out, "  %-28s ", who);
	switch (w->kind) {
	case LAT_PIPE_RES_CPU:
		fprintf(out, "U busy %s (hot threads %s by %s",
			fmt_pct(a, sizeof(a), w->util_pct),
			fmt_pct(b, sizeof(b), w->ours_pct),
			!w->ours_by_task_clock ? "CPU clocks"
			: w->ours_by_perf      ? "task-clock"
					       : "task-clock from /proc");
		if (w->switching_known && w->switches)
			fprintf(out, "; CPU clocks %+.1f%% = %" PRIu64
				" switches x %s%s", w->switching_pct,
				w->switches, w->switching_ns >= 0 ? "+" : "",
				lat_fmt_ns(c, sizeof(c),
					   (double)w->switching_ns /
						   (double)w->switches));
		fprintf(out, ")  S run-queue delay %s, %s waiting on average  "
			"E throttled periods %" PRIu64 "\n",
			lat_fmt_ns(c, sizeof(c), (double)w->run_delay_ns),
			fmt_or_na(d, sizeof(d), "%.2f", w->waiting), w->throttled);
		break;
	case LAT_PIPE_RES_RING:
	case LAT_PIPE_RES_SAMPLES:
		fprintf(out, "U non-empty %s of %" PRIu64 " looks  S depth "
			"p50 %" PRId64 " p99 %" PRId64 " max %" PRId64 " of %zu"
			", full %" PRIu64 "%s%s  E %s %" PRIu64 "\n",
			fmt_pct(a, sizeof(a), w->util_pct), w->looks,
			w->depth_p50, w->depth_p99, w->depth_max, w->capacity,
			w->full, w->late_p99_ns >= 0 ? ", producer late p99 "
						     : "",
			w->late_p99_ns >= 0 ? lat_fmt_ns(b, sizeof(b),
						       (double)w->late_p99_ns)
					    : "",
			w->kind == LAT_PIPE_RES_SAMPLES ? "dropped" : "lost",
			w->errors);
		break;
	case LAT_PIPE_RES_AGG:
		fprintf(out, "U %s of a CPU  S run-queue delay %s (%s of the "
			"run)  E over range %" PRIu64 ", clock backwards %"
			PRIu64 ", e2e != parts %" PRIu64 "\n",
			fmt_pct(a, sizeof(a), w->util_pct),
			lat_fmt_ns(c, sizeof(c), (double)w->run_delay_ns),
			fmt_pct(b, sizeof(b), w->waiting < 0 ? -1
							      : 100 * w->waiting),
			w->over_range, w->clock_backwards, w->sum_check);
		break;
	case LAT_PIPE_RES_MEMORY:
		fprintf(out, "U resident %.1f MiB  S major faults %" PRIu64
			", minor %" PRIu64 ", swapped %.1f MiB  E allocation "
			"failures %" PRIu64 "\n", (double)w->rss_bytes / 1048576,
			w->majflt, w->minflt, (double)w->swap_bytes / 1048576,
			w->alloc_failures);
		break;
	}
}

void pipe_print_use(FILE *out, const struct lat_pipe_result *r)
{
	struct lat_pipe_use u;

	lat_pipe_use(r, &u);
	fprintf(out, "USE (utilization, saturation, errors):\n");
	for (int i = 0; i < u.n; i++)
		print_row(out, &u.row[i]);
}

/* Unknown (negative) figures as null: the writer prints NaN as null. */
static void num_or_null(struct lat_json *j, const char *key, double v)
{
	lat_json_double(j, key, v >= 0 ? v : NAN);
}

static const char *const kind_name[] = {
	[LAT_PIPE_RES_CPU] = "cpu", [LAT_PIPE_RES_RING] = "ring",
	[LAT_PIPE_RES_AGG] = "aggregator", [LAT_PIPE_RES_SAMPLES] = "ring",
	[LAT_PIPE_RES_MEMORY] = "memory",
};

/* What the CPU clocks say beyond task-clock, and per switch: null when
 * the hot threads' share is not task-clock or a clock is unknown. */
static void json_switching(struct lat_json *j,
			   const struct lat_pipe_use_row *w)
{
	if (!w->switching_known) {
		lat_json_null(j, "cpu_clock_ns");
		lat_json_null(j, "switching_ns");
		lat_json_null(j, "switching_pct");
		lat_json_null(j, "context_switches");
		lat_json_null(j, "switching_ns_per_switch");
		return;
	}
	lat_json_uint(j, "cpu_clock_ns", w->clock_ns);
	lat_json_int(j, "switching_ns", w->switching_ns);
	lat_json_double(j, "switching_pct", w->switching_pct);
	lat_json_uint(j, "context_switches", w->switches);
	lat_json_double(j, "switching_ns_per_switch",
			w->switches ? (double)w->switching_ns /
					      (double)w->switches
				    : NAN);
}

static void json_row(struct lat_json *j, const struct lat_pipe_use_row *w)
{
	bool ring = w->kind == LAT_PIPE_RES_RING ||
		    w->kind == LAT_PIPE_RES_SAMPLES;

	lat_json_obj_begin(j, w->name);
	lat_json_str(j, "resource", kind_name[w->kind]);
	if (*w->users)
		lat_json_str(j, "threads", w->users);
	lat_json_obj_begin(j, "utilization");
	if (w->kind == LAT_PIPE_RES_MEMORY) {
		lat_json_uint(j, "rss_bytes", w->rss_bytes);
	} else {
		num_or_null(j, ring ? "nonempty_pct" : "busy_pct", w->util_pct);
	}
	if (w->kind == LAT_PIPE_RES_CPU) {
		lat_json_uint_if(j, "busy_ns", w->busy_ns != UINT64_MAX,
				 w->busy_ns);
		num_or_null(j, "hot_threads_pct", w->ours_pct);
		lat_json_uint(j, "hot_threads_on_cpu_ns", w->ours_ns);
		lat_json_str(j, "hot_threads_source",
			     !w->ours_by_task_clock ? "cpu-clock"
			     : w->ours_by_perf      ? "task-clock"
						    : "task-clock-proc");
		json_switching(j, w);
	}
	lat_json_obj_end(j);
	lat_json_obj_begin(j, "saturation");
	if (w->kind == LAT_PIPE_RES_CPU || w->kind == LAT_PIPE_RES_AGG) {
		lat_json_uint(j, "run_delay_ns", w->run_delay_ns);
		num_or_null(j, "waiting_avg", w->waiting);
	}
	if (ring) {
		lat_json_uint(j, "capacity", w->capacity);
		lat_json_uint(j, "looks", w->looks);
		lat_json_int(j, "depth_p50", w->depth_p50);
		lat_json_int(j, "depth_p99", w->depth_p99);
		lat_json_int(j, "depth_max", w->depth_max);
		lat_json_uint(j, "full_looks", w->full);
	}
	if (w->late_p99_ns >= 0)
		lat_json_int(j, "producer_late_p99_ns", w->late_p99_ns);
	if (w->kind == LAT_PIPE_RES_MEMORY) {
		lat_json_uint(j, "major_faults", w->majflt);
		lat_json_uint(j, "minor_faults", w->minflt);
		lat_json_uint(j, "swap_bytes", w->swap_bytes);
	}
	lat_json_obj_end(j);
	lat_json_obj_begin(j, "errors");
	lat_json_uint(j, "total", w->errors);
	if (w->kind == LAT_PIPE_RES_CPU)
		lat_json_uint(j, "throttled_periods", w->throttled);
	if (w->kind == LAT_PIPE_RES_SAMPLES)
		lat_json_uint(j, "dropped", w->dropped);
	if (w->kind == LAT_PIPE_RES_AGG) {
		lat_json_uint(j, "over_range", w->over_range);
		lat_json_uint(j, "clock_backwards", w->clock_backwards);
		lat_json_uint(j, "sum_check_failures", w->sum_check);
	}
	if (w->kind == LAT_PIPE_RES_MEMORY)
		lat_json_uint(j, "allocation_failures", w->alloc_failures);
	lat_json_obj_end(j);
	lat_json_obj_end(j);
}

void pipe_write_use_json(struct lat_json *j, const struct lat_pipe_result *r)
{
	struct lat_pipe_use u;

	lat_pipe_use(r, &u);
	lat_json_obj_begin(j, "use");
	for (int i = 0; i < u.n; i++)
		json_row(j, &u.row[i]);
	lat_json_obj_end(j);
}
