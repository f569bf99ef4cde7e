/*
 * The knee report for people and for scripts: the measured table, the
 * predictions beside it, the knees, the distributions compared, as text
 * on a FILE * or as one JSON object (what `latlab knee` prints).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/knee.h"
#include "latlab/fmt.h"
#include "latlab/json.h"

static char *ns(char *b, double v)
{
	if (!isfinite(v))
		return strcpy(b, "-");
	return lat_fmt_ns(b, LAT_FMT_LEN, v);
}

/* "14.0 µs (+12%)" */
static char *pred(char *b, size_t len, double v, double meas)
{
	char t[LAT_FMT_LEN];
	double e = lat_qsim_rel_err(v, meas);

	if (!isfinite(v))
		snprintf(b, len, "-");
	else if (isfinite(e))
		snprintf(b, len, "%s (%+.0f%%)", ns(t, v), 100 * e);
	else
		snprintf(b, len, "%s", ns(t, v));
	return b;
}

/* Hot threads @i < @k share a CPU: say what that does to the curve. */
static void share_line(FILE *out, const struct lat_pipe_result *r, int i,
		       int k)
{
	bool stage = i == 1 || k == 1; /* stage 1 is hot thread 1 */

	fprintf(out, "shared: %s and %s share cpu %d: ", r->thread[i].name,
		r->thread[k].name, r->thread[i].cpu);
	if (stage)
		fprintf(out, "while one runs the other waits, so the %s's CPU "
			"time is part of stage 1's service time (tau) and its "
			"variance (c_s)\n", r->thread[i == 1 ? k : i].name);
	else
		fprintf(out, "stage 1 has its CPU to itself; the producer "
			"sleeps while early and spins the last 50 us, so only "
			"a slice it loses to the consumer or a neighbour "
			"makes it send late and in bunches (c_a above 1)\n");
}

/* Which hot threads shared a CPU, from the last run's placement. */
static void print_threads(FILE *out, const struct lat_knee_report *o)
{
	const struct lat_pipe_result *r = &o->kp.last;
	bool any = false;

	if (!o->kp.have_last)
		return;
	fprintf(out, "threads:");
	for (int i = 0; i < r->n_hot; i++)
		fprintf(out, " %s on cpu %d%s", r->thread[i].name,
			r->thread[i].cpu, i + 1 < r->n_hot ? "," : "");
	fprintf(out, "; aggregator unpinned\n");
	for (int i = 0; i < r->n_hot; i++)
		for (int k = i + 1; k < r->n_hot; k++)
			if (r->thread[i].cpu >= 0 &&
			    r->thread[i].cpu == r->thread[k].cpu) {
				share_line(out, r, i, k);
				any = true;
			}
	if (!any && o->oversubscribed)
		fprintf(out, "shared: hot threads share CPUs (unpinned)\n");
}

/* Points that ran twice because the first run missed the rho asked. */
static void print_retried(FILE *out, const struct lat_knee_sweep *s,
			  double tol)
{
	size_t n = 0;

	for (size_t i = 0; i < s->done; i++)
		n += isfinite(s->pts[i].rho_first);
	if (!n)
		return;
	fprintf(out, "  retried: %zu point%s missed the rho asked by more "
		"than %g and ran once more, same arrivals, at the rate "
		"times asked / achieved (first runs, not kept:", n,
		n == 1 ? "" : "s", tol);
	for (size_t i = 0; i < s->done; i++)
		if (isfinite(s->pts[i].rho_first))
			fprintf(out, " %.3f for %.3f", s->pts[i].rho_first,
				s->pts[i].rho_asked);
	fprintf(out, ")\n");
}

