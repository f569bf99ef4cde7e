/*
 * A whole trace of one process (latlab/sched.h, lat_sched_session): the
 * target started held or found, the probe loaded and attached before the
 * held command may exec, or the /proc fallback's two snapshots around the
 * window; then the report in either rendering.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "latlab/json.h"
#include "latlab/sched.h"

int lat_sched_session_start(struct lat_sched_session *s)
{
	int rc;

	s->probe = NULL;
	s->interrupted = false;
	s->at = LAT_SCHED_AT_TARGET;
	rc = s->argv ? lat_sched_target_spawn(&s->t, s->argv)
		     : lat_sched_target_follow(&s->t, s->pid);
	if (rc)
		return rc;
	s->started = true;
	lat_sched_available(&s->avail);
	if (s->proc_only || !s->avail.ok) {
		s->why = s->proc_only ? "the /proc totals were asked for"
				      : s->avail.reason;
		s->at = LAT_SCHED_AT_PROC;
		/* a process gone already is seen at the end: no rows */
		rc = lat_sched_proc_snapshot(s->t.pid, &s->before);
		if (rc == -ENOMEM)
			return rc;
	} else {
		struct lat_sched_opts o = {
			.pids = &s->t.pid, .n_pids = 1, .cpus = s->cpus,
			.n_cpus = s->n_cpus, .per_thread = s->per_thread,
		};

		s->at = LAT_SCHED_AT_LOAD;
		rc = lat_sched_open(&o, &s->probe);
		if (rc)
			return rc;
		s->at = LAT_SCHED_AT_ATTACH;
		rc = lat_sched_start(s->probe);
		if (rc)
			return rc;
	}
	s->at = LAT_SCHED_AT_RELEASE;
	return lat_sched_target_release(&s->t);
}

void lat_sched_session_wait(struct lat_sched_session *s)
{
	/* Through /proc a command's entry lasts until it is reaped, so it
	 * stays a zombie until the end snapshot is taken. */
	bool proc = !s->probe;

	lat_sched_target_wait(&s->t, proc && s->t.child ? 0 : s->duration_ns,
			      proc, s->stop, s->stop_ctx);
}

int lat_sched_session_finish(struct lat_sched_session *s, int sig)
{
	int rc = 0;

	s->interrupted = sig != 0;
	if (s->probe) {
		rc = lat_sched_stop(s->probe);
	} else {
		rc = lat_sched_proc_snapshot(s->t.pid, &s->after);
		rc = rc == -ENOMEM ? rc : 0; /* gone: the rows read, or none */
		if (!rc)
			lat_sched_proc_delta(s->before.v, s->before.n,
					     s->after.v, s->after.n);
	}
	lat_sched_target_end(&s->t, sig);
	s->started = false;
	return rc;
}

void lat_sched_session_print(FILE *out, const struct lat_sched_session *s)
{
	lat_sched_target_print(out, &s->t, s->argv ? s->argv[0] : NULL);
	if (s->probe)
		lat_sched_print(out, lat_sched_result(s->probe));
	else
		lat_sched_proc_report(out, s->why, &s->after);
}

void lat_sched_session_json(struct lat_json *j,
			    const struct lat_sched_session *s)
{
	lat_json_int(j, "pid", s->t.pid);
	if (!s->probe) {
		lat_sched_proc_report_json(j, s->why, &s->after);
		return;
	}
	lat_json_bool(j, "exited", s->t.exited);
	lat_json_bool(j, "interrupted", s->interrupted);
	lat_json_str(j, "source", "bpf");
	lat_sched_write_json(j, lat_sched_result(s->probe));
}

void lat_sched_session_close(struct lat_sched_session *s)
{
	if (s->started)
		lat_sched_target_end(&s->t, SIGKILL);
	s->started = false;
	lat_sched_close(s->probe);
	s->probe = NULL;
	lat_sched_proc_snap_free(&s->before);
	lat_sched_proc_snap_free(&s->after);
}
