/*
 * latlab mem c2c, false-sharing, read-mostly: the contention experiments
 * (src/mem runs them in interleaved rounds, judges and prints them); here
 * the options go in, Ctrl-C stops between runs, and the lines that name
 * a flag (--rt) are added.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mem_cli.h"

/* ---------------------------------------------------------------- */
/* core to core                                                      */

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
	rc = lat_mem_c2c_matrix_run(&m, &env->topo, &env->m.cal,
				    lat_stop_requested, NULL);
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
	unsigned fifo, runs;

	lat_mem_share_fifo_runs(s, &fifo, &runs);
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
	rc = lat_mem_share_sweep_run(&s, &env->topo, &env->m.cal,
				     lat_stop_requested, NULL);
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
		lat_mem_verdict_print(stdout, s.verdict);
	}
	lat_mem_share_sweep_release(&s);
	return s.complete;
}

/* ---------------------------------------------------------------- */
/* read-mostly                                                       */

bool mem_rm(const struct mem_opts *o, const struct mem_env *env,
	    struct lat_json *j)
{
	static struct lat_mem_rm_sweep s;
	int rc;

	memcpy(s.threads, o->threads, sizeof(o->threads));
	s.n_threads = o->n_threads;
	memcpy(s.cpu_list, o->cpus, sizeof(s.cpu_list));
	s.n_cpus = o->n_cpus;
	s.rounds = o->rounds;
	s.duration_ns = o->rm_ns;
	s.write_interval_ns = o->write_interval_ns;
	rc = lat_mem_rm_sweep_run(&s, &env->m.cal, lat_stop_requested, NULL);
	if (rc == -ENOMEM)
		mem_fail(j, "read_mostly", "out of memory");
	if (rc)
		mem_fail(j, "read_mostly", "read-mostly run failed: %s",
			 lat_strerror(rc));
	if (j) {
		lat_mem_rm_json(j, &s);
	} else {
		lat_mem_rm_print(stdout, &s);
	}
	lat_mem_rm_sweep_release(&s);
	return s.complete;
}
