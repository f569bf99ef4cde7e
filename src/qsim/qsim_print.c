/*
 * The queue simulator's report (what `latlab queue` prints): the
 * simulated distribution beside the formulas, as text for people (every
 * time with its unit) on a FILE * and as JSON for scripts (times in τ,
 * with tau_ns to convert) into a caller's writer.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/qsim.h"

/* A time for a person: "9.073 τ", or "18.1 µs" when τ is known in ns. */
static char *fmt_t(const struct lat_qsim_report *o, char *buf, double tau)
{
	if (!isfinite(tau))
		snprintf(buf, LAT_FMT_LEN, "-");
	else if (o->tau_ns > 0)
		lat_fmt_ns(buf, LAT_FMT_LEN, tau * o->tau_ns);
	else
		snprintf(buf, LAT_FMT_LEN, "%.4g τ", tau);
	return buf;
}

/* Print @s padded to @width columns (UTF-8 aware: τ and µ are 2 bytes). */
static void col(FILE *out, const char *s, int width, bool right)
{
	if (right)
		lat_fmt_pad(out, s, width);
	else
		lat_fmt_pad_left(out, s, width);
}

static char *fmt_err(char *buf, double model, double sim)
{
	double e = lat_qsim_rel_err(model, sim);

	if (isnan(e))
		snprintf(buf, LAT_FMT_LEN, "%s", "");
	else
		snprintf(buf, LAT_FMT_LEN, "(%+.1f%%)", 100 * e);
	return buf;
}

/* Kendall's letter for a distribution: M, D, E<k> or G. */
const char *lat_qsim_kendall(const struct lat_qsim_dist *d, char *buf,
			  size_t len)
{
	if (d->kind == LAT_QSIM_ERLANG)
		snprintf(buf, len, "E%u", d->k);
	else
		snprintf(buf, len, "%s", d->kind == LAT_QSIM_EXP ? "M" :
			 d->kind == LAT_QSIM_DET ? "D" : "G");
	return buf;
}

/* @rho_text: "at rho 0.9", "rho 0.1 to 0.99 step 0.01", ... */
static void print_header(FILE *out, const struct lat_qsim_report *o,
			 const char *rho_text)
{
	const struct lat_qsim_config *c = &o->cfg;
	char t[LAT_FMT_LEN], ka[8], ks[8];

	fprintf(out, "%s/%s/%u FCFS queue %s: arrivals %s (cv %.3g), service "
		"%s (cv %.3g)\n", lat_qsim_kendall(&c->arrival, ka, sizeof(ka)),
		lat_qsim_kendall(&c->service, ks, sizeof(ks)), c->servers,
		rho_text, c->arrival.name, c->arrival.cv, c->service.name,
		c->service.cv);
	if (o->tau_ns > 0)
		fprintf(out, "tau (mean service time) = %s", fmt_t(o, t, 1));
	else
		fprintf(out, "times in tau, the mean service time");
	fprintf(out, "; %llu customers after %llu warm-up, %u batches, seed "
		"%llu\n", (unsigned long long)c->customers,
		(unsigned long long)c->warmup, c->batches,
		(unsigned long long)c->seed);
}

/* One "simulated ± half | approx | exact" row. */
static void print_row(FILE *out, const struct lat_qsim_report *o,
		      const char *what, const struct lat_qsim_ci *ci,
		      double approx, double exact)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], e1[LAT_FMT_LEN];
	char e2[LAT_FMT_LEN], x[LAT_FMT_LEN], y[LAT_FMT_LEN];
	char sim[64];

	snprintf(sim, sizeof(sim), "%s ± %s%s", fmt_t(o, a, ci->mean),
		 fmt_t(o, b, ci->half), ci->suspect ? " *" : "");
	fprintf(out, "  %-15s ", what);
	col(out, sim, 26, false);
	col(out, isfinite(approx) ? fmt_t(o, x, approx) : "", 10, true);
	fprintf(out, " %-9s", fmt_err(e1, approx, ci->mean));
	col(out, isfinite(exact) ? fmt_t(o, y, exact) : "", 10, true);
	fprintf(out, " %s\n", fmt_err(e2, exact, ci->mean));
}

