/*
 * CPU bandwidth of a group (quota, period, throttling counts), the
 * child group of the throttling experiment, and the sweep of children
 * left by killed runs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/cgroup.h"
#include "latlab/sysfile.h"

int lat_cgroup_read(const struct lat_cgroup *cg, const char *file,
		    char *buf, size_t len)
{
	int rc = lat_sysfile_read(buf, len, 1, "%s/%s", cg->dir, file);

	return rc < 0 ? rc : 0;
}

static int quota_at(const char *dir, enum lat_cgroup_version v,
		    int64_t *quota_us, uint64_t *period_us)
{
	int64_t q, p;
	char buf[64], *end;
	int rc;

	if (v == LAT_CGROUP_V1) {
		rc = lat_sysfile_i64(&q, "%s/cpu.cfs_quota_us", dir);
		if (!rc)
			rc = lat_sysfile_i64(&p, "%s/cpu.cfs_period_us", dir);
		if (rc)
			return rc;
	} else if (v == LAT_CGROUP_V2) {
		rc = lat_sysfile_read(buf, sizeof(buf), 1, "%s/cpu.max", dir);
		if (rc < 0)
			return rc;
		if (!strncmp(buf, "max ", 4)) {
			q = -1;
			end = buf + 3;
		} else {
			q = strtoll(buf, &end, 10);
			if (end == buf || q <= 0)
				return -LAT_EFORMAT;
		}
		p = strtoll(end, &end, 10);
	} else {
		return -ENOENT;
	}
	if (p <= 0 || q < -1 || q == 0)
		return -LAT_EFORMAT;
	*quota_us = q;
	*period_us = (uint64_t)p;
	return 0;
}

int lat_cgroup_quota_get(const struct lat_cgroup *cg, int64_t *quota_us,
			 uint64_t *period_us)
{
	return quota_at(cg->dir, cg->version, quota_us, period_us);
}

int lat_cgroup_quota_tightest(const struct lat_cgroup *cg, double *cpus,
			      int64_t *quota_us, uint64_t *period_us,
			      char *where)
{
	char dir[LAT_CGROUP_PATH_LEN];
	size_t top = strlen(cg->mount);
	int64_t q;
	uint64_t p;
	int rc = lat_cgroup_quota_get(cg, &q, &p);

	*cpus = -1;
	*quota_us = -1;
	*period_us = 0;
	if (where)
		where[0] = '\0';
	if (rc)
		return rc;
	snprintf(dir, sizeof(dir), "%s", cg->dir);
	for (;;) {
		if (!quota_at(dir, cg->version, &q, &p) && q > 0 &&
		    (*cpus < 0 || (double)q / (double)p < *cpus)) {
			*cpus = (double)q / (double)p;
			*quota_us = q;
			*period_us = p;
			if (where)
				snprintf(where, LAT_CGROUP_PATH_LEN, "%s",
					 strlen(dir) > top ? dir + top : "/");
		}
		char *slash = strrchr(dir, '/');

		if (strlen(dir) <= top || !slash || (size_t)(slash - dir) < top)
			break;
		*slash = '\0';
	}
	return 0;
}

int lat_cgroup_quota_set(const struct lat_cgroup *cg, int64_t quota_us,
			 uint64_t period_us)
{
	char buf[64];
	int rc;

	if (quota_us == 0 || quota_us < -1 || !period_us)
		return -EINVAL;
	if (cg->version == LAT_CGROUP_V2) {
		if (quota_us < 0)
			snprintf(buf, sizeof(buf), "max %" PRIu64, period_us);
		else
			snprintf(buf, sizeof(buf), "%" PRId64 " %" PRIu64,
				 quota_us, period_us);
		return lat_sysfile_write(buf, "%s/cpu.max", cg->dir);
	}
	if (cg->version != LAT_CGROUP_V1)
		return -ENOENT;
	/* v1 checks quota against the period on every write: lift the
	 * quota first, then set the period, then the quota */
	rc = lat_sysfile_write("-1", "%s/cpu.cfs_quota_us", cg->dir);
	snprintf(buf, sizeof(buf), "%" PRIu64, period_us);
	if (!rc)
		rc = lat_sysfile_write(buf, "%s/cpu.cfs_period_us", cg->dir);
	snprintf(buf, sizeof(buf), "%" PRId64, quota_us);
	if (!rc && quota_us > 0)
		rc = lat_sysfile_write(buf, "%s/cpu.cfs_quota_us", cg->dir);
	return rc;
}

