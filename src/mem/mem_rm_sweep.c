/*
 * Read-mostly sharing as an experiment: N readers and one writer over a
 * table, behind a rwlock, sharded locks or an RCU-style pointer swap, in
 * interleaved rounds; the percentiles per cell, the finding (rwlock p99
 * over RCU-style p99 at two readers) and the report `latlab mem
 * --read-mostly` prints.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/mem.h"

#define RM_KINDS 3

static double pct_ns(const struct lat_hist *h, double p,
		     const struct lat_mem_rm_sweep *s)
{
	if (!h->total_count)
		return NAN; /* nothing recorded: no figure, not 0 ns */
	return (double)lat_hist_value_at_percentile(h, p) / s->cycles_per_ns;
}

/* A duration for the table, "-" when there is none. */
static void pad_ns(FILE *out, double ns, int width)
{
	char a[LAT_FMT_LEN] = "-";

	if (isfinite(ns))
		lat_fmt_ns(a, sizeof(a), ns);
	lat_fmt_pad(out, a, width);
}

static double reads_per_s(const struct lat_mem_rm_cell *c)
{
	return c->elapsed_ns > 0 ? (double)c->reads / c->elapsed_ns * 1e9 : 0;
}

void lat_mem_rm_sweep_release(struct lat_mem_rm_sweep *s)
{
	for (int t = 0; t < LAT_MEM_RM_MAX_READER_SETS; t++)
		for (int k = 0; k < RM_KINDS; k++) {
			lat_hist_destroy(&s->cell[t][k].rh);
			lat_hist_destroy(&s->cell[t][k].wh);
		}
}

/* The finding at 2 readers (else the second set, else the only one). */
static void finding(struct lat_mem_rm_sweep *s)
{
	int n2 = -1;

	s->ratio = NAN;
	s->verdict[0] = '\0';
	for (int t = 0; t < s->n_threads; t++)
		if (s->threads[t] == 2)
			n2 = t;
	if (n2 < 0 && s->n_threads)
		n2 = s->n_threads > 1 ? 1 : 0;
	s->finding_at = n2;
	if (n2 >= 0 && s->cell[n2][LAT_MEM_RM_RWLOCK].n &&
	    s->cell[n2][LAT_MEM_RM_RCU].n) {
		double rw = pct_ns(&s->cell[n2][LAT_MEM_RM_RWLOCK].rh, 99, s);
		double rc = pct_ns(&s->cell[n2][LAT_MEM_RM_RCU].rh, 99, s);
		double sh = pct_ns(&s->cell[n2][LAT_MEM_RM_SHARDED].rh, 99, s);
		char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];
		int at;

		s->ratio = rw / rc;
		at = snprintf(s->verdict, sizeof(s->verdict), "at N = %d readers "
			      "the RCU-style readers' p99 is %s against the "
			      "rwlock readers' %s: rwlock/rcu p99 ratio %.1fx "
			      "(%s)", s->threads[n2],
			      lat_fmt_ns(a, sizeof(a), rc),
			      lat_fmt_ns(b, sizeof(b), rw), rw / rc,
			      rc < rw ? "the rwlock readers all write one "
			      "lock word, so it moves between cores on "
			      "lookups and they wait for the writer; RCU-style "
			      "readers write only their own line and never wait"
			      : "RCU-style is NOT below rwlock in this run");
		if (s->cell[n2][LAT_MEM_RM_SHARDED].n)
			snprintf(s->verdict + at, sizeof(s->verdict) - at,
				 "; sharded locks %s (each reader's own "
				 "padded lock: no shared write, but the writer "
				 "takes all %d)", lat_fmt_ns(c, sizeof(c), sh),
				 LAT_MEM_RM_SHARDS);
	}
}

int lat_mem_rm_default_threads(int usable, int *threads, int cap)
{
	int n = 0;

	/* the doublings and @usable leave one slot for the oversubscribed */
	for (int k = 1; k <= usable && n < cap - 1; k *= 2)
		threads[n++] = k;
	if (threads[n - 1] != usable && n < cap - 1)
		threads[n++] = usable;
	threads[n++] = 2 * usable;
	return n;
}

int lat_mem_rm_sweep_run(struct lat_mem_rm_sweep *s,
			 const struct lat_clock_cal *cal,
			 bool (*stop)(void *ctx), void *ctx)
{
	unsigned rounds = s->rounds > 2 ? 2 : s->rounds;

	if (s->n_threads < 0 || s->n_threads > LAT_MEM_RM_MAX_READER_SETS ||
	    s->n_cpus < 1)
		return -EINVAL;
	s->complete = true;
	s->cycles_per_ns = cal->cycles_per_ns;
	memset(s->cell, 0, sizeof(s->cell));
	for (int t = 0; t < s->n_threads; t++)
		for (int k = 0; k < RM_KINDS; k++)
			if (lat_hist_init(&s->cell[t][k].rh, 1,
					  INT64_C(1) << 42, 3) ||
			    lat_hist_init(&s->cell[t][k].wh, 1,
					  INT64_C(1) << 42, 3)) {
				lat_mem_rm_sweep_release(s);
				return -ENOMEM;
			}
	for (unsigned r = 0; r < rounds && s->complete; r++)
		for (int t = 0; t < s->n_threads && s->complete; t++)
			for (int k = 0; k < RM_KINDS; k++) {
				struct lat_mem_rm_cfg cfg = {
					.kind = (enum lat_mem_rm_kind)k,
					.readers = s->threads[t],
					.cpus = s->cpu_list,
					.n_cpus = s->n_cpus,
					.duration_ns = s->duration_ns,
					.write_interval_ns =
						s->write_interval_ns,
					.stop = stop, .stop_ctx = ctx,
				};
				struct lat_mem_rm_result res;
				struct lat_mem_rm_cell *c = &s->cell[t][k];
				int rc;

				if (stop && stop(ctx)) {
					s->complete = false;
					break;
				}
				rc = lat_mem_rm_run(&cfg, &c->rh, &c->wh, &res);
				if (rc) {
					lat_mem_rm_sweep_release(s);
					return rc;
				}
				c->reads += res.reads;
				c->writes += res.writes;
				c->torn += res.torn;
				c->elapsed_ns += res.elapsed_ns;
				c->n++;
				/* a stop cut this run short: not complete */
				if (stop && stop(ctx))
					s->complete = false;
			}
	finding(s);
	return 0;
}

