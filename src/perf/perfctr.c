/*
 * lat_perf: per-thread counters from perf_event_open, with /proc
 * fallbacks. See include/latlab/perfctr.h for the contract.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "latlab/perfctr.h"

/* What each counter is in perf terms, and where /proc has it. */
enum proc_file {
	PROC_NONE,
	PROC_SCHEDSTAT,   /* "on_cpu_ns run_delay_ns timeslices" */
	PROC_SCHED,       /* "se.nr_migrations : N" (CONFIG_SCHED_DEBUG) */
	PROC_STATUS,      /* voluntary_/nonvoluntary_ctxt_switches */
	PROC_STAT,        /* minflt (field 10), majflt (field 12) */
};

struct counter_def {
	const char *name;
	uint32_t type;
	uint64_t config;
	bool hardware;
	bool kernel_only;  /* raised in kernel context: 0 with exclude_kernel */
	enum proc_file proc;
};

#define LLC_READ_MISS (PERF_COUNT_HW_CACHE_LL | \
		       (PERF_COUNT_HW_CACHE_OP_READ << 8) | \
		       (PERF_COUNT_HW_CACHE_RESULT_MISS << 16))

static const struct counter_def defs[LAT_PERF_NCOUNTERS] = {
	[LAT_PERF_TASK_CLOCK] = { "task-clock", PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_TASK_CLOCK, false, false, PROC_SCHEDSTAT },
	[LAT_PERF_CTX_SWITCHES] = { "ctx-switches", PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CONTEXT_SWITCHES, false, true, PROC_STATUS },
	[LAT_PERF_MIGRATIONS] = { "migrations", PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CPU_MIGRATIONS, false, true, PROC_SCHED },
	[LAT_PERF_MINOR_FAULTS] = { "minor-faults", PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_PAGE_FAULTS_MIN, false, false, PROC_STAT },
	[LAT_PERF_MAJOR_FAULTS] = { "major-faults", PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_PAGE_FAULTS_MAJ, false, false, PROC_STAT },
	/* perf has no per-thread run-queue wait; schedstat does. */
	[LAT_PERF_RUN_DELAY] = { "run-delay", 0, 0, false, false,
		PROC_SCHEDSTAT },
	[LAT_PERF_CYCLES] = { "cycles", PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_CPU_CYCLES, true, false, PROC_NONE },
	[LAT_PERF_INSTRUCTIONS] = { "instructions", PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_INSTRUCTIONS, true, false, PROC_NONE },
	[LAT_PERF_CACHE_MISSES] = { "cache-misses", PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_CACHE_MISSES, true, false, PROC_NONE },
	[LAT_PERF_LLC_MISSES] = { "llc-misses", PERF_TYPE_HW_CACHE,
		LLC_READ_MISS, true, false, PROC_NONE },
};

const char *lat_perf_name(enum lat_perf_counter c)
{
	return (unsigned)c < LAT_PERF_NCOUNTERS ? defs[c].name : "unknown";
}

const char *lat_perf_source_name(enum lat_perf_source s)
{
	switch (s) {
	case LAT_PERF_SRC_PERF:
		return "perf";
	case LAT_PERF_SRC_PROC:
		return "proc";
	case LAT_PERF_SRC_NONE:
		break;
	}
	return "none";
}

const char *lat_perf_reason(const struct lat_perf *p, enum lat_perf_counter c)
{
	return (unsigned)c < LAT_PERF_NCOUNTERS ? p->slot[c].reason : "";
}

double lat_perf_ipc(const struct lat_perf_reading *r)
{
	if (!lat_perf_has(r, LAT_PERF_CYCLES) ||
	    !lat_perf_has(r, LAT_PERF_INSTRUCTIONS) ||
	    r->value[LAT_PERF_CYCLES] == 0)
		return -1.0;
	return (double)r->value[LAT_PERF_INSTRUCTIONS] /
	       (double)r->value[LAT_PERF_CYCLES];
}

