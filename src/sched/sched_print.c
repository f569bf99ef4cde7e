/*
 * The probe's result for people (a table per thread or for all of them,
 * one verdict line per watched CPU) and for scripts (JSON, same facts).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/hist_io.h"
#include "latlab/sched.h"
#include "sched/sched_int.h"

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p99.9",
					 "p99.99" };
#define NPCT 5
#define COL 10

static void cell_ns(FILE *out, double ns)
{
	char b[LAT_FMT_LEN];

	lat_fmt_ns(b, sizeof(b), ns);
	lat_fmt_pad(out, b, COL);
}

static void hist_row(FILE *out, const char *name, const struct lat_hist *h)
{
	int i;

	fprintf(out, "  %-22s%10" PRId64, name, h->total_count);
	if (!h->total_count) {
		fprintf(out, "\n");
		return;
	}
	for (i = 0; i < NPCT; i++)
		cell_ns(out, (double)lat_hist_value_at_percentile(h, pcts[i]));
	cell_ns(out, (double)lat_hist_max(h));
	fprintf(out, "\n");
}

static void whos_line(FILE *out, const char *label,
		      const struct lat_sched_whos *w)
{
	char b[LAT_FMT_LEN];
	int i;

	if (!w->n && !w->other_count)
		return;
	fprintf(out, "  %s:", label);
	for (i = 0; i < w->n; i++)
		fprintf(out, "%s %s (%d) %" PRIu64 "x %s", i ? "," : "",
			w->top[i].comm, (int)w->top[i].pid, w->top[i].count,
			lat_fmt_ns(b, sizeof(b), (double)w->top[i].ns));
	if (w->other_count)
		fprintf(out, ", others %" PRIu64 "x %s", w->other_count,
			lat_fmt_ns(b, sizeof(b), (double)w->other_ns));
	fprintf(out, "\n");
}

static void thread_block(FILE *out, const struct lat_sched_thread *t,
			 bool total)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];
	int i;

	if (total)
		fprintf(out, "all followed threads:\n");
	else
		fprintf(out, "tid %d (%s)%s:\n", (int)t->tid, t->comm,
			t->exited ? ", exited" : "");
	if (t->rq_wakeup) {
		fprintf(out, "  %-22s%10s", "run-queue latency", "count");
		for (i = 0; i < NPCT; i++)
			fprintf(out, "%*s", COL, pct_names[i]);
		fprintf(out, "%*s\n", COL, "max");
		hist_row(out, "after wakeup", t->rq_wakeup);
		hist_row(out, "after preemption", t->rq_preempt);
		hist_row(out, "blocked (off CPU)", t->blocked);
	}
	fprintf(out, "  time: on CPU %s, runnable waiting %s, blocked %s\n",
		lat_fmt_ns(a, sizeof(a), (double)t->oncpu_ns),
		lat_fmt_ns(b, sizeof(b), (double)t->runnable_ns),
		lat_fmt_ns(c, sizeof(c), (double)t->blocked_ns));
	fprintf(out, "  switches: %" PRIu64 " voluntary, %" PRIu64
		" involuntary (%" PRIu64 " preempted while runnable); "
		"%" PRIu64 " wakeups; %" PRIu64 " migrations\n",
		t->switches_vol, t->switches_invol, t->preempted, t->wakeups,
		t->migrations);
	if (t->hidden)
		fprintf(out, "  hidden: %" PRIu64 " off-CPU stretches, %s in all, "
			"ended by a wakeup or switch-in the kernel did not "
			"report (it traces nothing while some tasks run): not "
			"in the times above\n",
			t->hidden, lat_fmt_ns(a, sizeof(a), (double)t->hidden_ns));
	whos_line(out, "preempted by", &t->preempted_by);
	whos_line(out, "waited behind", &t->waited_behind);
}

int lat_sched_print_cpus(FILE *out, const struct lat_sched_result *r)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN];
	int i, k;

	for (i = 0; i < r->n_cpus; i++) {
		const struct lat_sched_cpu *c = &r->cpus[i];
		uint64_t irqs = 0, irq_ns = 0;

		for (k = 0; k < LAT_SCHED_NIRQKIND; k++) {
			irqs += c->irq_count[k];
			irq_ns += c->irq_ns[k];
		}
		for (k = 0; k < LAT_SCHED_NSOFTIRQ; k++) {
			irqs += c->softirq_count[k];
			irq_ns += c->softirq_ns[k];
		}
		fprintf(out, "cpu %d: ", c->cpu);
		if (lat_sched_cpu_silent(c)) {
			fprintf(out, "silent: 0 foreign switches");
			if (c->unknown_ns)
				fprintf(out, " (no switch at all: one task "
					     "held it the whole window)");
		} else {
			fprintf(out, "%" PRIu64 " intrusion%s, %s in all:",
				c->intrusions, c->intrusions == 1 ? "" : "s",
				lat_fmt_ns(a, sizeof(a), (double)c->foreign_ns));
			for (k = 0; k < c->intruders.n && k < 4; k++)
				fprintf(out, "%s %s %s", k ? "," : "",
					c->intruders.top[k].comm,
					lat_fmt_ns(b, sizeof(b),
						   (double)c->intruders.top[k].ns));
			if (c->intruders.n > 4 || c->intruders.other_count)
				fprintf(out, ", ...");
			fprintf(out, "; longest %s by %s (%d)",
				lat_fmt_ns(b, sizeof(b), (double)c->longest_ns),
				c->longest_comm, (int)c->longest_pid);
		}
		if (c->chain_breaks)
			fprintf(out, "; %" PRIu64 " switch-out%s the kernel did "
				"not report: holder unknown for %s",
				c->chain_breaks, c->chain_breaks == 1 ? "" : "s",
				lat_fmt_ns(a, sizeof(a), (double)c->break_ns));
		if (r->irqs)
			fprintf(out, "; interrupts %" PRIu64 ", %s", irqs,
				lat_fmt_ns(a, sizeof(a), (double)irq_ns));
		fprintf(out, "\n");
	}
	return ferror(out) ? -EIO : 0;
}

const char *lat_sched_timeline_note(const struct lat_sched_result *r,
				    char *buf, size_t len)
{
	char a[LAT_FMT_LEN];

	if (!r->timeline_dropped) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	snprintf(buf, len, ", timeline truncated after %s (memory cap %u MiB):"
		 " %" PRIu64 " intervals not kept",
		 lat_fmt_ns(a, sizeof(a),
			    (double)(r->timeline_cut_ns > r->from_ns
					     ? r->timeline_cut_ns - r->from_ns
					     : 0)),
		 (unsigned)(LAT_SCHED_TIMELINE_MAX >> 20), r->timeline_dropped);
	return buf;
}

int lat_sched_print(FILE *out, const struct lat_sched_result *r)
{
	char a[LAT_FMT_LEN], note[128];
	int i;

	thread_block(out, &r->total, true);
	for (i = 0; i < r->n_threads; i++)
		if (r->threads[i].rq_wakeup)
			thread_block(out, &r->threads[i], false);
	lat_sched_print_cpus(out, r);
	fprintf(out, "probe: %s, window %s, %" PRIu64 " records, %" PRIu64
		" lost (ring full), %" PRIu64 " missed (program busy), %" PRIu64
		" unpaired, %" PRIu64 " dropped (reader out of memory), %"
		PRIu64 " unreported switch-outs (%" PRIu64
		" switch-ins inferred)%s\n",
		r->flavour ? r->flavour : "?",
		lat_fmt_ns(a, sizeof(a), (double)(r->to_ns - r->from_ns)),
		r->records, r->lost, r->missed, r->unpaired, r->dropped,
		r->chain_breaks,
		r->inferred, lat_sched_timeline_note(r, note, sizeof(note)));
	return ferror(out) ? -EIO : 0;
}

/* ---- JSON ---- */