static void print_dist_row(FILE *out, const struct lat_qsim_report *o,
			   const char *what, const double v[5])
{
	char b[LAT_FMT_LEN];

	fprintf(out, "  %-22s", what);
	for (int i = 0; i < 5; i++) {
		fputc(' ', out);
		col(out, fmt_t(o, b, v[i]), 11, true);
	}
	fprintf(out, "\n");
}

static void hist_row(const struct lat_hist *h, double max, double v[5])
{
	v[0] = lat_qsim_hist_tau(h, 50);
	v[1] = lat_qsim_hist_tau(h, 90);
	v[2] = lat_qsim_hist_tau(h, 99);
	v[3] = lat_qsim_hist_tau(h, 99.9);
	v[4] = max;
}

/* The 95% half-widths of the percentiles of one row ("± 95%"). */
static void print_ci_row(FILE *out, const struct lat_qsim_report *o,
			 const struct lat_qsim_ci q[4])
{
	char b[LAT_FMT_LEN], c[LAT_FMT_LEN + 4];

	fprintf(out, "  %-22s", "  ± 95%");
	for (int i = 0; i < 4; i++) {
		snprintf(c, sizeof(c), "%s%s", fmt_t(o, b, q[i].half),
			 q[i].suspect ? " *" : "");
		fputc(' ', out);
		col(out, c, 11, true);
	}
	fprintf(out, "\n");
}

static void print_distribution(FILE *out, const struct lat_qsim_report *o,
			       const struct lat_qsim_result *r,
			       const struct lat_qsim_formulas *f)
{
	double v[5];
	char name[48];

	fprintf(out, "\n  %-22s %11s %11s %11s %11s %11s\n", "distribution",
		"p50", "p90", "p99", "p99.9", "max");
	hist_row(&r->wait_hist, r->max_wait, v);
	print_dist_row(out, o, "wait W_q", v);
	print_ci_row(out, o, r->wait_q);
	hist_row(&r->sojourn_hist, r->max_sojourn, v);
	print_dist_row(out, o, "sojourn W", v);
	print_ci_row(out, o, r->sojourn_q);
	if (f->has_exact_quantiles) {
		double e[5] = { f->exact_p50, f->exact_p90, f->exact_p99,
				f->exact_p999, NAN };

		snprintf(name, sizeof(name), "sojourn, exact %s",
			 f->exact_name);
		print_dist_row(out, o, name, e);
	}
}

static void print_accounting(FILE *out, const struct lat_qsim_report *o,
			     const struct lat_qsim_result *r)
{
	char a[LAT_FMT_LEN], rate[LAT_FMT_LEN];
	int64_t over = r->sojourn_hist.overflow_count +
		       r->wait_hist.overflow_count;

	fprintf(out, "\n  utilization %.4f (asked %.4g); %.1f%% of customers "
		"did not wait\n", r->utilization, r->rho,
		100 * r->zero_wait_fraction);
	fprintf(out, "  mean number in system L = %.4g, waiting L_q = %.4g "
		"(time averages of N(t))\n", r->mean_in_system,
		r->mean_in_queue);
	if (o->tau_ns > 0)
		lat_fmt_rate(rate, sizeof(rate),
			     r->arrival_rate / o->tau_ns * 1e9);
	else
		snprintf(rate, sizeof(rate), "%.4g per τ", r->arrival_rate);
	fprintf(out, "  Little's law: L = %.4g vs λW = %.4g (λ = %s, W = %s)"
		": differ by %.2g%%\n", r->mean_in_system,
		r->arrival_rate * r->sojourn.mean, rate,
		fmt_t(o, a, r->sojourn.mean), 100 * fabs(r->little_rel));
	if (over)
		fprintf(out, "  %lld values beyond %g tau are not in the "
			"histograms (they are in the means and max)\n",
			(long long)over, LAT_QSIM_HIST_MAX_TAU);
	if (r->wait.suspect || r->sojourn.suspect || r->p99.suspect ||
	    r->p999.suspect)
		fprintf(out, "  * batch means are correlated (lag-1 %.2f): "
			"the interval is too narrow; simulate more customers\n",
			fmax(r->wait.lag1, r->p99.lag1));
}