static void print_measured(FILE *out, const struct lat_knee_sweep *s,
			   double tol)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN], d[LAT_FMT_LEN];
	char e[LAT_FMT_LEN], f[LAT_FMT_LEN], g[LAT_FMT_LEN], h[LAT_FMT_LEN];
	char tt[LAT_FMT_LEN], mean[64];

	fprintf(out, "\n  measured at stage 1 (W_q: wait in q1 before its "
		"service; e2e: intended send to consumer)\n");
	fprintf(out, "    rho  asked   c_a   c_s   events       tau  %-22s "
		"%9s %9s %9s %7s %9s %9s %9s\n", "W_q mean ± 95%", "p50", "p99",
		"p99.9", "W_q/τ", "e2e mean", "p99", "p99.9");
	for (size_t i = 0; i < s->done; i++) {
		const struct lat_knee_point *p = &s->pts[i];

		snprintf(mean, sizeof(mean), "%s ± %s", ns(a, p->wait.mean),
			 ns(b, p->wait_half));
		fprintf(out, "  %5.3f  %5.3f  %4.2f  %4.2f %8llu %9s  %-22s "
			"%9s %9s %9s %7.3g %9s %9s %9s\n", p->rho, p->rho_asked,
			p->ca, p->cs, (unsigned long long)p->events,
			ns(tt, p->tau_ns), mean, ns(c, p->wait.p50),
			ns(d, p->wait.p99), ns(e, p->wait.p999), p->wait_tau,
			ns(f, p->e2e.mean), ns(g, p->e2e.p99),
			ns(h, p->e2e.p999));
	}
	print_retried(out, s, tol);
}

/* "0.052" or "-" */
static void print_abs_log(FILE *out, double e)
{
	if (isfinite(e))
		fprintf(out, " %5.3f", fabs(e));
	else
		fprintf(out, " %5s", "-");
}

static void print_predicted(FILE *out, const struct lat_knee_sweep *s)
{
	char m[LAT_FMT_LEN], k[48], pk[48], sim[48], tr[48];

	fprintf(out, "\n  mean wait W_q predicted from the measured rho, c_a, "
		"c_s, tau (error vs measured); simulated: the simulator fed "
		"the gap and service histograms (independent draws); trace: "
		"fed the gaps themselves in their order, services drawn from "
		"their histogram (%d replications); |ln(predicted / measured)| "
		"of Kingman, simulated, trace\n", LAT_KNEE_TRACE_REPS);
	fprintf(out, "    rho  %10s  %-18s %-18s %-18s %-18s %17s\n",
		"measured", "Kingman", "P-K (M/G/1)", "simulated (fed)",
		"trace (fed)", "|ln err| K/sim/tr");
	for (size_t i = 0; i < s->done; i++) {
		const struct lat_knee_point *p = &s->pts[i];

		fprintf(out, "  %5.3f  %10s  %-18s %-18s %-18s %-18s", p->rho,
			ns(m, p->wait.mean),
			pred(k, sizeof(k), p->kingman_ns, p->wait.mean),
			pred(pk, sizeof(pk), p->pk_ns, p->wait.mean),
			pred(sim, sizeof(sim), p->sim_ns, p->wait.mean),
			pred(tr, sizeof(tr), p->sim_trace_ns, p->wait.mean));
		for (int e = 0; e < LAT_KNEE_PREDS; e++)
			print_abs_log(out, p->log_err[e]);
		fprintf(out, "\n");
	}
}

static const char *const pred_label[LAT_KNEE_PREDS] = {
	"Kingman", "simulated (histograms)", "trace (gaps in order)",
};

/*
 * The sweep's score: how far each prediction is on average and at worst,
 * and whether each simulator is closer than Kingman beyond chance.
 */
static void print_score(FILE *out, const struct lat_knee_sweep *s)
{
	const struct lat_knee_score *c = &s->score;

	if (!c->n)
		return;
	fprintf(out, "  score over %zu point%s, |ln(predicted / measured)| "
		"mean / largest (0.10: a factor 1.105):", c->n,
		c->n == 1 ? "" : "s");
	for (int k = 0; k < LAT_KNEE_PREDS; k++)
		fprintf(out, "%s %s %.3f / %.3f", k ? ";" : "", pred_label[k],
			c->mean_abs_log[k], c->max_abs_log[k]);
	fprintf(out, "; closest at %zu / %zu / %zu points\n",
		c->closest[LAT_KNEE_PRED_KINGMAN],
		c->closest[LAT_KNEE_PRED_SIM], c->closest[LAT_KNEE_PRED_TRACE]);
	for (int k = LAT_KNEE_PRED_SIM; k < LAT_KNEE_PREDS; k++) {
		enum lat_knee_verdict v = c->verdict[k];

		fprintf(out, "  %s against Kingman: |ln err| smaller by %+.3f "
			"on average", pred_label[k], c->gain[k]);
		if (v == LAT_KNEE_VERDICT_NONE) {
			fprintf(out, " (under 3 points: no verdict)\n");
			continue;
		}
		fprintf(out, " ± %.3f (95%%, t over the points, each its own "
			"arrival path): %s\n", c->gain_half[k],
			v == LAT_KNEE_VERDICT_SIM ? "the simulator is closer" :
			v == LAT_KNEE_VERDICT_KINGMAN ? "Kingman is closer" :
			"undecided, neither is closer beyond chance");
	}
}

