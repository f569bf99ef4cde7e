/*
 * lat_lab_judge: from rows to verdicts, one judgement per expected
 * fingerprint, each change weighed by lat_lab_compare (lab_compare.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lab_int.h"

/* ---- the statistics ------------------------------------------------- */

enum stat { P50, P90, P99, P999, MEAN };

static void stat_values(const struct lat_lab *L, enum stat s, double *v)
{
	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *r = &L->row[i];

		v[i] = s == P50 ? r->p50_ns : s == P90 ? r->p90_ns :
		       s == P99 ? r->p99_ns : s == P999 ? r->p999_ns :
		       r->mean_ns;
	}
}

static int part_index(const struct lat_lab_row *r, const char *name)
{
	for (int p = 0; p < r->n_parts; p++)
		if (!strcmp(r->part[p], name))
			return p;
	return -1;
}

/* Part @name's p50 in every row; 0 where a row lacks it. */
static void part_p50_values(const struct lat_lab *L, const char *name,
			    double *v)
{
	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *r = &L->row[i];
		int p = part_index(r, name);

		v[i] = p < 0 ? 0 : r->part_p50_ns[p];
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
 * A body shift moves both p50 and p90; the statistic shown is the one
 * that fell short, if either did. Not the mean: one 2-3 ms gap in a run
 * moves it as much as the shift does (see judge_no_effect).
 * A shift down counts for the sham, not here: noise cannot speed the
 * pipeline up.
 */
static void judge_body(struct lat_lab_verdict *V)
{
	bool p50_up = V->p50.effect == LAT_LAB_EFFECT_UP;
	bool p90_up = V->p90.effect == LAT_LAB_EFFECT_UP;
	bool short_p50 = !p50_up && V->p50.ratio / V->p50.tolerance <=
				    V->p90.ratio / V->p90.tolerance;

	V->fp = short_p50 || p90_up ? V->p50 : V->p90;
	snprintf(V->fp_stat, sizeof(V->fp_stat), "e2e %s",
		 short_p50 || p90_up ? "p50" : "p90");
	if (p50_up && p90_up)
		set_outcome(V, LAT_LAB_SEEN);
	else if (grew_past_spread(&V->p50) && grew_past_spread(&V->p90))
		set_outcome(V, LAT_LAB_WITHIN_DRIFT);
	else
		set_outcome(V, LAT_LAB_NOT_SEEN);
}

/*
 * The line's fingerprint: the median of work1 grows, because stage 1
 * bumps its counter inside its work, where the miss on a line the
 * consumer wrote since lands, on every event (~100 ns more on this VM:
 * x2 of a 100 ns work1). The median, so that one preemption inside the
 * work cannot pass for it (it moves the mean and the p99). Not q2+wake:
 * the consumer bumps after its final stamp, so its miss is in no delta.
 */
static void judge_line(const struct lat_lab *L, struct lat_lab_verdict *V,
		       bool expect_growth)
{
	double v[LAT_LAB_MAX_ROWS];
	bool up;

	part_p50_values(L, "work1", v);
	snprintf(V->fp_stat, sizeof(V->fp_stat), "work1 p50");
	lat_lab_compare(L->row, L->n_rows, V->exp, v, &V->fp);
	up = V->fp.effect == LAT_LAB_EFFECT_UP;
	if (expect_growth)
		set_outcome(V, up ? LAT_LAB_SEEN : grew_past_spread(&V->fp) ?
			       LAT_LAB_WITHIN_DRIFT : LAT_LAB_NOT_SEEN);
	else
		set_outcome(V, up ? LAT_LAB_NOT_SEEN : LAT_LAB_SEEN);
}

/* How far @c went towards its tolerance: 1 at the bar, > 1 past it. */
static double reach(const struct lat_lab_cmp *c)
{
	return c->tolerance > 1 ? fmag(c->ratio) / log(c->tolerance) : 0;
}

/* A question the sham is asked: one statistic, and whether it counts. */
struct sham_q {
	const char *name;
	struct lat_lab_cmp c;
	bool fired;
};

/*
 * The sham is the lab's false-positive check, so it asks the questions
 * the disease verdicts ask, of a run with no disease: would it pass for
 * a body shift (e2e p50 and p90 moved together, either way), a line
 * (work1 p50 moved) or a scheduler change (context switches or
 * migrations moved)? "No effect" when none of them. Not the tail: in a
 * run of 0.1 s here one 2-3 ms gap of the producer (a tick lost to
 * another task) happens or not, so p99, p99.9 and the mean of one run are
 * coin flips between ~30 us and ~3 ms, as likely for a baseline as for
 * the sham; no verdict turns on them (the stall, the one tail disease, is
 * judged from the flight recorder). Nor p90 alone: a 1 s run with more
 * gaps than its neighbours moved it x1.7 with p50 x1.01.
 */
static void judge_no_effect(const struct lat_lab *L,
			    struct lat_lab_verdict *V)
{
	static const enum lat_lab_metric m[] = { LAT_LAB_CTX_SWITCHES,
						 LAT_LAB_MIGRATIONS };
	bool body = moved(&V->p50) && moved(&V->p90) &&
		    (V->p50.ratio > 1) == (V->p90.ratio > 1);
	struct sham_q q[5] = {
		{ "e2e p50", V->p50, body }, { "e2e p90", V->p90, body },
	};
	double v[LAT_LAB_MAX_ROWS];
	int n = 2, show = 0;

	part_p50_values(L, "work1", v);
	if (lat_lab_compare(L->row, L->n_rows, V->exp, v, &q[n].c)) {
		q[n].name = "work1 p50";
		q[n].fired = moved(&q[n].c);
		n++;
	}
	for (int i = 0; i < 2; i++) {
		if (!metric_values(L, V->exp, m[i], v) ||
		    !lat_lab_compare(L->row, L->n_rows, V->exp, v, &q[n].c))
			continue;
		q[n].name = lat_lab_metric_name(m[i]);
		q[n].fired = moved(&q[n].c);
		n++;
	}
	/* show what fired, else what came closest to its bar */
	for (int i = 1; i < n; i++)
		if ((q[i].fired && !q[show].fired) ||
		    (q[i].fired == q[show].fired &&
		     reach(&q[i].c) > reach(&q[show].c)))
			show = i;
	V->fp = q[show].c;
	snprintf(V->fp_stat, sizeof(V->fp_stat), "%s", q[show].name);
	set_outcome(V, q[show].fired ? LAT_LAB_NOT_SEEN : LAT_LAB_SEEN);
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

/*
 * share-line runs that found the writers' CPUs on one host core (the
 * lab ran each up to LAT_LAB_LINE_TRIES times): are they all there were?
 * Keeps the least hand-off measured around its runs in @V.
 */
static bool only_one_core(const struct lat_lab *L,
			  struct lat_lab_verdict *V)
{
	int runs = 0, apart = 0;

	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *r = &L->row[i];
		double h[2] = { r->handoff_before_ns, r->handoff_after_ns };

		if (r->baseline || r->exp != V->exp || r->interrupted)
			continue;
		runs++;
		apart += !r->one_core;
		for (int k = 0; k < 2; k++)
			if (h[k] > 0 && (V->handoff_ns == 0 ||
					 h[k] < V->handoff_ns))
				V->handoff_ns = h[k];
	}
	return runs && !apart;
}

static void judge_one(const struct lat_lab *L, struct lat_lab_verdict *V)
{
	double v[LAT_LAB_MAX_ROWS];
	const char *why = cannot_show(L, V->exp);

	if (!why && only_one_core(L, V))
		why = "the host ran the writers' two CPUs on one core (SMT "
		      "siblings, by their line hand-off) in every try: the "
		      "shared line never left their common cache";

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
	stat_values(L, P90, v);
	lat_lab_compare(L->row, L->n_rows, V->exp, v, &V->p90);
	stat_values(L, P99, v);
	lat_lab_compare(L->row, L->n_rows, V->exp, v, &V->p99);
	stat_values(L, P999, v);
	lat_lab_compare(L->row, L->n_rows, V->exp, v, &V->p999);
	stat_values(L, MEAN, v);
	lat_lab_compare(L->row, L->n_rows, V->exp, v, &V->mean);
	growth_part(L, V);
	switch (V->expected) {
	case LAT_LAB_FP_NO_EFFECT:
		judge_no_effect(L, V);
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
