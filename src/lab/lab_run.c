/*
 * lat_lab_run: the plan, run by the pipeline library, one row per run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "latlab/lab.h"

/* Flight recorder samples kept after the stall's freeze. */
#define STALL_FLIGHT_POST 64

static void keep_reason(char *dst, const char *why)
{
	if (!dst[0] && why)
		snprintf(dst, LAT_PERF_REASON_LEN, "%s", why);
}

/* Why each counter is n/a, as the first run that lacked it said. */
static void keep_reasons(struct lat_lab *L, const struct lat_instr *in)
{
	const char *faults = lat_instr_reason(in, LAT_PERF_MINOR_FAULTS);
	const char *ipc = lat_instr_reason(in, LAT_PERF_CYCLES);

	keep_reason(L->unavailable[LAT_LAB_CTX_SWITCHES],
		    lat_instr_reason(in, LAT_PERF_CTX_SWITCHES));
	keep_reason(L->unavailable[LAT_LAB_MIGRATIONS],
		    lat_instr_reason(in, LAT_PERF_MIGRATIONS));
	keep_reason(L->unavailable[LAT_LAB_PAGE_FAULTS], faults ? faults :
		    lat_instr_reason(in, LAT_PERF_MAJOR_FAULTS));
	keep_reason(L->unavailable[LAT_LAB_ALLOCATIONS], in->alloc_reason);
	keep_reason(L->unavailable[LAT_LAB_RUN_DELAY_NS],
		    lat_instr_reason(in, LAT_PERF_RUN_DELAY));
	keep_reason(L->unavailable[LAT_LAB_NMETRICS], ipc ? ipc :
		    lat_instr_reason(in, LAT_PERF_INSTRUCTIONS));
}

/* The curve row @w belongs to: its experiment, or its arm's baselines. */
static struct lat_lab_e2e *e2e_curve(struct lat_lab *L,
				     const struct lat_lab_row *w)
{
	char name[sizeof(L->e2e[0].name)];

	if (!w->baseline)
		snprintf(name, sizeof(name), "%s", lat_lab_exp_name(w->exp));
	else if (w->arm == LAT_LAB_ARM_DEFAULT)
		snprintf(name, sizeof(name), "baseline");
	else
		snprintf(name, sizeof(name), "baseline, %s arm",
			 lat_lab_arm_name(w->arm));
	for (int i = 0; i < L->n_e2e; i++)
		if (!strcmp(L->e2e[i].name, name))
			return &L->e2e[i];
	if (L->n_e2e == LAT_LAB_MAX_CURVES)
		return NULL;
	snprintf(L->e2e[L->n_e2e].name, sizeof(name), "%s", name);
	return &L->e2e[L->n_e2e++];
}

/* Merge the run's e2e into its curve (opts.keep_e2e). */
static int keep_e2e(struct lat_lab *L, const struct lat_lab_row *w,
		    const struct lat_pipe_result *r)
{
	struct lat_lab_e2e *c = e2e_curve(L, w);
	int64_t refused = 0;
	int rc;

	if (!c || r->n_deltas < 1)
		return 0;
	rc = lat_hist_merge_grow(&c->hist, &r->delta[r->n_deltas - 1].hist,
				 &refused, NULL);
	c->runs += !rc;
	return rc;
}

/* Between two hand-off measurements while the CPUs share a core. */
#define APART_POLL_MS 100

/* The hand-off between share-line's two writers (row @w's stage 1 and
 * consumer), or 0 when it cannot be measured (then judged as apart). */
static double writers_handoff(const struct lat_lab *L,
			      const struct lat_lab_row *w)
{
	const int *cpu = L->place.cpu[w->arm];
	double ns = 0;

	return lat_lab_handoff_ns(cpu[1], cpu[2], &ns) ? 0 : ns;
}

static bool apart(double handoff_ns)
{
	return !(handoff_ns > 0 && handoff_ns < LAT_LAB_APART_NS);
}

/*
 * Wait, up to opts.apart_wait_ms, until the host runs the writers'
 * CPUs on different cores; the last hand-off measured. A stop ends the
 * wait (the run that follows then stops at once).
 */
