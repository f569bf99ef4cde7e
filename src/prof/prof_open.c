/*
 * The sampler: one sampling event per (target thread, CPU), inherited by
 * the threads and children the target starts later, all events of a CPU
 * writing into that CPU's ring (PERF_EVENT_IOC_SET_OUTPUT). Inherited
 * events must be per-CPU to be mapped at all, which is why the rings are
 * per CPU rather than per thread.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "prof_int.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/* the user sp and ip; the leaf fix-up reads the stack words at sp */
#define PROF_REGS_USER ((1ull << PERF_REG_X86_SP) | (1ull << PERF_REG_X86_IP))
#define PROF_LEAF_FIXUP true
#else
/* elsewhere the leaf's caller is in a link register: not done yet */
#define PROF_REGS_USER 0
#define PROF_LEAF_FIXUP false
#endif

static int read_int_file(const char *path, int fallback)
{
	FILE *f = fopen(path, "re");
	int v;

	if (!f)
		return fallback;
	if (fscanf(f, "%d", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}

static int paranoid(void)
{
	return read_int_file("/proc/sys/kernel/perf_event_paranoid", 2);
}

int lat_prof_create(const struct lat_prof_config *cfg, struct lat_prof **out)
{
	struct lat_prof_config c = { 0 };
	struct lat_prof *p;
	int max_stack;

	*out = NULL;
	if (cfg)
		c = *cfg;
	if (c.freq_hz == 0)
		c.freq_hz = LAT_PROF_DEFAULT_HZ;
	if (!(c.freq_hz > 0 && c.freq_hz <= LAT_PROF_MAX_HZ))
		return -EINVAL;
	if (!c.ring_pages)
		c.ring_pages = 64;
	if (c.ring_pages & (c.ring_pages - 1))
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = c;
	p->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (p->ncpu < 1)
		p->ncpu = 1;
	p->rings = calloc((size_t)p->ncpu, sizeof(*p->rings));
	if (!p->rings) {
		free(p);
		return -ENOMEM;
	}
	for (int i = 0; i < p->ncpu; i++)
		p->rings[i].fd = -1;
	max_stack = read_int_file("/proc/sys/kernel/perf_event_max_stack",
				  127);
	p->max_stack = max_stack > 0 ? (uint32_t)max_stack : 127;
	p->st.freq_hz = c.freq_hz;
	p->leaf_fixup = PROF_LEAF_FIXUP;
	*out = p;
	return 0;
}

static void fill_attr(const struct lat_prof *p, struct perf_event_attr *a,
		      bool exclude_kernel)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = p->event_type;
	a->config = p->event_config;
	if (p->event_type == PERF_TYPE_SOFTWARE) {
		/* cpu-clock counts ns: a fixed period is an exact rate, with
		 * none of freq mode's warm-up */
		a->sample_period = (uint64_t)(1e9 / p->cfg.freq_hz);
		if (!a->sample_period)
			a->sample_period = 1;
	} else {
		a->freq = 1;
		a->sample_freq = (uint64_t)p->cfg.freq_hz;
	}
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CALLCHAIN;
	if (p->leaf_fixup) { /* see PROF_LEAF_WORDS */
		a->sample_type |= PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = PROF_REGS_USER;
		a->sample_stack_user = PROF_LEAF_WORDS * 8;
	}
	a->disabled = 1;
	a->enable_on_exec = p->enable_on_exec;
	a->inherit = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->sample_id_all = 1;
	a->exclude_hv = 1;
	a->exclude_kernel = exclude_kernel;
	a->exclude_callchain_kernel = exclude_kernel;
	a->sample_max_stack = (uint16_t)p->max_stack;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(p->cfg.ring_pages *
			      (size_t)sysconf(_SC_PAGESIZE) / 4);
}

static int open_event(const struct lat_prof *p, pid_t tid, int cpu,
		      bool exclude_kernel)
{
	struct perf_event_attr a;
	long fd;

	fill_attr(p, &a, exclude_kernel);
	fd = syscall(SYS_perf_event_open, &a, tid, cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static const char *errno_tag(int err)
{
	switch (err) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOSYS: return "ENOSYS";
	case ESRCH: return "ESRCH";
	}
	return "errno";
}

/*
 * Decide the event (cycles, else cpu-clock) and whether kernel frames are
 * sampled, by opening one trial event on @tid.
 */
static int choose_event(struct lat_prof *p, pid_t tid)
{
	bool exclude_kernel = p->cfg.user_only;
	int fd = -EINVAL, err, kernel_err = 0;

	/* kernel frames first; unprivileged at paranoid 2 the kernel refuses
	 * them (EACCES) before it even looks for the event */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (exclude_kernel)
				break;
			exclude_kernel = true;
		}
		p->event_type = PERF_TYPE_HARDWARE;
		p->event_config = PERF_COUNT_HW_CPU_CYCLES;
		fd = open_event(p, tid, -1, exclude_kernel);
		if (fd == -ENOENT || fd == -ENODEV || fd == -EOPNOTSUPP ||
		    fd == -EINVAL) {
			snprintf(p->st.event_note, sizeof(p->st.event_note),
				 "cpu-clock: no hardware PMU for cycles (%s)",
				 errno_tag(-fd));
			p->event_type = PERF_TYPE_SOFTWARE;
			p->event_config = PERF_COUNT_SW_CPU_CLOCK;
			fd = open_event(p, tid, -1, exclude_kernel);
		}
		if (fd >= 0 || (fd != -EACCES && fd != -EPERM))
			break;
		if (!kernel_err)
			kernel_err = -fd;
	}
	if (fd >= 0 && kernel_err)
		snprintf(p->st.kernel_note, sizeof(p->st.kernel_note),
			 "excluded: perf_event_paranoid=%d and "
			 "no CAP_PERFMON (%s)", paranoid(),
			 errno_tag(kernel_err));
	if (fd < 0) {
		err = -fd;
		if (err == EACCES || err == EPERM)
			snprintf(p->error_note, sizeof(p->error_note),
				 "not allowed to profile pid %d: "
				 "perf_event_paranoid=%d, or it is another "
				 "user's process (%s)", (int)p->pid,
				 paranoid(), errno_tag(err));
		else if (err == ESRCH)
			snprintf(p->error_note, sizeof(p->error_note),
				 "no process %d", (int)p->pid);
		else
			snprintf(p->error_note, sizeof(p->error_note),
				 "perf_event_open cannot sample here: %s (%s)",
				 strerror(err), errno_tag(err));
		if (err == ENOSYS || err == ENOENT || err == EOPNOTSUPP)
			return -LAT_EUNSUPP;
		return -err;
	}
	close(fd);
	if (p->cfg.user_only)
		snprintf(p->st.kernel_note, sizeof(p->st.kernel_note),
			 "excluded: user-only requested");
	p->st.kernel = !exclude_kernel;
	p->st.hardware = p->event_type == PERF_TYPE_HARDWARE;
	return 0;
}