/*
 * Per point: which prediction is closer and why the simulator differs,
 * from the replays of the point's own events; then what each reason
 * found means.
 */
static void print_why(FILE *out, const struct lat_knee_sweep *s)
{
	char m[LAT_FMT_LEN], r[LAT_FMT_LEN], sv[LAT_FMT_LEN], g[LAT_FMT_LEN];
	char b[LAT_FMT_LEN], si[LAT_FMT_LEN], sb[LAT_FMT_LEN];
	bool seen[LAT_KNEE_WHY_SAMPLE + 1] = { false };

	fprintf(out, "\n  why they differ: each point's own events replayed "
		"through Lindley's recursion, in their order (= measured), "
		"with the services shuffled, with the gaps shuffled, and both "
		"(the simulator's model), %d random orders each; z: the "
		"measured minus the shuffled wait in spreads of the random "
		"orders (|z| < %.3g: the order is chance)\n", LAT_KNEE_SHUFFLES,
		LAT_KNEE_WHY_Z);
	fprintf(out, "    rho  %9s %9s %9s %5s %9s %5s %9s  %-19s %9s  %-9s "
		"%s\n", "measured", "replay", "svc shuf", "z", "gap shuf", "z",
		"both", "S idle / queued", "r(W+S,G')", "closer",
		"why (simulator)");
	for (size_t i = 0; i < s->done; i++) {
		const struct lat_knee_point *p = &s->pts[i];
		const struct lat_knee_attr *t = &p->attr;
		char sis[48];

		snprintf(sis, sizeof(sis), "%s / %s", ns(si, t->svc_idle_ns),
			 ns(sb, t->svc_busy_ns));
		fprintf(out, "  %5.3f  %9s %9s %9s %5.1f %9s %5.1f %9s  %-19s "
			"%9.2f  %-9s %s%s\n", p->rho, ns(m, p->wait.mean),
			ns(r, t->replay_ns), ns(sv, t->svc_shuffled_ns),
			t->svc_z, ns(g, t->gap_shuffled_ns), t->gap_z,
			ns(b, t->both_shuffled_ns),
			sis, t->backlog_gap_corr,
			lat_knee_closer_name(p->closer),
			lat_knee_why_name(p->why),
			p->sim_within_ci ? " (sim inside the 95% intervals)" :
					   "");
		if (p->why <= LAT_KNEE_WHY_SAMPLE)
			seen[p->why] = true;
	}
	fprintf(out, "    closer: the prediction with the smaller error; tie "
		"when the two errors differ by less than the measurement's "
		"95%% half-width\n");
	for (int w = LAT_KNEE_WHY_AGREE; w <= LAT_KNEE_WHY_SAMPLE; w++)
		if (seen[w])
			fprintf(out, "    %s: %s\n", lat_knee_why_name(w),
				lat_knee_why_text(w));
}

static void print_knee(FILE *out, const char *what, double k)
{
	if (isfinite(k))
		fprintf(out, " %s %.3f", what, k);
	else
		fprintf(out, " %s not reached", what);
}

/* The worst factor max(model/meas, meas/model) over the points asked up
 * to rho 0.9; *@n of them compared, the highest asked in *@top. */
static double worst_factor(const struct lat_knee_sweep *s, size_t off,
			   double *at, size_t *n, double *top)
{
	double worst = NAN;

	*n = 0;
	*top = 0;

	for (size_t i = 0; i < s->done; i++) {
		const struct lat_knee_point *p = &s->pts[i];
		double v = *(const double *)((const char *)p + off), f;

		if (p->rho_asked > 0.9 + 1e-9 || !(v > 0) ||
		    !(p->wait.mean > 0))
			continue;
		f = fmax(v / p->wait.mean, p->wait.mean / v);
		++*n;
		*top = fmax(*top, p->rho_asked);
		if (!(f <= worst)) {
			worst = f;
			*at = p->rho;
		}
	}
	return worst;
}

