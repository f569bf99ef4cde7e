/*
 * lat_lab_judge: from rows to verdicts, one judgement per expected
 * fingerprint, each change weighed by lat_lab_compare (lab_compare.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lab_int.h"

/* ---- the statistics ------------------------------------------------- */

enum stat { P50, P99, P999, MEAN };

static void stat_values(const struct lat_lab *L, enum stat s, double *v)
{
	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *r = &L->row[i];

		v[i] = s == P50 ? r->p50_ns : s == P99 ? r->p99_ns :
		       s == P999 ? r->p999_ns : r->mean_ns;
	}
}

static int part_index(const struct lat_lab_row *r, const char *name)
{
	for (int p = 0; p < r->n_parts; p++)
		if (!strcmp(r->part[p], name))
			return p;
	return -1;
}

/* Part @name's mean (or p99) in every row; 0 where a row lacks it. */
static void part_values(const struct lat_lab *L, const char *name, bool p99,
			double *v)
{
	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *r = &L->row[i];
		int p = part_index(r, name);

		v[i] = p < 0 ? 0 : p99 ? r->part_p99_ns[p] :
					 r->part_mean_ns[p];
	}
}

/*
 * Counter @m in every row, plus 1 so that a count of 0 (a pinned thread
 * never migrates) is a ratio like any other: 0 -> 2 migrations is x3,
 * which must still pass the baselines' spread; 0 (not compared) where
 * n/a.
 */
static bool metric_values(const struct lat_lab *L, enum lat_lab_exp e,
			  enum lat_lab_metric m, double *v)
{
	bool all = true;

	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *r = &L->row[i];

		v[i] = r->has_metric[m] ? (double)r->metric[m] + 1 : 0;
		if (!r->has_metric[m] && (r->baseline || r->exp == e))
			all = false;
	}
	return all;
}

static double fmag(double ratio)
{
	return fabs(log(ratio));
}

/* Keep in V->fp the comparison that moved most. */
static void keep_largest(struct lat_lab_verdict *V, const char *name,
			 const struct lat_lab_cmp *c)
{
	if (!V->fp_stat[0] || fmag(c->ratio) > fmag(V->fp.ratio)) {
		V->fp = *c;
		snprintf(V->fp_stat, sizeof(V->fp_stat), "%s", name);
	}
}

static bool moved(const struct lat_lab_cmp *c)
{
	return c->effect == LAT_LAB_EFFECT_UP ||
	       c->effect == LAT_LAB_EFFECT_DOWN;
}

static void set_outcome(struct lat_lab_verdict *V, enum lat_lab_outcome o)
{
	V->outcome = o;
	V->seen = o == LAT_LAB_SEEN;
}

/* ---- one judgement per fingerprint ---------------------------------- */

static void judge_no_effect(struct lat_lab_verdict *V)
{
	const struct lat_lab_cmp *c[] = { &V->p50, &V->p99, &V->p999,
					  &V->mean };
	static const char *const name[] = { "e2e p50", "e2e p99",
					    "e2e p99.9", "e2e mean" };
	bool any = false;

	for (int i = 0; i < 4; i++) {
		keep_largest(V, name[i], c[i]);
		any |= moved(c[i]);
	}
	set_outcome(V, any ? LAT_LAB_NOT_SEEN : LAT_LAB_SEEN);
}

/* Per event: the experiment's median over runs, the baselines' max. */
static void per_event(const struct lat_lab *L, enum lat_lab_exp e,
		      enum lat_lab_metric m, struct lat_lab_verdict *V)
{
	double x[LAT_LAB_MAX_ROWS], ev[LAT_LAB_MAX_ROWS];
	int k = 0;

	for (int i = 0; i < L->n_rows; i++)
		ev[i] = (double)L->row[i].events;
	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *r = &L->row[i];
		int b, a;

		if (!lab_exp_row(r, e) || !r->events)
			continue;
		x[k++] = (double)r->metric[m] / (double)r->events;
		lab_neighbours(L->row, L->n_rows, i, ev, &b, &a);
		for (int j = 0; j < 2; j++) {
			int at = j ? a : b;
			double pe;

			if (at < 0)
				continue;
			pe = (double)L->row[at].metric[m] /
			     (double)L->row[at].events;
			V->base_per_event = fmax(V->base_per_event, pe);
		}
	}
	V->per_event = k ? lat_median_sort(x, (size_t)k) : 0;
	snprintf(V->fp_stat, sizeof(V->fp_stat), "%s per event",
		 lat_lab_metric_name(m));
}