static int read_paranoid(void)
{
	char buf[16] = { 0 };
	int fd = open("/proc/sys/kernel/perf_event_paranoid",
		      O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 99;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : 99;
}

static const char *errno_name(int err)
{
	switch (err) {
	case ENOENT:
		return "ENOENT";
	case ENODEV:
		return "ENODEV";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case ENOSYS:
		return "ENOSYS";
	case EINVAL:
		return "EINVAL";
	case EMFILE:
		return "EMFILE";
	}
	return "errno";
}

/* Turn a perf_event_open failure into the reason people will read. */
static void set_open_reason(struct lat_perf_slot *s, bool hardware, int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		snprintf(s->reason, sizeof(s->reason), "%s (%s)",
			 hardware ? "no hardware PMU" :
				    "event not supported by this kernel",
			 errno_name(err));
		break;
	case EACCES:
	case EPERM:
		snprintf(s->reason, sizeof(s->reason),
			 "perf_event_paranoid=%d and no CAP_PERFMON (%s)",
			 read_paranoid(), errno_name(err));
		break;
	case ENOSYS:
		snprintf(s->reason, sizeof(s->reason),
			 "no perf_event_open in this kernel (ENOSYS)");
		break;
	default:
		snprintf(s->reason, sizeof(s->reason),
			 "perf_event_open failed: %s (%s)", strerror(err),
			 errno_name(err));
	}
}

/*
 * Context switches and migrations are raised in kernel context: a
 * user-only event opens fine and then reads 0 forever. Never take it.
 */
static void set_trap_reason(struct lat_perf_slot *s)
{
	snprintf(s->reason, sizeof(s->reason),
		 "perf_event_paranoid=%d allows only user-only perf, "
		 "which reads 0 for this event", read_paranoid());
}

static int perf_open_one(const struct counter_def *d, pid_t tid,
			 int group_fd, bool exclude_kernel)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = d->type;
	attr.config = d->config;
	attr.disabled = group_fd < 0; /* members follow their leader */
	attr.exclude_hv = 1;
	attr.exclude_kernel = exclude_kernel;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			   PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = syscall(SYS_perf_event_open, &attr, tid, -1, group_fd,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/*
 * Open the counters in [first, last] that perf should count, as one group:
 * the first that opens leads, the others join it. *exclude_kernel is
 * decided by the first open: kernel counts if allowed, user-only if the
 * kernel refuses (EACCES/EPERM) and the caller did not already ask for it.
 */
static void open_group(struct lat_perf *p, int first, int last,
		       bool *exclude_kernel, int *leader)
{
	for (int c = first; c <= last; c++) {
		const struct counter_def *d = &defs[c];
		struct lat_perf_slot *s = &p->slot[c];
		int fd;

		if (d->kernel_only && *exclude_kernel) {
			set_trap_reason(s);
			continue;
		}
		fd = perf_open_one(d, p->tid, *leader, *exclude_kernel);
		if ((fd == -EACCES || fd == -EPERM) && !*exclude_kernel &&
		    *leader < 0) {
			/* Unprivileged at paranoid 2: only user-only opens. */
			*exclude_kernel = true;
			if (d->kernel_only) {
				set_trap_reason(s);
				continue;
			}
			fd = perf_open_one(d, p->tid, *leader, true);
		}
		if (fd < 0) {
			set_open_reason(s, d->hardware, -fd);
			continue;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &s->id) < 0) {
			set_open_reason(s, d->hardware, errno);
			close(fd);
			continue;
		}
		s->fd = fd;
		s->source = LAT_PERF_SRC_PERF;
		s->reason[0] = '\0';
		if (*leader < 0)
			*leader = fd;
	}
}

static int proc_read(pid_t tid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	buf[n] = '\0';
	return 0;
}