static void hist_json(struct lat_json *j, const char *key,
		      const struct lat_hist *h)
{
	int i;

	lat_json_obj_begin(j, key);
	lat_json_int(j, "count", h->total_count);
	for (i = 0; i < NPCT; i++) {
		char k[16];

		snprintf(k, sizeof(k), "%s_ns", pct_names[i]);
		if (h->total_count)
			lat_json_int(j, k,
				     lat_hist_value_at_percentile(h, pcts[i]));
		else
			lat_json_null(j, k);
	}
	if (h->total_count)
		lat_json_int(j, "max_ns", lat_hist_max(h));
	else
		lat_json_null(j, "max_ns");
	lat_json_obj_end(j);
}

static void whos_json(struct lat_json *j, const char *key,
		      const struct lat_sched_whos *w)
{
	int i;

	lat_json_obj_begin(j, key);
	lat_json_arr_begin(j, "tasks");
	for (i = 0; i < w->n; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "comm", w->top[i].comm);
		lat_json_int(j, "pid", w->top[i].pid);
		lat_json_int(j, "tgid", w->top[i].tgid);
		lat_json_uint(j, "count", w->top[i].count);
		lat_json_uint(j, "ns", w->top[i].ns);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_uint(j, "other_count", w->other_count);
	lat_json_uint(j, "other_ns", w->other_ns);
	lat_json_obj_end(j);
}

static void thread_json(struct lat_json *j, const char *key,
			const struct lat_sched_thread *t)
{
	lat_json_obj_begin(j, key);
	if (t->tid) {
		lat_json_int(j, "tid", t->tid);
		lat_json_int(j, "tgid", t->tgid);
		lat_json_str(j, "comm", t->comm);
		lat_json_bool(j, "exited", t->exited);
	}
	if (t->rq_wakeup) {
		hist_json(j, "rq_wakeup", t->rq_wakeup);
		hist_json(j, "rq_preempt", t->rq_preempt);
		hist_json(j, "blocked", t->blocked);
	}
	lat_json_uint(j, "oncpu_ns", t->oncpu_ns);
	lat_json_uint(j, "runnable_ns", t->runnable_ns);
	lat_json_uint(j, "blocked_ns", t->blocked_ns);
	lat_json_uint(j, "switches_voluntary", t->switches_vol);
	lat_json_uint(j, "switches_involuntary", t->switches_invol);
	lat_json_uint(j, "preempted", t->preempted);
	lat_json_uint(j, "wakeups", t->wakeups);
	lat_json_uint(j, "migrations", t->migrations);
	lat_json_uint(j, "hidden", t->hidden);
	lat_json_uint(j, "hidden_ns", t->hidden_ns);
	whos_json(j, "preempted_by", &t->preempted_by);
	whos_json(j, "waited_behind", &t->waited_behind);
	lat_json_obj_end(j);
}