int lat_cgroup_cpu_stat(const struct lat_cgroup *cg,
			struct lat_cgroup_cpu_stat *st)
{
	char text[1024];
	uint64_t t;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = lat_sysfile_read(text, sizeof(text), 0, "%s/cpu.stat", cg->dir);
	if (rc < 0)
		return rc;
	if (lat_sysfile_key_u64(text, "nr_periods", &st->nr_periods) ||
	    lat_sysfile_key_u64(text, "nr_throttled", &st->nr_throttled))
		return -LAT_EFORMAT;
	if (!lat_sysfile_key_u64(text, "throttled_time", &t))
		st->throttled_ns = t;                 /* v1: ns */
	else if (!lat_sysfile_key_u64(text, "throttled_usec", &t))
		st->throttled_ns = t * 1000;          /* v2: µs */
	else
		return -LAT_EFORMAT;
	return 0;
}

int lat_cgroup_child_create(const struct lat_cgroup *parent,
			    const char *name, struct lat_cgroup *child)
{
	const char *sep = strcmp(parent->path, "/") ? "/" : "";
	int n, rc;

	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return -EINVAL;
	*child = *parent;
	n = snprintf(child->path, sizeof(child->path), "%s%s%s", parent->path,
		     sep, name);
	if (n < 0 || (size_t)n >= sizeof(child->path))
		return -ENAMETOOLONG;
	n = snprintf(child->dir, sizeof(child->dir), "%s/%s", parent->dir,
		     name);
	if (n < 0 || (size_t)n >= sizeof(child->dir))
		return -ENAMETOOLONG;
	if (parent->version == LAT_CGROUP_V2) {
		char ctl[32];

		snprintf(ctl, sizeof(ctl), "+%s", parent->controller);
		rc = lat_sysfile_write(ctl, "%s/cgroup.subtree_control",
				       parent->dir);
		if (rc)
			return rc;
	}
	return mkdir(child->dir, 0755) ? -errno : 0;
}

int lat_cgroup_enter(const struct lat_cgroup *cg)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return lat_sysfile_write(pid, "%s/cgroup.procs", cg->dir);
}

int lat_cgroup_task_count(const struct lat_cgroup *cg)
{
	char buf[4096];
	int rc = lat_sysfile_read(buf, sizeof(buf), 1, "%s/cgroup.procs",
				  cg->dir), n = 0;

	if (rc < 0)
		return rc;
	for (const char *p = buf; *p; p++)
		n += *p == '\n';
	return buf[0] ? n + 1 : 0;
}

int lat_cgroup_remove(const struct lat_cgroup *cg)
{
	return rmdir(cg->dir) ? -errno : 0;
}

/* The pid in "latlab-<pid>", or 0 for any other name. */
static pid_t child_pid(const char *name)
{
	size_t k = strlen(LAT_CGROUP_CHILD_PREFIX);
	char *end;
	long v;

	if (strncmp(name, LAT_CGROUP_CHILD_PREFIX, k) || name[k] < '1' ||
	    name[k] > '9')
		return 0;
	v = strtol(name + k, &end, 10);
	return *end || v <= 0 || v > 0x7fffffff ? 0 : (pid_t)v;
}

int lat_cgroup_sweep(const struct lat_cgroup *parent, int *removed)
{
	DIR *d = opendir(parent->dir);
	struct dirent *e;
	struct lat_cgroup c;

	if (removed)
		*removed = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		pid_t pid = child_pid(e->d_name);

		/* EPERM: alive but someone else's; only ESRCH is dead */
		if (!pid || pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		c = *parent;
		if ((size_t)snprintf(c.dir, sizeof(c.dir), "%s/", parent->dir) +
			    strlen(e->d_name) >= sizeof(c.dir))
			continue;
		strcat(c.dir, e->d_name);
		/* a group that still holds tasks stays (rmdir says EBUSY) */
		if (!lat_cgroup_remove(&c) && removed)
			(*removed)++;
	}
	closedir(d);
	return 0;
}

int lat_cgroup_weight_set(const struct lat_cgroup *cg, int threads)
{
	char buf[32];
	long w;

	if (threads < 1)
		return -EINVAL;
	if (cg->version == LAT_CGROUP_V2) {
		w = 100L * threads;
		snprintf(buf, sizeof(buf), "%ld", w > 10000 ? 10000 : w);
		return lat_sysfile_write(buf, "%s/cpu.weight", cg->dir);
	}
	if (cg->version != LAT_CGROUP_V1)
		return -ENOENT;
	w = 1024L * threads;
	snprintf(buf, sizeof(buf), "%ld", w > 262144 ? 262144 : w);
	return lat_sysfile_write(buf, "%s/cpu.shares", cg->dir);
}

