/*
 * Description: lat_cgroup on fake trees (a cgroup v1 hybrid host, a v2
 * container whose mount shows only its own subtree, a v2 group without
 * the cpu controller, malformed files), the quota and cpu.stat formats of
 * both versions, the tightest quota up the tree, the sweep of leftovers
 * of killed runs, and on this machine (as root) a child group with a
 * quota that the process enters, reads and leaves without a trace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latlab/cgroup.h"
#include "latlab/sysfile.h"
#include "t_test.h"
#include "t_tree.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	t_tree_put(root, rel, text);
}

static void fresh_root(void)
{
	t_tree_new(root, sizeof(root), "cgroup");
}

static void rm_root(void)
{
	T_CHECK(t_tree_remove(root));
}

/* The shape of this project's VMs: v1 controllers, v2 with none. */
static void test_v1_hybrid(void)
{
	struct lat_cgroup cg;
	struct lat_cgroup_cpu_stat st;
	int64_t q;
	uint64_t p;
	char want[600], where[LAT_CGROUP_PATH_LEN];
	double cpus;

	fresh_root();
	put("proc/self/cgroup", "9:name=systemd:/\n3:cpuset:/\n"
				"2:cpu,cpuacct:/svc/app\n0::/\n");
	put("proc/self/mountinfo",
	    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw\n"
	    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup "
	    "rw,cpu,cpuacct\n"
	    "34 31 0:31 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
	    "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
	put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	put("sys/fs/cgroup/cpu,cpuacct/svc/cpu.cfs_quota_us", "50000\n");
	put("sys/fs/cgroup/cpu,cpuacct/svc/cpu.cfs_period_us", "100000\n");
	put("sys/fs/cgroup/cpu,cpuacct/svc/app/cpu.cfs_quota_us", "150000\n");
	put("sys/fs/cgroup/cpu,cpuacct/svc/app/cpu.cfs_period_us", "100000\n");
	put("sys/fs/cgroup/cpu,cpuacct/svc/app/cpu.stat",
	    "nr_periods 40\nnr_throttled 7\nthrottled_time 123456789\n"
	    "nr_bursts 0\nburst_time 0\n");
	put("sys/fs/cgroup/cpuset/cpuset.effective_cpus", "0-3\n");
	put("sys/fs/cgroup/unified/cgroup.controllers", "\n");

	T_EQ_I64(lat_cgroup_self(&cg, root, "cpu"), 0);
	T_EQ_I64(cg.version, LAT_CGROUP_V1);
	T_CHECK(!strcmp(cg.path, "/svc/app"));
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/cpu,cpuacct/svc/app",
		 root);
	T_CHECK(!strcmp(cg.dir, want));
	T_EQ_I64(lat_cgroup_quota_get(&cg, &q, &p), 0);
	T_EQ_I64(q, 150000);
	T_EQ_I64(p, 100000);
	/* the parent's half CPU binds, not the group's own 1.5 */
	T_EQ_I64(lat_cgroup_quota_tightest(&cg, &cpus, &q, &p, where), 0);
	T_NEAR(cpus, 0.5, 1e-12);
	T_EQ_I64(q, 50000);
	T_CHECK(!strcmp(where, "/svc"));
	T_EQ_I64(lat_cgroup_cpu_stat(&cg, &st), 0);
	T_EQ_I64(st.nr_periods, 40);
	T_EQ_I64(st.nr_throttled, 7);
	T_EQ_I64(st.throttled_ns, 123456789);

	/* cpuset is its own hierarchy, at its root */
	T_EQ_I64(lat_cgroup_self(&cg, root, "cpuset"), 0);
	T_CHECK(!strcmp(cg.path, "/"));
	{
		struct lat_cgroup up;

		T_EQ_I64(lat_cgroup_parent(&cg, &up), -ENOENT);
	}
	{
		char cpus_list[64];

		T_EQ_I64(lat_cgroup_read(&cg, "cpuset.effective_cpus",
					 cpus_list, sizeof(cpus_list)), 0);
		T_CHECK(!strcmp(cpus_list, "0-3"));
	}
	/* memory is mounted nowhere here, and v2 does not have it either */
	T_EQ_I64(lat_cgroup_self(&cg, root, "memory"), -ENOENT);
	T_EQ_I64(cg.version, LAT_CGROUP_NONE);
	rm_root();
}

