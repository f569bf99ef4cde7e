/*
 * lat_session: a pipeline run with its instruments and outputs, in the
 * order `latlab pipeline` runs them (latlab/session.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/session.h"
#include "latlab/work.h"

void lat_session_init(struct lat_session *s)
{
	memset(s, 0, sizeof(*s));
	lat_pipe_config_init(&s->cfg);
	s->instr.counters = true;
	/* software counters from /proc: perf events would make every yield
	 * of the hot threads cost more (latlab/perfctr.h) */
	s->instr.perf_flags = LAT_PERF_SOFT_PROC;
	s->instr.flight_post = 64;
	s->command = "pipeline";
	s->note_prefix = "";
}

/* Record where it failed, and the file or directory that step writes. */
static int fail(struct lat_session *s, enum lat_session_step at, int rc)
{
	const char *name[] = {
		[LAT_SESSION_HLOG] = s->hlog_name,
		[LAT_SESSION_FLIGHT] = s->flight_csv_name,
		[LAT_SESSION_SVG] = s->svg_name,
		[LAT_SESSION_HGRM] = s->hgrm_dir,
		[LAT_SESSION_PROFILE_WRITE] = s->profile_dir,
		[LAT_SESSION_INEXACT] = NULL,
	};

	s->failed = at;
	if (at != LAT_SESSION_CREATE) /* that one names its file itself */
		s->failed_name = name[at];
	return rc;
}

/* The outputs that may be given by name, in s->file[] order. */
static FILE **named_out(struct lat_session *s, int i, const char **name)
{
	FILE **f[] = { &s->hlog, &s->flight_csv, &s->svg };
	const char *names[] = { s->hlog_name, s->flight_csv_name,
				s->svg_name };

	*name = names[i];
	return f[i];
}

/* Create the outputs given by name alone: each a temporary beside it. */
static int open_named(struct lat_session *s)
{
	for (int i = 0; i < 3; i++) {
		const char *name;
		FILE **f = named_out(s, i, &name);
		int rc;

		if (*f || !name)
			continue;
		rc = lat_outfile_open(&s->file[i], name);
		if (rc) {
			s->failed_name = name;
			return fail(s, LAT_SESSION_CREATE, rc);
		}
		*f = s->file[i].f;
	}
	return 0;
}

/* Rename them into place, or (@keep false) remove them. */
static int close_named(struct lat_session *s, bool keep)
{
	static const enum lat_session_step step[] = {
		LAT_SESSION_HLOG, LAT_SESSION_FLIGHT, LAT_SESSION_SVG,
	};
	int rc = 0;

	for (int i = 0; i < 3; i++) {
		const char *name;
		FILE **f = named_out(s, i, &name);

		if (!s->file[i].f)
			continue;
		*f = NULL;
		if (!keep || rc)
			lat_outfile_abandon(&s->file[i]);
		else if ((rc = lat_outfile_commit(&s->file[i], 0)))
			fail(s, step[i], rc);
	}
	return rc;
}

/* One line of commentary, prefixed, when there is somewhere to say it. */
static void note(const struct lat_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(const struct lat_session *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->note)
		return;
	fputs(s->note_prefix, s->note);
	va_start(ap, fmt);
	vfprintf(s->note, fmt, ap);
	va_end(ap);
}

const char *lat_session_sched_unavailable(const struct lat_session *s)
{
	const char *why = s->attr ? lat_sched_attr_result(s->attr)->unavailable
				  : "";

	return *why ? why : NULL;
}

/* After the instrumentation: the probe chains to its hooks. */
static int begin_sched(struct lat_session *s)
{
	int rc = lat_sched_attr_init(&s->attr, &s->cfg, s->instr.flight ?
				     &s->in.flight : NULL);

	if (rc == -LAT_EUNSUPP && s->attr) {
		note(s, "scheduler probe unavailable: %s; running without "
		     "it\n", lat_session_sched_unavailable(s));
		return 0;
	}
	if (rc)
		return fail(s, rc == -EINVAL ? LAT_SESSION_SCHED_STAMPS
				: LAT_SESSION_SCHED_LOAD, rc);
	rc = lat_sched_attr_start(s->attr);
	return rc ? fail(s, LAT_SESSION_SCHED_ATTACH, rc) : 0;
}

int lat_session_begin(struct lat_session *s)
{
	struct lat_prof_config pc = { .offcpu = true };
	int rc;

	if ((rc = open_named(s)))
		return rc;
	s->cfg.hlog = s->hlog;
	rc = lat_instr_init(&s->in, &s->instr, &s->cfg);
	if (rc)
		return fail(s, LAT_SESSION_INSTR, rc);
	if (s->sched && (rc = begin_sched(s)))
		return rc;
	/* after every step that can refuse the run: errors stay one line */
	if (s->placed && s->placed->oversubscribed && s->note) {
		note(s, "warning: ");
		lat_pipe_placement_warn(s->note, &s->cfg, s->placed);
	}
	if (s->profile_dir &&
	    (rc = lat_prof_self_begin(&pc, &s->prof, s->why, sizeof(s->why))))
		return fail(s, LAT_SESSION_PROFILE, rc);
	return 0;
}

