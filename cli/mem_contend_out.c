/*
 * latlab mem c2c, false-sharing, read-mostly: the contention experiments.
 * Each runs interleaved rounds (so drift in the machine's load hits every
 * configuration alike), stops between runs on Ctrl-C, and prints what it
 * finished with a verdict derived from the numbers.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mem_cli.h"
#include "latlab/fmt.h"

#define MAX_PAIRS 4096
#define MAX_ROUNDS 64

static void say(const char *text)
{
	printf("  -> ");
	lat_fmt_paragraph(stdout, text, 5);
}

/* ---------------------------------------------------------------- */
/* core to core                                                      */

static bool stop_on_signal(void *ctx)
{
	(void)ctx;
	return cli_stop_signal() != 0;
}

bool mem_c2c(const struct mem_opts *o, const struct mem_env *env,
	     struct lat_json *j)
{
	static struct lat_mem_c2c_matrix m;
	int rc;

	memcpy(m.cpus, o->cpus, sizeof(m.cpus));
	m.n_cpus = o->n_cpus;
	m.rounds = o->rounds;
	m.iters = o->c2c_iters;
	m.rt = o->rt;
	m.l1_ns = env->l1_ns;
	rc = lat_mem_c2c_matrix_run(&m, &env->topo, &env->cal, stop_on_signal,
				    NULL);
	if (rc && m.failed >= 0)
		mem_fail(j, "c2c", "hand-off cpu %d <-> cpu %d failed: %s",
			 m.pair[m.failed].a, m.pair[m.failed].b,
			 lat_strerror(rc));
	if (rc)
		mem_fail(j, "c2c", "%s", lat_strerror(rc));
	if (j)
		lat_mem_c2c_json(j, &m);
	else
		lat_mem_c2c_print(stdout, &m);
	return m.complete;
}

/* ---------------------------------------------------------------- */
/* false sharing                                                     */

static const size_t share_off[3] = { 8, 64, 128 };
static const char *const share_name[3] = { "same line (8 B apart)",
					   "64 B apart", "128 B apart" };

struct share_cell {
	struct lat_hist h;             /* increment cycles, all rounds */
	double p50[MAX_ROUNDS];        /* per-increment p50 of each round */
	double mean[MAX_ROUNDS];       /* mean ns per increment, each round */
	double rate[MAX_ROUNDS];
	unsigned n;
	unsigned fifo_runs;            /* runs whose threads got SCHED_FIFO */
	bool exact;
	struct lat_bench_stat p50_st, rate_st, mean_st;
};

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

bool mem_share(const struct mem_opts *o, const struct mem_env *env,
	       struct lat_json *j)
{
	static struct share_cell cell[2][3];
	int pl_n = o->n_cpus >= 2 ? 2 : 1;
	int cpus[2][2];
	bool done = true;
	char verdict[900];
	int at = 0;
	/* the verdict's numbers, for --json: NAN / false when not measured */
	double two_ratio = NAN, adj_ratio = NAN, one_ratio = NAN;
	bool two_resolved = false, adj_resolved = false, one_within = false;
	double stamp_ns = (double)lat_mem_stamp_overhead() /
			  env->cal.cycles_per_ns;

