/*
 * Description: the lab's verdicts come from the rows, and drift cannot
 * fool them. On synthetic rows: a drift that moves every row by 30 % gives
 * no verdict (nor does the old "baselines first" order); an effect beyond
 * the spread but inside the drift is "within drift"; more baselines do not
 * widen the spread (windows of one round's size); a one-off outlier
 * with a flight-recorder window (one slow work1, q1+wake slow behind it)
 * gives the stall fingerprint, and the same outlier without that window
 * does not; share-line growth is seen against the split baselines and the
 * one-CPU control shows none; baselines in two modes 52x apart give the
 * sham no effect while a one-hop disease is still seen; tails that are a
 * coin flip per run do not decide the sham, which asks each disease's
 * question of a run with no disease; share-line runs whose CPUs
 * shared a host core are not judged (all of them: cannot show, why); counters decide alloc; a machine that cannot
 * show a disease says so; a stopped run gives no data. The plan alternates
 * baselines and experiments, each between two baselines of its own arm.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "latlab/lab.h"
#include "t_test.h"

enum { PACE, Q1, WORK1, Q2, NPARTS };

static struct lat_lab L; /* large: not on the stack */

/* A row at @scale of a plain baseline: every statistic scales. */
static struct lat_lab_row *add(bool baseline, enum lat_lab_arm arm,
			       enum lat_lab_exp exp, double scale)
{
	static const char *const parts[NPARTS] = { "pace", "q1+wake", "work1",
						   "q2+wake" };
	static const double mean[NPARTS] = { 100, 2000, 120, 1800 };
	struct lat_lab_row *r = &L.row[L.n_rows++];

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", baseline ? "baseline" :
		 lat_lab_exp_name(exp));
	r->baseline = baseline;
	r->arm = arm;
	r->exp = exp;
	r->events = r->events_planned = 20000;
	r->p50_ns = 3000 * scale;
	r->p90_ns = 8000 * scale;
	r->p99_ns = 20000 * scale;
	r->p999_ns = 100000 * scale;
	r->max_ns = 1000000 * scale;
	r->n_parts = NPARTS;
	for (int p = 0; p < NPARTS; p++) {
		snprintf(r->part[p], sizeof(r->part[p]), "%s", parts[p]);
		r->part_mean_ns[p] = mean[p] * scale;
		r->part_p50_ns[p] = mean[p] * scale;
		r->part_p99_ns[p] = 4 * mean[p] * scale;
		r->mean_ns += r->part_mean_ns[p];
	}
	r->offered_per_s = r->achieved_per_s = 200000;
	for (int m = 0; m < LAT_LAB_NMETRICS; m++)
		r->has_metric[m] = true;
	r->metric[LAT_LAB_CTX_SWITCHES] = 400;
	r->metric[LAT_LAB_PAGE_FAULTS] = 50;
	r->ipc = -1;
	r->exact = true;
	r->flight.trigger_part = -1;
	return r;
}

static void reset(void)
{
	memset(&L, 0, sizeof(L));
	lat_lab_opts_init(&L.opts);
	L.place.n_usable = 2;
	L.place.can_split = true;
}

static const struct lat_lab_verdict *judge(enum lat_lab_exp e)
{
	lat_lab_judge(&L);
	return &L.verdict[e];
}

static bool moved(const struct lat_lab_cmp *c)
{
	return c->effect == LAT_LAB_EFFECT_UP ||
	       c->effect == LAT_LAB_EFFECT_DOWN;
}

/* B E B E ... B, every row on a steady drift from 1.0 to @end. */
static void drifting(double end, double noise_effect)
{
	static const enum lat_lab_exp exps[] = { LAT_LAB_NULL, LAT_LAB_ALLOC,
						 LAT_LAB_NOISE, LAT_LAB_NO_PIN };
	int n = 2 * 4 + 1;

	reset();
	for (int i = 0; i < n; i++) {
		double s = pow(end, (double)i / (n - 1)); /* steady rate */

		if (i % 2 == 0) {
			add(true, LAT_LAB_ARM_DEFAULT, 0, s);
		} else {
			enum lat_lab_exp e = exps[i / 2];
			struct lat_lab_row *r = add(false, LAT_LAB_ARM_DEFAULT,
						    e, s);

			if (e == LAT_LAB_NOISE) {
				r->p50_ns *= noise_effect;
				r->p90_ns *= noise_effect;
			}
			if (e == LAT_LAB_ALLOC)
				r->metric[LAT_LAB_ALLOCATIONS] = r->events;
		}
	}
}

