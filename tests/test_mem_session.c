/*
 * lat_mem_session: the defaults a quick run gets, the refusals before a
 * run, the CPUs it may be narrowed to, and a tiny chase run end to end in
 * both renderings, whole and stopped. No timing is asserted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/json.h"
#include "latlab/mem.h"
#include "t_test.h"

static struct lat_mem_session s;

static bool stop_now(void *ctx)
{
	(void)ctx;
	return true;
}

/* A session that reads this machine; skips the test where it cannot. */
static void fresh(void)
{
	int rc = lat_mem_session_init(&s);

	if (rc)
		T_SKIP("cannot read the CPU topology here: %s",
		       lat_strerror(rc));
}

static void test_defaults(void)
{
	fresh();
	T_EQ_I64(s.min_size, LAT_MEM_CHASE_MIN);
	T_CHECK(s.n_cpus >= 1 && s.m.usable == s.n_cpus);
	s.quick = true;
	s.max_size = 64 << 10; /* what a caller sets is kept */
	T_EQ_I64(lat_mem_session_check(&s), 0);
	T_EQ_I64(s.what, LAT_MEM_EXP_ALL);
	T_EQ_I64(s.samples, LAT_MEM_QUICK_SAMPLES);
	T_EQ_I64(s.rounds, LAT_MEM_QUICK_ROUNDS);
	T_EQ_I64(s.c2c_iters, LAT_MEM_QUICK_C2C_ITERS);
	T_EQ_I64(s.max_size, 64 << 10);
	T_CHECK(s.n_threads >= 2); /* at least 1 and 2 x the CPUs */
	T_EQ_I64(s.threads[s.n_threads - 1], 2 * s.n_cpus);
	T_EQ_I64(s.chase.sizes[0], LAT_MEM_CHASE_MIN);
	T_CHECK(s.chase.sizes[s.chase.n_sizes - 1] >= 64 << 10);

	fresh();
	T_EQ_I64(lat_mem_session_check(&s), 0);
	T_EQ_I64(s.samples, LAT_MEM_CHASE_SAMPLES);
	T_EQ_I64(s.max_size, lat_mem_chase_default_max(&s.m.caches));
}

static void test_names(void)
{
	T_EQ_I64(lat_mem_experiment_parse("chase"), LAT_MEM_EXP_CHASE);
	T_EQ_I64(lat_mem_experiment_parse("c2c"), LAT_MEM_EXP_C2C);
	T_EQ_I64(lat_mem_experiment_parse("false-sharing"), LAT_MEM_EXP_SHARE);
	T_EQ_I64(lat_mem_experiment_parse("read-mostly"), LAT_MEM_EXP_RM);
	T_EQ_I64(lat_mem_experiment_parse("all"), LAT_MEM_EXP_ALL);
	T_EQ_I64(lat_mem_experiment_parse("false_sharing"), -EINVAL);
	T_EQ_I64(lat_mem_experiment_parse(""), -EINVAL);
}

static void test_refusals(void)
{
	int bad = 0, one;

	fresh();
	s.min_size = LAT_CACHELINE - 1;
	T_EQ_I64(lat_mem_session_check(&s), -EDOM);
	fresh();
	s.min_size = 1 << 20;
	s.max_size = 1 << 19;
	T_EQ_I64(lat_mem_session_check(&s), -ERANGE);
	fresh();
	s.max_size = UINT64_C(1) << 50; /* more than any machine here */
	T_EQ_I64(lat_mem_session_check(&s), -ENOMEM);
	T_CHECK(s.need_bytes > s.max_size && s.avail_bytes < s.need_bytes);
	/* ...but only the chase needs the memory */
	fresh();
	s.max_size = UINT64_C(1) << 50;
	s.what = LAT_MEM_EXP_C2C;
	T_EQ_I64(lat_mem_session_check(&s), 0);
	fresh();
	s.min_size = 64 << 10;         /* 1024 lines: every step distinct */
	s.max_size = UINT64_C(1) << 50; /* 16 steps x 34 doublings */
	s.steps = 16;
	T_EQ_I64(lat_mem_session_check(&s), -E2BIG);

	fresh();
	one = s.cpus[0];
	T_EQ_I64(lat_mem_session_use_cpus(&s, (int[]){ one, LAT_TOPO_MAX_CPUS },
					  2, &bad), -EINVAL);
	T_EQ_I64(bad, LAT_TOPO_MAX_CPUS);
	T_EQ_I64(lat_mem_session_use_cpus(&s, (int[]){ -1 }, 1, &bad),
		 -EINVAL);
	T_EQ_I64(bad, -1);
	T_EQ_I64(lat_mem_session_use_cpus(&s, (int[]){ one, one }, 2, &bad), 0);
	T_EQ_I64(s.n_cpus, 1); /* the duplicate dropped */
	T_EQ_I64(s.cpus[0], one);
}

/* A chase over 4..8 KiB, 2 samples: rendered as text and as JSON. */
static char *run_chase(bool json, bool stop, int *rc)
{
	struct lat_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fresh();
	s.what = LAT_MEM_EXP_CHASE;
	s.max_size = 8 << 10;
	s.steps = 1;
	s.samples = 2;
	s.quick = true;
	s.stop = stop ? stop_now : NULL;
	T_EQ_I64(lat_mem_session_check(&s), 0);
	if (json)
		lat_json_init(&j, f);
	*rc = lat_mem_session_run(&s, f, json ? &j : NULL);
	if (json)
		T_EQ_I64(lat_json_finish(&j), 0); /* closed, even stopped */
	fclose(f);
	return buf;
}

static void test_run(void)
{
	int rc;
	char *t = run_chase(false, false, &rc);

	T_EQ_I64(rc, 0);
	T_CHECK(s.complete && !s.failed_in && !s.error[0]);
	T_EQ_I64(s.chase.done, 2);
	T_CHECK(strstr(t, "latlab mem: ") == t); /* the machine first */
	T_CHECK(strstr(t, "\nwall time ") && !strstr(t, "interrupted"));
	free(t);

	t = run_chase(true, false, &rc);
	T_EQ_I64(rc, 0);
	T_CHECK(t[0] == '{' && strstr(t, "\"machine\""));
	T_CHECK(strstr(t, "\"chase\"") && strstr(t, "\"complete\":true"));
	T_CHECK(strstr(t, "\"interrupted\":false"));
	free(t);

	/* stopped before the first size: reported as such, not failed */
	t = run_chase(true, true, &rc);
	T_EQ_I64(rc, 0);
	T_CHECK(!s.complete && !s.failed_in);
	T_CHECK(strstr(t, "\"interrupted\":true"));
	free(t);
	t = run_chase(false, true, &rc);
	T_CHECK(strstr(t, "\ninterrupted: the rows above finished; wall time"));
	free(t);
}

int main(void)
{
	test_names();
	test_defaults();
	test_refusals();
	test_run();
	T_DONE();
}