void lat_mem_rm_json(struct lat_json *j, const struct lat_mem_rm_sweep *s)
{
	int n2 = s->finding_at;

	lat_json_obj_begin(j, "read_mostly");
	lat_json_bool(j, "complete", s->complete);
	lat_json_double(j, "write_interval_ns", s->write_interval_ns);
	lat_json_arr_begin(j, "rows");
	for (int t = 0; t < s->n_threads; t++)
		for (int k = 0; k < RM_KINDS; k++) {
			const struct lat_mem_rm_cell *c = &s->cell[t][k];
			bool over = s->threads[t] > s->n_cpus;
			double rps = reads_per_s(c);

			if (!c->n)
				continue;
			lat_json_obj_begin(j, NULL);
			lat_json_int(j, "readers", s->threads[t]);
			lat_json_bool(j, "oversubscribed", over);
			lat_json_str(j, "kind", lat_mem_rm_kind_name(
				(enum lat_mem_rm_kind)k));
			lat_json_double(j, "read_p50_ns",
					pct_ns(&c->rh, 50, s));
			lat_json_double(j, "read_p99_ns",
					pct_ns(&c->rh, 99, s));
			lat_json_double(j, "read_p999_ns",
					pct_ns(&c->rh, 99.9, s));
			lat_json_double(j, "reads_per_s", rps);
			lat_json_uint(j, "reads", c->reads);
			lat_json_double(j, "write_p50_ns",
					pct_ns(&c->wh, 50, s));
			lat_json_double(j, "write_p99_ns",
					pct_ns(&c->wh, 99, s));
			lat_json_uint(j, "writes", c->writes);
			lat_json_uint(j, "torn", c->torn);
			lat_json_obj_end(j);
		}
	lat_json_arr_end(j);
	lat_json_obj_begin(j, "finding");
	lat_json_int(j, "readers", n2 >= 0 ? s->threads[n2] : 0);
	lat_json_double(j, "rwlock_over_rcu_p99", s->ratio);
	lat_json_bool(j, "rcu_p99_below_rwlock", s->ratio > 1);
	lat_json_obj_end(j);
	lat_json_str(j, "verdict", s->verdict);
	lat_json_obj_end(j);
}

void lat_mem_rm_print(FILE *out, const struct lat_mem_rm_sweep *s)
{
	char w[LAT_FMT_LEN], d[LAT_FMT_LEN];

	fprintf(out, "\nread-mostly: N readers + 1 writer (an update every "
		"%s) over a %d-entry table, %u x %s per row\n",
		lat_fmt_ns(w, sizeof(w), s->write_interval_ns),
		LAT_MEM_RM_TABLE, s->rounds > 2 ? 2 : s->rounds,
		lat_fmt_ns(d, sizeof(d), s->duration_ns));
	fprintf(out, "%-8s %-8s %9s %9s %9s %11s %10s %10s %7s %5s\n",
		"readers", "kind", "read p50", "p99", "p99.9", "reads/s",
		"write p50", "write p99", "writes", "torn");
	for (int t = 0; t < s->n_threads; t++)
		for (int k = 0; k < RM_KINDS; k++) {
			const struct lat_mem_rm_cell *c = &s->cell[t][k];
			bool over = s->threads[t] > s->n_cpus;
			double rps = reads_per_s(c);

			char a[LAT_FMT_LEN], n[16];

			if (!c->n)
				continue;
			snprintf(n, sizeof(n), "%d%s", s->threads[t],
				 over ? " (over)" : "");
			fprintf(out, "%-8s %-8s ", k ? "" : n,
				lat_mem_rm_kind_name((enum lat_mem_rm_kind)k));
			pad_ns(out, pct_ns(&c->rh, 50, s), 9);
			fputc(' ', out);
			pad_ns(out, pct_ns(&c->rh, 99, s), 9);
			fputc(' ', out);
			pad_ns(out, pct_ns(&c->rh, 99.9, s), 9);
			fputc(' ', out);
			lat_fmt_pad(out, lat_fmt_rate(a, sizeof(a),
				rps), 11);
			fputc(' ', out);
			pad_ns(out, pct_ns(&c->wh, 50, s), 10);
			fputc(' ', out);
			pad_ns(out, pct_ns(&c->wh, 99, s), 10);
			fprintf(out, " %7llu %5llu\n",
			       (unsigned long long)c->writes,
			       (unsigned long long)c->torn);
		}
	fprintf(out, "(over): more readers than the %d CPUs in use: they "
		"take turns, and a reader preempted inside its read section "
		"holds up the writer (rwlock, sharded) or the grace period "
		"(rcu)\n", s->n_cpus);
	if (s->verdict[0])
		lat_mem_verdict_print(out, s->verdict);
}