static void test_drift(void)
{
	const struct lat_lab_verdict *V;

	/* every row moves by 30 % over the run, experiments included */
	drifting(1.3, 1.0);
	lat_lab_judge(&L);
	T_NEAR(L.base_p50[LAT_LAB_ARM_DEFAULT].drift, 1.3, 1e-9);
	T_NEAR(L.base_p50[LAT_LAB_ARM_DEFAULT].spread, 1.0, 1e-9);
	for (int e = 0; e < LAT_LAB_N_EXP; e++) {
		V = &L.verdict[e];
		if (!V->ran)
			continue;
		/* no latency verdict either way */
		T_CHECK(!moved(&V->p50) && !moved(&V->p90) &&
			!moved(&V->p99) && !moved(&V->p999) &&
			!moved(&V->mean));
		T_NEAR(V->p50.ratio, 1.0, 1e-9);
	}
	T_EQ_I64(L.verdict[LAT_LAB_NULL].outcome, LAT_LAB_SEEN);
	T_EQ_I64(L.verdict[LAT_LAB_NOISE].outcome, LAT_LAB_NOT_SEEN);
	/* the counter still tells: exact, drift-free */
	T_EQ_I64(L.verdict[LAT_LAB_ALLOC].outcome, LAT_LAB_SEEN);

	/* the old order (baselines first) on a machine drifting 30 %:
	 * the experiment beside the last baseline is not "faster" */
	reset();
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 0.9);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 0.8);
	add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_NULL, 0.7);
	V = judge(LAT_LAB_NULL);
	T_CHECK(!moved(&V->p50));
	T_NEAR(V->p50.ratio, 0.7 / 0.8, 1e-9);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);

	/* x1.5 beside its baselines, on a run that drifts x1.6: past the
	 * spread, inside the drift: no verdict */
	drifting(1.6, 1.5);
	V = judge(LAT_LAB_NOISE);
	T_NEAR(V->p50.ratio, 1.5, 1e-9);
	T_EQ_I64(V->p50.effect, LAT_LAB_EFFECT_DRIFT);
	T_NEAR(V->p50.tolerance, 1.6 * LAT_LAB_MARGIN, 1e-9);
	T_EQ_I64(V->outcome, LAT_LAB_WITHIN_DRIFT);
	T_CHECK(!V->seen);
	/* p50 past everything but the p90 not: no body shift, and the
	 * statistic shown is the one that fell short */
	drifting(1.6, 3.0);
	L.row[5].p90_ns /= 3;
	V = judge(LAT_LAB_NOISE);
	T_EQ_I64(V->p50.effect, LAT_LAB_EFFECT_UP);
	T_EQ_I64(V->outcome, LAT_LAB_NOT_SEEN);
	T_CHECK(!strcmp(V->fp_stat, "e2e p90"));
	/* x3 on the same drift is a body shift */
	drifting(1.6, 3.0);
	V = judge(LAT_LAB_NOISE);
	T_EQ_I64(V->p50.effect, LAT_LAB_EFFECT_UP);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	T_EQ_I64(V->expected, LAT_LAB_FP_BODY);
}

static void test_spread(void)
{
	const struct lat_lab_verdict *V;

	/* baselines scatter x2 around a flat line: x1.8 is noise */
	reset();
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_NULL, 1.8);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 2.0);
	add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_NOISE, 2.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 2.0);
	V = judge(LAT_LAB_NULL);
	T_CHECK(L.base_p50[LAT_LAB_ARM_DEFAULT].spread > 1.8);
	T_CHECK(!moved(&V->p50));
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
}

/* More rounds must not widen the yardstick: one bad baseline in 27. */
static void test_spread_window(void)
{
	reset();
	for (int i = 0; i < 27; i++)
		add(true, LAT_LAB_ARM_DEFAULT, 0, i == 4 ? 4.0 :
						  i % 2 ? 1.2 : 1.0);
	lat_lab_judge(&L);
	T_CHECK(L.base_p50[LAT_LAB_ARM_DEFAULT].spread < 1.3);
	/* one round's worth (9 baselines) with the same bad one: its range */
	L.n_rows = 9;
	lat_lab_judge(&L);
	T_CHECK(L.base_p50[LAT_LAB_ARM_DEFAULT].spread > 3.0);
}

