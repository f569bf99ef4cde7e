/*
 * Description: the benchmark harness's own logic, without timing: the
 * repetition statistics (median of odd and even counts, min, max),
 * lat_bench_repeat's interleaving (every round runs each figure once, in
 * order, warm-up rounds dropped) and error propagation, the pair
 * placement (two distinct CPUs when pinned), lat_bench_pair running both
 * functions on their CPUs, and lat_bench_pair_seq refusing a job that
 * lost a number (-EPROTO).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/bench.h"
#include "latlab/topo.h"
#include "t_test.h"

static void test_stat(void)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	struct lat_bench_stat st;

	T_EQ_I64(lat_bench_stat_of(odd, 3, &st), 0);
	T_NEAR(st.median, 3, 0);
	T_NEAR(st.min, 1, 0);
	T_NEAR(st.max, 5, 0);
	T_EQ_I64(st.reps, 3);
	T_EQ_I64(lat_bench_stat_of(even, 4, &st), 0);
	T_NEAR(st.median, 2.5, 0);
	T_EQ_I64(lat_bench_stat_of(even, 0, &st), -EINVAL);
}

/* Each call logs its figure's index and returns a call counter. */
struct fig {
	int id;
	int calls;
	int *log;
	int *n_log;
	int fail_at; /* 0: never */
};

static int measure(void *ctx, double *value)
{
	struct fig *f = ctx;

	f->log[(*f->n_log)++] = f->id;
	if (++f->calls == f->fail_at)
		return -EIO;
	*value = f->calls; /* round r gives r */
	return 0;
}

static void test_repeat(void)
{
	int log[64], n_log = 0;
	struct fig a = { 0, 0, log, &n_log, 0 }, b = { 1, 0, log, &n_log, 0 };
	const lat_bench_measure_fn fn[2] = { measure, measure };
	void *const ctx[2] = { &a, &b };
	struct lat_bench_stat st[2];

	T_EQ_I64(lat_bench_repeat(fn, ctx, 2, 2, 5, st), 0);
	T_EQ_I64(n_log, 2 * (2 + 5));
	for (int i = 0; i < n_log; i++)
		T_EQ_I64(log[i], i % 2); /* interleaved: a, b, a, b, ... */
	/* warm-up rounds 1, 2 dropped: the reps are 3..7 */
	T_NEAR(st[0].min, 3, 0);
	T_NEAR(st[0].median, 5, 0);
	T_NEAR(st[1].max, 7, 0);
	T_EQ_I64(st[1].reps, 5);
	T_EQ_I64(lat_bench_repeat(fn, ctx, 0, 0, 5, st), -EINVAL);
	T_EQ_I64(lat_bench_repeat(fn, ctx, 2, 0, 0, st), -EINVAL);
	T_EQ_I64(lat_bench_repeat(fn, ctx, 2, 0, 65, st), -EINVAL);
	n_log = 0;
	a.calls = b.calls = 0;
	b.fail_at = 3;
	T_EQ_I64(lat_bench_repeat(fn, ctx, 2, 0, 5, st), -EIO);
}

struct pair_job {
	atomic_int ran[2];
	int cpu[2];
};

static void side_a(void *arg)
{
	struct pair_job *j = arg;

	j->cpu[0] = lat_topo_current_cpu();
	atomic_fetch_add(&j->ran[0], 1);
}

static void side_b(void *arg)
{
	struct pair_job *j = arg;

	j->cpu[1] = lat_topo_current_cpu();
	atomic_fetch_add(&j->ran[1], 1);
}

/* A job that "delivers" nothing: the sum stays 0. */
static void idle(void *arg)
{
	(void)arg;
}

static void test_pair(void)
{
	struct lat_bench_place p;
	struct pair_job j;
	uint64_t sum = 0;
	double ns = -1;

	memset(&j, 0, sizeof(j));
	T_EQ_I64(lat_bench_place_pair(&p), 0);
	T_CHECK(p.usable >= 1);
	T_CHECK(p.desc[0] != '\0');
	if (p.pinned)
		T_CHECK(p.cpu[0] != p.cpu[1] && p.cpu[0] >= 0 && p.cpu[1] >= 0);
	else
		T_CHECK(p.cpu[0] == -1 && p.cpu[1] == -1);
	T_EQ_I64(lat_bench_pair(&p, side_a, side_b, &j, &ns), 0);
	T_EQ_I64(atomic_load(&j.ran[0]), 1);
	T_EQ_I64(atomic_load(&j.ran[1]), 1);
	T_CHECK(ns >= 0);
	if (p.pinned) {
		T_EQ_I64(j.cpu[0], p.cpu[0]);
		T_EQ_I64(j.cpu[1], p.cpu[1]);
	}
	T_EQ_I64(lat_bench_pair_seq(&p, idle, idle, NULL, &sum, 100, NULL),
		 -EPROTO);
}

/* What the caller left 0 gets the default; what it set is kept. */
static void test_defaults(void)
{
	unsigned reps = 0;
	uint64_t iters = 0;

	lat_bench_suite_defaults(&reps, &iters, false);
	T_EQ_I64(reps, LAT_BENCH_REPS);
	T_EQ_I64(iters, LAT_BENCH_ITERS);
	reps = 0;
	iters = 5000;
	lat_bench_suite_defaults(&reps, &iters, true);
	T_EQ_I64(reps, LAT_BENCH_QUICK_REPS);
	T_EQ_I64(iters, 5000);
}

/* lat_bench_suite_write: the same bytes as lat_bench_suite_print, one
 * JSON document otherwise, and a failed stream an error on both paths. */
static void test_write(void)
{
	static struct lat_bench_suite s; /* nothing measured: n/a figures */
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
	FILE *full = fopen("/dev/full", "w");

	T_CHECK(fa && fb);
	lat_bench_suite_print(fa, &s);
	T_EQ_I64(lat_bench_suite_write(fb, false, &s), 0);
	fclose(fa);
	fclose(fb);
	T_CHECK(na > 0 && na == nb && !memcmp(a, b, na));
	free(b);
	fb = open_memstream(&b, &nb);
	T_EQ_I64(lat_bench_suite_write(fb, true, &s), 0);
	fclose(fb);
	T_CHECK(nb > 2 && b[0] == '{' && strstr(b, "\"dce\"") != NULL);
	if (full) { /* writes fail with ENOSPC */
		T_EQ_I64(lat_bench_suite_write(full, false, &s), -EIO);
		fclose(full);
	}
	free(a);
	free(b);
}

int main(void)
{
	test_write();
	test_defaults();
	test_stat();
	test_repeat();
	test_pair();
	T_DONE();
}
