/*
 * The attribution for people (the share of the time above p99.9 by
 * cause, with names, the worst events one line each, the clock join and
 * the probe's accounting) and as JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "latlab/fmt.h"
#include "latlab/sched_attr.h"
#include "sched/sched_int.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* The top names of @w; tasks of other processes with their pid (another
 * latlab run's threads have the same names as ours). */
static void names(FILE *out, const struct lat_sched_whos *w, uint64_t whole,
		  bool pids)
{
	char b[LAT_FMT_LEN];

	for (int i = 0; i < w->n && i < 4; i++) {
		fprintf(out, "%s%s", i ? ", " : ": ", w->top[i].comm);
		if (pids && w->top[i].pid > 0)
			fprintf(out, " (pid %d)", (int)w->top[i].pid);
		fprintf(out, " %s (%.1f%%)",
			lat_fmt_ns(b, sizeof(b), (double)w->top[i].ns),
			pct(w->top[i].ns, whole));
	}
	if (w->n > 4 || w->other_count)
		fprintf(out, ", ...");
}

static void sum_table(FILE *out, const struct lat_sched_attr_sum *s)
{
	char b[LAT_FMT_LEN];
	uint64_t named = s->total_ns - s->ns[LAT_SCHED_CAUSE_UNEXPLAINED];

	for (int c = 0; c < LAT_SCHED_NCAUSES; c++) {
		if (!s->ns[c])
			continue;
		fprintf(out, "  %6.1f%% ", pct(s->ns[c], s->total_ns));
		lat_fmt_pad(out, lat_fmt_ns(b, sizeof(b), (double)s->ns[c]), 9);
		fprintf(out, "  %s", lat_sched_cause_text(c));
		if (c == LAT_SCHED_CAUSE_FOREIGN)
			names(out, &s->foreign, s->total_ns, true);
		else if (c == LAT_SCHED_CAUSE_OWN)
			names(out, &s->own, s->total_ns, false);
		else if (c == LAT_SCHED_CAUSE_IRQ)
			names(out, &s->irq, s->total_ns, false);
		fprintf(out, "\n");
	}
	fprintf(out, "  covered by named causes: %.1f%% (unexplained %.1f%%)\n",
		pct(named, s->total_ns),
		pct(s->ns[LAT_SCHED_CAUSE_UNEXPLAINED], s->total_ns));
}

/* Where the probe's reader ran: its own CPU, or why it shared. */
static void print_reader(FILE *out, const struct lat_sched_attr_result *x,
			 const struct lat_pipe_result *r)
{
	fprintf(out, "sched: the probe's reader (latlab-sched, tid %d) ",
		(int)x->reader_tid);
	if (x->reader_cpu >= 0)
		fprintf(out, "ran on cpu %d, a CPU no hot thread uses\n",
			x->reader_cpu);
	else if (!r->config.pin)
		fprintf(out, "ran unpinned, as the hot threads did\n");
	else
		fprintf(out, "ran unpinned: no spare CPU (every usable CPU "
			"holds a hot thread or a helper); its time on a hot "
			"CPU is the cause \"%s\"\n",
			lat_sched_cause_name(LAT_SCHED_CAUSE_PROBE));
}

int lat_sched_attr_print(FILE *out, const struct lat_sched_attr *a,
			 const struct lat_pipe_result *r)
{
	const struct lat_sched_attr_result *x = lat_sched_attr_result(a);
	const struct lat_sched_result *p = x->probe;
	char b[LAT_FMT_LEN], c[LAT_FMT_LEN], d[LAT_FMT_LEN], note[128];

	if (!x->ran) {
		fprintf(out, "sched: probe unavailable: %s; fallback: the "
			"counters table's run delay and switches (/proc), no "
			"attribution\n", x->unavailable);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "sched: %" PRIu64 " events above p99.9 (e2e > %s), %s "
		"in all; where their time went:\n", x->above.events,
		lat_fmt_ns(b, sizeof(b), (double)x->threshold_ns),
		lat_fmt_ns(c, sizeof(c), (double)x->above.total_ns));
	sum_table(out, &x->above);
	if (x->above_missing)
		fprintf(out, "  (%" PRIu64 " more events above p99.9 were not "
			"kept: the slowest %" PRIu64 " are shown)\n",
			x->above_missing, x->above.events);
	if (x->above_after_cut)
		fprintf(out, "  (%" PRIu64 " more events above p99.9 ended "
			"after the probe's timeline reached its memory cap: "
			"not attributed)\n", x->above_after_cut);
	for (int i = 0; i < x->n_worst; i++) {
		char hop[16];
		const struct lat_sched_attr_event *e = &x->worst[i];

		lat_pipe_delta_name(r->config.stages, e->hop, hop, sizeof(hop));
		fprintf(out, "  seq %" PRIu64 " e2e %s: %s %s, mostly %s %s%s%s\n",
			e->seq, lat_fmt_ns(b, sizeof(b), (double)e->e2e_ns), hop,
			lat_fmt_ns(c, sizeof(c), (double)e->hop_ns),
			lat_sched_cause_name(e->cause),
			lat_fmt_ns(d, sizeof(d), (double)e->cause_ns),
			e->who[0] ? " " : "", e->who);
	}
	if (x->flight) {
		fprintf(out, "sched: the flight recorder's window (seq %" PRIu64
			"..%" PRIu64 ", %" PRIu64 " events, %s):\n",
			x->flight_first_seq, x->flight_last_seq,
			x->window.events,
			lat_fmt_ns(b, sizeof(b), (double)x->window.total_ns));
		sum_table(out, &x->window);
		if (x->window_after_cut)
			fprintf(out, "  (%" PRIu64 " more events of the window "
				"ended after the probe's timeline reached its "
				"memory cap: not attributed)\n",
				x->window_after_cut);
	}
	print_reader(out, x, r);
	lat_sched_print_cpus(out, p);
	fprintf(out, "sched: clock join: %d (cycles, CLOCK_MONOTONIC) pairs, "
		"median bracket %s; CLOCK_MONOTONIC runs %+.1f ppm from the "
		"MONOTONIC_RAW calibration\n", x->pairs,
		lat_fmt_ns(b, sizeof(b), (double)x->pair_width_ns),
		x->mono_vs_raw_ppm);
	fprintf(out, "sched: probe %s, %" PRIu64 " records, %" PRIu64 " lost, "
		"%" PRIu64 " missed, %" PRIu64 " unreported switch-outs, %"
		PRIu64 " hidden (wakeup or switch-in unreported), %" PRIu64
		" inferred%s\n",
		p->flavour, p->records, p->lost, p->missed, p->chain_breaks,
		p->total.hidden, p->inferred,
		lat_sched_timeline_note(p, note, sizeof(note)));
	return ferror(out) ? -EIO : 0;
}

