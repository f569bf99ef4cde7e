/*
 * False sharing as an experiment: two threads incrementing their own
 * counters at three distances (same line, 64 B, 128 B), on two CPUs and
 * forced onto one, in interleaved rounds so drift in the machine's load
 * hits every cell alike; the statistics per cell, the finding and the
 * verdict derived from them, and the report `latlab mem --false-sharing`
 * prints.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/mem.h"

static const size_t share_off[3] = { 8, 64, 128 };
static const char *const share_name[3] = { "same line (8 B apart)",
					   "64 B apart", "128 B apart" };

/* The range of the middle rounds of @n sorted values: with 5 or more
 * rounds the fastest and the slowest are dropped, so one round that lost
 * its CPU to the hypervisor does not blur two clearly different cells. */
static void mid_range(const double *sorted, unsigned n, double *lo,
		      double *hi)
{
	unsigned cut = n >= 5 ? 1 : 0;

	*lo = sorted[cut];
	*hi = sorted[n - 1 - cut];
}

/* Ratio of a to b of a per-round figure (medians over rounds, @va and
 * @vb sorted by lat_bench_stat_of), and whether the cells' middle rounds
 * overlap. */
static double stat_ratio(const struct lat_bench_stat *a, const double *va,
			 const struct lat_bench_stat *b, const double *vb,
			 bool *overlap)
{
	double alo, ahi, blo, bhi;

	mid_range(va, a->reps, &alo, &ahi);
	mid_range(vb, b->reps, &blo, &bhi);
	*overlap = !(alo > bhi || blo > ahi);
	return a->median / b->median;
}

static void verdict(struct lat_mem_share_sweep *s);

/* The CPUs of both placements: two CPUs on different cores when there
 * is a choice, then both threads on the first CPU. */
static void place(struct lat_mem_share_sweep *s, const struct lat_topo *topo)
{
	s->cpus[1][0] = s->cpus[1][1] = s->cpu_list[0];
	s->cpus[0][0] = s->cpu_list[0];
	s->cpus[0][1] = s->n_cpus >= 2 ? s->cpu_list[1] : s->cpu_list[0];
	for (int i = 1; i < s->n_cpus; i++)
		if (lat_mem_relation_of(topo, s->cpu_list[0], s->cpu_list[i]) !=
		    LAT_MEM_SMT_SIBLING) {
			s->cpus[0][1] = s->cpu_list[i];
			break;
		}
	s->placements = s->n_cpus >= 2 ? 2 : 1;
}

void lat_mem_share_fifo_runs(const struct lat_mem_share_sweep *s,
			     unsigned *fifo, unsigned *runs)
{
	*fifo = *runs = 0;
	for (int l = 0; l < 3; l++) {
		*fifo += s->cell[0][l].fifo_runs;
		*runs += s->cell[0][l].n;
	}
}

void lat_mem_share_sweep_release(struct lat_mem_share_sweep *s)
{
	for (int pl = 0; pl < 2; pl++)
		for (int l = 0; l < 3; l++)
			lat_hist_destroy(&s->cell[pl][l].h);
}