	/* placement 0: two CPUs (different cores when there is a choice);
	 * placement 1: both threads forced onto the first CPU */
	cpus[1][0] = cpus[1][1] = o->cpus[0];
	cpus[0][0] = o->cpus[0];
	cpus[0][1] = o->n_cpus >= 2 ? o->cpus[1] : o->cpus[0];
	for (int i = 1; i < o->n_cpus; i++)
		if (lat_mem_relation_of(&env->topo, o->cpus[0], o->cpus[i]) !=
		    LAT_MEM_SMT_SIBLING) {
			cpus[0][1] = o->cpus[i];
			break;
		}
	for (int pl = 0; pl < 2; pl++)
		for (int l = 0; l < 3; l++) {
			memset(&cell[pl][l], 0, sizeof(cell[pl][l]));
			cell[pl][l].exact = true;
			if (lat_hist_init(&cell[pl][l].h, 1, INT64_C(1) << 42,
					  3))
				mem_fail(j, "false_sharing",
					 "out of memory");
		}
	for (unsigned r = 0; r < o->rounds && done; r++)
		for (int pl = 2 - pl_n; pl < 2 && done; pl++)
			for (int l = 0; l < 3; l++) {
				struct lat_mem_share_cfg cfg = {
					.cpu = { cpus[pl][0], cpus[pl][1] },
					.offset = share_off[l],
					/* one CPU: long enough for many
					 * scheduler slices of each thread */
					.duration_ns = o->share_ns *
						       (pl ? 2 : 1),
					.fifo = !pl && o->rt,
				};
				struct lat_mem_share_result res;
				struct share_cell *c = &cell[pl][l];
				int rc;

				if (cli_stop_signal()) {
					done = false;
					break;
				}
				rc = lat_mem_share_run(&cfg, &env->cal, &c->h,
						       &res);
				if (rc)
					mem_fail(j, "false_sharing",
						 "false-sharing run failed: "
						 "%s", lat_strerror(rc));
				c->p50[c->n] = res.p50_ns;
				c->mean[c->n] = res.mean_ns;
				c->rate[c->n] = res.per_s;
				c->exact &= res.exact;
				c->fifo_runs += res.fifo;
				c->n++;
			}
	for (int pl = 0; pl < 2; pl++)
		for (int l = 0; l < 3; l++) {
			struct share_cell *c = &cell[pl][l];

			if (c->n) {
				lat_bench_stat_of(c->p50, c->n, &c->p50_st);
				lat_bench_stat_of(c->rate, c->n, &c->rate_st);
				lat_bench_stat_of(c->mean, c->n, &c->mean_st);
			}
		}
	if (pl_n == 2 && cell[0][0].n && cell[0][2].n) {
		bool ov;
		double x = stat_ratio(&cell[0][0].p50_st, cell[0][0].p50,
				      &cell[0][2].p50_st, cell[0][2].p50, &ov);
		char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN],
			d[LAT_FMT_LEN];

		two_ratio = x;
		two_resolved = !ov;