static int push_fd(struct lat_prof *p, int fd)
{
	if (p->nfds == p->capfds) {
		size_t cap = p->capfds ? p->capfds * 2 : 32;
		int *v = realloc(p->fds, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->fds = v;
		p->capfds = cap;
	}
	p->fds[p->nfds++] = fd;
	return 0;
}

static bool have_tid(const struct lat_prof *p, pid_t tid)
{
	for (size_t i = 0; i < p->ntids; i++)
		if (p->tids[i] == tid)
			return true;
	return false;
}

static void name_from_proc(struct lat_prof *p, pid_t tid)
{
	char path[64], name[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)p->pid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(name, sizeof(name), f)) {
		name[strcspn(name, "\n")] = '\0';
		if (*name)
			prof_name_set(p, p->pid, tid, name, false);
	}
	fclose(f);
}

/* Open @tid's event on every CPU. A thread that exited meanwhile is not
 * an error: it has nothing left to sample. */
static int attach_tid(struct lat_prof *p, pid_t tid)
{
	bool exclude_kernel = !p->st.kernel;
	int rc;

	if (p->ntids == p->captids) {
		size_t cap = p->captids ? p->captids * 2 : 16;
		pid_t *v = realloc(p->tids, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->tids = v;
		p->captids = cap;
	}
	p->tids[p->ntids++] = tid;
	name_from_proc(p, tid);
	for (int c = 0; c < p->ncpu; c++) {
		struct prof_ring *r = &p->rings[c];
		int fd = open_event(p, tid, c, exclude_kernel);

		if (fd == -ENODEV || fd == -EINVAL) /* offline CPU */
			continue;
		if (fd == -ESRCH)
			return 0;
		if (fd < 0)
			return fd;
		rc = push_fd(p, fd);
		if (rc) {
			close(fd);
			return rc;
		}
		if (r->fd < 0) {
			rc = prof_ring_map(p, c, fd);
			if (rc)
				return rc;
			p->st.cpus++;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
			return -errno;
		}
	}
	p->st.threads++;
	return 0;
}

/* Attach every thread of the target; repeat until a scan finds no new
 * thread (one may start between the listing and its parent's attach). */
static int attach_all_threads(struct lat_prof *p)
{
	char path[64];
	bool found;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	do {
		DIR *d = opendir(path);
		struct dirent *e;
		int rc = 0;

		if (!d)
			return errno == ENOENT ? -ESRCH : -errno;
		found = false;
		while (!rc && (e = readdir(d))) {
			pid_t tid = (pid_t)atoi(e->d_name);

			if (tid <= 0 || have_tid(p, tid))
				continue;
			found = true;
			rc = attach_tid(p, tid);
		}
		closedir(d);
		if (rc)
			return rc;
	} while (found);
	return 0;
}

int lat_prof_attach_pid(struct lat_prof *p, pid_t pid, bool enable_on_exec)
{
	int rc;

	p->error_note[0] = '\0';
	if (p->attached || pid <= 0)
		return -EINVAL;
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		snprintf(p->error_note, sizeof(p->error_note),
			 "no process %d", (int)pid);
		return -ESRCH;
	}
	p->pid = pid;
	p->enable_on_exec = enable_on_exec;
	rc = choose_event(p, pid);
	if (rc)
		return rc;
	p->attached = true;
	if (p->cfg.offcpu && prof_offcpu_open(p) == 0) {
		rc = prof_offcpu_follow(p, pid);
		if (rc) {
			snprintf(p->st.offcpu_note, sizeof(p->st.offcpu_note),
				 "unavailable: following pid %d failed: %s",
				 (int)pid, strerror(-rc));
			prof_offcpu_close(p);
		}
	}
	if (enable_on_exec)
		rc = attach_tid(p, pid); /* a child stopped before exec */
	else
		rc = attach_all_threads(p);
	if (!rc && !enable_on_exec)
		rc = prof_maps_read_proc(p, pid);
	if (rc && !p->error_note[0])
		snprintf(p->error_note, sizeof(p->error_note),
			 "attaching to pid %d failed: %s", (int)pid,
			 lat_strerror(rc));
	return rc;
}

