/*
 * lat_cgroup: the control group a process runs in, its CPU quota and
 * throttling counts, and a child group with a quota of its own for the
 * CFS-throttling experiment.
 *
 * Both hierarchies are supported: cgroup v1 (one mount per controller,
 * cpu.cfs_quota_us / cpu.cfs_period_us, cpu.stat with throttled_time in
 * ns) and cgroup v2 (one unified mount, cpu.max "<quota|max> <period>",
 * cpu.stat with throttled_usec). Where both are mounted (a hybrid host),
 * a controller is looked up in v1 first: a controller bound to a v1
 * hierarchy is not available in v2.
 *
 * Invariants:
 *  - Every reader takes a root prefix (NULL or "" for the real machine)
 *    put in front of /proc/self/cgroup, /proc/self/mountinfo and the mount
 *    points found there, so tests can model any machine with a directory
 *    of fake files (see tests/test_cgroup.c).
 *  - The experiment's child is named LAT_CGROUP_CHILD_PREFIX<pid>: a run
 *    killed before it removed its child leaves a name whose pid is dead,
 *    and lat_cgroup_sweep() removes it on the next run.
 *  - A group is only ever removed when no task is left in it; the process
 *    is moved back to where it came from first.
 *  - Nothing here is for hot paths (files are read and written), nothing
 *    prints, and nothing allocates heap memory.
 */
#ifndef LATLAB_CGROUP_H
#define LATLAB_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "latlab/common.h"

#define LAT_CGROUP_PATH_LEN 512
#define LAT_CGROUP_CHILD_PREFIX "latlab-"

/* The kernel's bounds for a CFS period and quota, in µs. */
#define LAT_CGROUP_MIN_PERIOD_US 1000
#define LAT_CGROUP_MAX_PERIOD_US 1000000
#define LAT_CGROUP_MIN_QUOTA_US 1000

enum lat_cgroup_version {
	LAT_CGROUP_NONE = 0,     /* the controller is not mounted */
	LAT_CGROUP_V1 = 1,
	LAT_CGROUP_V2 = 2,
};

/* One group of one hierarchy. Plain data: copy freely. */
struct lat_cgroup {
	enum lat_cgroup_version version;
	char controller[16];           /* "cpu", "cpuset", ... */
	char path[LAT_CGROUP_PATH_LEN];/* in the hierarchy, "/" = its root */
	char mount[LAT_CGROUP_PATH_LEN];/* where the hierarchy is mounted,
					 * root prefix included */
	char dir[LAT_CGROUP_PATH_LEN]; /* the group's directory */
};

/* CFS bandwidth counters of a group (cumulative since it was made). */
struct lat_cgroup_cpu_stat {
	uint64_t nr_periods;           /* periods with runnable tasks */
	uint64_t nr_throttled;         /* periods that ran out of quota */
	uint64_t throttled_ns;         /* time its tasks were held back,
					* summed over the CPUs' run queues
					* (the kernel's sum): up to the wall
					* time x the CPUs, not the wall time */
};

/*
 * Find the group of the calling process for @controller ("cpu",
 * "cpuset", "memory") under @root. Returns 0, -ENOENT when the
 * controller is mounted nowhere (cg->version = LAT_CGROUP_NONE), a
 * -errno when /proc/self/cgroup or mountinfo cannot be read, or
 * -LAT_EFORMAT for lines that make no sense. For v2 the controller must
 * be listed in the group's cgroup.controllers (else -ENOENT).
 */
int lat_cgroup_self(struct lat_cgroup *cg, const char *root,
		    const char *controller);

/* "v1", "v2" or "none". */
const char *lat_cgroup_version_name(enum lat_cgroup_version v);

/*
 * The group's CPU quota: *@quota_us = -1 when unlimited, and its period.
 * Returns 0, -errno from reading, or -LAT_EFORMAT.
 */
int lat_cgroup_quota_get(const struct lat_cgroup *cg, int64_t *quota_us,
			 uint64_t *period_us);

/*
 * The tightest quota on the way from @cg up to its hierarchy's root,
 * as a share of one CPU (quota / period; a negative value = no quota
 * anywhere), with the group that sets it in @where (may be NULL;
 * LAT_CGROUP_PATH_LEN bytes). Groups whose files cannot be read are
 * passed over. Returns 0, or the error of reading @cg itself.
 */
int lat_cgroup_quota_tightest(const struct lat_cgroup *cg, double *cpus,
			      int64_t *quota_us, uint64_t *period_us,
			      char *where);

/* Set @cg's quota (-1: unlimited) and period. 0 or -errno. */
int lat_cgroup_quota_set(const struct lat_cgroup *cg, int64_t quota_us,
			 uint64_t period_us);

/* Read cpu.stat. 0, -errno, or -LAT_EFORMAT. */
int lat_cgroup_cpu_stat(const struct lat_cgroup *cg,
			struct lat_cgroup_cpu_stat *st);

/*
 * Read a one-line file of the group ("cpuset.effective_cpus", say) into
 * @buf without its newline. 0 or -errno.
 */
int lat_cgroup_read(const struct lat_cgroup *cg, const char *file,
		    char *buf, size_t len);

/*
 * Make child @name of @parent (v2: also enables the controller in the
 * parent's cgroup.subtree_control) and describe it in @child. Returns 0,
 * -EEXIST, -EACCES/-EPERM without privilege, -EBUSY when a v2 parent
 * holds processes and so cannot hand the controller down, or -errno.
 */
int lat_cgroup_child_create(const struct lat_cgroup *parent,
			    const char *name, struct lat_cgroup *child);

/*
 * The parent group of @cg in @parent. Returns 0, -ENOENT for the
 * hierarchy's root, or -LAT_EFORMAT for a path that has no parent.
 */