		/* p50 of the timed batches, as on one CPU: a round in which
		 * the hypervisor stalled a vCPU moves the mean, not the p50 */
		at += snprintf(verdict + at, sizeof(verdict) - at,
			       "on two CPUs (cpu %d, cpu %d) the same line is "
			       "%.1fx %s per increment than 128 B apart at p50 "
			       "(%s vs %s; mean %s vs %s; %s%s)",
			       cpus[0][0], cpus[0][1], x >= 1 ? x : 1 / x,
			       x >= 1 ? "slower" : "FASTER",
			       lat_fmt_ns(a, sizeof(a),
					  cell[0][0].p50_st.median),
			       lat_fmt_ns(b, sizeof(b),
					  cell[0][2].p50_st.median),
			       lat_fmt_ns(c, sizeof(c),
					  cell[0][0].mean_st.median),
			       lat_fmt_ns(d, sizeof(d),
					  cell[0][2].mean_st.median),
			       ov ? "but the rounds overlap: not resolved"
				  : "the rounds do not overlap",
			       o->rounds >= 5 ? ", fastest and slowest round "
			       "set aside" : "");
		if (cell[0][1].n) {
			double y = stat_ratio(&cell[0][1].p50_st,
					      cell[0][1].p50,
					      &cell[0][2].p50_st,
					      cell[0][2].p50, &ov);

			adj_ratio = y;
			adj_resolved = !ov;
			at += snprintf(verdict + at, sizeof(verdict) - at,
				       "; 64 B apart is %.2fx 128 B apart "
				       "(%s)", y, ov ? "within the rounds' "
				       "spread: no adjacent-line effect seen "
				       "here" : "the adjacent-line prefetcher "
				       "pairs the lines");
		}
	} else if (pl_n == 1) {
		at += snprintf(verdict + at, sizeof(verdict) - at,
			       "two-CPU case skipped: one usable CPU");
	}
	if (cell[1][0].n && cell[1][2].n && at < (int)sizeof(verdict)) {
		bool ov;
		double x = stat_ratio(&cell[1][0].p50_st, cell[1][0].p50,
				      &cell[1][2].p50_st, cell[1][2].p50, &ov);

		one_ratio = x;
		one_within = ov;

		/* p50 of timed batches: on one CPU the threads take turns,
		 * and the mean is mostly whose turn it was */
		snprintf(verdict + at, sizeof(verdict) - at,
			 "; forced onto one CPU (cpu %d) same line / 128 B "
			 "apart is %.2fx per increment at p50, %s (rounds "
			 "span %.2fx): %s",
			 cpus[1][0], x,
			 ov ? "within the rounds' spread" : "outside the "
			 "rounds' spread",
			 cell[1][2].p50_st.max / cell[1][2].p50_st.min,
			 ov ? "the line never leaves the core, so the "
			      "effect vanishes"
			    : "a difference that cannot be the line moving "
			      "(it never leaves the core): noise or "
			      "scheduling");
	}
	if (j) {
		lat_json_obj_begin(j, "false_sharing");
		lat_json_bool(j, "complete", done);
		lat_json_double(j, "stamp_pair_ns", stamp_ns);
		lat_json_int(j, "increments_per_batch", LAT_MEM_SHARE_BATCH);
		lat_json_arr_begin(j, "rows");
		for (int pl = 0; pl < 2; pl++)
			for (int l = 0; l < 3; l++) {
				struct share_cell *c = &cell[pl][l];

				if (!c->n)
					continue;
				lat_json_obj_begin(j, NULL);
				lat_json_str(j, "placement",
					     pl ? "one CPU" : "two CPUs");
				lat_json_int(j, "cpu_a", cpus[pl][0]);
				lat_json_int(j, "cpu_b", cpus[pl][1]);
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
					env->cal.cycles_per_ns);
				lat_json_double(j, "increments_per_s",
						c->rate_st.median);
				lat_json_int(j, "rounds", c->n);
				lat_json_bool(j, "exact", c->exact);
				lat_json_bool(j, "fifo_asked", !pl && o->rt);
				lat_json_int(j, "fifo_runs", c->fifo_runs);
				lat_json_obj_end(j);
			}
		lat_json_arr_end(j);
		lat_json_obj_begin(j, "finding");
		lat_json_double(j, "two_cpus_same_over_padded_p50", two_ratio);
		lat_json_bool(j, "two_cpus_resolved", two_resolved);
		lat_json_double(j, "two_cpus_64_over_128_bytes_p50", adj_ratio);
		lat_json_bool(j, "two_cpus_64_over_128_bytes_resolved", adj_resolved);
		lat_json_double(j, "one_cpu_same_over_padded_p50", one_ratio);
		lat_json_bool(j, "one_cpu_within_spread", one_within);
		lat_json_obj_end(j);
		lat_json_str(j, "verdict", verdict);
		lat_json_obj_end(j);
	} else {
		char sp[LAT_FMT_LEN];

		printf("\nfalse sharing: two threads each incrementing its own "
		       "counter (atomic add), %u rounds; mean = run time / "
		       "increments per thread; percentiles of timed batches of "
		       "%d / %d (a stamp pair costs %s)\n", o->rounds,
		       LAT_MEM_SHARE_BATCH, LAT_MEM_SHARE_BATCH,
		       lat_fmt_ns(sp, sizeof(sp), stamp_ns));
		printf("%-15s %-22s %9s %9s %9s %9s %12s  %s\n", "placement",
		       "counters", "mean", "p50", "p90", "p99", "rate (both)",
		       "rounds' mean min..max");
		for (int pl = 0; pl < 2; pl++)
			for (int l = 0; l < 3; l++) {
				struct share_cell *c = &cell[pl][l];
				char where[32], a[LAT_FMT_LEN],
					b[LAT_FMT_LEN], d[LAT_FMT_LEN];
				double k = LAT_MEM_SHARE_BATCH *
					   env->cal.cycles_per_ns;

				if (!c->n)
					continue;
				if (pl)
					snprintf(where, sizeof(where),
						 l ? "" : "cpu %d only",
						 cpus[pl][0]);
				else
					snprintf(where, sizeof(where),
						 l ? "" : "cpu %d + cpu %d",
						 cpus[pl][0], cpus[pl][1]);
				printf("%-15s %-22s ", where, share_name[l]);
				lat_fmt_pad(stdout, lat_fmt_ns(a, sizeof(a),
					c->mean_st.median), 9);
				putchar(' ');
				lat_fmt_pad(stdout, lat_fmt_ns(a, sizeof(a),
					c->p50_st.median), 9);
				putchar(' ');
				lat_fmt_pad(stdout, lat_fmt_ns(a, sizeof(a),
					(double)lat_hist_value_at_percentile(
						&c->h, 90) / k), 9);
				putchar(' ');
				lat_fmt_pad(stdout, lat_fmt_ns(a, sizeof(a),
					(double)lat_hist_value_at_percentile(
						&c->h, 99) / k), 9);
				putchar(' ');
				lat_fmt_pad(stdout, lat_fmt_rate(b, sizeof(b),
					c->rate_st.median), 12);
				printf("  %s..%s%s\n",
				       lat_fmt_ns(a, sizeof(a), c->mean_st.min),
				       lat_fmt_ns(d, sizeof(d), c->mean_st.max),
				       c->exact ? "" : "  COUNTS LOST");
			}
		if (pl_n == 2 && !o->rt)
			printf("two CPUs: normal priority (add --rt for "
			       "SCHED_FIFO): on a loaded machine the two "
			       "threads may seldom run at once and the line "
			       "seldom moves\n");
		else if (pl_n == 2)
			printf("two CPUs: --rt asked for SCHED_FIFO: %u of %u "
			       "runs got it%s\n",
			       cell[0][0].fifo_runs + cell[0][1].fifo_runs +
			       cell[0][2].fifo_runs, cell[0][0].n +
			       cell[0][1].n + cell[0][2].n,
			       cell[0][0].fifo_runs + cell[0][1].fifo_runs +
			       cell[0][2].fifo_runs == cell[0][0].n +
			       cell[0][1].n + cell[0][2].n
			       ? " (other processes could not take the CPUs)"
			       : "; the kernel refused the others (root or "
				 "CAP_SYS_NICE needed): they ran at normal "
				 "priority");
		say(verdict);
	}
	for (int pl = 0; pl < 2; pl++)
		for (int l = 0; l < 3; l++)
			lat_hist_destroy(&cell[pl][l].h);
	return done;
}