/*
 * The exact model's mean to five digits (D/M/1 at 0.9: 4.1787 τ), its
 * second moment and probability of waiting beside the simulated ones.
 */
static void print_exact_moments(FILE *out, const struct lat_qsim_report *o,
				const struct lat_qsim_result *r,
				const struct lat_qsim_formulas *f)
{
	const double tick = LAT_QSIM_TICKS_PER_TAU;
	double m = lat_hist_mean(&r->wait_hist) / tick;
	double sd = lat_hist_stddev(&r->wait_hist) / tick;

	if (!f->exact_name || !isfinite(f->exact_wait))
		return;
	fprintf(out, "  exact %s: W_q = %.5g τ", f->exact_name, f->exact_wait);
	if (isfinite(f->sigma) && o->cfg.servers == 1)
		fprintf(out, " (sigma = %.6g, the root of sigma = A*(1 - "
			"sigma))", f->sigma);
	else if (isfinite(f->sigma))
		fprintf(out, " (sigma = %.6g, the root of sigma = A*(c (1 - "
			"sigma)); P(W_q > 0) from Takacs' boundary "
			"probabilities)", f->sigma);
	fprintf(out, "\n  E[W_q^2] = %.4g τ^2 exact, %.4g τ^2 simulated; "
		"P(W_q > 0) = %.4f exact, %.4f ± %.4f simulated\n",
		f->exact_wait2, sd * sd + m * m, f->exact_p_wait,
		r->p_wait.mean, r->p_wait.half);
}