static bool session_stop(void *ctx, uint64_t produced, double elapsed_s)
{
	struct lat_session *s = ctx;

	return s->stop && s->stop(s->stop_ctx, produced, elapsed_s);
}

/* Set-up is over once events flow: say so for a long run (and a test
 * can wait for this line before it sends a Ctrl-C). */
static void say_running(void *ctx)
{
	const struct lat_session *s = ctx;
	double secs = (double)s->cfg.events / s->cfg.rate;

	if (secs > 2)
		note(s, "running, about %.0f s (Ctrl-C stops it with a "
		     "partial result)\n", secs);
}

/* Before the report: the profile is of the run alone. */
static int end_profile(struct lat_session *s)
{
	struct lat_prof_stats st;
	struct lat_prof *p = NULL;
	char what[64];
	int rc = lat_prof_self_end(s->prof, &p);

	s->prof = NULL;
	snprintf(what, sizeof(what), "latlab %s", s->command);
	if (!rc)
		rc = lat_prof_write_dir(p, s->profile_dir, what);
	lat_prof_get_stats(p, &st);
	lat_prof_free(p);
	if (rc)
		return fail(s, LAT_SESSION_PROFILE_WRITE, rc);
	if (s->note)
		lat_prof_print_dir(s->note, s->profile_dir, &st);
	return 0;
}

int lat_session_run(struct lat_session *s)
{
	double cal_ns = lat_work_calibrate_cost_ns(s->cfg.work_ns);
	char work[LAT_FMT_LEN];
	int rc, rc2 = 0;

	s->watch = (struct lat_pipe_progress){
		.stop = session_stop, .stop_ctx = s, .on_flow = say_running,
		.planned = s->cfg.events,
		.out = s->progress && s->cfg.events / s->cfg.rate > 2 ?
		       s->note : NULL,
	};
	/* a long calibration (100 ms of work an event) says so first */
	if (cal_ns > 2e9)
		note(s, "calibrating %s of work per event, about %.0f s "
		     "(Ctrl-C stops)\n",
		     lat_fmt_ns(work, sizeof(work), s->cfg.work_ns),
		     cal_ns / 1e9);
	rc = lat_pipe_run_until(&s->cfg, &s->r, lat_pipe_progress_watch,
				&s->watch);
	lat_pipe_progress_end(&s->watch);
	if (rc == -EINTR && !lat_session_started(s))
		return rc; /* nothing ran: no result, the caller says so */
	if (s->prof)
		rc2 = end_profile(s);
	if (rc && !lat_session_started(s))
		return fail(s, LAT_SESSION_START, rc);
	s->run_err = rc; /* reported after the results it did produce */
	if (rc2)
		return rc2;
	if (s->attr && !lat_session_sched_unavailable(s) &&
	    (rc = lat_sched_attr_finish(s->attr, &s->r)))
		return fail(s, LAT_SESSION_SCHED_END, rc);
	if (s->attr)
		lat_sched_attr_fill_result(s->attr, &s->r);
	lat_instr_fill_result(&s->in, &s->r); /* USE counts by task-clock */
	if (lat_work_check(&s->r.work) != LAT_WORK_OK && s->note) {
		note(s, "warning: ");
		lat_work_check_print(s->note, &s->r.work);
	}
	return 0;
}

bool lat_session_started(const struct lat_session *s)
{
	return s->r.n_deltas > 0;
}

static const char *sig_name(int sig)
{
	return sig == SIGTERM ? "SIGTERM" : "SIGINT";
}

/* The start-up was interrupted: no result, only what happened. */
static int write_unstarted(struct lat_session *s, int sig)
{
	note(s, "interrupted by %s during start-up: no event was sent\n",
	     sig_name(sig));
	if (s->json && s->out &&
	    fprintf(s->out, "{\"command\": \"%s\", \"interrupted\": true, "
		    "\"signal\": %d, \"started\": false}\n", s->command,
		    sig) < 0)
		return fail(s, LAT_SESSION_OUT, -EIO);
	return 0;
}

static int write_json(struct lat_session *s, int sig)
{
	struct lat_json j;

	lat_json_doc_begin(&j, s->out, s->command);
	lat_pipe_write_json(&j, &s->r);
	lat_instr_write_json(&j, &s->in, &s->r);
	if (s->attr)
		lat_sched_attr_write_json(&j, s->attr, &s->r);
	if (s->hlog_name)
		lat_json_str(&j, "hlog", s->hlog_name);
	if (s->hgrm_dir)
		lat_json_str(&j, "hgrm_dir", s->hgrm_dir);
	lat_json_int(&j, "signal", sig);
	return lat_json_doc_end(&j);
}