static void sum_json(struct lat_json *j, const char *key,
		     const struct lat_sched_attr_sum *s)
{
	const struct lat_sched_whos *w[3] = { &s->foreign, &s->own, &s->irq };
	const char *wk[3] = { "foreign", "own", "irq" };

	lat_json_obj_begin(j, key);
	lat_json_uint(j, "events", s->events);
	lat_json_uint(j, "total_ns", s->total_ns);
	lat_json_arr_begin(j, "causes");
	for (int c = 0; c < LAT_SCHED_NCAUSES; c++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "cause", lat_sched_cause_name(c));
		lat_json_uint(j, "ns", s->ns[c]);
		lat_json_double(j, "share", s->total_ns ? (double)s->ns[c] /
						(double)s->total_ns : 0);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_double(j, "named_share",
			s->total_ns ? 1 - (double)s->ns[LAT_SCHED_CAUSE_UNEXPLAINED] /
					      (double)s->total_ns : 0);
	for (int k = 0; k < 3; k++) {
		lat_json_arr_begin(j, wk[k]);
		for (int i = 0; i < w[k]->n; i++) {
			lat_json_obj_begin(j, NULL);
			lat_json_str(j, "name", w[k]->top[i].comm);
			lat_json_int(j, "pid", w[k]->top[i].pid);
			lat_json_uint(j, "ns", w[k]->top[i].ns);
			lat_json_obj_end(j);
		}
		lat_json_arr_end(j);
	}
	lat_json_obj_end(j);
}

void lat_sched_attr_write_json(struct lat_json *j,
			       const struct lat_sched_attr *a,
			       const struct lat_pipe_result *r)
{
	const struct lat_sched_attr_result *x = lat_sched_attr_result(a);
	char hop[16];

	lat_json_obj_begin(j, "sched");
	lat_json_bool(j, "ran", x->ran);
	if (!x->ran) {
		lat_json_str(j, "unavailable", x->unavailable);
		lat_json_obj_end(j);
		return;
	}
	lat_json_int(j, "threshold_ns", x->threshold_ns);
	sum_json(j, "above_p999", &x->above);
	lat_json_uint(j, "above_missing", x->above_missing);
	lat_json_uint(j, "above_after_cap", x->above_after_cut);
	lat_json_uint(j, "window_after_cap", x->window_after_cut);
	lat_json_arr_begin(j, "worst");
	for (int i = 0; i < x->n_worst; i++) {
		const struct lat_sched_attr_event *e = &x->worst[i];

		lat_json_obj_begin(j, NULL);
		lat_json_uint(j, "seq", e->seq);
		lat_json_uint(j, "e2e_ns", e->e2e_ns);
		lat_json_str(j, "hop", lat_pipe_delta_name(r->config.stages,
							   e->hop, hop,
							   sizeof(hop)));
		lat_json_uint(j, "hop_ns", e->hop_ns);
		lat_json_str(j, "cause", lat_sched_cause_name(e->cause));
		lat_json_uint(j, "cause_ns", e->cause_ns);
		lat_json_str(j, "who", e->who);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	if (x->flight) {
		lat_json_uint(j, "flight_first_seq", x->flight_first_seq);
		lat_json_uint(j, "flight_last_seq", x->flight_last_seq);
		sum_json(j, "flight_window", &x->window);
	}
	lat_json_obj_begin(j, "reader");
	lat_json_int(j, "tid", x->reader_tid);
	lat_json_int(j, "cpu", x->reader_cpu);   /* -1: unpinned */
	lat_json_bool(j, "pinned", x->reader_cpu >= 0);
	lat_json_obj_end(j);
	lat_json_int(j, "clock_pairs", x->pairs);
	lat_json_uint(j, "clock_bracket_ns", x->pair_width_ns);
	lat_json_double(j, "mono_vs_raw_ppm", x->mono_vs_raw_ppm);
	lat_json_obj_begin(j, "probe");
	lat_sched_write_json(j, x->probe);
	lat_json_obj_end(j);
	lat_json_obj_end(j);
}