int lat_cgroup_parent(const struct lat_cgroup *cg, struct lat_cgroup *parent)
{
	char *slash;

	*parent = *cg;
	if (!strcmp(cg->path, "/"))
		return -ENOENT;
	slash = strrchr(parent->path, '/');
	if (!slash)
		return -LAT_EFORMAT;
	if (slash == parent->path)
		slash[1] = '\0';    /* "/a" -> "/" */
	else
		*slash = '\0';
	slash = strrchr(parent->dir, '/');
	if (!slash || (size_t)(slash - parent->dir) < strlen(parent->mount))
		return -LAT_EFORMAT;
	*slash = '\0';
	return 0;
}

/*
 * Where the experiment's child goes. v1: under the process's own group.
 * v2 forbids a group that holds processes to hand a controller to its
 * children, and the process is in its group: so the child goes beside
 * it, under the parent, which hands cpu down already (that is how the
 * process's group has it). The root group is exempt: children under it.
 */
static int experiment_parent(const struct lat_cgroup *home,
			     struct lat_cgroup *parent)
{
	if (home->version != LAT_CGROUP_V2 || !strcmp(home->path, "/")) {
		*parent = *home;
		return 0;
	}
	return lat_cgroup_parent(home, parent);
}

int lat_cgroup_quota_begin(struct lat_cgroup_quota_run *q, const char *root,
			   double share, uint64_t period_us, int threads)
{
	struct lat_cgroup parent;
	char name[40];
	int rc;

	memset(q, 0, sizeof(*q));
	if (!(share > 0 && share <= 1) || period_us < LAT_CGROUP_MIN_PERIOD_US ||
	    period_us > LAT_CGROUP_MAX_PERIOD_US || threads < 1)
		return -EINVAL;
	q->period_us = period_us;
	q->quota_us = (int64_t)llround(share * (double)period_us);
	if (q->quota_us < LAT_CGROUP_MIN_QUOTA_US)
		return -EINVAL;
	rc = lat_cgroup_self(&q->home, root, "cpu");
	if (!rc)
		rc = experiment_parent(&q->home, &parent);
	if (rc)
		return rc;
	(void)lat_cgroup_sweep(&parent, &q->swept);
	snprintf(name, sizeof(name), LAT_CGROUP_CHILD_PREFIX "%d",
		 (int)getpid());
	rc = lat_cgroup_child_create(&parent, name, &q->child);
	if (rc == -EEXIST) /* ours from before an exec, or a reused pid */
		rc = lat_cgroup_remove(&q->child) ? -EEXIST
			: lat_cgroup_child_create(&parent, name, &q->child);
	if (rc)
		return rc;
	q->created = true;
	rc = lat_cgroup_quota_set(&q->child, q->quota_us, q->period_us);
	if (!rc)
		rc = lat_cgroup_weight_set(&q->child, threads);
	if (!rc)
		rc = lat_cgroup_enter(&q->child);
	q->entered = !rc;
	if (rc)
		lat_cgroup_quota_end(q);
	return rc;
}

int lat_cgroup_quota_ready(const char *root, struct lat_cgroup *where)
{
	struct lat_cgroup cg, parent;
	int rc = lat_cgroup_self(&cg, root, "cpu");

	if (!rc)
		rc = experiment_parent(&cg, &parent);
	if (where)
		*where = rc ? cg : parent;
	if (rc)
		return rc;
	return access(parent.dir, W_OK) ? -errno : 0;
}

const char *lat_cgroup_quota_why(int rc, const struct lat_cgroup *where,
				 char *buf, size_t len)
{
	if (rc == -EACCES || rc == -EPERM || rc == -EROFS)
		snprintf(buf, len, "needs root: this user cannot make a cgroup "
			 "in %s (%s)", where->dir, lat_strerror(rc));
	else if (rc == -ENOENT)
		snprintf(buf, len, "no cgroup cpu controller is mounted here "
			 "(neither v1 cpu nor v2 cpu.max)");
	else
		snprintf(buf, len, "cannot find this process's cpu cgroup: %s",
			 lat_strerror(rc));
	return buf;
}

int lat_cgroup_quota_stat(const struct lat_cgroup_quota_run *q,
			  struct lat_cgroup_cpu_stat *st)
{
	if (!q->created)
		return -EINVAL;
	return lat_cgroup_cpu_stat(&q->child, st);
}

int lat_cgroup_quota_end(struct lat_cgroup_quota_run *q)
{
	int rc = 0, r;

	if (q->entered) {
		rc = lat_cgroup_cpu_stat(&q->child, &q->stat);
		r = lat_cgroup_enter(&q->home);
		if (!rc)
			rc = r;
		q->entered = r != 0;
	}
	if (q->created && !q->entered) {
		r = lat_cgroup_remove(&q->child);
		if (!rc)
			rc = r;
		q->created = r != 0 && r != -ENOENT;
	}
	return rc;
}