/* Value after "key" and the separator (spaces, ':' or tabs), or -1. */
static int64_t find_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		if (!strncmp(line, key, klen) &&
		    (line[klen] == ' ' || line[klen] == ':' ||
		     line[klen] == '\t')) {
			const char *v = line + klen;

			while (*v == ' ' || *v == ':' || *v == '\t')
				v++;
			return strtoll(v, NULL, 10);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

/* Field @n (1-based, as in proc(5)) of /proc/.../stat, or -1. */
static int64_t stat_field(const char *text, int n)
{
	const char *p = strrchr(text, ')'); /* comm may hold spaces */

	if (!p)
		return -1;
	p++;
	for (int field = 3; field <= n; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -1;
		if (field == n)
			return strtoll(p, NULL, 10);
		while (*p && *p != ' ')
			p++;
	}
	return -1;
}

/*
 * Read one /proc-backed counter for @tid into *out. Returns 0, -ENOENT if
 * the file lacks the field, or a -errno from the read.
 */
static int proc_value(pid_t tid, enum lat_perf_counter c, uint64_t *out)
{
	char buf[4096];
	int64_t v = -1, v2;
	int rc;

	switch (defs[c].proc) {
	case PROC_SCHEDSTAT:
		rc = proc_read(tid, "schedstat", buf, sizeof(buf));
		if (rc)
			return rc;
		{
			unsigned long long on_cpu, delay;

			if (sscanf(buf, "%llu %llu", &on_cpu, &delay) != 2)
				return -ENOENT;
			v = (int64_t)(c == LAT_PERF_RUN_DELAY ? delay : on_cpu);
		}
		break;
	case PROC_SCHED:
		rc = proc_read(tid, "sched", buf, sizeof(buf));
		if (rc)
			return rc;
		v = find_field(buf, "se.nr_migrations");
		break;
	case PROC_STATUS:
		rc = proc_read(tid, "status", buf, sizeof(buf));
		if (rc)
			return rc;
		v = find_field(buf, "voluntary_ctxt_switches");
		v2 = find_field(buf, "nonvoluntary_ctxt_switches");
		v = v < 0 || v2 < 0 ? -1 : v + v2;
		break;
	case PROC_STAT:
		rc = proc_read(tid, "stat", buf, sizeof(buf));
		if (rc)
			return rc;
		v = stat_field(buf, c == LAT_PERF_MAJOR_FAULTS ? 12 : 10);
		break;
	case PROC_NONE:
		return -ENOENT;
	}
	if (v < 0)
		return -ENOENT;
	*out = (uint64_t)v;
	return 0;
}

/* Counters perf could not give: take them from /proc when it has them. */
static void use_proc_fallbacks(struct lat_perf *p)
{
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
		struct lat_perf_slot *s = &p->slot[c];
		uint64_t v;
		int rc;

		if (s->source != LAT_PERF_SRC_NONE)
			continue;
		if (defs[c].proc == PROC_NONE)
			continue; /* keeps the perf reason */
		rc = proc_value(p->tid, c, &v);
		if (rc == 0) {
			s->source = LAT_PERF_SRC_PROC;
			continue;
		}
		if (s->reason[0] == '\0')
			snprintf(s->reason, sizeof(s->reason),
				 "no /proc source (%s)", strerror(-rc));
	}
}

int lat_perf_open(struct lat_perf *p, pid_t tid, int flags)
{
	bool exclude_kernel = flags & LAT_PERF_USER_ONLY;
	char path[64];

	memset(p, 0, sizeof(*p));
	p->sw_leader = p->hw_leader = -1;
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++)
		p->slot[c].fd = -1;
	if (tid < 0 || (flags & ~(LAT_PERF_USER_ONLY | LAT_PERF_NO_PERF |
				  LAT_PERF_SOFT_PROC)))
		return -EINVAL;
	p->tid = tid ? tid : (pid_t)syscall(SYS_gettid);
	p->flags = flags;
	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)p->tid);
	if (access(path, F_OK) != 0)
		return -ESRCH;

	if (flags & LAT_PERF_NO_PERF) {
		for (int c = 0; c < LAT_PERF_NCOUNTERS; c++)
			snprintf(p->slot[c].reason, LAT_PERF_REASON_LEN,
				 "perf disabled by the caller");
	} else {
		if (flags & LAT_PERF_SOFT_PROC)
			for (int c = LAT_PERF_TASK_CLOCK;
			     c <= LAT_PERF_MAJOR_FAULTS; c++)
				snprintf(p->slot[c].reason,
					 LAT_PERF_REASON_LEN,
					 "a perf event would slow every "
					 "context switch of the thread");
		else
			open_group(p, LAT_PERF_TASK_CLOCK,
				   LAT_PERF_MAJOR_FAULTS, &exclude_kernel,
				   &p->sw_leader);
		open_group(p, LAT_PERF_CYCLES, LAT_PERF_LLC_MISSES,
			   &exclude_kernel, &p->hw_leader);
	}
	p->slot[LAT_PERF_RUN_DELAY].reason[0] = '\0';
	use_proc_fallbacks(p);
	return 0;
}

