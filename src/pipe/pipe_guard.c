/*
 * What the run asks of the scheduler for its hot threads: a nice value
 * (lat_pipe_config.hot_nice), a slice (hot_slice_ns) and guard threads
 * (guard_ns); and the report of what it got.
 *
 * The slice:
 * Since Linux 6.12 a SCHED_OTHER task may ask EEVDF for its own slice
 * through sched_attr.sched_runtime (0.1-100 ms). A task with a shorter
 * slice than the one running preempts it when it wakes up (the kernel's
 * PREEMPT_SHORT), and the running task's protected run is cut to the
 * shortest slice queued: how long another task keeps a hot thread's CPU
 * is what sets this pipeline's tail on a machine short of CPUs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "latlab/fmt.h"
#include "pipe_int.h"

int pipe_set_slice(double slice_ns)
{
	/* linux/sched/types.h's layout (that header clashes with sched.h);
	 * the kernel takes the size from .size, so this is the whole ABI */
	struct {
		uint32_t size, sched_policy;
		uint64_t sched_flags;
		int32_t sched_nice;
		uint32_t sched_priority;
		uint64_t sched_runtime, sched_deadline, sched_period;
		uint32_t sched_util_min, sched_util_max;
	} a;
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	if (nice == -1 && errno)
		return -errno;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_OTHER;
	/* sched_setattr sets the nice value too: keep the thread's */
	a.sched_nice = nice;
	a.sched_runtime = (uint64_t)slice_ns;
	if (syscall(SYS_sched_setattr, 0, &a, 0))
		return -errno;
	return 0;
}

int pipe_sched_prepare(const struct lat_pipe_config *c, int *nice_err)
{
	*nice_err = 0;
	/* nice first: the slice request keeps the nice value it finds */
	if (c->hot_nice &&
	    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), c->hot_nice))
		*nice_err = -errno;
	return c->hot_slice_ns > 0 ? pipe_set_slice(c->hot_slice_ns) : 0;
}

/*
 * A guard: pinned to a hot CPU, asleep but for an instant every
 * guard_ns. The scheduler looks at who should run on a CPU only at its
 * tick (4 ms at HZ=250) or when a task wakes up there; another task that
 * got a hot thread's CPU keeps it until one of those. The guard's wake-up
 * is one more such moment: when the pipeline's threads are owed the CPU
 * (their weight, hot_nice, and slice, hot_slice_ns, decide that), they
 * get it back there and then, and the guard goes back to sleep.
 */
void *pipe_guard_main(void *arg)
{
	struct pipe_guard *g = arg;
	struct lat_pipe *p = g->p;
	int nice_err = 0;
	struct timespec next;

	g->err = lat_topo_pin_self(g->cpu);
	if (g->err)
		return NULL;
	g->err = pipe_sched_prepare(&p->cfg, &nice_err);
	/* the default timer slack (50 us) would blur the period */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (!g->err)
		g->err = nice_err;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load_explicit(&p->noise_stop, memory_order_relaxed)) {
		pipe_timespec_add(&next, (int64_t)p->cfg.guard_ns);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

void pipe_print_sched_ask(FILE *out, const struct lat_pipe_result *r)
{
	const struct lat_pipe_config *c = &r->config;
	char g[LAT_FMT_LEN];
	const char *sep = "";

	if (!c->hot_nice && !(c->hot_slice_ns > 0) && !(c->guard_ns > 0))
		return;
	fprintf(out, "sched:");
	if (c->hot_nice && r->nice_error)
		fprintf(out, " hot threads' nice %d refused (%s%s)", c->hot_nice,
			lat_strerror(r->nice_error),
			r->nice_error == -EPERM || r->nice_error == -EACCES
				? ": needs CAP_SYS_NICE" : "");
	else if (c->hot_nice)
		fprintf(out, " hot threads at nice %d%s", c->hot_nice,
			c->hot_nice > 0 ? ""
			: r->autogroup_changed ? ", so is this session's "
						 "autogroup for the run"

			: r->autogroup_error == -ENOENT ||
					!r->autogroup_error
				? " (no autogroup applies)"
				: ", session autogroup refused");
	if (c->hot_nice)
		sep = ";";
	if (c->hot_slice_ns > 0) {
		lat_fmt_ns(g, sizeof(g), c->hot_slice_ns);
		fprintf(out, "%s slice %s%s%s", sep, g,
			r->slice_error ? " refused: " : "",
			r->slice_error ? lat_strerror(r->slice_error) : "");
		sep = ";";
	}
	if (c->guard_ns > 0) {
		lat_fmt_ns(g, sizeof(g), c->guard_ns);
		fprintf(out, "%s a guard thread on each of %d hot CPUs wakes "
			"every %s%s%s", sep, r->guards, g,
			r->guard_error ? ", refused: " : "",
			r->guard_error ? lat_strerror(r->guard_error) : "");
	}
	fprintf(out, "\n");
}

void pipe_write_sched_ask_json(struct lat_json *j,
			       const struct lat_pipe_result *r)
{
	const struct lat_pipe_config *c = &r->config;

	lat_json_obj_begin(j, "sched_ask");
	lat_json_int(j, "hot_nice", c->hot_nice);
	lat_json_int(j, "nice_error", r->nice_error);
	lat_json_int(j, "autogroup_error", r->autogroup_error);
	lat_json_bool(j, "autogroup_changed", r->autogroup_changed);
	lat_json_double(j, "hot_slice_ns", c->hot_slice_ns);
	lat_json_int(j, "slice_error", r->slice_error);
	lat_json_double(j, "guard_ns", c->guard_ns);
	lat_json_int(j, "guards", r->guards);
	lat_json_int(j, "guard_error", r->guard_error);
	lat_json_obj_end(j);
}