static void test_stall(void)
{
	const struct lat_lab_verdict *V;
	struct lat_lab_row *s;

	/* a one-off outlier: max x20, the body unchanged */
	reset();
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	s = add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_STALL, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.02);
	s->max_ns *= 20;
	s->stall_ns = 4e6;
	V = judge(LAT_LAB_STALL);
	T_EQ_I64(V->outcome, LAT_LAB_NOT_SEEN); /* percentiles cannot show it */
	T_CHECK(V->why != NULL);

	/* with its window: one slow work1, q1+wake slow behind it */
	s->flight.frozen = true;
	s->flight.threshold_ns = 2e6;
	s->flight.trigger_e2e_ns = 4.01e6;
	s->flight.trigger_part = WORK1;
	s->flight.trigger_only = true;
	s->flight.slow_after[Q1] = 64;
	V = judge(LAT_LAB_STALL);
	T_EQ_I64(V->expected, LAT_LAB_FP_STALL);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	T_CHECK(V->seen);
	T_NEAR(V->stall_ns, 4e6, 0);
	T_EQ_I64(V->flight.trigger_part, WORK1);
	T_CHECK(!moved(&V->p50)); /* the body did not move */

	/* frozen on something else (a descheduled producer): not the stall */
	s->flight.trigger_part = PACE;
	V = judge(LAT_LAB_STALL);
	T_EQ_I64(V->outcome, LAT_LAB_NOT_SEEN);
	/* slow work1 but nothing queued behind it: not the stall either */
	s->flight.trigger_part = WORK1;
	s->flight.slow_after[Q1] = 0;
	V = judge(LAT_LAB_STALL);
	T_EQ_I64(V->outcome, LAT_LAB_NOT_SEEN);
}

static void test_share_line(void)
{
	const struct lat_lab_verdict *V;
	struct lat_lab_row *r;

	reset();
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_NULL, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.05);
	add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_SHARE_LINE_1CPU, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 0.97);
	/* the split arm runs 3x slower overall: only its own baselines
	 * are a fair reference */
	add(true, LAT_LAB_ARM_SPLIT, 0, 3.0);
	r = add(false, LAT_LAB_ARM_SPLIT, LAT_LAB_SHARE_LINE, 3.0);
	add(true, LAT_LAB_ARM_SPLIT, 0, 3.0);
	r->part_mean_ns[WORK1] *= 2;
	r->part_p50_ns[WORK1] *= 2;
	V = judge(LAT_LAB_SHARE_LINE);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	T_CHECK(!strcmp(V->fp_stat, "work1 p50"));
	T_NEAR(V->fp.ratio, 2.0, 1e-9);
	T_CHECK(!moved(&V->p50)); /* not a body shift: 3x is the arm */
	V = &L.verdict[LAT_LAB_SHARE_LINE_1CPU];
	T_EQ_I64(V->expected, LAT_LAB_FP_NO_LINE);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	/* one preemption inside work1 moves its mean and p99, not the
	 * line's p50 */
	L.row[3].part_mean_ns[WORK1] *= 3;
	L.row[3].part_p99_ns[WORK1] *= 3;
	V = judge(LAT_LAB_SHARE_LINE_1CPU);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	/* the control growing is the control failing */
	L.row[3].part_p50_ns[WORK1] *= 2;
	V = judge(LAT_LAB_SHARE_LINE_1CPU);
	T_EQ_I64(V->outcome, LAT_LAB_NOT_SEEN);

	/* one CPU: share-line cannot show, and says why */
	L.place.can_split = false;
	L.place.n_usable = 1;
	V = judge(LAT_LAB_SHARE_LINE);
	T_EQ_I64(V->outcome, LAT_LAB_CANNOT_SHOW);
	T_CHECK(V->why && strstr(V->why, "one usable CPU"));
	V = &L.verdict[LAT_LAB_NO_PIN];
	T_EQ_I64(V->outcome, LAT_LAB_CANNOT_SHOW);
}

/*
 * Two modes of the whole pipeline, 52x apart (the e2e p50 of baselines
 * on a 2-vCPU VM jumped between ~7 us and ~360 us from run to run): a
 * sham that lands in the other mode than its neighbours is no effect,
 * since the baselines themselves do it; a disease acting on one hop
 * (share-line on work1) is seen through it, and a body shift only past
 * the modes' spread.
 */