/* A v2 container: the mount shows /kubepods/pod1 as its root. */
static void test_v2_container(void)
{
	struct lat_cgroup cg;
	struct lat_cgroup_cpu_stat st;
	int64_t q;
	uint64_t p;
	char want[600];

	fresh_root();
	put("proc/self/cgroup", "0::/kubepods/pod1/app\n");
	put("proc/self/mountinfo",
	    "25 1 0:22 / / rw - overlay overlay rw\n"
	    "30 25 0:26 /kubepods/pod1 /sys/fs/cgroup ro,nosuid shared:9 - "
	    "cgroup2 cgroup2 rw,nsdelegate\n");
	put("sys/fs/cgroup/app/cgroup.controllers", "cpuset cpu io memory\n");
	put("sys/fs/cgroup/app/cpu.max", "20000 100000\n");
	put("sys/fs/cgroup/app/cpu.stat",
	    "usage_usec 5000\nuser_usec 4000\nsystem_usec 1000\n"
	    "nr_periods 12\nnr_throttled 3\nthrottled_usec 2500\n");
	put("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory\n");
	put("sys/fs/cgroup/cpu.max", "max 100000\n");

	T_EQ_I64(lat_cgroup_self(&cg, root, "cpu"), 0);
	T_EQ_I64(cg.version, LAT_CGROUP_V2);
	T_CHECK(!strcmp(cg.path, "/kubepods/pod1/app"));
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/app", root);
	T_CHECK(!strcmp(cg.dir, want));
	T_EQ_I64(lat_cgroup_quota_get(&cg, &q, &p), 0);
	T_EQ_I64(q, 20000);
	T_EQ_I64(p, 100000);
	T_EQ_I64(lat_cgroup_cpu_stat(&cg, &st), 0);
	T_EQ_I64(st.nr_throttled, 3);
	T_EQ_I64(st.throttled_ns, 2500000);

	/* unlimited */
	put("sys/fs/cgroup/app/cpu.max", "max 50000\n");
	T_EQ_I64(lat_cgroup_quota_get(&cg, &q, &p), 0);
	T_EQ_I64(q, -1);
	T_EQ_I64(p, 50000);
	/* hostile files */
	put("sys/fs/cgroup/app/cpu.max", "lots\n");
	T_EQ_I64(lat_cgroup_quota_get(&cg, &q, &p), -LAT_EFORMAT);
	put("sys/fs/cgroup/app/cpu.max", "0 100000\n");
	T_EQ_I64(lat_cgroup_quota_get(&cg, &q, &p), -LAT_EFORMAT);
	put("sys/fs/cgroup/app/cpu.stat", "nr_periods x\n");
	T_EQ_I64(lat_cgroup_cpu_stat(&cg, &st), -LAT_EFORMAT);

	/* the experiment's child goes beside the group, not in it: a v2
	 * group with processes cannot hand cpu down */
	{
		struct lat_cgroup parent, where;
		struct lat_cgroup_quota_run qr;
		char child[700];

		T_EQ_I64(lat_cgroup_parent(&cg, &parent), 0);
		T_CHECK(!strcmp(parent.path, "/kubepods/pod1"));
		snprintf(want, sizeof(want), "%s/sys/fs/cgroup", root);
		T_CHECK(!strcmp(parent.dir, want));
		T_EQ_I64(lat_cgroup_parent(&parent, &where), -LAT_EFORMAT);
		put("sys/fs/cgroup/cgroup.subtree_control", "cpu\n");
		put("sys/fs/cgroup/app/cpu.max", "max 100000\n");
		T_EQ_I64(lat_cgroup_quota_ready(root, &where), 0);
		T_CHECK(!strcmp(where.dir, want));
		/* a fake tree has no cpu.max in a new directory: the begin
		 * fails there, and nothing is left behind */
		T_EQ_I64(lat_cgroup_quota_begin(&qr, root, 0.2, 100000, 1),
			 -ENOENT);
		snprintf(child, sizeof(child), "%s/" LAT_CGROUP_CHILD_PREFIX
			 "%d", want, (int)getpid());
		T_CHECK(access(child, F_OK) != 0);
		T_CHECK(!qr.created && !qr.entered);
	}

	/* v2 without the cpu controller handed down */
	put("sys/fs/cgroup/app/cgroup.controllers", "memory pids\n");
	T_EQ_I64(lat_cgroup_self(&cg, root, "cpu"), -ENOENT);
	T_EQ_I64(cg.version, LAT_CGROUP_NONE);

	/* garbage in /proc/self/cgroup */
	put("proc/self/cgroup", "no colons here\n");
	T_EQ_I64(lat_cgroup_self(&cg, root, "cpu"), -LAT_EFORMAT);
	/* nothing there at all */
	put("proc/self/cgroup", "");
	T_EQ_I64(lat_cgroup_self(&cg, root, "cpu"), -ENOENT);
	rm_root();
}