static void print_summary(FILE *out, const struct lat_knee_report *o,
			  const struct lat_knee_run *run)
{
	const struct lat_knee_sweep *s = &run->sweep;
	const struct lat_knee_point *hi = NULL;
	double at_k = NAN, at_s = NAN, at_t = NAN, fk, fs, ft, top, top_s;
	size_t nk, n_s;

	fprintf(out, "\n  knee (W_q/tau rises %g per unit of rho):",
		o->kc.knee_slope);
	print_knee(out, "measured", s->knee_measured);
	print_knee(out, "; Kingman", s->knee_kingman);
	print_knee(out, "; simulated", s->knee_sim);
	print_knee(out, "; trace", s->knee_trace);
	fprintf(out, "\n");
	print_score(out, s);
	for (size_t i = 0; i < s->done; i++)
		if (s->pts[i].rho_asked >= 0.9 - 1e-9 &&
		    (!hi || fabs(s->pts[i].rho_asked - 0.95) <
			    fabs(hi->rho_asked - 0.95)))
			hi = &s->pts[i];
	if (hi && hi->rho < 1)
		fprintf(out, "  at rho %.3f (asked %.3f): measured W_q = %.3g "
			"tau; Kingman %.3g tau for c_a = c_s = 1 (%.3g x at "
			"0.95), %.3g tau with the measured c_a %.2f, c_s "
			"%.2f\n", hi->rho, hi->rho_asked, hi->wait_tau,
			lat_qsim_kingman(hi->rho, 1, 1),
			lat_qsim_kingman(0.95, 1, 1),
			hi->kingman_ns / hi->tau_ns, hi->ca, hi->cs);
	else if (hi)
		fprintf(out, "  at rho asked %.3f the stage never idled "
			"(measured rho %.4f): W_q = %.3g tau, where Kingman's "
			"19 x (c_a = c_s = 1, rho 0.95) has no counterpart\n",
			hi->rho_asked, hi->rho, hi->wait_tau);
	/* say which points the factor covers: a sweep that stopped early
	 * (or a --rho-list) may not come near 0.9 */
	fk = worst_factor(s, offsetof(struct lat_knee_point, kingman_ns),
			  &at_k, &nk, &top);
	fs = worst_factor(s, offsetof(struct lat_knee_point, sim_ns), &at_s,
			  &n_s, &top_s);
	ft = worst_factor(s, offsetof(struct lat_knee_point, sim_trace_ns),
			  &at_t, &n_s, &top_s);
	if (isfinite(fk))
		fprintf(out, "  over %zu point%s asked up to rho %.3f: Kingman "
			"within a factor %.2f of the measured mean (worst at "
			"rho %.3f), the fed simulator within %.2f (worst at "
			"rho %.3f), the trace-fed one within %.2f (worst at "
			"rho %.3f)\n", nk, nk == 1 ? "" : "s", top, fk, at_k,
			fs, at_s, ft, at_t);
}

/* Points whose stage ran much slower than at calibration: their rho is
 * not the one asked, because the stage got less CPU than then. */
static void print_slowed(FILE *out, const struct lat_knee_run *run)
{
	const struct lat_knee_sweep *s = &run->sweep;
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN];
	size_t n = 0, worst = 0;

	for (size_t i = 0; i < s->done; i++)
		if (s->pts[i].tau_ns > 1.5 * run->tau_ns) {
			if (!n || s->pts[i].tau_ns > s->pts[worst].tau_ns)
				worst = i;
			n++;
		}
	if (!n)
		return;
	fprintf(out, "  slowed: at %zu of %zu points stage 1's mean service "
		"was over 1.5 x the %s calibrated (worst %s at rho asked "
		"%.3f): it got less CPU than during the calibration "
		"(neighbours), so it ran at a higher rho than asked\n", n,
		s->done, ns(a, run->tau_ns), ns(b, s->pts[worst].tau_ns),
		s->pts[worst].rho_asked);
}