void lat_qsim_print_point(FILE *out, const struct lat_qsim_report *o,
		       const struct lat_qsim_result *r)
{
	struct lat_qsim_formulas f;
	char ex[40];

	char at[40];

	lat_qsim_formulas(&o->cfg, &f);
	snprintf(at, sizeof(at), "at rho %.4g", o->cfg.rho);
	print_header(out, o, at);
	snprintf(ex, sizeof(ex), "%s", f.exact_name ? f.exact_name :
		 "no exact");
	fprintf(out, "\n  %-15s %-26s %10s %-9s %10s\n", "", "simulated (95% "
		"CI)", f.approx_name, "", ex);
	print_row(out, o, "mean wait W_q", &r->wait, f.approx_wait,
		  f.exact_wait);
	print_row(out, o, "mean sojourn W", &r->sojourn, f.approx_wait + 1,
		  f.exact_wait + 1);
	print_row(out, o, "sojourn p99", &r->p99, NAN, f.exact_p99);
	print_row(out, o, "sojourn p99.9", &r->p999, NAN, f.exact_p999);
	fprintf(out, "  (in parentheses: (formula - simulated) / simulated)\n");
	print_exact_moments(out, o, r, &f);
	print_distribution(out, o, r, &f);
	print_accounting(out, o, r);
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_config(struct lat_json *j, const struct lat_qsim_report *o)
{
	const struct lat_qsim_config *c = &o->cfg;

	lat_json_obj_begin(j, "config");
	lat_json_uint(j, "servers", c->servers);
	lat_json_uint(j, "customers", c->customers);
	lat_json_uint(j, "warmup", c->warmup);
	lat_json_uint(j, "batches", c->batches);
	lat_json_uint(j, "seed", c->seed);
	lat_json_obj_begin(j, "arrival");
	lat_json_str(j, "dist", c->arrival.name);
	lat_json_double(j, "cv", c->arrival.cv);
	lat_json_obj_end(j);
	lat_json_obj_begin(j, "service");
	lat_json_str(j, "dist", c->service.name);
	lat_json_double(j, "cv", c->service.cv);
	if (o->service_from)
		lat_json_str(j, "from", o->service_from);
	lat_json_obj_end(j);
	lat_json_str(j, "time_unit", "tau");
	lat_json_double_if(j, "tau_ns", o->tau_ns > 0, o->tau_ns);
	lat_json_obj_end(j);
}

static void json_ci(struct lat_json *j, const char *prefix,
		    const struct lat_qsim_ci *ci)
{
	char k[48];

	snprintf(k, sizeof(k), "%s", prefix);
	lat_json_double(j, k, ci->mean);
	snprintf(k, sizeof(k), "%s_ci95_half", prefix);
	lat_json_double(j, k, ci->half);
	snprintf(k, sizeof(k), "%s_lag1", prefix);
	lat_json_double(j, k, ci->lag1);
	snprintf(k, sizeof(k), "%s_suspect", prefix);
	lat_json_bool(j, k, ci->suspect);
}

static void json_dist(struct lat_json *j, const char *key,
		      const struct lat_hist *h, double max,
		      const struct lat_qsim_ci q[4])
{
	static const char *const names[4] = { "p50", "p90", "p99", "p999" };
	double v[5];

	hist_row(h, max, v);
	lat_json_obj_begin(j, key);
	for (int i = 0; i < 4; i++) {
		char k[24];

		lat_json_double(j, names[i], v[i]);
		snprintf(k, sizeof(k), "%s_ci95_half", names[i]);
		lat_json_double(j, k, q[i].half);
	}
	lat_json_double(j, "max", v[4]);
	lat_json_int(j, "count", h->total_count);
	lat_json_int(j, "over_range", h->overflow_count);
	lat_json_obj_end(j);
}

static void json_formula(struct lat_json *j, const char *key,
			 const char *name, double wait, double sim)
{
	if (!name) {
		lat_json_null(j, key);
		return;
	}
	lat_json_obj_begin(j, key);
	lat_json_str(j, "name", name);
	lat_json_double(j, "wait", wait);
	lat_json_double(j, "rel_err", lat_qsim_rel_err(wait, sim));
	lat_json_obj_end(j);
}

static void json_result(struct lat_json *j, const struct lat_qsim_result *r)
{
	lat_json_double(j, "rho", r->rho);
	lat_json_double(j, "utilization", r->utilization);
	lat_json_double(j, "arrival_rate", r->arrival_rate);
	json_ci(j, "wait_mean", &r->wait);
	json_ci(j, "sojourn_mean", &r->sojourn);
	json_ci(j, "sojourn_p99", &r->p99);
	json_ci(j, "sojourn_p999", &r->p999);
	lat_json_double(j, "zero_wait_fraction", r->zero_wait_fraction);
	json_ci(j, "p_wait", &r->p_wait);
	lat_json_double(j, "mean_in_system", r->mean_in_system);
	lat_json_double(j, "mean_in_queue", r->mean_in_queue);
	lat_json_obj_begin(j, "little");
	lat_json_double(j, "L", r->mean_in_system);
	lat_json_double(j, "lambda_W", r->arrival_rate * r->sojourn.mean);
	lat_json_double(j, "rel_diff", r->little_rel);
	lat_json_obj_end(j);
}

static void json_formulas(struct lat_json *j, const struct lat_qsim_report *o,
			  double rho, const struct lat_qsim_result *r)
{
	struct lat_qsim_config c = o->cfg;
	struct lat_qsim_formulas f;

	c.rho = rho;
	lat_qsim_formulas(&c, &f);
	lat_json_obj_begin(j, "formulas");
	json_formula(j, "approx", f.approx_name, f.approx_wait,
		     r->wait.mean);
	json_formula(j, "exact", f.exact_name, f.exact_wait, r->wait.mean);
	lat_json_double_if(j, "exact_p_wait", isfinite(f.exact_p_wait),
			   f.exact_p_wait);
	lat_json_double_if(j, "exact_wait2", isfinite(f.exact_wait2),
			   f.exact_wait2);
	lat_json_double_if(j, "sigma", isfinite(f.sigma), f.sigma);
	if (f.has_exact_quantiles) {
		lat_json_obj_begin(j, "exact_sojourn");
		lat_json_double(j, "p50", f.exact_p50);
		lat_json_double(j, "p90", f.exact_p90);
		lat_json_double(j, "p99", f.exact_p99);
		lat_json_double(j, "p999", f.exact_p999);
		lat_json_obj_end(j);
	}
	lat_json_obj_end(j);
}

bool lat_qsim_util_warning(const struct lat_qsim_result *r, char *buf,
			   size_t len)
{
	if (!(r->customers > 0) ||
	    fabs(r->utilization - r->rho) <= 0.05 * r->rho)
		return false;
	snprintf(buf, len, "achieved utilization %.4f is far from the %.4g "
		 "asked: more customers (or fewer servers) for the load asked",
		 r->utilization, r->rho);
	return true;
}

void lat_qsim_json_point(struct lat_json *j, const struct lat_qsim_report *o,
		      const struct lat_qsim_result *r)
{
	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "mode", "point");
	if (r->batches < 2) { /* stopped before it had a result */
		lat_json_bool(j, "complete", false);
		lat_json_uint(j, "customers", 0);
		lat_json_obj_end(j);
		return;
	}
	json_config(j, o);
	/* false when Ctrl-C cut the run: the batches done, still valid */
	lat_json_bool(j, "complete", r->customers == o->cfg.customers);
	lat_json_uint(j, "customers_measured", r->customers);
	{
		char w[256];

		lat_json_arr_begin(j, "warnings");
		if (lat_qsim_util_warning(r, w, sizeof(w)))
			lat_json_str(j, NULL, w);
		lat_json_arr_end(j);
	}
	json_result(j, r);
	json_dist(j, "wait", &r->wait_hist, r->max_wait, r->wait_q);
	json_dist(j, "sojourn", &r->sojourn_hist, r->max_sojourn,
		  r->sojourn_q);
	json_formulas(j, o, r->rho, r);
	lat_json_obj_end(j);
}

