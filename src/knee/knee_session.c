/*
 * lat_knee session: what a program running a sweep does around it, that
 * a library user needs as much as `latlab knee`: place the pipeline and
 * make its runner, raise the priorities and give the session's autogroup
 * weight back on every way out, and decide the work the measured wake-up
 * floor allows.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/cgroup.h"
#include "latlab/knee.h"

int lat_knee_report_setup(struct lat_knee_report *r, const char *hlog_dir,
			  lat_pipe_stop_fn stop, void *stop_ctx,
			  struct lat_knee_runner *run)
{
	int rc = lat_knee_place(&r->base, &r->oversubscribed);

	if (rc)
		return rc;
	r->kp.base = r->base;
	r->kp.hlog_dir = hlog_dir;
	r->kp.stop = stop;
	r->kp.stop_ctx = stop_ctx;
	lat_knee_pipe_runner(&r->kp, run);
	return 0;
}

/* The process holds the session's autogroup raised; read by the signal
 * handler, hence sig_atomic_t. */
static volatile sig_atomic_t guard_armed;

static void restore_at_exit(void)
{
	(void)lat_cgroup_autogroup_restore();
}

/* Restore, then die of the same signal (async-signal-safe). */
static void restore_and_die(int sig)
{
	(void)lat_cgroup_autogroup_restore_nowait();
	signal(sig, SIG_DFL);
	raise(sig);
}

int lat_knee_autogroup_guard(void)
{
	static const int fatal[] = { SIGHUP, SIGPIPE, SIGQUIT, SIGABRT,
				     SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU,
				     SIGXFSZ };
	struct sigaction sa;

	/* a second sweep in this process: the hook and handlers are in */
	if (guard_armed)
		return 0;
	if (atexit(restore_at_exit))
		return -ENOMEM;
	guard_armed = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = restore_and_die;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(*fatal); i++) {
		struct sigaction was;

		/* an ignored signal stays ignored (nohup keeps SIGHUP off) */
		if (!sigaction(fatal[i], NULL, &was) &&
		    was.sa_handler == SIG_DFL)
			sigaction(fatal[i], &sa, NULL);
	}
	return 0;
}

int lat_knee_report_raise(struct lat_knee_report *r)
{
	if (!r->kp.stage_nice)
		return 0;
	r->autogroup_error = lat_cgroup_autogroup_raise(r->kp.stage_nice,
							&r->autogroup_old);
	if (r->autogroup_error)
		return r->autogroup_error;
	return lat_knee_autogroup_guard();
}

enum lat_knee_work lat_knee_report_work(struct lat_knee_report *r,
					const struct lat_work_dist *dists,
					int n_dists, bool work_set,
					int *bad_dist, const char **why)
{
	*bad_dist = -1;
	*why = NULL;
	if (!work_set &&
	    lat_knee_default_work(r->floor_ns, &r->base.work_ns))
		return LAT_KNEE_WORK_TOO_BUSY;
	for (int i = 0; !work_set && i < n_dists; i++)
		if (lat_work_dist_check(&dists[i], r->base.work_ns, why)) {
			*bad_dist = i;
			return LAT_KNEE_WORK_BAD_DIST;
		}
	r->kp.base.work_ns = r->base.work_ns;
	return r->base.work_ns >= lat_knee_min_work_ns(r->floor_ns) ?
	       LAT_KNEE_WORK_OK : LAT_KNEE_WORK_BELOW_FLOOR;
}