static void judge_sched(const struct lat_lab *L, struct lat_lab_verdict *V)
{
	static const enum lat_lab_metric m[] = { LAT_LAB_CTX_SWITCHES,
						 LAT_LAB_MIGRATIONS };
	double v[LAT_LAB_MAX_ROWS];
	bool any = false;

	for (int i = 0; i < 2; i++) {
		struct lat_lab_cmp c;

		if (!metric_values(L, V->exp, m[i], v))
			continue;
		any = true;
		lat_lab_compare(L->row, L->n_rows, V->exp, v, &c);
		keep_largest(V, lat_lab_metric_name(m[i]), &c);
	}
	if (!any) {
		set_outcome(V, LAT_LAB_CANNOT_SHOW);
		V->why = "context switches and migrations cannot be read here";
	} else {
		set_outcome(V, moved(&V->fp) ? LAT_LAB_SEEN :
			       V->fp.effect == LAT_LAB_EFFECT_DRIFT ?
			       LAT_LAB_WITHIN_DRIFT : LAT_LAB_NOT_SEEN);
	}
}

/* Grew past the spread: past the drift too, or only "within drift". */
static bool grew_past_spread(const struct lat_lab_cmp *c)
{
	return c->effect == LAT_LAB_EFFECT_UP ||
	       (c->effect == LAT_LAB_EFFECT_DRIFT && c->ratio > 1);
}

/*
 * A body shift moves both p50 and the mean; the statistic shown is the
 * one that fell short, if either did.
 */
static void judge_body(struct lat_lab_verdict *V)
{
	bool p50_up = V->p50.effect == LAT_LAB_EFFECT_UP;
	bool mean_up = V->mean.effect == LAT_LAB_EFFECT_UP;
	bool short_p50 = !p50_up && V->p50.ratio / V->p50.tolerance <=
				    V->mean.ratio / V->mean.tolerance;

	V->fp = short_p50 || mean_up ? V->p50 : V->mean;
	snprintf(V->fp_stat, sizeof(V->fp_stat), "e2e %s",
		 short_p50 || mean_up ? "p50" : "mean");
	if (p50_up && mean_up)
		set_outcome(V, LAT_LAB_SEEN);
	else if (grew_past_spread(&V->p50) && grew_past_spread(&V->mean))
		set_outcome(V, LAT_LAB_WITHIN_DRIFT);
	else
		set_outcome(V, LAT_LAB_NOT_SEEN);
}

/*
 * The line's fingerprint: the p99 of work1 grows, because stage 1 bumps
 * its counter inside its work, where the miss on a line the consumer just
 * wrote lands. Not work1's mean: on a loaded machine one preemption in the
 * middle of the work moves it more than a miss per event does. Not
 * q2+wake: the consumer bumps after its final stamp, so its miss is not
 * in any delta, and q2+wake on a loaded machine is the scheduler's (a run
 * that fell behind grew it x13 with no line involved).
 */
static void judge_line(const struct lat_lab *L, struct lat_lab_verdict *V,
		       bool expect_growth)
{
	static const struct {
		const char *part, *name;
		bool p99;
	} s[] = {
		{ "work1", "work1 p99", true },
	};
	double v[LAT_LAB_MAX_ROWS];
	bool up = false, drift_up = false;

	/* show the statistic that came closest to (or went furthest past)
	 * its own tolerance: the one the verdict turned on */
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		struct lat_lab_cmp c;

		part_values(L, s[i].part, s[i].p99, v);
		if (!lat_lab_compare(L->row, L->n_rows, V->exp, v, &c))
			continue;
		if (!V->fp_stat[0] || c.ratio / c.tolerance >
				      V->fp.ratio / V->fp.tolerance) {
			V->fp = c;
			snprintf(V->fp_stat, sizeof(V->fp_stat), "%s",
				 s[i].name);
		}
		up |= c.effect == LAT_LAB_EFFECT_UP;
		drift_up |= grew_past_spread(&c);
	}
	if (expect_growth)
		set_outcome(V, up ? LAT_LAB_SEEN : drift_up ?
			       LAT_LAB_WITHIN_DRIFT : LAT_LAB_NOT_SEEN);
	else
		set_outcome(V, up ? LAT_LAB_NOT_SEEN : LAT_LAB_SEEN);
}