int lat_mem_share_sweep_run(struct lat_mem_share_sweep *s,
			    const struct lat_topo *topo,
			    const struct lat_clock_cal *cal,
			    bool (*stop)(void *ctx), void *ctx)
{
	int pl_n, rc;

	if (s->n_cpus < 1 || s->rounds < 1 ||
	    s->rounds > LAT_MEM_SHARE_MAX_ROUNDS)
		return -EINVAL;
	place(s, topo);
	pl_n = s->placements;
	s->complete = true;
	s->cycles_per_ns = cal->cycles_per_ns;
	s->stamp_ns = (double)lat_mem_stamp_overhead() / cal->cycles_per_ns;
	for (int pl = 0; pl < 2; pl++)
		for (int l = 0; l < 3; l++) {
			struct lat_mem_share_cell *c = &s->cell[pl][l];

			memset(c, 0, sizeof(*c));
			c->exact = true;
			rc = lat_hist_init(&c->h, 1, INT64_C(1) << 42, 3);
			if (rc) {
				lat_mem_share_sweep_release(s);
				return rc;
			}
		}
	for (unsigned r = 0; r < s->rounds && s->complete; r++)
		for (int pl = 2 - pl_n; pl < 2 && s->complete; pl++)
			for (int l = 0; l < 3; l++) {
				struct lat_mem_share_cfg cfg = {
					.cpu = { s->cpus[pl][0],
						 s->cpus[pl][1] },
					.offset = share_off[l],
					/* one CPU: long enough for many
					 * scheduler slices of each thread */
					.duration_ns = s->duration_ns *
						       (pl ? 2 : 1),
					.fifo = !pl && s->rt,
				};
				struct lat_mem_share_result res;
				struct lat_mem_share_cell *c = &s->cell[pl][l];

				if (stop && stop(ctx)) {
					s->complete = false;
					break;
				}
				rc = lat_mem_share_run(&cfg, cal, &c->h, &res);
				if (rc) {
					lat_mem_share_sweep_release(s);
					return rc;
				}
				c->p50[c->n] = res.p50_ns;
				c->mean[c->n] = res.mean_ns;
				c->rate[c->n] = res.per_s;
				c->exact &= res.exact;
				c->fifo_runs += res.fifo;
				c->n++;
			}
	for (int pl = 0; pl < 2; pl++)
		for (int l = 0; l < 3; l++) {
			struct lat_mem_share_cell *c = &s->cell[pl][l];

			if (c->n) {
				lat_bench_stat_of(c->p50, c->n, &c->p50_st);
				lat_bench_stat_of(c->rate, c->n, &c->rate_st);
				lat_bench_stat_of(c->mean, c->n, &c->mean_st);
			}
		}
	verdict(s);
	return 0;
}

/* The finding and its sentence, from the cells' statistics. */
static void verdict(struct lat_mem_share_sweep *s)
{
	int at = 0;

	s->verdict[0] = '\0';
	s->two_ratio = s->adj_ratio = s->one_ratio = NAN;
	s->two_resolved = s->adj_resolved = s->one_within = false;
	if (s->placements == 2 && s->cell[0][0].n && s->cell[0][2].n) {
		bool ov;
		double x = stat_ratio(&s->cell[0][0].p50_st, s->cell[0][0].p50,
				      &s->cell[0][2].p50_st, s->cell[0][2].p50, &ov);
		char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN],
			d[LAT_FMT_LEN];

		s->two_ratio = x;
		s->two_resolved = !ov;

		/* p50 of the timed batches, as on one CPU: a round in which
		 * the hypervisor stalled a vCPU moves the mean, not the p50 */
		at += snprintf(s->verdict + at, sizeof(s->verdict) - at,
			       "on two CPUs (cpu %d, cpu %d) the same line is "
			       "%.1fx %s per increment than 128 B apart at p50 "
			       "(%s vs %s; mean %s vs %s; %s%s)",
			       s->cpus[0][0], s->cpus[0][1], x >= 1 ? x : 1 / x,
			       x >= 1 ? "slower" : "FASTER",
			       lat_fmt_ns(a, sizeof(a),
					  s->cell[0][0].p50_st.median),
			       lat_fmt_ns(b, sizeof(b),
					  s->cell[0][2].p50_st.median),
			       lat_fmt_ns(c, sizeof(c),
					  s->cell[0][0].mean_st.median),
			       lat_fmt_ns(d, sizeof(d),
					  s->cell[0][2].mean_st.median),
			       ov ? "but the rounds overlap: not resolved"
				  : "the rounds do not overlap",
			       s->rounds >= 5 ? ", fastest and slowest round "
			       "set aside" : "");
		if (s->cell[0][1].n) {
			double y = stat_ratio(&s->cell[0][1].p50_st,
					      s->cell[0][1].p50,
					      &s->cell[0][2].p50_st,
					      s->cell[0][2].p50, &ov);

			s->adj_ratio = y;
			s->adj_resolved = !ov;
			at += snprintf(s->verdict + at, sizeof(s->verdict) - at,
				       "; 64 B apart is %.2fx 128 B apart "
				       "(%s)", y, ov ? "within the rounds' "
				       "spread: no adjacent-line effect seen "
				       "here" : "the adjacent-line prefetcher "
				       "pairs the lines");
		}
	} else if (s->placements == 1) {
		at += snprintf(s->verdict + at, sizeof(s->verdict) - at,
			       "two-CPU case skipped: one usable CPU");
	}
	if (s->cell[1][0].n && s->cell[1][2].n && at < (int)sizeof(s->verdict)) {
		bool ov;
		double x = stat_ratio(&s->cell[1][0].p50_st, s->cell[1][0].p50,
				      &s->cell[1][2].p50_st, s->cell[1][2].p50, &ov);

		s->one_ratio = x;
		s->one_within = ov;

		/* p50 of timed batches: on one CPU the threads take turns,
		 * and the mean is mostly whose turn it was */
		snprintf(s->verdict + at, sizeof(s->verdict) - at,
			 "; forced onto one CPU (cpu %d) same line / 128 B "
			 "apart is %.2fx per increment at p50, %s (rounds "
			 "span %.2fx): %s",
			 s->cpus[1][0], x,
			 ov ? "within the rounds' spread" : "outside the "
			 "rounds' spread",
			 s->cell[1][2].p50_st.max / s->cell[1][2].p50_st.min,
			 ov ? "the line never leaves the core, so the "
			      "effect vanishes"
			    : "a difference that cannot be the line moving "
			      "(it never leaves the core): noise or "
			      "scheduling");
	}
}