/* {"<name>": {"count": n, "ns": t}, ...} for @n interrupt kinds. */
static void counts_json(struct lat_json *j, const char *key, int n,
			const char *(*name)(int), const uint64_t *count,
			const uint64_t *ns)
{
	lat_json_obj_begin(j, key);
	for (int k = 0; k < n; k++) {
		lat_json_obj_begin(j, name(k));
		lat_json_uint(j, "count", count[k]);
		lat_json_uint(j, "ns", ns[k]);
		lat_json_obj_end(j);
	}
	lat_json_obj_end(j);
}

void lat_sched_write_json(struct lat_json *j, const struct lat_sched_result *r)
{
	int i;

	lat_json_str(j, "flavour", r->flavour ? r->flavour : "?");
	lat_json_uint(j, "window_ns", r->to_ns - r->from_ns);
	lat_json_uint(j, "records", r->records);
	lat_json_uint(j, "lost", r->lost);
	lat_json_uint(j, "missed", r->missed);
	lat_json_uint(j, "unpaired", r->unpaired);
	lat_json_uint(j, "dropped", r->dropped);
	lat_json_uint(j, "chain_breaks", r->chain_breaks);
	lat_json_uint(j, "inferred", r->inferred);
	lat_json_uint(j, "timeline_dropped", r->timeline_dropped);
	lat_json_uint(j, "reader_cpu_ns", r->reader_cpu_ns);
	lat_json_uint(j, "decode_ns", r->decode_ns);
	lat_json_uint(j, "deferred_bytes", r->deferred_bytes);
	if (r->timeline_dropped)
		lat_json_uint(j, "timeline_cut_after_ns",
			      r->timeline_cut_ns - r->from_ns);
	thread_json(j, "total", &r->total);
	lat_json_arr_begin(j, "threads");
	for (i = 0; i < r->n_threads; i++)
		thread_json(j, NULL, &r->threads[i]);
	lat_json_arr_end(j);
	lat_json_arr_begin(j, "cpus");
	for (i = 0; i < r->n_cpus; i++) {
		const struct lat_sched_cpu *c = &r->cpus[i];

		lat_json_obj_begin(j, NULL);
		lat_json_int(j, "cpu", c->cpu);
		lat_json_bool(j, "silent", lat_sched_cpu_silent(c));
		lat_json_uint(j, "switches", c->switches);
		lat_json_uint(j, "intrusions", c->intrusions);
		lat_json_uint(j, "foreign_ns", c->foreign_ns);
		lat_json_uint(j, "own_ns", c->own_ns);
		lat_json_uint(j, "idle_ns", c->idle_ns);
		lat_json_uint(j, "unknown_ns", c->unknown_ns);
		lat_json_uint(j, "chain_breaks", c->chain_breaks);
		lat_json_uint(j, "break_ns", c->break_ns);
		lat_json_uint(j, "longest_ns", c->longest_ns);
		lat_json_int(j, "longest_pid", c->longest_pid);
		lat_json_str(j, "longest_comm", c->longest_comm);
		whos_json(j, "intruders", &c->intruders);
		counts_json(j, "irqs", r->irqs ? LAT_SCHED_NIRQKIND : 0,
			    lat_sched_irq_kind_name, c->irq_count, c->irq_ns);
		counts_json(j, "softirqs", r->irqs ? LAT_SCHED_NSOFTIRQ : 0,
			    lat_sched_softirq_name, c->softirq_count,
			    c->softirq_ns);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
}

int lat_sched_write_hlog(FILE *out, const struct lat_sched_result *r)
{
	static const char *const names[3] = { "rq_wakeup", "rq_preempt",
					      "blocked" };
	struct lat_hlog_writer *w;
	double len = (double)(r->to_ns - r->from_ns) / 1e9;
	int rc, i, k;

	rc = lat_hlog_writer_open_stream(out, NULL, &w);
	if (rc)
		return rc;
	for (k = -1; k < r->n_threads && !rc; k++) {
		const struct lat_sched_thread *t = k < 0 ? &r->total
							  : &r->threads[k];
		const struct lat_hist *h[3] = { t->rq_wakeup, t->rq_preempt,
						t->blocked };

		if (!h[0])
			continue;
		for (i = 0; i < 3 && !rc; i++) {
			char tag[64];

			if (k < 0)
				snprintf(tag, sizeof(tag), "%s", names[i]);
			else
				snprintf(tag, sizeof(tag), "tid%d.%s",
					 (int)t->tid, names[i]);
			rc = lat_hlog_writer_write_interval(w, tag, 0, len,
							    h[i]);
		}
	}
	i = lat_hlog_writer_close(w);
	return rc ? rc : i;
}