static double wait_apart(const struct lat_lab *L, const struct lat_lab_row *w,
			 lat_pipe_stop_fn stop, void *ctx, FILE *progress)
{
	const struct timespec poll = { 0, APART_POLL_MS * 1000000L };
	double ns = writers_handoff(L, w);

	if (apart(ns) || !L->opts.apart_wait_ms)
		return ns;
	if (progress)
		fprintf(progress, "latlab lab: cpu %d and cpu %d hand a line "
			"over in %.0f ns: one host core, where a shared line "
			"costs nothing; waiting up to %d s for them to be "
			"apart\n", L->place.cpu[w->arm][1],
			L->place.cpu[w->arm][2], ns,
			L->opts.apart_wait_ms / 1000);
	for (unsigned t = 0; t < L->opts.apart_wait_ms / APART_POLL_MS; t++) {
		if (stop && stop(ctx, 0, 0))
			break;
		nanosleep(&poll, NULL);
		ns = writers_handoff(L, w);
		if (apart(ns))
			break;
	}
	return ns;
}

/* Planned row @i, run. */
static int run_row(struct lat_lab *L, int i, lat_pipe_stop_fn stop,
		   void *ctx)
{
	struct lat_instr_opts o = { .counters = L->opts.counters };
	struct lat_lab_row *w = &L->row[i];
	struct lat_pipe_config c;
	struct lat_pipe_result r;
	struct lat_instr in;
	double freeze_ns;
	int rc = lat_lab_configure(L, i, &c, &freeze_ns);

	if (rc)
		return rc;
	if (freeze_ns > 0) {
		o.flight = true;
		o.freeze_above = (lat_ns_t)freeze_ns;
		o.flight_post = STALL_FLIGHT_POST;
	}
	rc = lat_instr_init(&in, &o, &c);
	if (rc)
		return rc;
	rc = lat_pipe_run_until(&c, &r, stop, ctx);
	if (rc == -EINTR) {
		/* stopped while the run was still calibrating: a row with
		 * no event, cut like one stopped later (the lab ends here) */
		w->events = 0;
		w->events_planned = c.events;
		w->exact = true;
		w->interrupted = true;
		rc = 0;
	} else if (!rc) {
		lat_lab_row_from_result(w, &r, o.counters || o.flight ? &in :
								       NULL);
		if (o.counters)
			keep_reasons(L, &in);
		if (L->opts.keep_e2e)
			rc = keep_e2e(L, w, &r);
	}
	lat_pipe_result_destroy(&r);
	lat_instr_destroy(&in);
	return rc;
}

/*
 * Row @i, with share-line's placement in time: the writers' CPUs apart
 * before the run (waited for) and still apart after it, or run again.
 */
static int run_placed(struct lat_lab *L, int i, lat_pipe_stop_fn stop,
		      void *ctx, FILE *progress)
{
	struct lat_lab_row *w = &L->row[i];
	bool line = !w->baseline && w->exp == LAT_LAB_SHARE_LINE;
	double before = 0, after = 0;
	int rc = 0;

	for (int t = 1; t <= (line ? LAT_LAB_LINE_TRIES : 1); t++) {
		if (line)
			before = wait_apart(L, w, stop, ctx, progress);
		rc = run_row(L, i, stop, ctx);
		if (rc || !line)
			return rc;
		after = writers_handoff(L, w);
		w->handoff_before_ns = before;
		w->handoff_after_ns = after;
		w->tries = t;
		w->one_core = !apart(before) || !apart(after);
		/* a stop keeps this complete run rather than trying again
		 * and ending with the next try's empty, interrupted row */
		if (!w->one_core || w->interrupted || (stop && stop(ctx, 0, 0)))
			break;
		if (progress && t < LAT_LAB_LINE_TRIES)
			fprintf(progress, "latlab lab: share-line ran while "
				"cpu %d and cpu %d shared a host core (hand-off "
				"%.0f ns before, %.0f ns after): again\n",
				L->place.cpu[w->arm][1],
				L->place.cpu[w->arm][2], before, after);
	}
	return rc;
}

int lat_lab_run(struct lat_lab *L, lat_pipe_stop_fn stop, void *ctx,
		FILE *progress)
{
	L->n_rows = 0;
	L->stopped = false;
	lat_lab_free_e2e(L);
	memset(L->unavailable, 0, sizeof(L->unavailable));
	for (int i = 0; i < L->n_plan; i++) {
		int rc;

		/* a stop between two runs ends the lab there */
		if (stop && stop(ctx, 0, 0)) {
			L->stopped = true;
			break;
		}
		if (progress)
			fprintf(progress, "latlab lab: run %d of %d (round %d): "
				"%s\n", i + 1, L->n_plan, L->row[i].round + 1,
				L->row[i].name);
		rc = run_placed(L, i, stop, ctx, progress);
		if (rc)
			return rc;
		L->n_rows = i + 1;
		if (L->row[i].interrupted) {
			L->stopped = true;
			break;
		}
	}
	lat_lab_judge(L);
	return 0;
}