/* ---------------------------------------------------------------- */
/* read-mostly                                                       */

#define RM_KINDS 3

struct rm_cell {
	struct lat_hist rh, wh;   /* cycles */
	uint64_t reads, writes, torn;
	double elapsed_ns;
	unsigned n;
};

static double pct_ns(const struct lat_hist *h, double p,
		     const struct mem_env *env)
{
	if (!h->total_count)
		return NAN; /* nothing recorded: no figure, not 0 ns */
	return (double)lat_hist_value_at_percentile(h, p) /
	       env->cal.cycles_per_ns;
}

/* A duration for the table, "-" when there is none. */
static void pad_ns(double ns, int width)
{
	char a[LAT_FMT_LEN] = "-";

	if (isfinite(ns))
		lat_fmt_ns(a, sizeof(a), ns);
	lat_fmt_pad(stdout, a, width);
}

bool mem_rm(const struct mem_opts *o, const struct mem_env *env,
	    struct lat_json *j)
{
	static struct rm_cell cell[MEM_MAX_THREADS][RM_KINDS];
	bool done = true;
	char verdict[700] = "";
	unsigned rounds = o->rounds > 2 ? 2 : o->rounds;
	int n2 = -1;
	double ratio = NAN; /* rwlock p99 / RCU-style p99 at n2 readers */