static void print_run(FILE *out, const struct lat_knee_report *o,
		      const struct lat_knee_run *run)
{
	char t[LAT_FMT_LEN], w[LAT_FMT_LEN], d[LAT_FMT_LEN];

	if (!run->started)
		return;
	fprintf(out, "\n== stage 1 work %s, mean %s (drawn cv %.3g): tau %s "
		"calibrated (%s per event beyond the work), c_s %.2f\n",
		lat_work_dist_name(&run->dist), ns(w, o->base.work_ns),
		run->work_cv, ns(t, run->tau_ns),
		ns(d, run->tau_ns - o->base.work_ns), run->cal_cs);
	print_measured(out, &run->sweep, o->kc.rho_tol);
	print_predicted(out, &run->sweep);
	print_why(out, &run->sweep);
	print_summary(out, o, run);
	print_slowed(out, run);
	if (run->sweep.interrupted)
		fprintf(out, "  (stopped: the points above finished; the rest "
			"did not run)\n");
}

/* Points of two runs with the same asked rho. */
static const struct lat_knee_point *
same_rho(const struct lat_knee_sweep *s, double rho)
{
	for (size_t i = 0; i < s->done; i++)
		if (fabs(s->pts[i].rho_asked - rho) < 1e-9)
			return &s->pts[i];
	return NULL;
}

/* Kingman's ratio of two points' waits in tau, from their measured rho,
 * c_a and c_s (the rhos differ a little: each run's own). */
static double kingman_ratio(const struct lat_knee_point *a,
			    const struct lat_knee_point *b)
{
	return (b->kingman_ns / b->tau_ns) / (a->kingman_ns / a->tau_ns);
}

/* 95% half-width of the ratio of @q's mean wait to @p's (delta
 * method, the two intervals as independent). */
static double ratio_half(const struct lat_knee_point *p,
			 const struct lat_knee_point *q)
{
	double a = p->wait_half / p->wait.mean, b = q->wait_half / q->wait.mean;

	return q->wait_tau / p->wait_tau * sqrt(a * a + b * b);
}

static void print_compare(FILE *out, const struct lat_knee_report *o)
{
	const struct lat_knee_run *a = &o->runs[0];
	char t[LAT_FMT_LEN];

	for (int k = 1; k < o->n_runs; k++) {
		const struct lat_knee_run *b = &o->runs[k];

		fprintf(out, "\n== %s against %s at the same rho asked, rho "
			"by rho in turn, with the same arrivals and one rate "
			"(from the run with the shortest calibrated tau, %s, "
			"then its points; a retried point ran at its own): the "
			"ratio of mean waits in tau, and Kingman's from each "
			"point's measured rho, c_a, c_s\n",
			lat_work_dist_name(&b->dist),
			lat_work_dist_name(&a->dist), ns(t, o->rate_tau_ns));
		fprintf(out, "  asked  rho %-5s rho %-5s  W_q/τ %-5s W_q/τ "
			"%-5s  ratio ± 95%%     Kingman ratio  inside\n",
			lat_work_dist_name(&a->dist),
			lat_work_dist_name(&b->dist),
			lat_work_dist_name(&a->dist),
			lat_work_dist_name(&b->dist));
		for (size_t i = 0; i < a->sweep.done; i++) {
			const struct lat_knee_point *p = &a->sweep.pts[i];
			const struct lat_knee_point *q =
				same_rho(&b->sweep, p->rho_asked);
			double r, h, kr;

			if (!q)
				continue;
			r = q->wait_tau / p->wait_tau;
			h = ratio_half(p, q);
			kr = kingman_ratio(p, q);
			fprintf(out, "  %5.3f  %9.3f  %9.3f  %11.3g  %11.3g  "
				"%5.2f ± %-8.2f %13.2f  %s\n", p->rho_asked,
				p->rho, q->rho, p->wait_tau, q->wait_tau, r, h,
				kr, !isfinite(h) ? "-" :
				fabs(r - kr) <= h ? "yes" : "no");
		}
		fprintf(out, "  (for Poisson arrivals, exp against det work: "
			"(1 + 1) / (1 + 0) = 2; ± is the 95%% interval of the "
			"ratio from the two means' intervals taken as "
			"independent, wider than it is: both see the same "
			"arrivals; inside: Kingman's ratio from the measured "
			"c_a, c_s lies in it)\n");
	}
}