/* One slow work1 at the freeze, q1+wake slow right after it. */
static bool stall_window(const struct lat_lab_row *r)
{
	int work1 = part_index(r, "work1"), q1 = part_index(r, "q1+wake");

	return r->flight.frozen && work1 >= 0 && q1 >= 0 &&
	       r->flight.trigger_part == work1 && r->flight.trigger_only &&
	       r->flight.slow_after[q1] > 0;
}

static void judge_stall(const struct lat_lab *L, struct lat_lab_verdict *V)
{
	int runs = 0, seen = 0;

	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *r = &L->row[i];

		if (!lab_exp_row(r, V->exp))
			continue;
		if (!runs++) {
			V->flight = r->flight;
			V->stall_ns = r->stall_ns;
		}
		seen += stall_window(r);
	}
	snprintf(V->fp_stat, sizeof(V->fp_stat), "flight recorder");
	set_outcome(V, 2 * seen > runs ? LAT_LAB_SEEN : LAT_LAB_NOT_SEEN);
	if (!V->seen && !V->flight.frozen)
		V->why = "the recorder never froze: no e2e went above half "
			 "the stall";
}

/*
 * The part that holds most of the growth of the mean e2e (means add up
 * across parts; percentiles do not), averaged over the runs.
 */
static void growth_part(const struct lat_lab *L, struct lat_lab_verdict *V)
{
	double grow[LAT_LAB_MAX_PARTS] = { 0 }, e2e = 0, best = 0;
	double ev[LAT_LAB_MAX_ROWS];
	int k = 0, np = -1;

	V->growth_part = -1;
	if (V->mean.effect != LAT_LAB_EFFECT_UP)
		return;
	for (int i = 0; i < L->n_rows; i++)
		ev[i] = L->row[i].mean_ns;
	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *r = &L->row[i], *nb[2];
		int b, a, m = 0;

		if (!lab_exp_row(r, V->exp))
			continue;
		lab_neighbours(L->row, L->n_rows, i, ev, &b, &a);
		if (b >= 0)
			nb[m++] = &L->row[b];
		if (a >= 0)
			nb[m++] = &L->row[a];
		if (!m || (np >= 0 && r->n_parts != np))
			continue;
		np = r->n_parts;
		for (int j = 0; j < m; j++) {
			if (nb[j]->n_parts != np)
				return;
			e2e += (r->mean_ns - nb[j]->mean_ns) / m;
			for (int p = 0; p < np; p++)
				grow[p] += (r->part_mean_ns[p] -
					    nb[j]->part_mean_ns[p]) / m;
		}
		k++;
	}
	for (int p = 0; k && p < np; p++)
		if (grow[p] > best) {
			best = grow[p];
			V->growth_part = p;
		}
	if (V->growth_part >= 0 && e2e > 0)
		V->growth_share = fmin(1.0, best / e2e);
}

/* ---- the machine ---------------------------------------------------- */

/* Why @e cannot show on this machine, or NULL. */
static const char *cannot_show(const struct lat_lab *L, enum lat_lab_exp e)
{
	bool alloc_na = false, faults_na = false;

	for (int i = 0; i < L->n_rows; i++) {
		alloc_na |= !L->row[i].has_metric[LAT_LAB_ALLOCATIONS];
		faults_na |= !L->row[i].has_metric[LAT_LAB_PAGE_FAULTS];
	}
	switch (e) {
	case LAT_LAB_SHARE_LINE:
		return L->place.can_split ? NULL :
		       "one usable CPU: stage 1 and the consumer cannot run on "
		       "different CPUs, so the line never moves between caches";
	case LAT_LAB_NO_PIN:
		return L->place.n_usable > 1 ? NULL :
		       "one usable CPU: the scheduler has nowhere else to put "
		       "a thread";
	case LAT_LAB_ALLOC:
		return alloc_na ? "allocations are not counted in this build "
				  "(the counting allocator is off)" : NULL;
	case LAT_LAB_ALLOC_MMAP:
		return faults_na ? "page faults cannot be read here" : NULL;
	default:
		return NULL;
	}
}

