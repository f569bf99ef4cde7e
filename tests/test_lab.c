/*
 * Description: the lab's verdicts come from the numbers. Synthetic rows
 * with known changes give the matching fingerprint (tail disease vs body
 * shift vs noise), the ratios printed are the ones in the rows, a change
 * inside the baseline's own run-to-run spread is not called a disease,
 * n/a counters are never compared, and the stage where growth
 * concentrated is the one that grew.
 */
#include <string.h>

#include "latlab/lab.h"
#include "t_test.h"

enum { PACE, Q1, WORK1, Q2, NPARTS };

static void row(struct lat_lab_row *r, const char *name, bool baseline,
		double scale)
{
	static const char *const parts[NPARTS] = { "pace", "q1+wake", "work1",
						   "q2+wake" };
	static const double mean[NPARTS] = { 100, 2000, 120, 1800 };

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->baseline = baseline;
	r->events = 20000;
	r->p50 = 3000 * scale;
	r->p99 = 20000 * scale;
	r->p999 = 100000 * scale;
	r->max = 1000000 * scale;
	r->n_parts = NPARTS;
	r->e2e_mean = 0;
	for (int p = 0; p < NPARTS; p++) {
		snprintf(r->part[p], sizeof(r->part[p]), "%s", parts[p]);
		r->part_mean[p] = mean[p] * scale;
		r->e2e_mean += r->part_mean[p];
	}
	r->offered_rate = r->achieved_rate = 200000;
	for (int m = 0; m < LAT_LAB_NMETRICS; m++)
		r->has_metric[m] = true;
	r->metric[LAT_LAB_CTX_SWITCHES] = 40;
	r->metric[LAT_LAB_PAGE_FAULTS] = 5;
	r->ipc = -1;
}

static bool has(const char *s, const char *part)
{
	if (!strstr(s, part)) {
		fprintf(stderr, "'%s' not in: %s\n", part, s);
		return false;
	}
	return true;
}