static const int modes[] = { 0, 1, 0, 0, 1, 0, 0, 0, 0 }; /* baselines */

static struct lat_lab_row *bimodal(bool baseline, enum lat_lab_exp e,
				   int mode)
{
	struct lat_lab_row *r = add(baseline, LAT_LAB_ARM_DEFAULT, e, 1.0);

	if (mode) {
		r->p50_ns *= 52;
		r->p90_ns *= 52;
		r->p99_ns *= 52;
		r->p999_ns *= 52;
		r->mean_ns *= 52;
		for (int p = 0; p < NPARTS; p++)
			if (p != WORK1) {
				r->part_p50_ns[p] *= 52;
				r->part_mean_ns[p] *= 52;
			}
	}
	return r;
}

static void test_bimodal(void)
{
	/* null and noise each between two low baselines */
	static const enum lat_lab_exp exps[] = {
		LAT_LAB_ALLOC, LAT_LAB_STALL, LAT_LAB_NULL, LAT_LAB_NO_PIN,
		LAT_LAB_SHARE_LINE, LAT_LAB_NOISE, LAT_LAB_SHARE_LINE_1CPU,
		LAT_LAB_ALLOC_MMAP,
	};
	const struct lat_lab_verdict *V;
	struct lat_lab_row *r;

	reset();
	for (int k = 0; k < 9; k++) {
		bimodal(true, 0, modes[k]);
		if (k == 8)
			break;
		/* null in the high mode between two low baselines; the
		 * others in the low mode */
		r = bimodal(false, exps[k], exps[k] == LAT_LAB_NULL);
		if (exps[k] == LAT_LAB_SHARE_LINE)
			r->part_p50_ns[WORK1] *= 2; /* the miss, every event */
		if (exps[k] == LAT_LAB_NOISE) {
			r->p50_ns *= 300;
			r->p90_ns *= 300;
		}
	}
	lat_lab_judge(&L);
	T_CHECK(L.base_p50[LAT_LAB_ARM_DEFAULT].spread > 40);
	V = &L.verdict[LAT_LAB_NULL];
	T_NEAR(V->p50.ratio, 52, 1e-6);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN); /* no effect */
	V = &L.verdict[LAT_LAB_SHARE_LINE];
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	T_NEAR(V->fp.ratio, 2, 1e-9);
	T_CHECK(!moved(&V->p50));
	T_EQ_I64(L.verdict[LAT_LAB_SHARE_LINE_1CPU].outcome, LAT_LAB_SEEN);
	V = &L.verdict[LAT_LAB_NOISE];
	T_EQ_I64(V->outcome, LAT_LAB_SEEN); /* x300: past x52 */

	/* the same x52 modes over a 4-round sham (B N B N B N B N B),
	 * the nulls in either mode: no effect */
	reset();
	for (int k = 0; k < 9; k++)
		bimodal(k % 2 == 0, LAT_LAB_NULL, (k * 5 + 1) % 3 == 0);
	L.opts.sham_only = true;
	V = judge(LAT_LAB_NULL);
	T_EQ_I64(V->runs, 4);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
}

/*
 * One 2-3 ms gap in a short run moves its p99, p99.9 and mean 100x, or
 * not: a coin flip, which here fell on two of the sham's four runs and
 * on none of the five baselines. The sham judges the body, where no verdict
 * is moved by it; the tail is shown, not judged.
 */