void lat_knee_print(FILE *out, const struct lat_knee_report *o)
{
	char f[LAT_FMT_LEN], m[LAT_FMT_LEN], t[LAT_FMT_LEN];

	fprintf(out, "latlab knee: %s arrivals, %zu points of %s, seed %llu\n",
		o->base.arrivals == LAT_PACE_POISSON ? "poisson" : "fixed",
		o->kc.n_rho, ns(t, o->kc.point_s * 1e9),
		(unsigned long long)o->base.seed);
	fprintf(out, "wake-up floor %s (p50 pickup of an idle stage at "
		"%.0f/s, no work): tau must be at least %s\n",
		ns(f, o->floor_ns), o->floor_rate,
		ns(m, LAT_KNEE_FLOOR_FACTOR * o->floor_ns));
	print_threads(out, o);
	if (o->kp.stage_nice && o->kp.nice_error)
		fprintf(out, "nice: stage 1 could not take nice %d (%s): its "
			"CPU share is whatever the neighbours leave\n",
			o->kp.stage_nice, lat_strerror(o->kp.nice_error));
	else if (o->kp.stage_nice)
		fprintf(out, "nice: stage 1 and the producer run at nice %d, "
			"so their CPU share does not shrink with each "
			"neighbour; the neighbours' slices still preempt them "
			"and are part of the services and gaps measured\n",
			o->kp.stage_nice);
	if (o->kp.stage_nice && o->autogroup_error &&
	    o->autogroup_error != -ENOENT)
		fprintf(out, "nice: the session's autogroup kept its weight "
			"(%s): against other sessions the threads' nice "
			"counts for nothing\n",
			lat_strerror(o->autogroup_error));
	else if (o->kp.stage_nice && !o->autogroup_error)
		fprintf(out, "nice: this session's scheduler autogroup ran at "
			"nice %d during the sweep (restored to %d): thread "
			"nice values only weigh inside an autogroup\n",
			o->kp.stage_nice, o->autogroup_old);
	if (o->kp.have_last && o->kp.last.loadavg >= 0)
		fprintf(out, "load: average %.1f on %d CPUs when the last run "
			"started: other processes took turns on these CPUs, "
			"and their time is in the services measured\n",
			o->kp.last.loadavg, o->kp.last.online_cpus);
	for (int i = 0; i < o->n_runs; i++)
		print_run(out, o, &o->runs[i]);
	print_compare(out, o);
	fprintf(out, "\nthe measured wait is exactly Lindley's recursion over "
		"the measured gaps and services (the replay column): the "
		"wake-ups and preemptions are in those, not beside them; the "
		"simulator draws the same distributions independently, so "
		"where it differs the difference is either an order it cannot "
		"see (z beyond 2.5 above) or this run's sample path; Kingman "
		"adds a two-moment approximation on top, and with Poisson "
		"arrivals equals P-K, the exact M/G/1 mean, so the simulator "
		"fed histograms can only beat it by what the measured "
		"arrivals or services hold beyond c_a and c_s; the trace "
		"column is fed the point's own gaps, so it knows the path's "
		"luck that Kingman and the simulator average over\n");
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_dist(struct lat_json *j, const char *key,
		      const struct lat_knee_dist *d)
{
	lat_json_obj_begin(j, key);
	lat_json_double(j, "mean_ns", d->mean);
	lat_json_double(j, "p50_ns", d->p50);
	lat_json_double(j, "p99_ns", d->p99);
	lat_json_double(j, "p999_ns", d->p999);
	lat_json_obj_end(j);
}

static void json_point(struct lat_json *j, const struct lat_knee_point *p)
{
	lat_json_obj_begin(j, NULL);
	lat_json_double(j, "rho_asked", p->rho_asked);
	lat_json_double(j, "rate", p->rate);
	lat_json_double(j, "rho_first_run", p->rho_first);
	lat_json_uint(j, "events", p->events);
	lat_json_uint(j, "unchained", p->unchained);
	lat_json_double(j, "rho", p->rho);
	lat_json_double(j, "tau_ns", p->tau_ns);
	lat_json_double(j, "ca", p->ca);
	lat_json_double(j, "cs", p->cs);
	lat_json_double(j, "p_wait", p->p_wait);
	json_dist(j, "wait", &p->wait);
	lat_json_double(j, "wait_mean_ci95_half_ns", p->wait_half);
	lat_json_double(j, "wait_over_tau", p->wait_tau);
	json_dist(j, "e2e", &p->e2e);
	lat_json_double(j, "pickup_p50_ns", p->pickup_p50_ns);
	lat_json_double(j, "kingman_ns", p->kingman_ns);
	lat_json_double(j, "kingman_rel_err",
			lat_qsim_rel_err(p->kingman_ns, p->wait.mean));
	lat_json_double(j, "pk_ns", p->pk_ns);
	lat_json_double(j, "pk_rel_err",
			lat_qsim_rel_err(p->pk_ns, p->wait.mean));
	lat_json_double(j, "sim_ns", p->sim_ns);
	lat_json_double(j, "sim_ci95_half_ns", p->sim_half);
	lat_json_double(j, "sim_rel_err",
			lat_qsim_rel_err(p->sim_ns, p->wait.mean));
	lat_json_double(j, "sim_wait_p99_ns", p->sim_p99_ns);
	lat_json_double(j, "sim_trace_ns", p->sim_trace_ns);
	lat_json_double(j, "sim_trace_ci95_half_ns", p->sim_trace_half);
	lat_json_double(j, "sim_trace_rel_err",
			lat_qsim_rel_err(p->sim_trace_ns, p->wait.mean));
	lat_json_obj_begin(j, "log_err");
	for (int k = 0; k < LAT_KNEE_PREDS; k++)
		lat_json_double(j, lat_knee_pred_name(k), p->log_err[k]);
	lat_json_obj_end(j);
	lat_json_str(j, "closer", lat_knee_closer_name(p->closer));
	lat_json_str(j, "why", lat_knee_why_name(p->why));
	lat_json_str(j, "why_text", lat_knee_why_text(p->why));
	lat_json_bool(j, "sim_within_ci95", p->sim_within_ci);
	lat_json_obj_begin(j, "replay");
	lat_json_uint(j, "events", p->attr.n);
	lat_json_double(j, "in_order_ns", p->attr.replay_ns);
	lat_json_double(j, "services_shuffled_ns", p->attr.svc_shuffled_ns);
	lat_json_double(j, "gaps_shuffled_ns", p->attr.gap_shuffled_ns);
	lat_json_double(j, "both_shuffled_ns", p->attr.both_shuffled_ns);
	lat_json_double(j, "services_shuffled_sd_ns",
			p->attr.svc_shuffled_sd_ns);
	lat_json_double(j, "gaps_shuffled_sd_ns", p->attr.gap_shuffled_sd_ns);
	lat_json_double(j, "services_z", p->attr.svc_z);
	lat_json_double(j, "gaps_z", p->attr.gap_z);
	lat_json_uint(j, "shuffles", LAT_KNEE_SHUFFLES);
	lat_json_double(j, "service_after_idle_ns", p->attr.svc_idle_ns);
	lat_json_double(j, "service_after_wait_ns", p->attr.svc_busy_ns);
	lat_json_double(j, "gap_lag1", p->attr.gap_lag1);
	lat_json_double(j, "service_lag1", p->attr.svc_lag1);
	lat_json_double(j, "backlog_next_gap_corr", p->attr.backlog_gap_corr);
	lat_json_obj_end(j);
	lat_json_double(j, "loadavg", p->loadavg);
	lat_json_double(j, "steal_pct", p->steal_pct);
	lat_json_obj_end(j);
}

/* "score": points, and per prediction its mean / largest |ln err|, the
 * points where it was closest, and for the simulators the gain over
 * Kingman with its interval and verdict. */
static void json_score(struct lat_json *j, const struct lat_knee_score *c)
{
	lat_json_obj_begin(j, "score");
	lat_json_uint(j, "points", c->n);
	for (int k = 0; k < LAT_KNEE_PREDS; k++) {
		lat_json_obj_begin(j, lat_knee_pred_name(k));
		lat_json_double(j, "mean_abs_log_err", c->mean_abs_log[k]);
		lat_json_double(j, "max_abs_log_err", c->max_abs_log[k]);
		lat_json_uint(j, "closest_points", c->closest[k]);
		if (k != LAT_KNEE_PRED_KINGMAN) {
			lat_json_double(j, "gain_over_kingman", c->gain[k]);
			lat_json_double(j, "gain_ci95_half", c->gain_half[k]);
			lat_json_str(j, "closer",
				     lat_knee_verdict_name(c->verdict[k]));
		}
		lat_json_obj_end(j);
	}
	lat_json_obj_end(j);
}

static void json_run(struct lat_json *j, const struct lat_knee_report *o,
		     const struct lat_knee_run *run)
{
	const struct lat_knee_sweep *s = &run->sweep;

	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "work_dist", lat_work_dist_name(&run->dist));
	lat_json_double(j, "work_ns", o->base.work_ns);
	lat_json_double(j, "work_cv", run->work_cv);
	lat_json_double(j, "tau_ns", run->tau_ns);
	lat_json_double(j, "calibration_cs", run->cal_cs);
	lat_json_double(j, "calibration_tau_queued_ns", run->tau_queued_ns);
	lat_json_double(j, "calibration_wake_ns", run->wake_ns);
	lat_json_double(j, "rate_tau_ns", o->rate_tau_ns);
	lat_json_bool(j, "interrupted", s->interrupted);
	lat_json_arr_begin(j, "points");
	for (size_t i = 0; i < s->done; i++)
		json_point(j, &s->pts[i]);
	lat_json_arr_end(j);
	lat_json_obj_begin(j, "knee");
	lat_json_double(j, "slope", o->kc.knee_slope);
	lat_json_double(j, "measured", s->knee_measured);
	lat_json_double(j, "kingman", s->knee_kingman);
	lat_json_double(j, "simulated", s->knee_sim);
	lat_json_double(j, "simulated_trace", s->knee_trace);
	lat_json_obj_end(j);
	json_score(j, &s->score);
	lat_json_obj_end(j);
}