void lat_perf_close(struct lat_perf *p)
{
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
		if (p->slot[c].source == LAT_PERF_SRC_PERF &&
		    p->slot[c].fd >= 0)
			close(p->slot[c].fd);
		p->slot[c].fd = -1;
		if (p->slot[c].source == LAT_PERF_SRC_PERF)
			p->slot[c].source = LAT_PERF_SRC_NONE;
	}
	p->sw_leader = p->hw_leader = -1;
	p->started = false;
}

int lat_perf_start(struct lat_perf *p)
{
	int leaders[2] = { p->sw_leader, p->hw_leader };
	int err = 0;

	if (!p->tid)
		return -EINVAL;
	for (int i = 0; i < 2; i++) {
		if (leaders[i] < 0)
			continue;
		if (ioctl(leaders[i], PERF_EVENT_IOC_RESET,
			  PERF_IOC_FLAG_GROUP) < 0 ||
		    ioctl(leaders[i], PERF_EVENT_IOC_ENABLE,
			  PERF_IOC_FLAG_GROUP) < 0)
			err = -errno;
	}
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
		struct lat_perf_slot *s = &p->slot[c];
		int rc;

		if (s->source != LAT_PERF_SRC_PROC)
			continue;
		rc = proc_value(p->tid, c, &s->start);
		if (rc)
			err = rc;
	}
	p->started = err == 0;
	return err;
}

/* Group read: {nr, enabled, running, {value, id} x nr}. */
static int read_group(struct lat_perf *p, int leader,
		      struct lat_perf_reading *out)
{
	uint64_t buf[3 + 2 * LAT_PERF_NCOUNTERS];
	uint64_t enabled, running;
	ssize_t n;

	if (leader < 0)
		return 0;
	n = read(leader, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	if (n < 24 || (size_t)n < (3 + 2 * buf[0]) * sizeof(uint64_t))
		return -EIO;
	enabled = buf[1];
	running = buf[2];
	for (uint64_t i = 0; i < buf[0]; i++) {
		uint64_t value = buf[3 + 2 * i], id = buf[4 + 2 * i];

		for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
			if (p->slot[c].source != LAT_PERF_SRC_PERF ||
			    p->slot[c].id != id)
				continue;
			if (running == 0)
				break; /* never on the PMU: no count at all */
			if (running < enabled) {
				value = (uint64_t)((double)value *
						   (double)enabled /
						   (double)running);
				out->scaled |= 1u << c;
			}
			out->value[c] = value;
			out->available |= 1u << c;
		}
	}
	return 0;
}

int lat_perf_read(struct lat_perf *p, struct lat_perf_reading *out)
{
	int err = 0, rc;

	memset(out, 0, sizeof(*out));
	if (!p->started)
		return -EINVAL;
	rc = read_group(p, p->sw_leader, out);
	if (rc)
		err = rc;
	rc = read_group(p, p->hw_leader, out);
	if (rc)
		err = rc;
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
		struct lat_perf_slot *s = &p->slot[c];
		uint64_t v;

		if (s->source != LAT_PERF_SRC_PROC)
			continue;
		rc = proc_value(p->tid, c, &v);
		if (rc) {
			err = rc;
			continue;
		}
		out->value[c] = v >= s->start ? v - s->start : 0;
		out->available |= 1u << c;
	}
	return err;
}