void lat_mem_share_json(struct lat_json *j, const struct lat_mem_share_sweep *s)
{
	lat_json_obj_begin(j, "false_sharing");
	lat_json_bool(j, "complete", s->complete);
	lat_json_double(j, "stamp_pair_ns", s->stamp_ns);
	lat_json_int(j, "increments_per_batch", LAT_MEM_SHARE_BATCH);
	lat_json_arr_begin(j, "rows");
	for (int pl = 0; pl < 2; pl++)
		for (int l = 0; l < 3; l++) {
			const struct lat_mem_share_cell *c = &s->cell[pl][l];

			if (!c->n)
				continue;
			lat_json_obj_begin(j, NULL);
			lat_json_str(j, "placement",
				     pl ? "one CPU" : "two CPUs");
			lat_json_int(j, "cpu_a", s->cpus[pl][0]);
			lat_json_int(j, "cpu_b", s->cpus[pl][1]);
			lat_json_int(j, "offset_bytes",
				     (int64_t)share_off[l]);
			lat_json_double(j, "mean_ns",
					c->mean_st.median);
			lat_json_double(j, "mean_min_ns",
					c->mean_st.min);
			lat_json_double(j, "mean_max_ns",
					c->mean_st.max);
			lat_json_double(j, "p50_ns",
					c->p50_st.median);
			lat_json_double(j, "p50_min_ns",
					c->p50_st.min);
			lat_json_double(j, "p50_max_ns",
					c->p50_st.max);
			lat_json_double(j, "p99_ns",
				(double)lat_hist_value_at_percentile(
					&c->h, 99) /
				LAT_MEM_SHARE_BATCH /
				s->cycles_per_ns);
			lat_json_double(j, "increments_per_s",
					c->rate_st.median);
			lat_json_int(j, "rounds", c->n);
			lat_json_bool(j, "exact", c->exact);
			lat_json_bool(j, "fifo_asked", !pl && s->rt);
			lat_json_int(j, "fifo_runs", c->fifo_runs);
			lat_json_obj_end(j);
		}
	lat_json_arr_end(j);
	lat_json_obj_begin(j, "finding");
	lat_json_double(j, "two_cpus_same_over_padded_p50", s->two_ratio);
	lat_json_bool(j, "two_cpus_resolved", s->two_resolved);
	lat_json_double(j, "two_cpus_64_over_128_bytes_p50", s->adj_ratio);
	lat_json_bool(j, "two_cpus_64_over_128_bytes_resolved", s->adj_resolved);
	lat_json_double(j, "one_cpu_same_over_padded_p50", s->one_ratio);
	lat_json_bool(j, "one_cpu_within_spread", s->one_within);
	lat_json_obj_end(j);
	lat_json_str(j, "verdict", s->verdict);
	lat_json_obj_end(j);
}

