/*
 * The core-to-core matrix `latlab mem c2c` measures: every pair of the
 * chosen CPUs hands a cache line back and forth, the rounds interleaved
 * (drift in the machine's load hits every pair alike); then the median
 * per pair, the fastest and slowest pair and the verdict, as a table, a
 * matrix and JSON.
 */
#include <errno.h>
#include <stdio.h>

#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/mem.h"

/* Median per pair, the best and worst pair, the verdict sentence. */
static void judge(struct lat_mem_c2c_matrix *m)
{
	m->best = m->worst = -1;
	m->runs = 0;
	for (int i = 0; i < m->n_pairs; i++)
		m->runs += m->pair[i].n;
	for (int i = 0; i < m->n_pairs; i++) {
		if (!m->pair[i].n)
			continue;
		lat_bench_stat_of(m->pair[i].v, m->pair[i].n, &m->pair[i].st);
		if (m->best < 0 ||
		    m->pair[i].st.median < m->pair[m->best].st.median)
			m->best = i;
		if (m->worst < 0 ||
		    m->pair[i].st.median > m->pair[m->worst].st.median)
			m->worst = i;
	}
	if (m->n_pairs == 0) {
		snprintf(m->verdict, sizeof(m->verdict),
			 "skipped: one usable CPU, "
			 "no pair to hand a line between");
	} else if (m->best < 0) {
		snprintf(m->verdict, sizeof(m->verdict),
			 "interrupted before any "
			 "pair finished");
	} else {
		char a[LAT_FMT_LEN], b[LAT_FMT_LEN];
		int at = snprintf(
			m->verdict, sizeof(m->verdict),
			"a cache line "
			"moves from core to core in %s%s "
			"(cpu %d <-> cpu %d, %s)",
			lat_fmt_ns(a, sizeof(a), m->pair[m->best].st.median),
			m->worst != m->best ? " at best" : "",
			m->pair[m->best].a, m->pair[m->best].b,
			lat_mem_relation_text(m->pair[m->best].rel));
		if (m->worst != m->best)
			at += snprintf(
				m->verdict + at, sizeof(m->verdict) - at,
				", %s at worst (cpu %d <-> cpu %d, %s)",
				lat_fmt_ns(b, sizeof(b),
					   m->pair[m->worst].st.median),
				m->pair[m->worst].a, m->pair[m->worst].b,
				lat_mem_relation_text(m->pair[m->worst].rel));
		if (m->l1_ns > 0)
			snprintf(m->verdict + at, sizeof(m->verdict) - at,
				 "; that is %.0fx an L1 hit (%s): sharing a "
				 "written line between cores costs this on "
				 "every hand-off", m->pair[m->best].st.median /
				 m->l1_ns,
				 lat_fmt_ns(b, sizeof(b), m->l1_ns));
	}
}

int lat_mem_c2c_matrix_run(struct lat_mem_c2c_matrix *m,
			   const struct lat_topo *topo,
			   const struct lat_clock_cal *cal,
			   bool (*stop)(void *ctx), void *ctx)
{
	m->n_pairs = 0;
	m->fifo_runs = 0;
	m->failed = -1;
	m->complete = true;
	if (m->rounds > LAT_MEM_C2C_MAX_ROUNDS || m->n_cpus < 0 ||
	    m->n_cpus > LAT_TOPO_MAX_CPUS)
		return -EINVAL;
	if (!m->rt)
		cal = NULL;
	for (int x = 0; x < m->n_cpus; x++)
		for (int y = x + 1;
		     y < m->n_cpus && m->n_pairs < LAT_MEM_C2C_MAX_PAIRS; y++) {
			m->pair[m->n_pairs] = (struct lat_mem_c2c_pair){
				.a = m->cpus[x], .b = m->cpus[y]};
			m->pair[m->n_pairs].rel =
				lat_mem_relation_of(topo, m->pair[m->n_pairs].a,
						    m->pair[m->n_pairs].b);
			m->n_pairs++;
		}
	for (unsigned r = 0; r < m->rounds && m->complete; r++)
		for (int i = 0; i < m->n_pairs; i++) {
			bool rt;
			int rc;

			if (stop && stop(ctx)) {
				m->complete = false;
				break;
			}
			rc = lat_mem_c2c_once(m->pair[i].a, m->pair[i].b,
					      m->iters, cal,
					      &m->pair[i].v[m->pair[i].n], &rt);
			m->fifo_runs += rt;
			if (rc) {
				m->failed = i;
				return rc;
			}
			m->pair[i].n++;
		}
	judge(m);
	return 0;
}

