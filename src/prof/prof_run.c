/*
 * lat_prof_run: the whole of `latlab profile -p <pid>` or `-- <command>`
 * between the parsing and the exit (latlab/prof.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "latlab/json.h"
#include "latlab/prof.h"

static int fail(struct lat_prof_run *run, enum lat_prof_run_step at, int rc)
{
	run->failed = at;
	return rc;
}

static int start(struct lat_prof_run *run, struct lat_prof *p)
{
	int rc;

	if (run->argv)
		rc = lat_prof_spawn(p, run->argv, &run->pid);
	else
		rc = lat_prof_attach_pid(p, run->pid, false);
	if (rc) {
		snprintf(run->why, sizeof(run->why), "%s",
			 lat_prof_error_note(p));
		return fail(run, LAT_PROF_RUN_ATTACH, rc);
	}
	/* a spawned command's events started at its exec; this starts the
	 * off-CPU tracer */
	rc = lat_prof_start(p);
	if (!rc && run->note) /* scripts read stdout; tests wait for this */
		fprintf(run->note, "%ssampling pid %d (Ctrl-C stops and "
			"writes what was sampled)\n", run->note_prefix,
			(int)run->pid);
	if (!rc)
		rc = lat_prof_sample_until(p, run->pid, run->argv != NULL,
					   run->duration_ns, run->stop,
					   run->stop_ctx, &run->status);
	return rc ? fail(run, LAT_PROF_RUN_SAMPLE, rc) : 0;
}

static int graph(struct lat_prof_run *run, FILE *f,
		 const struct lat_prof_folded *fo, bool off)
{
	char what[32];

	snprintf(what, sizeof(what), "pid %d", (int)run->pid);
	return lat_prof_svg_write_run(fo, &run->st, off, what, run->title, f);
}

static int summary(struct lat_prof_run *run, const struct lat_prof_folded *on,
		   const struct lat_prof_folded *off)
{
	bool offcpu = run->cfg.offcpu;
	struct lat_json j;
	int rc;

	if (!run->json) {
		rc = lat_prof_print(run->out, run->pid, &run->st, on, off,
				    offcpu, run->st.sampled_s);
	} else {
		lat_json_init(&j, run->out);
		rc = lat_prof_json(&j, run->pid, &run->st, on, off, offcpu,
				   run->st.sampled_s);
		if (!rc)
			rc = lat_json_finish(&j);
	}
	/* the printers return -ENOMEM / -EINVAL only: a failed write (a
	 * full disk) is the stream's, and LAT_PROF_RUN_OUT must say it */
	return rc ? rc : ferror(run->out) ? -EIO : 0;
}

/* Every output asked for, in order; the first failure names its step. */
static int write_all(struct lat_prof_run *run, const struct lat_prof_folded *on,
		     const struct lat_prof_folded *off)
{
	int rc = 0;

	if (run->folded && (rc = lat_prof_folded_write(on, run->folded)))
		return fail(run, LAT_PROF_RUN_FOLDED, rc);
	if (run->offcpu_folded &&
	    (rc = lat_prof_folded_write(off, run->offcpu_folded)))
		return fail(run, LAT_PROF_RUN_OFFCPU_FOLDED, rc);
	if (run->svg && (rc = graph(run, run->svg, on, false)))
		return fail(run, LAT_PROF_RUN_SVG, rc);
	if (run->offcpu_svg && (rc = graph(run, run->offcpu_svg, off, true)))
		return fail(run, LAT_PROF_RUN_OFFCPU_SVG, rc);
	if (run->out && (rc = summary(run, on, off)))
		return fail(run, LAT_PROF_RUN_OUT, rc);
	if (run->cfg.offcpu && !run->st.offcpu && run->note)
		fprintf(run->note, "%soff-CPU %s\n", run->note_prefix,
			run->st.offcpu_note);
	return 0;
}

int lat_prof_run(struct lat_prof_run *run)
{
	struct lat_prof_folded on, off;
	struct lat_prof *p;
	int rc;

	run->failed = LAT_PROF_RUN_OK;
	run->why[0] = '\0';
	if (!run->note_prefix)
		run->note_prefix = "";
	rc = lat_prof_create(&run->cfg, &p);
	if (rc)
		return fail(run, LAT_PROF_RUN_CREATE, rc);
	lat_prof_folded_init(&on);
	lat_prof_folded_init(&off);
	rc = start(run, p);
	if (!rc && ((rc = lat_prof_fold(p, &on)) ||
		    (rc = lat_prof_fold_offcpu(p, &off))))
		fail(run, LAT_PROF_RUN_FOLD, rc);
	lat_prof_get_stats(p, &run->st);
	if (!rc)
		rc = write_all(run, &on, &off);
	lat_prof_folded_release(&on);
	lat_prof_folded_release(&off);
	lat_prof_free(p);
	return rc;
}