/* ---- sweep --------------------------------------------------------------- */

/* A sweep table number; '-' where there is none (no exact formula). */
static void sweep_col(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, " %10.4g", v);
	else
		fprintf(out, " %10s", "-");
}

void lat_qsim_print_sweep(FILE *out, const struct lat_qsim_report *o,
		       const struct lat_qsim_sweep *s)
{
	bool suspect = false;
	char range[80];

	snprintf(range, sizeof(range), "swept over rho %.4g to %.4g step %.4g",
		 o->sweep_lo, o->sweep_hi, o->sweep_step);
	print_header(out, o, range);
	fprintf(out, "\n%6s %10s %9s %10s %10s %10s %10s\n", "rho", "W_q/tau",
		"± "
		"95%", o->cfg.servers == 1 ? "Kingman" : "Allen-C.", "exact",
		"p99 "
		"W/tau", "p99.9 W/tau");
	for (size_t i = 0; i < s->done; i++) {
		const struct lat_qsim_point *p = &s->pts[i];

		if (!p->stable) {
			fprintf(out, "%6.3f  unstable (rho >= 1): the queue "
				"grows without bound, not simulated\n", p->rho);
			continue;
		}
		suspect |= p->r.wait.suspect;
		fprintf(out, "%6.3f %10.4g %9.2g%s", p->rho, p->r.wait.mean,
			p->r.wait.half, p->r.wait.suspect ? "*" : " ");
		sweep_col(out, p->f.approx_wait);
		sweep_col(out, p->f.exact_wait);
		sweep_col(out, p->r.p99.mean);
		sweep_col(out, p->r.p999.mean);
		fputc('\n', out);
	}
	if (s->done < s->n)
		fprintf(out, "interrupted after %zu of %zu points\n", s->done,
			s->n);
	if (suspect)
		fprintf(out, "* correlated batch means: interval too narrow; "
			"simulate more customers\n");
	fprintf(out, "\nknee (W_q/tau rises %g per unit of rho): ",
		o->knee_slope);
	if (s->knee_err)
		fprintf(out, "not reached in this sweep");
	else
		fprintf(out, "rho %.3f", s->knee);
	if (isfinite(s->kingman_knee))
		fprintf(out, "; Kingman: rho %.3f", s->kingman_knee);
	fprintf(out, "\n");
}

