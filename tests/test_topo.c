/*
 * Description: topology and placement on fake sysfs trees (8 cores with
 * SMT, 64 cores in 8 cache domains, isolated CPUs, restricted affinity,
 * missing files, files that exist but cannot be read, no file
 * descriptor left) and on this machine; the caches of one CPU (sizes,
 * sharing) from a fake tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/topo.h"
#include "t_test.h"
#include "t_machine.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	t_tree_put(root, rel, text);
}

/* A fresh fake machine under root (see t_machine.h). */
static void machine(int cores, int smt, int per_llc, const char *isolated)
{
	t_machine(root, sizeof(root), cores, smt, per_llc, isolated);
}

static void cleanup(void)
{
	t_tree_remove(root);
}

static void mask(bool *allowed, const char *list)
{
	T_CHECK(lat_topo_list_parse(list, allowed) > 0);
}

static struct lat_topo topo; /* 24 KiB: keep it off the stack */

/* Load the fake machine under root with affinity mask @list. */
static void load(const char *list)
{
	static bool allowed[LAT_TOPO_MAX_CPUS];

	mask(allowed, list);
	T_EQ_I64(lat_topo_load(&topo, root, allowed), 0);
}

static void expect_cpus(const struct lat_topo_place *p, const int *want,
			int n)
{
	T_EQ_I64(p->n, n);
	for (int i = 0; i < n; i++)
		if (p->cpu[i] != want[i]) {
			fprintf(stderr, "hot thread %d: cpu %d, expected %d\n",
				i, p->cpu[i], want[i]);
			t_failures++;
		}
}

static void test_list(void)
{
	static bool set[LAT_TOPO_MAX_CPUS];
	char buf[64];

	T_EQ_I64(lat_topo_list_parse("0-3,8,10-11\n", set), 7);
	T_CHECK(set[0] && set[3] && !set[4] && set[8] && set[11]);
	T_CHECK(!strcmp(lat_topo_list_format(set, buf, sizeof(buf)),
			"0-3,8,10-11"));
	T_EQ_I64(lat_topo_list_parse("\n", set), 0);
	T_CHECK(!strcmp(lat_topo_list_format(set, buf, sizeof(buf)), "-"));
	T_EQ_I64(lat_topo_list_parse("3-1", set), -LAT_EFORMAT);
	T_EQ_I64(lat_topo_list_parse("a", set), -LAT_EFORMAT);
	T_EQ_I64(lat_topo_list_parse("1,,", set), -LAT_EFORMAT);
	T_EQ_I64(lat_topo_list_parse("5000", set), -ERANGE);
	T_EQ_I64(lat_topo_list_parse("1,1,1-2", set), 2);
	{
		int seq[4];

		T_EQ_I64(lat_topo_list_parse_seq("3,1,2-3", seq, 4), 4);
		T_CHECK(seq[0] == 3 && seq[1] == 1 && seq[2] == 2 &&
			seq[3] == 3);
		T_EQ_I64(lat_topo_list_parse_seq("0-4", seq, 4), -E2BIG);
		T_EQ_I64(lat_topo_list_parse_seq("1,x", seq, 4),
			 -LAT_EFORMAT);
	}
}