/* Whether the two-CPU runs got SCHED_FIFO, in the words the c2c report
 * uses: at normal priority on a loaded machine the two threads may seldom
 * run at once, and then the line seldom moves. */
static void fifo_line(FILE *out, const struct lat_mem_share_sweep *s)
{
	unsigned fifo, runs;

	lat_mem_share_fifo_runs(s, &fifo, &runs);
	if (s->placements == 2 && !s->rt)
		fprintf(out, "two CPUs: normal priority (SCHED_FIFO not asked "
			"for): on a loaded machine the two threads may seldom "
			"run at once and the line seldom moves\n");
	else if (s->placements == 2)
		fprintf(out, "two CPUs: SCHED_FIFO asked for: %u of %u runs "
			"got it%s\n", fifo, runs, fifo == runs
			? " (other processes could not take the CPUs)"
			: "; the kernel refused the others (root or "
			  "CAP_SYS_NICE needed): they ran at normal priority");
}

void lat_mem_share_print(FILE *out, const struct lat_mem_share_sweep *s)
{
	char sp[LAT_FMT_LEN];

	fprintf(out, "\nfalse sharing: two threads each incrementing its own "
		     "counter (atomic add), %u rounds; mean = run time / "
		     "increments per thread; percentiles of timed batches of "
		     "%d / %d (a stamp pair costs %s)\n", s->rounds,
		     LAT_MEM_SHARE_BATCH, LAT_MEM_SHARE_BATCH,
		     lat_fmt_ns(sp, sizeof(sp), s->stamp_ns));
	fprintf(out, "%-15s %-22s %9s %9s %9s %9s %12s  %s\n", "placement",
		     "counters", "mean", "p50", "p90", "p99", "rate (both)",
		     "rounds' mean min..max");
	for (int pl = 0; pl < 2; pl++)
		for (int l = 0; l < 3; l++) {
			const struct lat_mem_share_cell *c = &s->cell[pl][l];
			char where[32], a[LAT_FMT_LEN],
				b[LAT_FMT_LEN], d[LAT_FMT_LEN];
			double k = LAT_MEM_SHARE_BATCH *
				   s->cycles_per_ns;

			if (!c->n)
				continue;
			if (pl)
				snprintf(where, sizeof(where),
					 l ? "" : "cpu %d only",
					 s->cpus[pl][0]);
			else
				snprintf(where, sizeof(where),
					 l ? "" : "cpu %d + cpu %d",
					 s->cpus[pl][0], s->cpus[pl][1]);
			fprintf(out, "%-15s %-22s ", where, share_name[l]);
			lat_fmt_pad(out, lat_fmt_ns(a, sizeof(a),
				c->mean_st.median), 9);
			fputc(' ', out);
			lat_fmt_pad(out, lat_fmt_ns(a, sizeof(a),
				c->p50_st.median), 9);
			fputc(' ', out);
			lat_fmt_pad(out, lat_fmt_ns(a, sizeof(a),
				(double)lat_hist_value_at_percentile(
					&c->h, 90) / k), 9);
			fputc(' ', out);
			lat_fmt_pad(out, lat_fmt_ns(a, sizeof(a),
				(double)lat_hist_value_at_percentile(
					&c->h, 99) / k), 9);
			fputc(' ', out);
			lat_fmt_pad(out, lat_fmt_rate(b, sizeof(b),
				c->rate_st.median), 12);
			fprintf(out, "  %s..%s%s\n",
				     lat_fmt_ns(a, sizeof(a), c->mean_st.min),
				     lat_fmt_ns(d, sizeof(d), c->mean_st.max),
				     c->exact ? "" : "  COUNTS LOST");
		}
	fifo_line(out, s);
	lat_mem_verdict_print(out, s->verdict);
}