void lat_qsim_json_sweep(struct lat_json *j, const struct lat_qsim_report *o,
		      const struct lat_qsim_sweep *s)
{
	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "mode", "sweep");
	json_config(j, o);
	lat_json_bool(j, "complete", s->done == s->n);
	lat_json_obj_begin(j, "knee");
	lat_json_double(j, "slope", o->knee_slope);
	lat_json_double_if(j, "simulated", !s->knee_err, s->knee);
	lat_json_double(j, "kingman", s->kingman_knee);
	lat_json_obj_end(j);
	lat_json_arr_begin(j, "points");
	for (size_t i = 0; i < s->done; i++) {
		const struct lat_qsim_point *p = &s->pts[i];

		lat_json_obj_begin(j, NULL);
		lat_json_bool(j, "stable", p->stable);
		if (p->stable) {
			json_result(j, &p->r);
			json_formulas(j, o, p->rho, &p->r);
		} else {
			lat_json_double(j, "rho", p->rho);
		}
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_obj_end(j);
}

/* ---- target -------------------------------------------------------------- */

void lat_qsim_print_target(FILE *out, const struct lat_qsim_report *o,
			const struct lat_qsim_target_run *t)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];
	struct lat_qsim_formulas f;

	print_header(out, o, "for a p99 target");
	fprintf(out, "\ntarget: sojourn p99 below %s\n",
		fmt_t(o, a, o->target));
	if (t->status == -ENOENT) {
		fprintf(out, "no utilization meets it: even at rho %g the p99 "
			"is above the target (the service time alone is too "
			"long)\n", LAT_QSIM_TARGET_LO);
		return;
	}
	if (t->found.above_range)
		fprintf(out, "every utilization up to rho %g meets it\n",
			LAT_QSIM_TARGET_HI);
	else
		fprintf(out, "highest utilization: rho %.3f (bisection to "
			"within %g, %u runs)\n", t->found.rho, t->tol,
			t->found.runs);
	fprintf(out, "at rho %.3f: p99 sojourn %s ± %s, mean sojourn %s\n",
		t->found.rho, fmt_t(o, a, t->at.p99.mean),
		fmt_t(o, b, t->at.p99.half), fmt_t(o, c, t->at.sojourn.mean));
	lat_qsim_formulas(&o->cfg, &f);
	/* M/M/1: p99 = ln(100) / (1 - rho) solved for rho. Other queues
	 * with exact quantiles (GI/M/1, GI/M/c) have other inverses. */
	if (f.has_exact_quantiles && o->cfg.servers == 1 &&
	    o->cfg.arrival.kind == LAT_QSIM_EXP &&
	    o->cfg.service.kind == LAT_QSIM_EXP && o->target > log(100))
		fprintf(out, "exact %s answer: rho %.3f\n", f.exact_name,
			1 - log(100) / o->target);
	fprintf(out, "(the p99 of one run has its own sampling error, shown "
		"by its 95%% interval;\n more customers narrow it)\n");
}

void lat_qsim_json_target(struct lat_json *j, const struct lat_qsim_report *o,
		       const struct lat_qsim_target_run *t)
{
	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "mode", "target_p99");
	if (t->status == -EINTR || t->stopped) {
		/* no run to show: only how far the search got */
		lat_json_str(j, "status", "interrupted");
		lat_json_double_if(j, "rho", t->status == 0, t->found.rho);
		if (t->status == -EINTR)
			lat_json_uint(j, "runs", t->found.runs);
		lat_json_obj_end(j);
		return;
	}
	json_config(j, o);
	lat_json_double(j, "target", o->target);
	lat_json_str(j, "status", t->status == -ENOENT ? "unreachable" :
		     t->found.above_range ? "above_range" : "found");
	if (t->status == -ENOENT) {
		lat_json_null(j, "rho");
	} else {
		lat_json_double(j, "rho", t->found.rho);
		lat_json_double(j, "precision", t->tol);
		lat_json_uint(j, "runs", t->found.runs);
		lat_json_obj_begin(j, "at_rho");
		json_result(j, &t->at);
		lat_json_obj_end(j);
	}
	lat_json_obj_end(j);
}