static void test_tail_coin_flip(void)
{
	const struct lat_lab_verdict *V;

	reset();
	for (int k = 0; k < 9; k++) {
		struct lat_lab_row *r = add(k % 2 == 0, LAT_LAB_ARM_DEFAULT,
					    LAT_LAB_NULL, 1.0);

		if (k == 1 || k == 7) {
			r->p99_ns *= 100;
			r->p999_ns *= 40;
			r->mean_ns *= 15;
		}
	}
	L.opts.sham_only = true;
	V = judge(LAT_LAB_NULL);
	T_CHECK(moved(&V->p99)); /* the tail did move... */
	T_EQ_I64(V->outcome, LAT_LAB_SEEN); /* ...and is not the verdict */
	T_CHECK(!strcmp(V->fp_stat, "e2e p50") ||
		!strcmp(V->fp_stat, "e2e p90"));
	/* p90 alone (more gaps in the sham's runs than beside them) is
	 * not a body shift */
	for (int k = 1; k < 9; k += 2)
		L.row[k].p90_ns *= 2;
	V = judge(LAT_LAB_NULL);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	T_CHECK(!strcmp(V->fp_stat, "e2e p90"));
	/* with p50: a body that moves is caught */
	for (int k = 1; k < 9; k += 2)
		L.row[k].p50_ns *= 2;
	V = judge(LAT_LAB_NULL);
	T_EQ_I64(V->outcome, LAT_LAB_NOT_SEEN);
	/* so is what would pass for a line, or a scheduler change */
	for (int k = 1; k < 9; k += 2) {
		L.row[k].p50_ns /= 2;
		L.row[k].part_p50_ns[WORK1] *= 2;
	}
	V = judge(LAT_LAB_NULL);
	T_EQ_I64(V->outcome, LAT_LAB_NOT_SEEN);
	T_CHECK(!strcmp(V->fp_stat, "work1 p50"));
	for (int k = 1; k < 9; k += 2) {
		L.row[k].part_p50_ns[WORK1] /= 2;
		L.row[k].metric[LAT_LAB_MIGRATIONS] = 6;
	}
	V = judge(LAT_LAB_NULL);
	T_EQ_I64(V->outcome, LAT_LAB_NOT_SEEN);
	T_CHECK(!strcmp(V->fp_stat, "migrations"));
}

/*
 * share-line while the host ran both writers' vCPUs on one core: not a
 * run that could show the line, so not judged; all of them so: the
 * machine cannot show it now, and the verdict says why, with the
 * hand-off measured.
 */
static void test_one_core(void)
{
	const struct lat_lab_verdict *V;
	struct lat_lab_row *r;

	reset();
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_NULL, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	r = add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_SHARE_LINE, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	r->part_p50_ns[WORK1] *= 1.08; /* ~10 ns: a shared L2 */
	r->handoff_before_ns = 31;
	r->handoff_after_ns = 33;
	r->tries = LAT_LAB_LINE_TRIES;
	r->one_core = true;
	V = judge(LAT_LAB_SHARE_LINE);
	T_EQ_I64(V->outcome, LAT_LAB_CANNOT_SHOW);
	T_CHECK(V->why && strstr(V->why, "one core"));
	T_NEAR(V->handoff_ns, 31, 0);
	T_EQ_I64(V->runs, 0);

	/* a second round found them apart: judged on that run alone */
	r = add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_SHARE_LINE, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	r->part_p50_ns[WORK1] *= 2;
	r->handoff_before_ns = 152;
	r->handoff_after_ns = 160;
	r->tries = 1;
	V = judge(LAT_LAB_SHARE_LINE);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	T_EQ_I64(V->runs, 1);
	T_NEAR(V->fp.ratio, 2, 1e-9);
	T_NEAR(V->handoff_ns, 31, 0); /* the least measured, shown */
}

static void test_counters(void)
{
	const struct lat_lab_verdict *V;
	struct lat_lab_row *r;

	reset();
	add(true, LAT_LAB_ARM_SLOW, 0, 1.0);
	r = add(false, LAT_LAB_ARM_SLOW, LAT_LAB_ALLOC_MMAP, 1.3);
	add(true, LAT_LAB_ARM_SLOW, 0, 1.0);
	r->metric[LAT_LAB_PAGE_FAULTS] = 35 * r->events;
	r->metric[LAT_LAB_ALLOCATIONS] = r->events;
	V = judge(LAT_LAB_ALLOC_MMAP);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	T_NEAR(V->per_event, 35.0, 1e-9);
	T_NEAR(V->base_per_event, 50.0 / 20000, 1e-12);
	/* a page fault on one event in ten is not one per event */
	r->metric[LAT_LAB_PAGE_FAULTS] = r->events / 10;
	V = judge(LAT_LAB_ALLOC_MMAP);
	T_EQ_I64(V->outcome, LAT_LAB_NOT_SEEN);
	/* n/a anywhere: never compared, the machine cannot show it */
	r->has_metric[LAT_LAB_PAGE_FAULTS] = false;
	V = judge(LAT_LAB_ALLOC_MMAP);
	T_EQ_I64(V->outcome, LAT_LAB_CANNOT_SHOW);

	/* no-pin: context switches fall 20x, beyond any spread */
	reset();
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	r = add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_NO_PIN, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	r->metric[LAT_LAB_CTX_SWITCHES] = 20;
	V = judge(LAT_LAB_NO_PIN);
	T_EQ_I64(V->outcome, LAT_LAB_SEEN);
	T_EQ_I64(V->fp.effect, LAT_LAB_EFFECT_DOWN);
	T_CHECK(!strcmp(V->fp_stat, "ctx_switches"));
}