static void json_threads(struct lat_json *j, const struct lat_knee_report *o)
{
	const struct lat_pipe_result *r = &o->kp.last;

	lat_json_bool(j, "oversubscribed", o->oversubscribed);
	lat_json_arr_begin(j, "threads");
	for (int i = 0; o->kp.have_last && i < r->n_hot; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "name", r->thread[i].name);
		lat_json_int(j, "cpu", r->thread[i].cpu);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_double_if(j, "loadavg", o->kp.have_last && r->loadavg >= 0,
			   r->loadavg);
}

/*
 * What the sweep changed in the system while it ran (the default raises
 * priorities; --nice 0 changes nothing): the threads' nice and the
 * session autogroup's, each with its error, and the value given back.
 */
static void json_priority(struct lat_json *j, const struct lat_knee_report *o)
{
	bool ag = o->kp.stage_nice && !o->autogroup_error;

	lat_json_obj_begin(j, "priority");
	lat_json_bool(j, "changed", o->kp.stage_nice &&
		      (!o->kp.nice_error || ag));
	lat_json_int(j, "thread_nice", o->kp.stage_nice);
	lat_json_int(j, "thread_nice_error", o->kp.nice_error);
	if (ag)
		lat_json_int(j, "autogroup_nice", o->kp.stage_nice);
	else
		lat_json_null(j, "autogroup_nice");
	lat_json_int(j, "autogroup_error", o->kp.stage_nice ?
		     o->autogroup_error : 0);
	if (ag)
		lat_json_int(j, "autogroup_restored_to", o->autogroup_old);
	else
		lat_json_null(j, "autogroup_restored_to");
	lat_json_obj_end(j);
}

