/*
 * The fallback without the probe: per-thread totals any user can read.
 * /proc/<pid>/task/<tid>/schedstat gives time on CPU, time runnable but
 * waiting (run delay, CONFIG_SCHED_INFO) and timeslices; status gives the
 * voluntary and involuntary switch counts. Totals only: no histogram, no
 * attribution. Files are parsed defensively (they may vanish mid-read
 * when the thread exits).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/json.h"
#include "latlab/sched.h"

static int slurp(pid_t pid, pid_t tid, const char *file, char *buf,
		 size_t len)
{
	char path[96];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
		 (int)tid, file);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	if (ferror(f)) {
		fclose(f);
		return -ESRCH; /* the thread went away mid-read */
	}
	fclose(f);
	return 0;
}

static int status_u64(const char *buf, const char *key, uint64_t *out)
{
	const char *p = strstr(buf, key);
	char *end;

	if (!p)
		return -LAT_EFORMAT;
	p += strlen(key);
	*out = strtoull(p, &end, 10);
	return end == p ? -LAT_EFORMAT : 0;
}

int lat_sched_proc_read(pid_t pid, pid_t tid, struct lat_sched_proc *p)
{
	char buf[4096];
	unsigned long long a, b, c;
	const char *name;
	int rc;

	memset(p, 0, sizeof(*p));
	if (pid <= 0 || tid <= 0)
		return -EINVAL;
	p->tid = tid;
	rc = slurp(pid, tid, "schedstat", buf, sizeof(buf));
	if (rc)
		return rc;
	if (sscanf(buf, "%llu %llu %llu", &a, &b, &c) != 3)
		return -LAT_EFORMAT;
	p->oncpu_ns = a;
	p->run_delay_ns = b;
	p->timeslices = c;
	rc = slurp(pid, tid, "status", buf, sizeof(buf));
	if (rc)
		return rc;
	name = strstr(buf, "Name:\t");
	if (name) {
		size_t n = strcspn(name + 6, "\n");

		if (n > sizeof(p->comm) - 1)
			n = sizeof(p->comm) - 1;
		memcpy(p->comm, name + 6, n);
	}
	rc = status_u64(buf, "\nvoluntary_ctxt_switches:", &p->vol);
	if (!rc)
		rc = status_u64(buf, "\nnonvoluntary_ctxt_switches:", &p->invol);
	return rc;
}

int lat_sched_proc_read_all(pid_t pid, struct lat_sched_proc *out, int max,
			    int *n)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int rc = 0;

	*n = 0;
	if (pid <= 0 || max < 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((d = readdir(dir))) {
		long tid = strtol(d->d_name, NULL, 10);
		int r;

		if (tid <= 0)
			continue;
		if (*n == max) {
			rc = -ENOSPC;
			break;
		}
		r = lat_sched_proc_read(pid, (pid_t)tid, &out[*n]);
		if (r == -ESRCH)
			continue; /* exited while we listed */
		if (r) {
			rc = r;
			break;
		}
		(*n)++;
	}
	closedir(dir);
	return rc;
}

void lat_sched_proc_delta(const struct lat_sched_proc *before, int n_before,
			  struct lat_sched_proc *after, int n_after)
{
	for (int i = 0; i < n_after; i++) {
		struct lat_sched_proc *e = &after[i];
		const struct lat_sched_proc *b = NULL;

		for (int k = 0; k < n_before && !b; k++)
			if (before[k].tid == e->tid)
				b = &before[k];
		if (!b)
			continue; /* born during the window: all of it */
		e->oncpu_ns -= b->oncpu_ns;
		e->run_delay_ns -= b->run_delay_ns;
		e->timeslices -= b->timeslices;
		e->vol -= b->vol;
		e->invol -= b->invol;
	}
}

void lat_sched_proc_print(FILE *out, const struct lat_sched_proc *d, int n)
{
	fprintf(out, "%8s %-16s %12s %12s %10s %10s\n", "tid", "comm",
		"on CPU ms", "run delay ms", "voluntary", "involunt.");
	for (int i = 0; i < n; i++)
		fprintf(out, "%8d %-16s %12.3f %12.3f %10llu %10llu\n",
			(int)d[i].tid, d[i].comm,
			(double)d[i].oncpu_ns / 1e6,
			(double)d[i].run_delay_ns / 1e6,
			(unsigned long long)d[i].vol,
			(unsigned long long)d[i].invol);
}

void lat_sched_proc_json(struct lat_json *j, const char *key,
			 const struct lat_sched_proc *d, int n)
{
	lat_json_arr_begin(j, key);
	for (int i = 0; i < n; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_int(j, "tid", d[i].tid);
		lat_json_str(j, "comm", d[i].comm);
		lat_json_uint(j, "oncpu_ns", d[i].oncpu_ns);
		lat_json_uint(j, "run_delay_ns", d[i].run_delay_ns);
		lat_json_uint(j, "switches_voluntary", d[i].vol);
		lat_json_uint(j, "switches_involuntary", d[i].invol);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
}