static int write_results(struct lat_session *s, int sig)
{
	int rc;

	if (s->json)
		return write_json(s, sig);
	rc = lat_pipe_print_table(s->out, &s->r);
	if (!rc)
		rc = lat_instr_print_counters(s->out, &s->in, &s->r);
	if (!rc && s->attr)
		rc = lat_sched_attr_print(s->out, s->attr, &s->r);
	return rc;
}

/* The frozen window: CSV, else the trigger's neighbourhood as a table
 * on the note (commentary, not results). */
static int write_flight(struct lat_session *s)
{
	int rc = 0;

	if (s->out)
		fflush(s->out); /* the results, then the recorder's chatter */
	if (s->flight_csv)
		rc = lat_flight_dump_csv(&s->in.flight, s->flight_csv);
	if (s->note)
		lat_flight_print_outcome(s->note, &s->in.flight,
					 s->instr.freeze_auto,
					 s->flight_csv ? s->flight_csv_name
						       : NULL);
	return rc;
}

int lat_session_write(struct lat_session *s, int sig)
{
	char why[40];
	int rc;

	if (!lat_session_started(s)) {
		close_named(s, false); /* the files there stay as they were */
		return write_unstarted(s, sig);
	}
	if (s->out && (rc = write_results(s, sig)))
		return fail(s, LAT_SESSION_OUT, rc);
	if (s->instr.flight && (rc = write_flight(s)))
		return fail(s, LAT_SESSION_FLIGHT, rc);
	/* an interrupted run's hlog holds whole intervals: it is kept,
	 * marked partial by a comment line (readers skip comments) */
	snprintf(why, sizeof(why), "interrupted by %s", sig_name(sig));
	if (s->run_err)
		return fail(s, s->hlog && s->run_err == s->r.hlog_error ?
			    LAT_SESSION_HLOG : LAT_SESSION_RUN, s->run_err);
	if (s->hlog && sig &&
	    (rc = lat_pipe_hlog_mark_partial(s->hlog, &s->r, s->cfg.events,
					     why)))
		return fail(s, LAT_SESSION_HLOG, rc);
	if (s->svg && (rc = lat_pipe_write_svg(s->svg, &s->r)))
		return fail(s, LAT_SESSION_SVG, rc);
	if (s->hgrm_dir && (rc = lat_pipe_write_hgrm(s->hgrm_dir, &s->r)))
		return fail(s, LAT_SESSION_HGRM, rc);
	if (!s->r.exact)
		return fail(s, LAT_SESSION_INEXACT, -EPROTO);
	return close_named(s, true);
}

const char *lat_session_error(const struct lat_session *s, int rc,
			      char *buf, size_t len)
{
	static const char *const what[] = {
		[LAT_SESSION_CREATE] = "cannot create",
		[LAT_SESSION_INSTR] = "cannot set up counters and flight "
				      "recorder",
		[LAT_SESSION_SCHED_STAMPS] = "the scheduler probe needs the "
					     "per-stage stamps",
		[LAT_SESSION_SCHED_LOAD] = "the scheduler probe did not load",
		[LAT_SESSION_SCHED_ATTACH] = "the scheduler probe did not "
					     "attach",
		[LAT_SESSION_SCHED_END] = "the scheduler probe failed",
		[LAT_SESSION_PROFILE] = "cannot profile this process",
		[LAT_SESSION_PROFILE_WRITE] = "writing the profile",
		[LAT_SESSION_START] = "cannot start the pipeline",
		[LAT_SESSION_RUN] = "the run failed",
		[LAT_SESSION_OUT] = "cannot write the results",
		[LAT_SESSION_FLIGHT] = "writing", [LAT_SESSION_HLOG] = "writing",
		[LAT_SESSION_SVG] = "writing", [LAT_SESSION_HGRM] = "writing",
		[LAT_SESSION_INEXACT] = "accounting is not exact: this is a bug",
	};
	enum lat_session_step at = s->failed;

	if (at == LAT_SESSION_OK || at == LAT_SESSION_INEXACT)
		snprintf(buf, len, "%s", at ? what[at] : lat_strerror(rc));
	else if (at == LAT_SESSION_PROFILE && *s->why)
		snprintf(buf, len, "%s: %s", what[at], s->why);
	else if (s->failed_name)
		snprintf(buf, len, "%s '%s': %s", what[at], s->failed_name,
			 lat_strerror(rc));
	else
		snprintf(buf, len, "%s: %s", what[at], lat_strerror(rc));
	return buf;
}

void lat_session_destroy(struct lat_session *s)
{
	struct lat_prof *p = NULL;

	if (s->prof) { /* a failure between begin and run's end */
		lat_prof_self_end(s->prof, &p);
		lat_prof_free(p);
		s->prof = NULL;
	}
	close_named(s, false);
	lat_pipe_result_destroy(&s->r);
	lat_sched_attr_free(s->attr);
	s->attr = NULL;
	lat_instr_destroy(&s->in);
	memset(&s->in, 0, sizeof(s->in));
}