void lat_knee_json(struct lat_json *j, const struct lat_knee_report *o)
{
	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "arrivals", o->base.arrivals == LAT_PACE_POISSON ?
		     "poisson" : "fixed");
	lat_json_uint(j, "seed", o->base.seed);
	lat_json_double(j, "point_s", o->kc.point_s);
	lat_json_double(j, "wakeup_floor_ns", o->floor_ns);
	lat_json_double(j, "floor_factor", LAT_KNEE_FLOOR_FACTOR);
	lat_json_int(j, "stage_nice", o->kp.stage_nice);
	lat_json_int(j, "stage_nice_error", o->kp.nice_error);
	json_priority(j, o);
	json_threads(j, o);
	lat_json_arr_begin(j, "runs");
	for (int i = 0; i < o->n_runs; i++)
		if (o->runs[i].started)
			json_run(j, o, &o->runs[i]);
	lat_json_arr_end(j);
	lat_json_int(j, "signal", o->sig);
	lat_json_obj_end(j);
}

static void knee_text(FILE *out, const void *r)
{
	lat_knee_print(out, r);
}

static void knee_doc(struct lat_json *j, const void *r)
{
	lat_knee_json(j, r);
}

int lat_knee_write(FILE *out, const struct lat_knee_report *r, bool json)
{
	return lat_json_or_text(out, json, r, knee_text, knee_doc);
}