void lat_mem_c2c_json(struct lat_json *j, const struct lat_mem_c2c_matrix *m)
{
	lat_json_obj_begin(j, "c2c");
	lat_json_bool(j, "complete", m->complete);
	lat_json_uint(j, "round_trips_per_round", m->iters);
	lat_json_bool(j, "fifo_asked", m->rt);
	lat_json_int(j, "fifo_runs", m->fifo_runs);
	lat_json_int(j, "runs", m->runs);
	lat_json_arr_begin(j, "pairs");
	for (int i = 0; i < m->n_pairs; i++) {
		if (!m->pair[i].n)
			continue;
		lat_json_obj_begin(j, NULL);
		lat_json_int(j, "cpu_a", m->pair[i].a);
		lat_json_int(j, "cpu_b", m->pair[i].b);
		lat_json_str(j, "relation",
			     lat_mem_relation_text(m->pair[i].rel));
		lat_json_double(j, "median_ns", m->pair[i].st.median);
		lat_json_double(j, "min_ns", m->pair[i].st.min);
		lat_json_double(j, "max_ns", m->pair[i].st.max);
		lat_json_int(j, "rounds", m->pair[i].st.reps);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_str(j, "verdict", m->verdict);
	lat_json_obj_end(j);
}

void lat_mem_c2c_print(FILE *out, const struct lat_mem_c2c_matrix *m)
{
	fprintf(out, "\ncore-to-core: one-way cache-line hand-off (ping-pong "
		"round trip / 2), median of %u rounds of %llu round trips\n",
		m->rounds, (unsigned long long)m->iters);
	if (m->n_pairs && m->n_cpus <= 16) {
		fprintf(out, "%8s", "");
		for (int y = 0; y < m->n_cpus; y++)
			fprintf(out, " %8s%d", "cpu", m->cpus[y]);
		fprintf(out, "\n");
		for (int x = 0; x < m->n_cpus; x++) {
			fprintf(out, "%5s%-3d", "cpu", m->cpus[x]);
			for (int y = 0; y < m->n_cpus; y++) {
				char a[LAT_FMT_LEN] = "-";

				for (int i = 0; i < m->n_pairs; i++)
					if (m->pair[i].n &&
					    ((m->pair[i].a == m->cpus[x] &&
					      m->pair[i].b == m->cpus[y]) ||
					     (m->pair[i].b == m->cpus[x] &&
					      m->pair[i].a == m->cpus[y])))
						lat_fmt_ns(
							a, sizeof(a),
							m->pair[i].st.median);
				fputc(' ', out);
				lat_fmt_pad(out, a, 9 + (m->cpus[y] > 9));
			}
			fprintf(out, "\n");
		}
	}
	for (int i = 0; i < m->n_pairs; i++) {
		char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];

		if (!m->pair[i].n)
			continue;
		fprintf(out, "  cpu %d <-> cpu %d  %-18s %s (min %s, max %s)\n",
			m->pair[i].a, m->pair[i].b,
			lat_mem_relation_text(m->pair[i].rel),
			lat_fmt_ns(a, sizeof(a), m->pair[i].st.median),
			lat_fmt_ns(b, sizeof(b), m->pair[i].st.min),
			lat_fmt_ns(c, sizeof(c), m->pair[i].st.max));
	}
	if (!m->rt)
		fprintf(out, "normal priority (SCHED_FIFO not asked for): on a "
			"loaded machine a run may include scheduler time "
			"slices\n");
	else
		fprintf(out, "SCHED_FIFO asked for: %u of %u runs got it%s\n",
			m->fifo_runs, m->runs,
			m->fifo_runs == m->runs
			? " (other processes could not take the CPUs mid-run)"
			: "; the kernel refused the others (it needs root or "
			  "CAP_SYS_NICE, and an RT budget): they ran at normal "
			  "priority and may include scheduler time slices");
	lat_mem_verdict_print(out, m->verdict);
}
