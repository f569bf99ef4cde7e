/*
 * lat_session: one pipeline run with every instrument and every standard
 * output, as `latlab pipeline` does it, for a program of its own.
 *
 * The command parses its flags into a struct lat_session, places the
 * threads (lat_pipe_place_pool), opens its output files and then only
 * calls, in order:
 *
 *     static struct lat_session s;       // large: not on the stack
 *     lat_session_init(&s);              // defaults, as the command's
 *     ... set s.cfg (placed), s.instr, s.sched, outputs ...
 *     rc = lat_session_begin(&s);        // counters, recorder, probe,
 *                                        // self-profile
 *     if (!rc) rc = lat_session_run(&s); // until done or s.stop says so
 *     ... the caller reads its stop signal (0 if none) ...
 *     if (!rc) rc = lat_session_write(&s, sig); // table/JSON, flight
 *                                        // window, hlog mark, SVG, hgrm
 *     lat_session_destroy(&s);
 *
 * so what the command prints and writes is what a library user gets from
 * the same calls (tests/test_session_threads.c runs one and checks it).
 *
 * Invariants:
 *  - Results go to the FILE *s the caller gives (s.out, s.hlog, s.svg,
 *    s.flight_csv) or, for a file output given by name alone (s.hlog_name
 *    with a NULL s.hlog, ...), to that file written whole or not at all
 *    (lat_outfile: renamed into place at the end of lat_session_write,
 *    removed on any failure, on a run stopped before its first event and
 *    by lat_session_destroy before that); the .hgrm files and the
 *    profile's graphs go into the directories it names.
 *    Commentary (warnings, progress, the flight recorder's outcome) goes
 *    to s.note, each line begun with s.note_prefix; NULL s.note is silent.
 *  - Nothing here exits or names a command-line flag: on an error the
 *    functions return a negative errno-style code (lat_strerror) and set
 *    s.failed to the step that failed, for the caller to word.
 *  - Stopped before any event was sent (lat_session_run returns -EINTR
 *    and lat_session_started() is false), there is no result: the caller
 *    abandons its outputs; lat_session_write then writes only the
 *    interruption's note and, with s.json, its JSON stub.
 */
#ifndef LATLAB_SESSION_H
#define LATLAB_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "latlab/instr.h"
#include "latlab/outfile.h"
#include "latlab/pipe.h"
#include "latlab/prof.h"
#include "latlab/sched_attr.h"

/* Where a session function failed (s.failed), so the caller can say it. */
enum lat_session_step {
	LAT_SESSION_OK,
	LAT_SESSION_CREATE,     /* an output named could not be created */
	LAT_SESSION_INSTR,      /* counters and flight recorder set-up */
	LAT_SESSION_SCHED_STAMPS, /* the probe needs the per-stage stamps */
	LAT_SESSION_SCHED_LOAD, /* the probe did not load */
	LAT_SESSION_SCHED_ATTACH, /* ... or attach */
	LAT_SESSION_SCHED_END,  /* stopping it, or attributing the run */
	LAT_SESSION_PROFILE,    /* self-profiling did not start (s.why) */
	LAT_SESSION_PROFILE_WRITE, /* its graphs could not be written */
	LAT_SESSION_START,      /* the pipeline did not start */
	LAT_SESSION_RUN,        /* the run failed after it started (its
				 * partial results were written) */
	LAT_SESSION_OUT,        /* writing s.out */
	LAT_SESSION_FLIGHT,     /* writing s.flight_csv */
	LAT_SESSION_HLOG,       /* writing s.hlog */
	LAT_SESSION_SVG,        /* writing s.svg */
	LAT_SESSION_HGRM,       /* writing into s.hgrm_dir */
	LAT_SESSION_INEXACT,    /* the accounting does not add up: a bug */
};

struct lat_session {
	/* --- what to run: set before lat_session_begin ------------------ */
	struct lat_pipe_config cfg; /* checked and placed; its hlog is set
				     * from .hlog */
	struct lat_instr_opts instr; /* counters and flight recorder */
	bool sched;                 /* the scheduler probe around the run:
				     * why the events above p99.9 were slow */
	const char *profile_dir;    /* on- and off-CPU flame graphs of this
				     * process over the run, or NULL */
	const struct lat_pipe_placement *placed; /* warn when oversubscribed
				     * (may be NULL) */
	lat_pipe_stop_fn stop;      /* polled during the run; may be NULL */
	void *stop_ctx;

