/*
 * latlab mem c2c, false-sharing, read-mostly: the contention experiments.
 * Each runs interleaved rounds (so drift in the machine's load hits every
 * configuration alike), stops between runs on Ctrl-C, and prints what it
 * finished with a verdict derived from the numbers.
 */
#include <errno.h>
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

/* Whether --rt got the two-CPU runs SCHED_FIFO (names the flag). */
static void fifo_line(const struct lat_mem_share_sweep *s)
{
	unsigned fifo = 0, runs = 0;

	for (int l = 0; l < 3; l++) {
		fifo += s->cell[0][l].fifo_runs;
		runs += s->cell[0][l].n;
	}
	if (s->placements == 2 && !s->rt)
		printf("two CPUs: normal priority (add --rt for SCHED_FIFO): "
		       "on a loaded machine the two threads may seldom run at "
		       "once and the line seldom moves\n");
	else if (s->placements == 2)
		printf("two CPUs: --rt asked for SCHED_FIFO: %u of %u runs "
		       "got it%s\n", fifo, runs, fifo == runs
		       ? " (other processes could not take the CPUs)"
		       : "; the kernel refused the others (root or "
			 "CAP_SYS_NICE needed): they ran at normal priority");
}

bool mem_share(const struct mem_opts *o, const struct mem_env *env,
	       struct lat_json *j)
{
	static struct lat_mem_share_sweep s;
	int rc;

	memcpy(s.cpu_list, o->cpus, sizeof(s.cpu_list));
	s.n_cpus = o->n_cpus;
	s.rounds = o->rounds;
	s.duration_ns = o->share_ns;
	s.rt = o->rt;
	rc = lat_mem_share_sweep_run(&s, &env->topo, &env->cal,
				     stop_on_signal, NULL);
	if (rc == -ENOMEM)
		mem_fail(j, "false_sharing", "out of memory");
	if (rc)
		mem_fail(j, "false_sharing", "false-sharing run failed: %s",
			 lat_strerror(rc));
	if (j) {
		lat_mem_share_json(j, &s);
	} else {
		lat_mem_share_print(stdout, &s);
		fifo_line(&s);
		say(s.verdict);
	}
	lat_mem_share_sweep_release(&s);
	return s.complete;
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