/* A pid that existed and is gone now. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void test_sweep(void)
{
	struct lat_cgroup parent;
	char rel[64], path[512];
	pid_t dead = dead_pid();
	int removed = -1;

	fresh_root();
	memset(&parent, 0, sizeof(parent));
	parent.version = LAT_CGROUP_V1;
	snprintf(parent.path, sizeof(parent.path), "/");
	snprintf(parent.dir, sizeof(parent.dir), "%s/cpu", root);
	snprintf(parent.mount, sizeof(parent.mount), "%s/cpu", root);
	mkdir(parent.dir, 0755);
	snprintf(rel, sizeof(rel), "cpu/" LAT_CGROUP_CHILD_PREFIX "%d",
		 (int)dead);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	T_EQ_I64(mkdir(path, 0755), 0);                 /* a leftover */
	snprintf(path, sizeof(path), "%s/cpu/" LAT_CGROUP_CHILD_PREFIX "%d",
		 root, (int)getppid());
	T_EQ_I64(mkdir(path, 0755), 0);                 /* alive: stays */
	snprintf(path, sizeof(path), "%s/cpu/" LAT_CGROUP_CHILD_PREFIX "x1",
		 root);
	T_EQ_I64(mkdir(path, 0755), 0);                 /* not ours */
	snprintf(path, sizeof(path), "%s/cpu/other", root);
	T_EQ_I64(mkdir(path, 0755), 0);

	T_EQ_I64(lat_cgroup_sweep(&parent, &removed), 0);
	T_EQ_I64(removed, 1);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	T_CHECK(access(path, F_OK) != 0);
	snprintf(path, sizeof(path), "%s/cpu/" LAT_CGROUP_CHILD_PREFIX "%d",
		 root, (int)getppid());
	T_CHECK(access(path, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/cpu/other", root);
	T_CHECK(access(path, F_OK) == 0);
	rm_root();
}

static void test_bad_quota_args(void)
{
	struct lat_cgroup_quota_run q;

	T_EQ_I64(lat_cgroup_quota_begin(&q, NULL, 0, 100000, 1), -EINVAL);
	T_EQ_I64(lat_cgroup_quota_begin(&q, NULL, 1.5, 100000, 1), -EINVAL);
	T_EQ_I64(lat_cgroup_quota_begin(&q, NULL, 0.2, 999, 1), -EINVAL);
	T_EQ_I64(lat_cgroup_quota_begin(&q, NULL, 0.2, 2000000, 1), -EINVAL);
	/* 1 % of a 10 ms period is 100 µs, below the kernel's 1 ms floor */
	T_EQ_I64(lat_cgroup_quota_begin(&q, NULL, 0.01, 10000, 1), -EINVAL);
	T_EQ_I64(lat_cgroup_quota_begin(&q, NULL, 0.5, 100000, 0), -EINVAL);
	T_CHECK(!q.created && !q.entered);
}

/* Does /proc/self/cgroup name @path for the cpu controller? */
static bool self_in_path(const char *path)
{
	struct lat_cgroup cg;

	return !lat_cgroup_self(&cg, NULL, "cpu") && !strcmp(cg.path, path);
}

static void test_real(void)
{
	struct lat_cgroup_quota_run q;
	struct lat_cgroup_cpu_stat st;
	struct lat_cgroup home;
	char child_dir[LAT_CGROUP_PATH_LEN], child_path[LAT_CGROUP_PATH_LEN];
	int64_t quota;
	uint64_t period;
	int rc;

	rc = lat_cgroup_self(&home, NULL, "cpu");
	if (rc) {
		printf("note: no cpu cgroup here (%s): real-machine part "
		       "skipped\n", lat_strerror(rc));
		return;
	}
	if (geteuid() != 0 || access(home.dir, W_OK)) {
		printf("note: %s is not writable: real-machine part "
		       "skipped\n", home.dir);
		return;
	}
	rc = lat_cgroup_quota_begin(&q, NULL, 0.2, 50000, 3);
	T_EQ_I64(rc, 0);
	if (rc)
		return;
	snprintf(child_dir, sizeof(child_dir), "%s", q.child.dir);
	snprintf(child_path, sizeof(child_path), "%s", q.child.path);
	T_CHECK(access(child_dir, F_OK) == 0);
	T_CHECK(self_in_path(child_path));
	T_EQ_I64(lat_cgroup_quota_get(&q.child, &quota, &period), 0);
	T_EQ_I64(quota, 10000);
	T_EQ_I64(period, 50000);
	{
		int64_t shares;

		T_EQ_I64(lat_sysfile_i64(&shares, "%s/%s", child_dir,
					 q.child.version == LAT_CGROUP_V1
						 ? "cpu.shares"
						 : "cpu.weight"), 0);
		T_EQ_I64(shares, q.child.version == LAT_CGROUP_V1 ? 3072 : 300);
	}
	T_EQ_I64(lat_cgroup_quota_stat(&q, &st), 0);
	T_EQ_I64(lat_cgroup_task_count(&q.child), 1);
	T_EQ_I64(lat_cgroup_quota_end(&q), 0);
	T_CHECK(access(child_dir, F_OK) != 0);
	T_CHECK(self_in_path(home.path));
	T_CHECK(!q.created && !q.entered);
	/* idempotent, for atexit */
	T_EQ_I64(lat_cgroup_quota_end(&q), 0);
}

/* This session's autogroup nice (the child's own session), or -100. */
static int ag_nice(void)
{
	FILE *f = fopen("/proc/self/autogroup", "r");
	int nice = -100;

	if (f && fscanf(f, "%*s nice %d", &nice) != 1)
		nice = -100;
	if (f)
		fclose(f);
	return nice;
}

static bool ag_record_exists(void)
{
	char path[64];
	long id = -1;
	FILE *f = fopen("/proc/self/autogroup", "r");

	if (f && fscanf(f, "/autogroup-%ld", &id) != 1)
		id = -1;
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/run/latlab/autogroup-%ld", id);
	return access(path, F_OK) == 0;
}

/* A failed step exits with its line, so the parent names it. */
#define AG_STEP(cond) do { if (!(cond)) _exit(__LINE__ % 250 + 1); } while (0)

/* Holder B: raise to -10, say so, wait for "go", restore. */
static void ag_holder_b(int said, int go)
{
	int was = 99;
	char c;

	AG_STEP(lat_cgroup_autogroup_raise(-10, &was) == 0);
	AG_STEP(was == 0); /* the session's own value, not A's -5 */
	AG_STEP(write(said, "r", 1) == 1);
	AG_STEP(read(go, &c, 1) == 1);
	AG_STEP(lat_cgroup_autogroup_restore() == 0);
	_exit(0);
}

static int ag_wait(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st)
							    : 255;
}