int lat_prof_name_thread(struct lat_prof *p, pid_t tid, const char *name)
{
	if (tid <= 0 || !name || !*name)
		return -EINVAL;
	return prof_name_set(p, p->pid, tid, name, true);
}

static int ioctl_all(struct lat_prof *p, unsigned long req)
{
	for (size_t i = 0; i < p->nfds; i++)
		if (ioctl(p->fds[i], req, 0) < 0)
			return -errno;
	return 0;
}

int lat_prof_start(struct lat_prof *p)
{
	int rc;

	if (!p->attached)
		return -EINVAL;
	rc = prof_offcpu_attach(p);
	if (rc) {
		snprintf(p->st.offcpu_note, sizeof(p->st.offcpu_note),
			 "unavailable: attaching to sched_switch failed: %s",
			 strerror(-rc));
		prof_offcpu_close(p);
	}
	p->st.offcpu = p->offcpu != NULL;
	return ioctl_all(p, PERF_EVENT_IOC_ENABLE);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int lat_prof_poll(struct lat_prof *p, int timeout_ms)
{
	struct pollfd pfd[256];
	uint64_t t0;
	int n = 0, rc;

	if (!p->attached)
		return -EINVAL;
	for (int c = 0; c < p->ncpu && n < 256; c++)
		if (p->rings[c].base)
			pfd[n++] = (struct pollfd){ .fd = p->rings[c].fd,
						    .events = POLLIN };
	if (timeout_ms && poll(pfd, (nfds_t)n, timeout_ms) < 0 &&
	    errno == EINTR)
		return -EINTR;
	t0 = thread_cpu_ns();
	rc = prof_rings_drain(p);
	p->st.reader_cpu_ns += thread_cpu_ns() - t0;
	return rc;
}

int lat_prof_stop(struct lat_prof *p)
{
	int rc;

	if (!p->attached)
		return -EINVAL;
	rc = ioctl_all(p, PERF_EVENT_IOC_DISABLE);
	if (!rc)
		rc = lat_prof_poll(p, 0);
	if (rc >= 0)
		rc = prof_offcpu_collect(p);
	return rc < 0 ? rc : 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/* Threads attached, and those the events followed there (inherited):
 * every distinct tid with a sample or an off-CPU interval. */
static int threads_seen(const struct lat_prof *p)
{
	size_t n = p->ntids + p->on.n + p->off.n, k = 0;
	pid_t *v = malloc((n ? n : 1) * sizeof(*v));
	int distinct = 0;

	if (!v)
		return (int)p->ntids;
	for (size_t i = 0; i < p->ntids; i++)
		v[k++] = p->tids[i];
	for (size_t i = 0; i < p->on.n; i++)
		v[k++] = p->on.v[i]->tid;
	for (size_t i = 0; i < p->off.n; i++)
		v[k++] = p->off.v[i]->tid;
	qsort(v, k, sizeof(*v), cmp_pid);
	for (size_t i = 0; i < k; i++)
		distinct += !i || v[i] != v[i - 1];
	free(v);
	return distinct;
}

void lat_prof_get_stats(const struct lat_prof *p, struct lat_prof_stats *s)
{
	*s = p->st;
	s->threads = threads_seen(p);
}

const char *lat_prof_error_note(const struct lat_prof *p)
{
	return p->error_note;
}

void lat_prof_free(struct lat_prof *p)
{
	if (!p)
		return;
	prof_offcpu_close(p);
	prof_rings_unmap(p);
	for (size_t i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	free(p->fds);
	free(p->rings);
	prof_raw_release(p);
	free(p);
}