/* 8 cores, SMT 2 (CPUs c and c+8), one L3, nothing isolated. */
static void test_8core_smt(void)
{
	static const int three[] = { 1, 2, 3 };
	static const int nine[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct lat_topo_place p;

	machine(8, 2, 8, "\n");
	load("0-15");
	T_EQ_I64(topo.n_cpus, 16);
	T_EQ_I64(topo.n_usable, 16);
	T_EQ_I64(topo.n_usable_cores, 8);
	T_EQ_I64(topo.max_smt, 2);
	T_EQ_I64(topo.cpu[11].core, 3);
	T_EQ_I64(topo.cpu[11].llc, 0);
	T_EQ_I64(topo.llc_level, 3);

	/* own physical cores, CPU 0 avoided, no compromise */
	T_EQ_I64(lat_topo_place(&topo, 3, &p), 0);
	expect_cpus(&p, three, 3);
	T_EQ_I64(p.flags, 0);
	T_EQ_I64(p.n_cores_used, 3);
	T_EQ_I64(lat_topo_unused_cpu(&topo, &p), 0); /* lowest unused */

	/* 9 threads on 8 cores: CPU 0's sibling (8) before CPU 0, then SMT */
	T_EQ_I64(lat_topo_place(&topo, 9, &p), 0);
	expect_cpus(&p, nine, 9);
	T_EQ_I64(p.flags, LAT_TOPO_SMT);
	T_EQ_I64(p.n_cores_used, 8);

	/* 17 threads on 16 CPUs: producer alone, the rest share */
	T_EQ_I64(lat_topo_place(&topo, 17, &p), 0);
	T_CHECK(p.flags & LAT_TOPO_SHARED_CPU);
	T_CHECK(p.flags & LAT_TOPO_CPU0);
	for (int i = 1; i < 17; i++)
		T_CHECK(p.cpu[i] != p.cpu[0]);
	T_EQ_I64(p.n_cpus_used, 16);
	T_EQ_I64(lat_topo_unused_cpu(&topo, &p), -1); /* none left */

	/* --cpus 4-7 with three threads: the policy, within those four */
	{
		static bool set[LAT_TOPO_MAX_CPUS];
		static const int four_to_six[] = { 4, 5, 6 };

		T_EQ_I64(lat_topo_list_parse("4-7", set), 4);
		T_EQ_I64(lat_topo_restrict(&topo, set), 4);
		T_EQ_I64(topo.n_usable_cores, 4);
		T_EQ_I64(lat_topo_place(&topo, 3, &p), 0);
		expect_cpus(&p, four_to_six, 3);
		load("0-15");
	}
	T_EQ_I64(lat_topo_place(&topo, 0, &p), -EINVAL);
	T_EQ_I64(lat_topo_place(&topo, LAT_TOPO_MAX_HOT + 1, &p), -EINVAL);
	cleanup();
}

/* Isolated CPUs go first; placement says when it runs out of them. */
static void test_isolated(void)
{
	static const int three[] = { 4, 5, 6 };
	static const int six[] = { 4, 5, 6, 7, 1, 2 };
	struct lat_topo_place p;

	machine(8, 2, 8, "4-7,12-15\n");
	load("0-15");
	T_EQ_I64(topo.n_isolated, 8);
	T_EQ_I64(topo.n_isolated_usable, 8);
	T_EQ_I64(lat_topo_place(&topo, 3, &p), 0);
	expect_cpus(&p, three, 3);
	T_EQ_I64(p.flags, 0);
	T_EQ_I64(lat_topo_place(&topo, 6, &p), 0);
	expect_cpus(&p, six, 6);
	T_EQ_I64(p.flags, LAT_TOPO_NOT_ISOLATED);

	/* isolcpus removes them from the default mask: say so */
	load("0-3,8-11");
	T_EQ_I64(topo.n_isolated_usable, 0);
	T_EQ_I64(lat_topo_place(&topo, 3, &p), 0);
	T_EQ_I64(p.cpu[0], 1);
	T_EQ_I64(p.flags, LAT_TOPO_ISOLATED_OUTSIDE);
	cleanup();
}

/* taskset -c 0,8: one physical core, two siblings, three hot threads. */
static void test_restricted(void)
{
	static const int want[] = { 8, 0, 0 };
	static const int mine[] = { 2, 3 };
	static const int bad[] = { 2, 5 };
	struct lat_topo_place p;
	int bad_cpu = -1;

	machine(8, 2, 8, "\n");
	load("0,8");
	T_EQ_I64(topo.n_usable, 2);
	T_EQ_I64(topo.n_usable_cores, 1);
	{ /* the mask's CPUs, lowest first; a short array gets the first */
		int cpus[4] = { -1, -1, -1, -1 };

		T_EQ_I64(lat_topo_usable_cpus(&topo, cpus, 4), 2);
		T_CHECK(cpus[0] == 0 && cpus[1] == 8 && cpus[2] == -1);
		T_EQ_I64(lat_topo_usable_cpus(&topo, cpus + 2, 1), 2);
		T_EQ_I64(cpus[2], 0);
		T_EQ_I64(cpus[3], -1);
	}
	T_EQ_I64(lat_topo_place(&topo, 3, &p), 0);
	expect_cpus(&p, want, 3);
	T_EQ_I64(p.flags,
		 LAT_TOPO_SHARED_CPU | LAT_TOPO_SMT | LAT_TOPO_CPU0);
	T_EQ_I64(lat_topo_unused_cpu(&topo, &p), -1);
	T_EQ_I64(p.n_cpus_used, 2);
	T_EQ_I64(p.n_cores_used, 1);
	for (unsigned f = 1; f <= LAT_TOPO_CHOSEN; f <<= 1)
		T_CHECK(lat_topo_flag_text(f) != NULL);
	T_CHECK(lat_topo_flag_text(0) == NULL);

	/* --cpus: the user's CPUs must be usable; a short list is packed */
	load("0-7");
	T_EQ_I64(lat_topo_place_cpus(&topo, mine, 2, 3, &p, &bad_cpu), 0);
	T_EQ_I64(p.cpu[0], 2);
	T_EQ_I64(p.cpu[1], 3);
	T_EQ_I64(p.cpu[2], 3);
	T_EQ_I64(p.flags, LAT_TOPO_CHOSEN | LAT_TOPO_SHARED_CPU);
	T_EQ_I64(lat_topo_place_cpus(&topo, bad, 2, 3, &p, &bad_cpu), 0);
	load("0-4");
	T_EQ_I64(lat_topo_place_cpus(&topo, bad, 2, 3, &p, &bad_cpu), -ESRCH);
	T_EQ_I64(bad_cpu, 5);
	cleanup();
}

/* 64 cores, SMT (128 CPUs), 8 cores per L3 like an 8-CCX EPYC. */
static void test_64core(void)
{
	struct lat_topo_place p;

	machine(64, 2, 8, "\n");
	load("0-127");
	T_EQ_I64(topo.n_usable, 128);
	T_EQ_I64(topo.n_usable_cores, 64);
	T_EQ_I64(topo.cpu[100].core, 36);
	T_EQ_I64(topo.cpu[100].llc, 32);

	/* four threads fit one cache domain that does not hold CPU 0 */
	T_EQ_I64(lat_topo_place(&topo, 4, &p), 0);
	T_EQ_I64(p.flags, 0);
	for (int i = 0; i < 4; i++)
		T_EQ_I64(topo.cpu[p.cpu[i]].llc, topo.cpu[p.cpu[0]].llc);
	T_CHECK(topo.cpu[p.cpu[0]].llc != 0);
	T_EQ_I64(p.n_cores_used, 4);

	/* ten do not: the spill is reported */
	T_EQ_I64(lat_topo_place(&topo, 10, &p), 0);
	T_EQ_I64(p.flags, LAT_TOPO_CROSS_LLC);
	T_EQ_I64(p.n_cores_used, 10);

	/* isolated cores in the fourth domain win */
	put("isolated", "24-31,88-95\n");
	load("0-127");
	T_EQ_I64(lat_topo_place(&topo, 4, &p), 0);
	T_EQ_I64(p.cpu[0], 24);
	T_EQ_I64(p.cpu[3], 27);
	T_EQ_I64(p.flags, 0);
	cleanup();
}

/* A VM without cache or topology files still places, one core per CPU. */
static void test_sparse(void)
{
	struct lat_topo_place p;
	static bool allowed[LAT_TOPO_MAX_CPUS];
	char path[300];

	machine(2, 1, 0, "\n");
	mask(allowed, "0-1");
	snprintf(path, sizeof(path), "rm -rf '%s'/cpu1", root);
	T_EQ_I64(system(path), 0);
	T_EQ_I64(lat_topo_load(&topo, root, allowed), 0);
	T_EQ_I64(topo.cpu[1].core, 1);
	T_EQ_I64(topo.cpu[1].llc, -1);
	T_EQ_I64(topo.n_usable_cores, 2);
	T_EQ_I64(lat_topo_place(&topo, 3, &p), 0);
	T_EQ_I64(p.cpu[0], 1);
	T_EQ_I64(p.cpu[1], 0);
	T_EQ_I64(p.cpu[2], 0);
	T_EQ_I64(p.flags, LAT_TOPO_SHARED_CPU | LAT_TOPO_CPU0);

	put("online", "garbage\n");
	T_EQ_I64(lat_topo_load(&topo, root, allowed), -LAT_EFORMAT);
	snprintf(path, sizeof(path), "%s/online", root);
	unlink(path);
	T_EQ_I64(lat_topo_load(&topo, root, allowed), -ENOENT);
	cleanup();
}

/*
 * A file that exists but cannot be read is not a missing file: guessing
 * "own core, package 0" then would misplace threads without a word.
 */
static void test_unreadable(void)
{
	static bool allowed[LAT_TOPO_MAX_CPUS];
	char path[300];
	struct rlimit old, low;
	int probe;

	machine(2, 2, 2, "\n");
	mask(allowed, "0-3");
	T_EQ_I64(lat_topo_load(&topo, root, allowed), 0);
	T_EQ_I64(topo.cpu[3].core, 1);

	/* reading a directory fails with EISDIR after fopen succeeds */
	snprintf(path, sizeof(path), "%s/cpu3/cache/index1/shared_cpu_list",
		 root);
	T_EQ_I64(unlink(path), 0);
	T_EQ_I64(mkdir(path, 0755), 0);
	T_EQ_I64(lat_topo_load(&topo, root, allowed), -EISDIR);
	T_EQ_I64(rmdir(path), 0);
	T_EQ_I64(lat_topo_load(&topo, root, allowed), 0); /* absent: fine */
	T_EQ_I64(topo.cpu[3].llc, 1); /* from L1, its own core */

	/* no descriptor left: fopen fails with EMFILE, not "no file" */
	probe = dup(0);
	T_CHECK(probe >= 0);
	close(probe);
	T_EQ_I64(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)probe; /* every descriptor below is in use */
	T_EQ_I64(setrlimit(RLIMIT_NOFILE, &low), 0);
	probe = lat_topo_load(&topo, root, allowed);
	T_EQ_I64(setrlimit(RLIMIT_NOFILE, &old), 0);
	T_EQ_I64(probe, -EMFILE);
	cleanup();
}

/* This machine: load, place, pin. */
/* Caches from a fake sysfs tree: instruction caches left out, holes in
 * the index numbers tolerated, sorted by size, a bad size refused. */
static void test_caches(void)
{
	struct lat_topo_caches c;

	t_tree_new(root, sizeof(root), "caches");
	put("cpu0/cache/index0/level", "1\n");
	put("cpu0/cache/index0/type", "Data\n");
	put("cpu0/cache/index0/size", "48K\n");
	put("cpu0/cache/index0/coherency_line_size", "64\n");
	put("cpu0/cache/index0/shared_cpu_list", "0,4\n");
	put("cpu0/cache/index1/level", "1\n");
	put("cpu0/cache/index1/type", "Instruction\n");
	put("cpu0/cache/index1/size", "32K\n");
	put("cpu0/cache/index2/level", "2\n");
	put("cpu0/cache/index2/type", "Unified\n");
	put("cpu0/cache/index2/size", "2048K\n");
	/* index3 missing: holes are tolerated */
	put("cpu0/cache/index4/level", "3\n");
	put("cpu0/cache/index4/type", "Unified\n");
	put("cpu0/cache/index4/size", "36M\n");
	put("cpu0/cache/index4/shared_cpu_list", "0-7\n");
	T_EQ_I64(lat_topo_caches_load(&c, root, 0), 0);
	T_EQ_I64(c.n, 3);
	T_EQ_I64(c.c[0].size, 48 << 10);
	T_EQ_I64(c.c[0].shared_cpus, 2);
	T_EQ_I64(c.c[0].line, 64);
	T_EQ_I64(c.c[1].size, 2 << 20);
	T_EQ_I64(c.c[2].size, 36u << 20);
	T_EQ_I64(c.c[2].shared_cpus, 8);
	T_EQ_I64(lat_topo_caches_llc(&c), 36u << 20);
	T_CHECK(!strcmp(lat_topo_cache_name(&c, 0), "L1d"));
	T_CHECK(!strcmp(lat_topo_cache_name(&c, 2), "L3"));
	T_CHECK(!strcmp(lat_topo_cache_name(&c, 9), "L?"));
	/* a CPU without a cache directory: none, not an error */
	T_EQ_I64(lat_topo_caches_load(&c, root, 1), 0);
	T_EQ_I64(c.n, 0);
	T_EQ_I64(lat_topo_caches_llc(&c), 0);
	/* a size that does not parse is an error, not a zero */
	put("cpu0/cache/index2/size", "lots\n");
	T_EQ_I64(lat_topo_caches_load(&c, root, 0), -LAT_EFORMAT);
	T_EQ_I64(lat_topo_caches_load(&c, root, -1), -EINVAL);
	T_CHECK(t_tree_remove(root));
}

static void test_here(void)
{
	struct lat_topo_place p;

	T_EQ_I64(lat_topo_load(&topo, NULL, NULL), 0);
	T_CHECK(topo.n_usable >= 1);
	T_EQ_I64(lat_topo_place(&topo, 3, &p), 0);
	T_EQ_I64(lat_topo_pin_self(p.cpu[0]), 0);
	T_EQ_I64(lat_topo_current_cpu(), p.cpu[0]);
	T_EQ_I64(lat_topo_pin_self(-1), -EINVAL);
}

int main(void)
{
	test_list();
	test_8core_smt();
	test_isolated();
	test_restricted();
	test_64core();
	test_sparse();
	test_unreadable();
	test_caches();
	test_here();
	T_DONE();
}