/* The scenarios, in a session of its own (its autogroup starts at 0). */
static void ag_scenarios(void)
{
	int said[2], go[2], was = 99;
	pid_t b;
	char c;

	AG_STEP(setsid() > 0 && ag_nice() == 0);
	/* overlapping holders, the raised one (A at -5) leaving first: the
	 * group follows the lowest live ask, then goes back to 0 */
	AG_STEP(lat_cgroup_autogroup_raise(-5, &was) == 0 && was == 0);
	AG_STEP(ag_nice() == -5 && ag_record_exists());
	AG_STEP(!pipe(said) && !pipe(go));
	b = fork();
	AG_STEP(b >= 0);
	if (!b)
		ag_holder_b(said[1], go[0]);
	AG_STEP(read(said[0], &c, 1) == 1 && ag_nice() == -10);
	AG_STEP(lat_cgroup_autogroup_restore() == 0);
	AG_STEP(ag_nice() == -10); /* B still holds it */
	AG_STEP(write(go[1], "g", 1) == 1);
	AG_STEP(ag_wait(b) == 0);
	AG_STEP(ag_nice() == 0 && !ag_record_exists());
	/* a holder killed before its restore: the next raise drops it and
	 * gives back the session's value, not the dead one's */
	b = fork();
	AG_STEP(b >= 0);
	if (!b) {
		AG_STEP(lat_cgroup_autogroup_raise(-7, &was) == 0);
		_exit(0);
	}
	AG_STEP(ag_wait(b) == 0 && ag_nice() == -7);
	AG_STEP(lat_cgroup_autogroup_raise(-3, &was) == 0 && was == 0);
	AG_STEP(ag_nice() == -3);
	AG_STEP(lat_cgroup_autogroup_restore() == 0 && ag_nice() == 0);
	AG_STEP(!ag_record_exists());
	/* a value set by hand during the hold is the user's: it stays */
	AG_STEP(lat_cgroup_autogroup_raise(-4, &was) == 0);
	{
		FILE *f = fopen("/proc/self/autogroup", "w");

		AG_STEP(f && fputs("2\n", f) >= 0 && !fclose(f));
	}
	AG_STEP(lat_cgroup_autogroup_restore() == 0 && ag_nice() == 2);
	AG_STEP(!ag_record_exists());
	/* restoring without a hold changes nothing and leaves no record */
	AG_STEP(lat_cgroup_autogroup_restore_nowait() == 0 && ag_nice() == 2);
	AG_STEP(!ag_record_exists());
	_exit(0);
}