static void test_no_data(void)
{
	const struct lat_lab_verdict *V;

	reset();
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_NULL, 1.0);
	add(true, LAT_LAB_ARM_DEFAULT, 0, 1.0);
	add(false, LAT_LAB_ARM_DEFAULT, LAT_LAB_NOISE, 9.0)->interrupted =
		true;
	V = judge(LAT_LAB_NOISE);
	T_EQ_I64(V->outcome, LAT_LAB_NO_DATA);
	T_CHECK(V->why != NULL);
	/* not asked for: no verdict at all */
	L.opts.want[LAT_LAB_NOISE] = false;
	V = judge(LAT_LAB_NOISE);
	T_CHECK(!V->wanted);
	T_CHECK(L.verdict[LAT_LAB_NULL].wanted);
}

static void test_opts(void)
{
	struct lat_lab_opts o;
	const char *why;
	char bad[16];

	lat_lab_opts_init(&o);
	T_EQ_I64(lat_lab_opts_check(&o, &why), 0);
	o.rounds = 0;
	T_EQ_I64(lat_lab_opts_check(&o, &why), -EINVAL);
	T_CHECK(!strncmp(why, "rounds", 6));
	lat_lab_opts_init(&o);
	memset(o.want, 0, sizeof(o.want));
	o.want[LAT_LAB_NULL] = true; /* null alone names no disease */
	T_EQ_I64(lat_lab_opts_check(&o, &why), -EINVAL);
	o.sham_only = true;
	T_EQ_I64(lat_lab_opts_check(&o, NULL), 0);
	o.want[LAT_LAB_STALL] = true;
	T_EQ_I64(lat_lab_opts_check(&o, NULL), -EINVAL);
	T_EQ_I64(lat_lab_exp_by_name("share-line"), LAT_LAB_SHARE_LINE);
	T_EQ_I64(lat_lab_exp_by_name("nonsense"), -1);
	/* --only's list: every name an experiment, the rest off */
	T_EQ_I64(lat_lab_want_parse(&o, "stall,,noise", bad, sizeof(bad)), 0);
	for (int e = 0; e < LAT_LAB_N_EXP; e++)
		T_EQ_I64(o.want[e], e == LAT_LAB_STALL || e == LAT_LAB_NOISE);
	T_EQ_I64(lat_lab_want_parse(&o, "stall,stal", bad, sizeof(bad)),
		 -ENOENT);
	T_CHECK(!strcmp(bad, "stal"));
}

/* Every experiment run sits between two baselines of its own arm. */
static void test_plan(void)
{
	int count[LAT_LAB_N_EXP] = { 0 };

	reset();
	L.opts.rounds = 3;
	T_EQ_I64(lat_lab_plan(&L), 0);
	T_CHECK(L.n_plan > 3 * 2);
	T_CHECK(L.row[0].baseline && L.row[L.n_plan - 1].baseline);
	for (int i = 0; i < L.n_plan; i++) {
		const struct lat_lab_row *r = &L.row[i];

		if (r->baseline)
			continue;
		count[r->exp]++;
		T_CHECK(L.row[i - 1].baseline && L.row[i - 1].arm == r->arm);
		T_CHECK(L.row[i + 1].baseline && L.row[i + 1].arm == r->arm);
	}
	T_EQ_I64(count[LAT_LAB_NULL], 3);
	T_EQ_I64(count[LAT_LAB_STALL], 3);
	T_EQ_I64(count[LAT_LAB_SHARE_LINE], L.place.can_split ? 3 : 0);
	T_CHECK(L.place.n_usable >= 1);
}

int main(void)
{
	test_drift();
	test_spread();
	test_spread_window();
	test_stall();
	test_share_line();
	test_bimodal();
	test_tail_coin_flip();
	test_one_core();
	test_counters();
	test_no_data();
	test_opts();
	test_plan();
	T_DONE();
}
