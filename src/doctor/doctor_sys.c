/*
 * Readers of the cgroup, memory and privilege groups, and the probe of
 * which counters this process can open.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "doctor_int.h"
#include "latlab/sysfile.h"

void doctor_why(char *why, const char *what, int rc)
{
	snprintf(why, LAT_DOCTOR_WHY_LEN, "could not read %s: %s", what,
		 lat_strerror(rc));
}

void doctor_read_cgroup(struct lat_doctor_facts *f, const char *root)
{
	struct lat_cgroup cs;
	int rc;

	char path[1024];

	f->quota_cpus = -1;
	f->quota_us = -1;
	/* -ENOENT from lat_cgroup_self means "not mounted" only when the
	 * files that say so could be read */
	snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
	f->cg_err = access(path, R_OK) ? (errno == ENOENT ? -ENODATA : -errno)
				       : lat_cgroup_self(&f->cg, root, "cpu");
	if (f->cg_err == -ENODATA) {
		snprintf(f->why_cg, sizeof(f->why_cg), "could not read "
			 "/proc/self/cgroup: no such file");
	} else if (f->cg_err) {
		doctor_why(f->why_cg, "the cpu cgroup (/proc/self/cgroup, "
			   "mountinfo)", f->cg_err);
	} else {
		rc = lat_cgroup_quota_tightest(&f->cg, &f->quota_cpus,
					       &f->quota_us, &f->period_us,
					       f->quota_where);
		if (rc)
			doctor_why(f->why_cg, "the group's CPU quota", rc);
		rc = lat_cgroup_cpu_stat(&f->cg, &f->cg_stat);
		f->cg_stat_known = !rc;
		if (rc)
			doctor_why(f->why_cg_stat, "cpu.stat", rc);
		f->cg_writable = !lat_cgroup_quota_ready(root, &f->cg_child_parent);
	}
	rc = lat_cgroup_self(&cs, root, "cpuset");
	if (!rc)
		rc = lat_cgroup_read(&cs, cs.version == LAT_CGROUP_V2
					      ? "cpuset.cpus.effective"
					      : "cpuset.effective_cpus",
				     f->cpuset, sizeof(f->cpuset));
	if (rc) {
		f->cpuset[0] = '\0';
		doctor_why(f->why_cpuset, "the cpuset cgroup", rc);
	}
}

void doctor_read_memory(struct lat_doctor_facts *f, const char *root)
{
	char buf[4096], *open_br, *close_br;
	struct rlimit rl;
	int rc;

	rc = lat_sysfile_read(buf, sizeof(buf), 1,
			      "%s/sys/kernel/mm/transparent_hugepage/enabled",
			      root);
	open_br = rc < 0 ? NULL : strchr(buf, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (open_br && close_br && close_br - open_br < (long)sizeof(f->thp))
		snprintf(f->thp, sizeof(f->thp), "%.*s",
			 (int)(close_br - open_br - 1), open_br + 1);
	else
		doctor_why(f->why_thp, "/sys/kernel/mm/transparent_hugepage/"
			   "enabled", rc < 0 ? rc : -LAT_EFORMAT);
	f->swap_devices = -1;
	rc = lat_sysfile_read(buf, sizeof(buf), 1, "%s/proc/swaps", root);
	if (rc >= 0) {
		/* a header line, then one line per device */
		f->swap_devices = 0;
		for (const char *s = buf; (s = strchr(s, '\n')); s++)
			f->swap_devices++;
	} else {
		doctor_why(f->why_swap, "/proc/swaps", rc);
	}
	rc = lat_sysfile_read(buf, sizeof(buf), 0, "%s/proc/meminfo", root);
	if (rc < 0 || lat_sysfile_key_u64(buf, "SwapTotal",
					  &f->swap_total_kb))
		f->swap_total_kb = 0;
	f->memlock_bytes = UINT64_MAX;
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		f->memlock_bytes = (uint64_t)rl.rlim_cur;
}

void doctor_read_privileges(struct lat_doctor_facts *f, const char *root)
{
	char status[8192], path[1024], *s;
	int64_t v;
	int rc;

	f->paranoid = INT32_MIN;
	rc = lat_sysfile_i64(&v, "%s/proc/sys/kernel/perf_event_paranoid",
			     root);
	if (!rc)
		f->paranoid = (int)v;
	else
		doctor_why(f->why_paranoid,
			   "/proc/sys/kernel/perf_event_paranoid", rc);
	f->uid = -1;
	rc = lat_sysfile_read(status, sizeof(status), 0,
			      "%s/proc/self/status", root);
	if (rc >= 0 && (s = strstr(status, "\nUid:"))) {
		long real, eff;

		/* Uid: real effective saved fs */
		if (sscanf(s + 5, "%ld %ld", &real, &eff) == 2)
			f->uid = (int)eff;
	}
	if (rc >= 0 && (s = strstr(status, "\nCapEff:"))) {
		char *end;

		f->cap_eff = strtoull(s + 8, &end, 16);
		f->caps_known = end != s + 8;
	}
	if (!f->caps_known)
		doctor_why(f->why_caps, "CapEff in /proc/self/status",
			   rc < 0 ? rc : -LAT_EFORMAT);
	snprintf(path, sizeof(path), "%s/sys/kernel/btf/vmlinux", root);
	f->btf = !access(path, R_OK);
	f->unpriv_bpf = -1;
	rc = lat_sysfile_i64(&v, "%s/proc/sys/kernel/unprivileged_bpf_disabled",
			     root);
	if (!rc)
		f->unpriv_bpf = (int)v;
	else
		doctor_why(f->why_bpf,
			   "/proc/sys/kernel/unprivileged_bpf_disabled", rc);
}

void doctor_probe_counters(struct lat_doctor_facts *f)
{
	struct lat_perf p;

	if (lat_perf_open(&p, 0, 0))
		return;
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
		f->counter_src[c] = p.slot[c].source;
		snprintf(f->counter_why[c], sizeof(f->counter_why[c]), "%s",
			 lat_perf_reason(&p, (enum lat_perf_counter)c));
	}
	lat_perf_close(&p);
	f->probed = true;
}

/*
 * Can this process use bpf() at all? One tiny array map, closed at once:
 * the precheck the eBPF probe itself makes (EPERM without privilege when
 * unprivileged BPF is disabled), without libbpf.
 */
void doctor_probe_bpf(struct lat_doctor_facts *f)
{
#ifdef __NR_bpf
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	fd = syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	f->bpf_probe = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close((int)fd);
#else
	f->bpf_probe = -ENOSYS;
#endif
}
