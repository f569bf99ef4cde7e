/*
 * Description: the lab through its public API alone, as `latlab lab`
 * runs it: plan, run (real pipelines, small), judge, print, JSON. The
 * sham-only lab runs baseline/null/baseline with every event accounted
 * for and one judged null; a stop function that says stop after the first
 * run ends the lab there, judged as "no data", with nothing left running.
 * A share-line lab measures its writers' line hand-off around each run of
 * it and keeps its tries within bounds.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/lab.h"
#include "t_test.h"

static struct lat_lab L; /* large: not on the stack */

/* Stops once the first run has finished: the lab counts its rows. */
static bool stop_after_first(void *ctx, uint64_t produced, double elapsed)
{
	(void)ctx;
	(void)produced;
	(void)elapsed;
	return L.n_rows >= 1;
}

static void sham_opts(void)
{
	memset(&L, 0, sizeof(L));
	lat_lab_opts_init(&L.opts);
	L.opts.sham_only = true;
	memset(L.opts.want, 0, sizeof(L.opts.want));
	L.opts.events = 2000;
	L.opts.calibrate_ms = 20;
	L.opts.counters = false; /* counters have their own tests */
}

int main(void)
{
	char *doc = NULL;
	size_t len = 0;
	FILE *out;

	sham_opts();
	T_EQ_I64(lat_lab_opts_check(&L.opts, NULL), 0);
	T_EQ_I64(lat_lab_plan(&L), 0);
	T_EQ_I64(L.n_plan, 3);
	T_EQ_I64(lat_lab_run(&L, NULL, NULL, NULL), 0);
	T_EQ_I64(L.n_rows, 3);
	T_CHECK(!L.stopped);
	for (int i = 0; i < L.n_rows; i++) {
		T_CHECK(L.row[i].exact);
		T_EQ_I64(L.row[i].events + L.row[i].dropped, 2000);
		T_CHECK(L.row[i].p50_ns > 0 && L.row[i].p50_ns <= L.row[i].max_ns);
		T_EQ_I64(L.row[i].n_parts, 4);
		T_CHECK(!L.row[i].has_metric[LAT_LAB_ALLOCATIONS]);
	}
	T_CHECK(L.verdict[LAT_LAB_NULL].wanted);
	T_EQ_I64(L.verdict[LAT_LAB_NULL].runs, 1);
	T_CHECK(L.verdict[LAT_LAB_NULL].outcome != LAT_LAB_NO_DATA);
	T_CHECK(!L.verdict[LAT_LAB_STALL].wanted);
	T_EQ_I64(L.arm_baselines[LAT_LAB_ARM_DEFAULT], 2);

	/* the printers render it without error, as `latlab lab` does: the
	 * table, and the JSON object between "command" and "signal" */
	out = open_memstream(&doc, &len);
	T_CHECK(out != NULL);
	T_EQ_I64(lat_lab_report(out, false, "lab", 0, &L), 0);
	fflush(out);
	T_CHECK(len > 0 && doc[0] != '{');
	fclose(out);
	free(doc);
	out = open_memstream(&doc, &len);
	T_EQ_I64(lat_lab_report(out, true, "lab", 2, &L), 0);
	fclose(out);
	T_CHECK(!strncmp(doc, "{\"command\":\"lab\",", 15));
	T_CHECK(strstr(doc, "\"runs_done\":3") != NULL);
	T_CHECK(strstr(doc, ",\"signal\":2}\n") != NULL);
	free(doc);

	/* stopped between the first and the second run */
	sham_opts();
	T_EQ_I64(lat_lab_plan(&L), 0);
	T_EQ_I64(lat_lab_run(&L, stop_after_first, NULL, NULL), 0);
	T_CHECK(L.stopped);
	T_EQ_I64(L.n_rows, 1);
	T_EQ_I64(L.verdict[LAT_LAB_NULL].outcome, LAT_LAB_NO_DATA);
	T_CHECK(L.verdict[LAT_LAB_NULL].why != NULL);

	/* share-line: its writers' hand-off measured around the run, at
	 * most LAT_LAB_LINE_TRIES runs of it, "one core" exactly when a
	 * hand-off said so (no waiting here: the state is whatever the
	 * host gives) */
	sham_opts();
	L.opts.sham_only = false;
	L.opts.want[LAT_LAB_SHARE_LINE] = true;
	L.opts.apart_wait_ms = 0;
	T_EQ_I64(lat_lab_plan(&L), 0);
	T_EQ_I64(lat_lab_run(&L, NULL, NULL, NULL), 0);
	for (int i = 0; i < L.n_rows; i++) {
		const struct lat_lab_row *r = &L.row[i];
		bool line = !r->baseline && r->exp == LAT_LAB_SHARE_LINE;

		if (!line || !L.place.can_split) {
			T_EQ_I64(r->tries, 0);
			continue;
		}
		T_CHECK(r->tries >= 1 && r->tries <= LAT_LAB_LINE_TRIES);
		T_CHECK(r->handoff_before_ns > 0 && r->handoff_after_ns > 0);
		T_CHECK(r->one_core ==
			(r->handoff_before_ns < LAT_LAB_APART_NS ||
			 r->handoff_after_ns < LAT_LAB_APART_NS));
		/* only the last try is one core, or none */
		T_CHECK(r->tries == LAT_LAB_LINE_TRIES || !r->one_core);
		T_EQ_I64(r->events + r->dropped, 2000);
	}
	T_CHECK(L.verdict[LAT_LAB_SHARE_LINE].outcome != LAT_LAB_NO_DATA);
	/* the same CPU twice is no hand-off */
	{
		double ns;

		T_CHECK(lat_lab_handoff_ns(0, 0, &ns) < 0);
	}
	T_DONE();
}