	for (int t = 0; t < o->n_threads; t++)
		for (int k = 0; k < RM_KINDS; k++) {
			memset(&cell[t][k], 0, sizeof(cell[t][k]));
			if (lat_hist_init(&cell[t][k].rh, 1, INT64_C(1) << 42,
					  3) ||
			    lat_hist_init(&cell[t][k].wh, 1, INT64_C(1) << 42,
					  3))
				mem_fail(j, "read_mostly",
					 "out of memory");
		}
	for (unsigned r = 0; r < rounds && done; r++)
		for (int t = 0; t < o->n_threads && done; t++)
			for (int k = 0; k < RM_KINDS; k++) {
				struct lat_mem_rm_cfg cfg = {
					.kind = (enum lat_mem_rm_kind)k,
					.readers = o->threads[t],
					.cpus = o->cpus, .n_cpus = o->n_cpus,
					.duration_ns = o->rm_ns,
					.write_interval_ns =
						o->write_interval_ns,
				};
				struct lat_mem_rm_result res;
				struct rm_cell *c = &cell[t][k];
				int rc;

				if (cli_stop_signal()) {
					done = false;
					break;
				}
				rc = lat_mem_rm_run(&cfg, &c->rh, &c->wh, &res);
				if (rc)
					mem_fail(j, "read_mostly",
						 "read-mostly run failed: %s",
						 lat_strerror(rc));
				c->reads += res.reads;
				c->writes += res.writes;
				c->torn += res.torn;
				c->elapsed_ns += res.elapsed_ns;
				c->n++;
			}
	for (int t = 0; t < o->n_threads; t++)
		if (o->threads[t] == 2)
			n2 = t;
	if (n2 < 0 && o->n_threads)
		n2 = o->n_threads > 1 ? 1 : 0;
	if (n2 >= 0 && cell[n2][LAT_MEM_RM_RWLOCK].n &&
	    cell[n2][LAT_MEM_RM_RCU].n) {
		double rw = pct_ns(&cell[n2][LAT_MEM_RM_RWLOCK].rh, 99, env);
		double rc = pct_ns(&cell[n2][LAT_MEM_RM_RCU].rh, 99, env);
		double sh = pct_ns(&cell[n2][LAT_MEM_RM_SHARDED].rh, 99, env);
		char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];
		int at;