	/* --- where the results go: NULL = not wanted -------------------- */
	FILE *out;                  /* the table, or with .json the JSON */
	bool json;
	const char *command;        /* the JSON's "command" member */
	FILE *hlog;                 /* interval histograms, one tag a delta */
	const char *hlog_name;      /* its name: for the JSON, and the file
				     * written when .hlog is NULL */
	const char *hgrm_dir;
	FILE *flight_csv;           /* the frozen window as CSV (else a
				     * table of it on .note) */
	const char *flight_csv_name; /* its name: for the note, and the file
				     * written when .flight_csv is NULL */
	FILE *svg;                  /* latency by percentile, per delta */
	const char *svg_name;       /* its name: the file written when .svg
				     * is NULL */
	FILE *note;                 /* commentary (stderr), or NULL */
	const char *note_prefix;    /* e.g. "latlab pipeline: " */
	bool progress;              /* redraw a progress line on .note
				     * (a terminal) during a long run */

	/* --- filled by the session --------------------------------------- */
	enum lat_session_step failed;
	const char *failed_name;    /* the file a failed step was writing */
	char why[LAT_PROF_NOTE_LEN]; /* LAT_SESSION_PROFILE: why, or "" */
	struct lat_pipe_result r;   /* the run (after lat_session_run) */
	struct lat_instr in;
	struct lat_sched_attr *attr; /* the probe, when .sched */
	struct lat_prof_self *prof;
	struct lat_pipe_progress watch; /* the run's stop and progress */
	int run_err;                /* the run's error once it had started */
	struct lat_outfile file[3]; /* the outputs given by name (hlog,
				     * flight CSV, SVG) */
};

/*
 * Zero @s and set the command's defaults: counters on, read from /proc
 * (perf events would make every yield of the hot threads cost more; see
 * latlab/perfctr.h), 64 samples kept after a flight trigger, and
 * lat_pipe_config_init's configuration (to be placed).
 */
void lat_session_init(struct lat_session *s);

/*
 * Set the instruments up: the outputs given by name created beside their
 * names (LAT_SESSION_CREATE), counters and flight recorder (lat_instr_init),
 * the scheduler probe loaded and attached (unavailable here is no error:
 * a note says why and the run goes on without it, see
 * lat_session_sched_unavailable), the oversubscription warning, and the
 * self-profile started. Returns 0 or an error with @s->failed set.
 */
int lat_session_begin(struct lat_session *s);

/* Why the scheduler probe cannot run here, or NULL when it runs (or was
 * not asked for). */
const char *lat_session_sched_unavailable(const struct lat_session *s);

/*
 * Run until every event was sent or @s->stop said stop: a note before a
 * calibration longer than 2 s and once events flow in a run longer than
 * 2 s, the progress line, then the self-profile written into
 * @s->profile_dir (a note says what it holds), the probe's attribution,
 * the hot threads' counters into the result and the work calibration
 * judged (lat_work_check; a note when it missed). Returns 0, -EINTR with
 * lat_session_started() false when stopped before the first event, or an
 * error with @s->failed set.
 */
int lat_session_run(struct lat_session *s);

/* Whether any event was sent: a result exists. */
bool lat_session_started(const struct lat_session *s);

/*
 * Write the results: the table (with the counters and the probe's
 * attribution) or the JSON object on @s->out, whose "signal" is @sig;
 * then the flight recorder's window (CSV or a table on the note); the
 * hlog of a run stopped by @sig marked partial ("interrupted by
 * SIGINT/SIGTERM"); the SVG; the .hgrm files. A run that failed after
 * it started fails here, after its results (LAT_SESSION_RUN, or
 * LAT_SESSION_HLOG when writing the hlog failed). Last, the outputs given
 * by name are renamed into place. Not started: they are removed, the
 * note says "interrupted by <sig> during start-up: no event was sent",
 * and with .json the stub {"command", "interrupted": true, "signal",
 * "started": false} is the output. Returns 0 or an error with
 * @s->failed set (LAT_SESSION_INEXACT: -EPROTO, events unaccounted for).
 */
int lat_session_write(struct lat_session *s, int sig);

/*
 * @rc, the error a session function returned, as one line into @buf
 * (@len bytes) naming the step and the file it was writing ("writing
 * 'run.svg': No space left on device"). Returns @buf.
 */
const char *lat_session_error(const struct lat_session *s, int rc,
			      char *buf, size_t len);

/* Release everything, removing the outputs given by name that were not
 * renamed into place. Safe after a failure at any step, and twice. */
void lat_session_destroy(struct lat_session *s);

#endif