int lat_cgroup_parent(const struct lat_cgroup *cg, struct lat_cgroup *parent);

/*
 * Move the whole calling process (every thread) into @cg. 0 or -errno.
 */
int lat_cgroup_enter(const struct lat_cgroup *cg);

/* Tasks (threads) in @cg, or -errno. */
int lat_cgroup_task_count(const struct lat_cgroup *cg);

/* Remove the empty group @cg. 0, -EBUSY when tasks remain, or -errno. */
int lat_cgroup_remove(const struct lat_cgroup *cg);

/*
 * Remove the children of @parent left by runs that were killed: named
 * LAT_CGROUP_CHILD_PREFIX<pid> where no process <pid> exists, and empty.
 * *@removed (may be NULL) counts them. Returns 0 or -errno from reading
 * @parent's directory.
 */
int lat_cgroup_sweep(const struct lat_cgroup *parent, int *removed);

/*
 * The CFS-throttling experiment, in one object: lat_cgroup_quota_begin()
 * sweeps leftovers, makes the child LAT_CGROUP_CHILD_PREFIX<pid> under
 * the process's cpu group (v1, or the v2 root group) or beside it (v2:
 * a v2 group that holds processes cannot hand a controller down), gives it @share of one CPU per @period_us
 * (quota = share * period, at least LAT_CGROUP_MIN_QUOTA_US) and the
 * scheduling weight of @threads tasks (a group competes with its
 * siblings as one task of its weight: without this, moving N busy
 * threads into it would cut their fair share on a loaded machine and
 * hide the quota's effect behind the weight's), and moves the whole
 * process into it; lat_cgroup_quota_end() reads the child's
 * counters, moves the process back and removes the child. End is
 * idempotent and safe to call from an atexit handler, so every exit path
 * removes the group.
 */
struct lat_cgroup_quota_run {
	struct lat_cgroup home;        /* where the process came from */
	struct lat_cgroup child;
	bool created, entered;
	int64_t quota_us;
	uint64_t period_us;
	int swept;                     /* leftovers removed at begin */
	struct lat_cgroup_cpu_stat stat; /* filled by end */
};

/*
 * Returns 0; -EINVAL for @share outside (0, 1] or a period or quota out
 * of the kernel's bounds; -ENOENT when no cpu controller is mounted;
 * -EACCES/-EPERM without privilege; -EBUSY (v2 parent with processes);
 * or -errno. On failure nothing is left behind.
 */
int lat_cgroup_quota_begin(struct lat_cgroup_quota_run *q, const char *root,
			   double share, uint64_t period_us, int threads);

/*
 * Give @cg the CPU weight of @threads default tasks (v1 cpu.shares 1024
 * each, v2 cpu.weight 100 each, within the kernel's bounds). 0 or -errno.
 */
int lat_cgroup_weight_set(const struct lat_cgroup *cg, int threads);

/*
 * Could lat_cgroup_quota_begin() work here? Finds the group the
 * experiment's child would go in (into @where, may be NULL) and checks
 * that this user can make it. Returns 0, -ENOENT (no cpu controller),
 * -EACCES (not writable by this user), or lat_cgroup_self's errors.
 * Changes nothing.
 */
int lat_cgroup_quota_ready(const char *root, struct lat_cgroup *where);

/*
 * Why lat_cgroup_quota_ready() refused (@rc, @where as it filled it), in
 * one phrase for a person, e.g. "needs root: this user cannot make a
 * cgroup in /sys/fs/cgroup/... (Permission denied)". Into @buf (@len
 * bytes, truncated); returns @buf.
 */
const char *lat_cgroup_quota_why(int rc, const struct lat_cgroup *where,
				 char *buf, size_t len);

/*
 * The counters accumulated so far (the process still inside). 0 or an
 * error from reading cpu.stat.
 */
int lat_cgroup_quota_stat(const struct lat_cgroup_quota_run *q,
			  struct lat_cgroup_cpu_stat *st);

/* Read q->stat, leave and remove. 0 or the first error. */
int lat_cgroup_quota_end(struct lat_cgroup_quota_run *q);

/*
 * The session's scheduler autogroup (CONFIG_SCHED_AUTOGROUP, on when
 * kernel.sched_autogroup_enabled = 1): every session (a shell and all it
 * started) shares the CPU with every other session as one group, however
 * nice its threads are, so a run that wants its threads to weigh more
 * against other sessions' tasks raises its autogroup's nice too.
 *
 * lat_cgroup_autogroup_raise(@nice, @was) runs the group at @nice, or at
 * a lower nice that another run of the session holds, until this process
 * calls lat_cgroup_autogroup_restore; *@was is the value the group goes
 * back to when the last holder leaves. Runs of one session raise and
 * restore together through a record of the holders
 * (/run/latlab/autogroup-<id>, under flock): whichever order they leave
 * in, the group ends where it was before the first came, not at another
 * run's raised value; a holder that died without restoring is dropped,
 * and its raise undone, by the next raise or restore in the session; a
 * value set by hand while runs hold the group is left alone. A process
 * holds the group once: raising again changes what it asks for, and its
 * first restore ends the hold.
 *
 * Return 0, -ENOENT when there are no autogroups (nothing to do), -EPERM
 * or -EACCES without CAP_SYS_NICE (or without write access to /run), or
 * another -errno. lat_cgroup_autogroup_restore_nowait is the same restore
 * for a fatal-signal handler: async-signal-safe (no stdio, no heap), and
 * it returns -EWOULDBLOCK instead of waiting for the record's lock (its
 * own thread may hold it); the hold is then dropped by the next run.
 */
int lat_cgroup_autogroup_raise(int nice, int *was);
int lat_cgroup_autogroup_restore(void);
int lat_cgroup_autogroup_restore_nowait(void);

#endif