static void judge_one(const struct lat_lab *L, struct lat_lab_verdict *V)
{
	double v[LAT_LAB_MAX_ROWS];
	const char *why = cannot_show(L, V->exp);

	if (why) {
		set_outcome(V, LAT_LAB_CANNOT_SHOW);
		V->why = why;
		return;
	}
	stat_values(L, P50, v);
	V->runs = lat_lab_compare(L->row, L->n_rows, V->exp, v, &V->p50);
	if (!V->runs) {
		set_outcome(V, LAT_LAB_NO_DATA);
		V->why = V->ran ? "no finished baseline beside it" :
				  "stopped before it ran to the end";
		return;
	}
	stat_values(L, P99, v);
	lat_lab_compare(L->row, L->n_rows, V->exp, v, &V->p99);
	stat_values(L, P999, v);
	lat_lab_compare(L->row, L->n_rows, V->exp, v, &V->p999);
	stat_values(L, MEAN, v);
	lat_lab_compare(L->row, L->n_rows, V->exp, v, &V->mean);
	growth_part(L, V);
	switch (V->expected) {
	case LAT_LAB_FP_NO_EFFECT:
		judge_no_effect(V);
		break;
	case LAT_LAB_FP_ALLOCS:
		per_event(L, V->exp, LAT_LAB_ALLOCATIONS, V);
		set_outcome(V, V->per_event >= 0.99 &&
			       V->base_per_event < 0.01 ?
			       LAT_LAB_SEEN : LAT_LAB_NOT_SEEN);
		break;
	case LAT_LAB_FP_FAULTS:
		per_event(L, V->exp, LAT_LAB_PAGE_FAULTS, V);
		set_outcome(V, V->per_event >= 1 && V->base_per_event < 0.5 ?
			       LAT_LAB_SEEN : LAT_LAB_NOT_SEEN);
		break;
	case LAT_LAB_FP_SCHED:
		judge_sched(L, V);
		break;
	case LAT_LAB_FP_BODY:
		judge_body(V);
		break;
	case LAT_LAB_FP_STALL:
		judge_stall(L, V);
		break;
	case LAT_LAB_FP_LINE:
	case LAT_LAB_FP_NO_LINE:
		judge_line(L, V, V->expected == LAT_LAB_FP_LINE);
		break;
	case LAT_LAB_N_FP:
		break;
	}
}

void lat_lab_judge(struct lat_lab *L)
{
	double v[LAT_LAB_MAX_ROWS];

	for (int a = 0; a < LAT_LAB_N_ARMS; a++) {
		struct lab_trend t;

		L->arm_baselines[a] = 0;
		for (int i = 0; i < L->n_rows; i++)
			L->arm_baselines[a] += lab_judged_baseline(&L->row[i], a);
		stat_values(L, P50, v);
		lab_arm_trend(L->row, L->n_rows, a, v, &t);
		L->base_p50[a] = (struct lat_lab_cmp){ 1, t.spread, t.drift,
						       0, LAT_LAB_EFFECT_NONE };
		lab_classify(&L->base_p50[a]);
		stat_values(L, MEAN, v);
		lab_arm_trend(L->row, L->n_rows, a, v, &t);
		L->base_mean[a] = (struct lat_lab_cmp){ 1, t.spread, t.drift,
							0, LAT_LAB_EFFECT_NONE };
		lab_classify(&L->base_mean[a]);
	}
	for (int e = 0; e < LAT_LAB_N_EXP; e++) {
		struct lat_lab_verdict *V = &L->verdict[e];

		memset(V, 0, sizeof(*V));
		V->exp = e;
		V->expected = lat_lab_exp_fp(e);
		V->growth_part = V->flight.trigger_part = -1;
		if (e != LAT_LAB_NULL &&
		    (!L->opts.want[e] || L->opts.sham_only))
			continue;
		V->wanted = true;
		for (int i = 0; i < L->n_rows; i++)
			V->ran |= !L->row[i].baseline && (int)L->row[i].exp == e;
		judge_one(L, V);
	}
}