static void test_autogroup(void)
{
	pid_t pid;

	if (access("/proc/self/autogroup", W_OK) || geteuid() != 0) {
		printf("note: no writable autogroup or not root: the "
		       "autogroup holders were not checked\n");
		return;
	}
	fflush(stdout);
	pid = fork();
	T_CHECK(pid >= 0);
	if (!pid)
		ag_scenarios();
	/* 0, or the failed AG_STEP's line (mod 250, + 1) */
	T_EQ_I64(ag_wait(pid), 0);
}

/* The refusal in words: each kind of failure says its own reason. */
static void test_quota_why(void)
{
	struct lat_cgroup where = { .dir = "/sys/fs/cgroup/svc" };
	char why[256];

	lat_cgroup_quota_why(-EACCES, &where, why, sizeof(why));
	T_CHECK(!strncmp(why, "needs root", 10));
	T_CHECK(strstr(why, "/sys/fs/cgroup/svc") != NULL);
	lat_cgroup_quota_why(-ENOENT, &where, why, sizeof(why));
	T_CHECK(strstr(why, "no cgroup cpu controller") != NULL);
	lat_cgroup_quota_why(-EIO, &where, why, sizeof(why));
	T_CHECK(strstr(why, "cannot find") != NULL);
	/* truncated, never past @len */
	lat_cgroup_quota_why(-EACCES, &where, why, 8);
	T_CHECK(strlen(why) == 7);
}

int main(void)
{
	test_quota_why();
	test_v1_hybrid();
	test_v2_container();
	test_sweep();
	test_bad_quota_args();
	test_real();
	test_autogroup();
	T_DONE();
}