		ratio = rw / rc;
		at = snprintf(verdict, sizeof(verdict), "at N = %d readers "
			      "the RCU-style readers' p99 is %s against the "
			      "rwlock readers' %s: rwlock/rcu p99 ratio %.1fx "
			      "(%s)", o->threads[n2],
			      lat_fmt_ns(a, sizeof(a), rc),
			      lat_fmt_ns(b, sizeof(b), rw), rw / rc,
			      rc < rw ? "the rwlock readers all write one "
			      "lock word, so it moves between cores on "
			      "lookups and they wait for the writer; RCU-style "
			      "readers write only their own line and never wait"
			      : "RCU-style is NOT below rwlock in this run");
		if (cell[n2][LAT_MEM_RM_SHARDED].n)
			snprintf(verdict + at, sizeof(verdict) - at,
				 "; sharded locks %s (each reader's own "
				 "padded lock: no shared write, but the writer "
				 "takes all %d)", lat_fmt_ns(c, sizeof(c), sh),
				 LAT_MEM_RM_SHARDS);
	}
	if (j) {
		lat_json_obj_begin(j, "read_mostly");
		lat_json_bool(j, "complete", done);
		lat_json_double(j, "write_interval_ns", o->write_interval_ns);
		lat_json_arr_begin(j, "rows");
	} else {
		char w[LAT_FMT_LEN], d[LAT_FMT_LEN];

		printf("\nread-mostly: N readers + 1 writer (an update every "
		       "%s) over a %d-entry table, %u x %s per row\n",
		       lat_fmt_ns(w, sizeof(w), o->write_interval_ns),
		       LAT_MEM_RM_TABLE, rounds,
		       lat_fmt_ns(d, sizeof(d), o->rm_ns));
		printf("%-8s %-8s %9s %9s %9s %11s %10s %10s %7s %5s\n", "readers",
		       "kind", "read p50", "p99", "p99.9", "reads/s",
		       "write p50", "write p99", "writes", "torn");
	}
	for (int t = 0; t < o->n_threads; t++)
		for (int k = 0; k < RM_KINDS; k++) {
			struct rm_cell *c = &cell[t][k];
			bool over = o->threads[t] > o->n_cpus;
			double rps = c->elapsed_ns > 0 ?
				(double)c->reads / c->elapsed_ns * 1e9 : 0;

			if (!c->n)
				continue;
			if (j) {
				lat_json_obj_begin(j, NULL);
				lat_json_int(j, "readers", o->threads[t]);
				lat_json_bool(j, "oversubscribed", over);
				lat_json_str(j, "kind", lat_mem_rm_kind_name(
					(enum lat_mem_rm_kind)k));
				lat_json_double(j, "read_p50_ns",
						pct_ns(&c->rh, 50, env));
				lat_json_double(j, "read_p99_ns",
						pct_ns(&c->rh, 99, env));
				lat_json_double(j, "read_p999_ns",
						pct_ns(&c->rh, 99.9, env));
				lat_json_double(j, "reads_per_s", rps);
				lat_json_uint(j, "reads", c->reads);
				lat_json_double(j, "write_p50_ns",
						pct_ns(&c->wh, 50, env));
				lat_json_double(j, "write_p99_ns",
						pct_ns(&c->wh, 99, env));
				lat_json_uint(j, "writes", c->writes);
				lat_json_uint(j, "torn", c->torn);
				lat_json_obj_end(j);
			} else {
				char a[LAT_FMT_LEN], n[16];

				snprintf(n, sizeof(n), "%d%s", o->threads[t],
					 over ? " (over)" : "");
				printf("%-8s %-8s ", k ? "" : n,
				       lat_mem_rm_kind_name(
					       (enum lat_mem_rm_kind)k));
				pad_ns(pct_ns(&c->rh, 50, env), 9);
				putchar(' ');
				pad_ns(pct_ns(&c->rh, 99, env), 9);
				putchar(' ');
				pad_ns(pct_ns(&c->rh, 99.9, env), 9);
				putchar(' ');
				lat_fmt_pad(stdout, lat_fmt_rate(a, sizeof(a),
					rps), 11);
				putchar(' ');
				pad_ns(pct_ns(&c->wh, 50, env), 10);
				putchar(' ');
				pad_ns(pct_ns(&c->wh, 99, env), 10);
				printf(" %7llu %5llu\n",
				       (unsigned long long)c->writes,
				       (unsigned long long)c->torn);
			}
		}
	if (j) {
		lat_json_arr_end(j);
		lat_json_obj_begin(j, "finding");
		lat_json_int(j, "readers", n2 >= 0 ? o->threads[n2] : 0);
		lat_json_double(j, "rwlock_over_rcu_p99", ratio);
		lat_json_bool(j, "rcu_p99_below_rwlock", ratio > 1);
		lat_json_obj_end(j);
		lat_json_str(j, "verdict", verdict);
		lat_json_obj_end(j);
	} else {
		printf("(over): more readers than the %d CPUs in use: they "
		       "take turns, and a reader preempted inside its read "
		       "section holds up the writer (rwlock, sharded) or the "
		       "grace period (rcu)\n", o->n_cpus);
		if (verdict[0])
			say(verdict);
	}
	for (int t = 0; t < o->n_threads; t++)
		for (int k = 0; k < RM_KINDS; k++) {
			lat_hist_destroy(&cell[t][k].rh);
			lat_hist_destroy(&cell[t][k].wh);
		}
	return done;
}