int main(void)
{
	struct lat_lab_row rows[8];
	struct lat_lab_base b;
	char fp[512];
	double share;

	row(&rows[0], "baseline 1", true, 1.0);
	row(&rows[1], "baseline 2", true, 1.05);
	row(&rows[2], "baseline 3", true, 0.97);
	T_EQ_I64(lat_lab_base_init(&b, rows, 3), 3);
	T_NEAR(b.p50, 3000, 1e-9); /* the median run */
	T_NEAR(b.spread_p999, 1.05 / 0.97, 1e-9);

	/* A tail disease in work1 with one allocation per event. */
	row(&rows[3], "alloc", false, 1.0);
	rows[3].p50 = 3150;
	rows[3].p999 = 800000;
	rows[3].part_mean[WORK1] += 900;
	rows[3].e2e_mean += 900;
	rows[3].metric[LAT_LAB_ALLOCATIONS] = 20000;
	lat_lab_fingerprint(&b, &rows[3], fp, sizeof(fp));
	printf("alloc: %s\n", fp);
	T_CHECK(has(fp, "tail disease: p99.9 ×8.0"));
	T_CHECK(has(fp, "p50 ×1.1"));
	T_CHECK(has(fp, "allocations +20000 (1.00/event)"));
	T_CHECK(has(fp, "100% of the mean e2e growth in work1"));
	T_CHECK(!strstr(fp, "ctx switches")); /* unchanged: not mentioned */
	T_EQ_I64(lat_lab_where(&b, &rows[3], &share), WORK1);
	T_NEAR(share, 1.0, 1e-9);

	/* The same disease, other numbers: other words. */
	rows[3].p999 = 400000;
	lat_lab_fingerprint(&b, &rows[3], fp, sizeof(fp));
	T_CHECK(has(fp, "p99.9 ×4.0"));

	/* A body shift, spread over the queues, with switches. */
	row(&rows[4], "no-pin", false, 3.0);
	rows[4].metric[LAT_LAB_CTX_SWITCHES] = 9000;
	rows[4].metric[LAT_LAB_MIGRATIONS] = 300;
	lat_lab_fingerprint(&b, &rows[4], fp, sizeof(fp));
	printf("no-pin: %s\n", fp);
	T_CHECK(has(fp, "body shift: p50 ×3.0"));
	T_CHECK(has(fp, "ctx switches +8960"));
	T_CHECK(has(fp, "migrations +300"));
	T_CHECK(has(fp, "in q1+wake")); /* the largest part grew most */

	/* Inside the baseline's spread: no disease, no stage named. */
	row(&rows[5], "share-line", false, 1.04);
	lat_lab_fingerprint(&b, &rows[5], fp, sizeof(fp));
	printf("share-line: %s\n", fp);
	T_CHECK(has(fp, "within the baseline's run-to-run spread"));
	T_EQ_I64(lat_lab_where(&b, &rows[5], NULL), -1);

	/* A noisy baseline (p99.9 varies 3.1x) swallows a 2.5x tail. */
	rows[1].p999 = 300000;
	T_EQ_I64(lat_lab_base_init(&b, rows, 6), 3); /* experiments ignored */
	row(&rows[6], "noise", false, 1.0);
	rows[6].p999 = 250000;
	lat_lab_fingerprint(&b, &rows[6], fp, sizeof(fp));
	printf("noise: %s\n", fp);
	T_CHECK(!strstr(fp, "tail disease"));
	T_CHECK(has(fp, "baseline runs vary p99.9 ×3.1"));

	/* Just past a 1.4x spread is still inside the margin. */
	rows[1].p999 = 140000;
	rows[2].p999 = 100000;
	lat_lab_base_init(&b, rows, 3);
	rows[6].p999 = 145000;
	lat_lab_fingerprint(&b, &rows[6], fp, sizeof(fp));
	T_CHECK(has(fp, "within the baseline's run-to-run spread"));
	rows[6].p999 = 170000;
	lat_lab_fingerprint(&b, &rows[6], fp, sizeof(fp));
	T_CHECK(has(fp, "tail disease: p99.9 ×1.7"));

	/* n/a in the experiment: never compared, never a +N. */
	row(&rows[7], "sanitized", false, 1.0);
	rows[7].has_metric[LAT_LAB_ALLOCATIONS] = false;
	rows[7].metric[LAT_LAB_ALLOCATIONS] = 0;
	rows[7].has_metric[LAT_LAB_CTX_SWITCHES] = false;
	rows[7].metric[LAT_LAB_CTX_SWITCHES] = 0;
	lat_lab_fingerprint(&b, &rows[7], fp, sizeof(fp));
	T_CHECK(!strstr(fp, "allocations"));
	T_CHECK(!strstr(fp, "ctx switches"));

	/* Saturation is named; truncation is safe and reports the need. */
	rows[7].achieved_rate = 150000;
	rows[0].achieved_rate = 190000; /* the slowest baseline run */
	lat_lab_base_init(&b, rows, 3);
	T_CHECK(lat_lab_fingerprint(&b, &rows[7], fp, 10) > 10);
	T_EQ_I64(strlen(fp), 9);
	lat_lab_fingerprint(&b, &rows[7], fp, sizeof(fp));
	T_CHECK(has(fp, "throughput 150000 events/s, below every baseline "
		    "run (slowest 190000)"));
	rows[7].achieved_rate = 185000; /* 97% of the slowest: noise */
	lat_lab_fingerprint(&b, &rows[7], fp, sizeof(fp));
	T_CHECK(!strstr(fp, "throughput"));

	memset(&b, 0, sizeof(b));
	T_EQ_I64(lat_lab_base_init(&b, &rows[3], 1), 0);
	lat_lab_fingerprint(&b, &rows[3], fp, sizeof(fp));
	T_CHECK(has(fp, "no baseline"));
	T_DONE();
}
