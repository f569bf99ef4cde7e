/*
 * lat_qsim: a G/G/c FCFS queueing simulator, the classical formulas beside
 * it, and the saturation knee.
 *
 * Units: time is measured in τ, the mean service time (every service
 * distribution here has mean 1). An arrival process at utilization ρ with c
 * servers has mean inter-arrival time 1/(c ρ). Callers who want seconds
 * multiply by their own τ (the CLI takes --service-mean, or the mean of an
 * empirical histogram).
 *
 * Invariants:
 *  - Reproducible: the same configuration and seed give bit-identical
 *    results on the same build. The generator is xoshiro256** seeded by
 *    splitmix64; rand() is never used.
 *  - Samplers consume random numbers independently of the distribution's
 *    mean, so two runs with the same seed at different ρ see the same
 *    uniforms scaled differently (common random numbers). Waits are then
 *    monotone in ρ sample path by sample path, which is what makes a sweep
 *    curve smooth, a knee well defined and a bisection on p99 stable.
 *  - Nothing is lost: every measured customer lands in the wait and sojourn
 *    histograms or in their overflow_count (values beyond
 *    LAT_QSIM_HIST_MAX_TAU), which the result reports.
 *  - The simulation loop does not allocate except to grow the
 *    departure-time buffer used for the queue-length integral, and only when
 *    the number in system reaches a new power of two.
 *  - Not thread-safe per object; distinct configs/results may be used from
 *    distinct threads.
 *
 * Confidence intervals: non-overlapping batch means. The measured customers
 * (after warm-up deletion) are cut into B equal batches (default 32); the
 * interval is mean ± t(0.975, B-1) * s / sqrt(B), s the standard deviation
 * of the batch means. Batch means rather than independent replications
 * because one long run pays for one warm-up and uses the same code path as
 * a point of a sweep. Near saturation consecutive customers' waits are
 * correlated over ~1/(1-ρ)^2 customers; a fixed number of batches makes the
 * batches longer as N grows, so the interval becomes honest once a batch is
 * much longer than that. The result carries the lag-1 autocorrelation of
 * the batch means and marks the interval "suspect" when it exceeds
 * LAT_QSIM_LAG1_SUSPECT: batches are then too short and the interval too
 * narrow; run more customers. The same batches give intervals for the
 * sojourn p99 and p99.9 (spread of the per-batch quantiles).
 */
#ifndef LATLAB_QSIM_H
#define LATLAB_QSIM_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/hist.h"

/* ---- random numbers ---------------------------------------------------- */

struct lat_qsim_rng {
	uint64_t s[4];
};

/* Seed xoshiro256** from @seed through splitmix64 (any seed, even 0). */
void lat_qsim_rng_seed(struct lat_qsim_rng *r, uint64_t seed);

/* Next 64 random bits. Inline, no allocation. */
static inline uint64_t lat_qsim_rng_next(struct lat_qsim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5, t = s[1] << 17;
	uint64_t out = ((x << 7) | (x >> 57)) * 9;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return out;
}

/* Uniform on (0, 1]: never 0, so -log(u) is always finite. */
static inline double lat_qsim_rng_unit(struct lat_qsim_rng *r)
{
	return (double)((lat_qsim_rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

/* ---- distributions ------------------------------------------------------- */

enum lat_qsim_kind {
	LAT_QSIM_DET,       /* constant */
	LAT_QSIM_EXP,       /* exponential, cv 1 */
	LAT_QSIM_ERLANG,    /* sum of k exponentials, cv 1/sqrt(k) */
	LAT_QSIM_HYPER,     /* two-phase hyperexponential, balanced means */
	LAT_QSIM_LOGNORMAL, /* set by mean and cv */
	LAT_QSIM_GAMMA,     /* set by mean and cv (shape 1/cv^2) */
	LAT_QSIM_UNIFORM,   /* [m(1-sqrt3 cv), m(1+sqrt3 cv)], cv <= 1/sqrt3 */
	LAT_QSIM_EMPIRICAL, /* from a latlab histogram */
};

/*
 * A distribution with mean @mean. Parameters are stored for mean 1 and a
 * sample is mean * unit sample, so changing @mean rescales without changing
 * how random numbers are consumed (see the invariants).
 */
struct lat_qsim_dist {
	enum lat_qsim_kind kind;
	double mean;
	double cv;          /* coefficient of variation (exact, or of the table) */
	unsigned k;         /* erlang phases */
	double p1;          /* hyper: probability of phase 1 */
	double m1, m2;      /* hyper: phase means (for overall mean 1) */
	double mu, sigma;   /* lognormal: of the underlying normal */
	double shape;       /* gamma shape alpha = 1/cv^2 */
	double gd, gc;      /* gamma: Marsaglia-Tsang constants */
	double lo, width;   /* uniform */
	double *cdf;        /* empirical: cumulative probability per slot */
	double *slot_lo;    /* empirical: slot start, unit mean */
	double *slot_w;     /* empirical: slot width, unit mean */
	size_t slots;
	double scale_ns;    /* empirical: the table's mean in the hist's unit */
	char name[48];      /* "exp", "erlang:4", "hyper:2", "empirical" ... */
};

/*
 * Parse a distribution spec into @d with mean 1. Specs: "det", "exp",
 * "erlang:K" (K 1..1000), "hyper:CV" (CV >= 1), "lognormal:CV" (CV > 0),
 * "gamma:CV" (CV > 0), "uniform" (0..2, cv 1/sqrt3) or "uniform:CV"
 * (0 <= CV <= 1/sqrt3), "cv:X" (see lat_qsim_dist_from_cv()). Numbers are
 * finite decimals. Returns 0 or -EINVAL (unknown name or bad parameter).
 * No allocation.
 */
int lat_qsim_dist_parse(struct lat_qsim_dist *d, const char *spec);

/*
 * The distribution used for a bare coefficient of variation:
 * 0 -> det, 1 -> exp, (0,1) -> gamma (Erlang when 1/cv^2 is an integer up
 * to 1000), > 1 -> hyperexponential. Returns 0, or -EINVAL unless cv is 0
 * or in [LAT_QSIM_CV_MIN, LAT_QSIM_CV_MAX]: below that the gamma shape
 * 1/cv^2 is so large that every result is NaN.
 */
#define LAT_QSIM_CV_MIN 1e-3
#define LAT_QSIM_CV_MAX 1e3
int lat_qsim_dist_from_cv(struct lat_qsim_dist *d, double cv);

/*
 * Empirical distribution from histogram @h (any unit): each non-empty slot
 * becomes a uniform piece over its equivalent range, weighted by its count;
 * the table is then rescaled to mean 1 and d->scale_ns keeps the table's
 * mean in @h's unit. Allocates the table (freed by lat_qsim_dist_destroy).
 * Returns 0, -EINVAL for an empty histogram or one whose mean is 0, or
 * -ENOMEM.
 */
int lat_qsim_dist_init_hist(struct lat_qsim_dist *d, const struct lat_hist *h);

/*
 * Empirical distribution from a latlab .hlog or .hgrm file at @path: the
 * intervals tagged @tag (NULL: all of them; "" the untagged) merged by
 * lat_hlog_load (what `latlab report` reads, so both agree on what a log
 * holds), then lat_qsim_dist_init_hist. d->scale_ns is their mean in ns
 * (.hlog values are ns; .hgrm values are scaled to ns as they are read).
 * *@refused (may be NULL) gets the counts that did not fit while merging,
 * left out of the table. Returns 0; lat_hlog_load's error with its
 * one-line reason (naming the file) in @why (@len bytes); -EINVAL with
 * @why empty when nothing positive is left to sample; or -ENOMEM.
 */
int lat_qsim_dist_init_hlog(struct lat_qsim_dist *d, const char *path,
			    const char *tag, int64_t *refused, char *why,
			    size_t len);

/*
 * lat_qsim_dist_init_hlog from one "PATH" or "PATH.hlog:TAG" (or
 * ".hgrm:TAG") string: the tag is what follows ".hlog:" / ".hgrm:", so a
 * ':' elsewhere in the path stays the path's. Returns the same codes;
 * every -EINVAL has its one line in @why (a path over 4095 bytes, an
 * empty tag, nothing positive to sample).
 */
int lat_qsim_dist_init_hlog_spec(struct lat_qsim_dist *d, const char *spec,
				 int64_t *refused, char *why, size_t len);

/* Release an empirical table; no-op for the others. Safe twice. */
void lat_qsim_dist_destroy(struct lat_qsim_dist *d);

/* One sample (>= 0). No allocation; thread-safe for distinct @r. */
double lat_qsim_dist_sample(const struct lat_qsim_dist *d,
			    struct lat_qsim_rng *r);

/* ---- simulation ---------------------------------------------------------- */

/* Histogram resolution: values are recorded in units of τ/1000. */
#define LAT_QSIM_TICKS_PER_TAU 1000
/* Waits beyond this many τ go to the histogram's overflow_count. */
#define LAT_QSIM_HIST_MAX_TAU 1e7
#define LAT_QSIM_MAX_BATCHES 1024
/* Lag-1 autocorrelation of batch means above which the CI is suspect. */
#define LAT_QSIM_LAG1_SUSPECT 0.4

struct lat_qsim_config {
	struct lat_qsim_dist arrival; /* inter-arrival times; mean is set
					 from rho by lat_qsim_run() */
	struct lat_qsim_dist service; /* service times; mean forced to 1 */
	double rho;          /* per-server utilization, 0 < rho < 1 */
	unsigned servers;    /* c >= 1 */
	uint64_t customers;  /* measured customers N >= batches */
	uint64_t warmup;     /* customers simulated first and discarded */
	unsigned batches;    /* 2..LAT_QSIM_MAX_BATCHES */
	uint64_t seed;
	/*
	 * Polled every LAT_QSIM_STOP_EVERY customers (may be NULL): true
	 * ends the run at once with -EINTR. When two batches or more were
	 * done, the result holds them (customers and batches say how many)
	 * and is valid; otherwise it is empty.
	 */
	bool (*stop)(void *ctx);
	void *stop_ctx;
};

#define LAT_QSIM_STOP_EVERY 65536

/* Defaults: exp/exp, rho 0.9, c 1, N 10^6, warm-up N/10, 32 batches, seed 1. */
void lat_qsim_config_init(struct lat_qsim_config *cfg);

/*
 * @n measured customers after the default warm-up, n/10 (enough for a
 * queue below saturation to forget its empty start; `latlab queue` and
 * `latlab knee` use it unless --warmup is given).
 */
void lat_qsim_config_customers(struct lat_qsim_config *cfg, uint64_t n);

/* A mean with its 95% confidence interval from batch means. */
struct lat_qsim_ci {
	double mean;      /* over all measured customers */
	double half;      /* half-width of the 95% interval */
	double lag1;      /* lag-1 autocorrelation of the batch means */
	bool suspect;     /* lag1 > LAT_QSIM_LAG1_SUSPECT: interval too narrow */
};

struct lat_qsim_result {
	uint64_t customers;       /* measured */
	uint64_t warmup;          /* discarded */
	unsigned servers;
	unsigned batches;
	double rho;               /* configured */
	double utilization;       /* measured busy fraction per server */
	double arrival_rate;      /* measured, per τ */
	struct lat_qsim_ci wait;      /* W_q / τ */
	struct lat_qsim_ci sojourn;   /* W / τ */
	struct lat_qsim_ci p99;       /* sojourn p99 / τ (batch quantiles) */
	struct lat_qsim_ci p999;      /* sojourn p99.9 / τ */
	double mean_in_system;    /* L, time average over the window */
	double mean_in_queue;     /* L_q, time average */
	double little_rel;        /* (L - λW) / L: Little's law check */
	double max_wait, max_sojourn; /* exact, / τ */
	double zero_wait_fraction;    /* customers served without waiting */
	struct lat_hist wait_hist;    /* W_q in τ/LAT_QSIM_TICKS_PER_TAU */
	struct lat_hist sojourn_hist; /* W in the same unit */
	/* 95% intervals from the same batches: the percentiles
	 * lat_qsim_quantile_p[] of the wait and of the sojourn (mean = the
	 * whole run's percentile, half from the spread of the batches'
	 * own), and the probability of waiting P(W_q > 0) */
	struct lat_qsim_ci wait_q[4];
	struct lat_qsim_ci sojourn_q[4];
	struct lat_qsim_ci p_wait;
};

/* The percentiles with intervals in a result: 50, 90, 99, 99.9. */
extern const double lat_qsim_quantile_p[4];

/*
 * Validate @cfg: 0 or -EINVAL (rho not in (0,1), servers 0, batches out of
 * range, customers < batches, service mean not 1, non-finite parameters).
 */
int lat_qsim_config_check(const struct lat_qsim_config *cfg);

/*
 * Simulate @cfg into @res (caller storage; initialised here, release with
 * lat_qsim_result_destroy even on failure). Lindley recursion for c = 1, a
 * binary heap of server free times for c > 1. Returns 0, -EINVAL (see
 * lat_qsim_config_check) or -ENOMEM. Allocates the histograms and a
 * departure buffer; thread-safe for distinct arguments.
 */
int lat_qsim_run(const struct lat_qsim_config *cfg,
		 struct lat_qsim_result *res);

/* Release @res's histograms. Safe on a zeroed or destroyed result. */
void lat_qsim_result_destroy(struct lat_qsim_result *res);

/* Value at percentile @p (0..100) of a result histogram, in τ. */
double lat_qsim_hist_tau(const struct lat_hist *h, double p);

/* ---- statistics ---------------------------------------------------------- */

/* Student t quantile t(0.975, dof) for dof >= 1 (exact table to 30, then
 * a Cornish-Fisher expansion, error < 1e-4). */
double lat_qsim_t975(unsigned dof);

/*
 * Fill @ci from @n batch values @x (n >= 2) and the overall point estimate
 * @point: half-width from the spread of the batches, lag-1 autocorrelation,
 * suspect flag. No allocation.
 */
void lat_qsim_ci_from_batches(struct lat_qsim_ci *ci, double point,
			      const double *x, unsigned n);

/* ---- formulas (all in τ; rho per server, 0 < rho < 1) -------------------- */

/* Erlang C: probability of waiting in M/M/c at per-server load @rho, by
 * the Erlang B recurrence (no factorials, stable for c up to 10^6). */
double lat_qsim_erlang_c(unsigned c, double rho);
/* Kingman (G/G/1): rho/(1-rho) * (ca^2 + cs^2)/2. */
double lat_qsim_kingman(double rho, double ca, double cs);
/* Allen-Cunneen (G/G/c): W_q(M/M/c) * (ca^2 + cs^2)/2. */
double lat_qsim_allen_cunneen(unsigned c, double rho, double ca, double cs);
/* M/G/1 mean wait (Pollaczek-Khinchine): rho (1 + cs^2) / (2 (1 - rho)). */
double lat_qsim_pk(double rho, double cs);
/* M/M/c mean wait: C(c, rho) / (c (1 - rho)). */
double lat_qsim_mmc_wait(unsigned c, double rho);
/* M/M/c wait quantile: P(W_q > t) = C exp(-c (1 - rho) t). */
double lat_qsim_mmc_wait_quantile(unsigned c, double rho, double p);
/* M/M/1 sojourn quantile: -ln(1 - p) / (1 - rho), p in [0, 1). */
double lat_qsim_mm1_sojourn_quantile(double rho, double p);

/*
 * The formulas that apply to @cfg at its rho, with their names. approx is
 * Kingman (c = 1) or Allen-Cunneen (c > 1) and always present. exact is
 * present for M/G/1 (P-K; named M/M/1 or M/D/1 when it is), GI/M/1 (the
 * root sigma above; named D/M/1, Ek/M/1, H2/M/1, ...), M/M/c (Erlang C),
 * GI/M/c for c > 1 (Takács, lat_qsim_gimc; D/M/c, Ek/M/c, H2/M/c, ...)
 * and D/D/c (zero wait); exact sojourn quantiles for M/M/1, GI/M/1, M/M/c
 * and GI/M/c. None for G/G/c with non-exponential service and c > 1, nor
 * for lognormal arrivals (no closed-form LST).
 */
struct lat_qsim_formulas {
	const char *approx_name;
	double approx_wait;
	const char *exact_name;   /* NULL when there is no exact result */
	double exact_wait;
	bool has_exact_quantiles; /* M/M/1, GI/M/1: exact_p50..p999 of the
				   * sojourn */
	double exact_p50, exact_p90, exact_p99, exact_p999;
	/* with an exact mean (NaN otherwise): E[W_q^2] (second moment, in
	 * τ^2; NaN for M/G/1 when E[S^3] has no closed form) and P(W_q > 0) */
	double exact_wait2;
	double exact_p_wait;
	double sigma;             /* GI/M/c root (c >= 1), NaN otherwise */
};

void lat_qsim_formulas(const struct lat_qsim_config *cfg,
		       struct lat_qsim_formulas *f);

/*
 * Laplace-Stieltjes transform E[e^{-sX}] of @d's unit-mean form at s >= 0:
 * det, exp, Erlang, gamma, hyperexponential, uniform and empirical (exact
 * per uniform slot); NaN for lognormal (no closed form) or s < 0.
 */
double lat_qsim_dist_lst(const struct lat_qsim_dist *d, double s);

/* E[X^3] of @d's unit-mean form, NaN for empirical. */
double lat_qsim_dist_m3(const struct lat_qsim_dist *d);

/*
 * The GI/M/c root: sigma in (0, 1) with sigma = A*(c (1 - sigma)), A* the
 * LST of @arrival scaled to mean 1/(c rho) (service rate 1 per server).
 * For c = 1 an arrival finds n in the system with probability
 * (1 - sigma) sigma^n, so P(W_q > 0) = sigma, W_q = sigma / (1 - sigma)
 * and the sojourn is exponential with rate 1 - sigma (M/M/1: sigma = rho).
 * Found by bisection to 1e-16 after bracketing (f(0) > 0, f < 0 just
 * below 1 because A*'(0) = -1/rho). Returns 0, -EINVAL (rho not in
 * (0, 1), c = 0, lognormal arrivals) or -ERANGE (rho so close to 1 that
 * the root is not separable from 1 in doubles).
 */
int lat_qsim_gim_sigma(const struct lat_qsim_dist *arrival, double rho,
		       unsigned c, double *sigma);
/* GI/M/1 mean wait sigma/(1-sigma) and second moment 2 sigma/(1-sigma)^2. */
double lat_qsim_gim1_wait(double sigma);
double lat_qsim_gim1_wait2(double sigma);
/* M/G/1 E[W_q^2] (Takacs): 2 W^2 + rho E[S^3] / (3 (1 - rho)). */
double lat_qsim_mg1_wait2(double rho, const struct lat_qsim_dist *service);

/*
 * 1 - A*(s) computed directly (no cancellation when A*(s) is near 1), and
 * the divided difference (A*(x) - A*(y)) / (x - y), A*'(x) when x == y,
 * in closed form (expm1/log1p) for det, exp, Erlang, gamma and
 * hyperexponential, by 16-point Gauss-Legendre per uniform piece for
 * uniform and empirical. Unit-mean form; NaN for lognormal or s < 0.
 */
double lat_qsim_dist_lst_complement(const struct lat_qsim_dist *d, double s);
double lat_qsim_dist_lst_dd(const struct lat_qsim_dist *d, double x, double y);

/*
 * Exact GI/M/c (any c >= 1; service rate 1 per server, arrivals
 * @arrival at per-server load @rho). An arrival waits with probability
 * p_wait (Takács' boundary probabilities, summed stably: see
 * qsim_gimc.c for the formula, its sources and why it is stable); a wait
 * is then exponential with rate c (1 - sigma). M/M/c gives Erlang C,
 * c = 1 gives p_wait = sigma.
 */
struct lat_qsim_gimc {
	double sigma;   /* root of sigma = A*(c (1 - sigma)) */
	double rate;    /* c (1 - sigma): the rate of a positive wait */
	double p_wait;  /* P(W_q > 0) */
};

/* Returns 0, or lat_qsim_gim_sigma's errors, or -ERANGE when an LST
 * term underflows (the result would not be reliable). */
int lat_qsim_gimc(const struct lat_qsim_dist *arrival, double rho,
		  unsigned c, struct lat_qsim_gimc *g);
/* Mean wait p_wait / rate and E[W_q^2] = 2 p_wait / rate^2, in τ. */
double lat_qsim_gimc_wait(const struct lat_qsim_gimc *g);
double lat_qsim_gimc_wait2(const struct lat_qsim_gimc *g);
/* Sojourn (wait + exponential service) quantile, p in [0, 1), by
 * bisection on its exact tail. */
double lat_qsim_gimc_sojourn_quantile(const struct lat_qsim_gimc *g,
				      double p);

/* Relative error (model - sim) / sim; NaN when sim is 0 or not finite. */
double lat_qsim_rel_err(double model, double sim);

/* ---- sweep, knee, target ------------------------------------------------- */

/* Default knee slope: mean wait grows by 0.1 τ per 0.01 of utilization. */
#define LAT_QSIM_KNEE_SLOPE 10.0

/*
 * The knee of a wait curve: the lowest utilization at which the slope
 * d(W_q/τ)/dρ reaches @slope. Slopes are secants between consecutive
 * points (ρ_i, w_i), placed at the interval midpoints; the knee is the
 * linear interpolation, in slope, between the last midpoint below @slope
 * and the first at or above it (or the first midpoint if already there).
 * For W_q = ρ/(1-ρ) (M/M/1) and slope K the answer is 1 - 1/sqrt(K).
 * @rho must increase strictly; non-finite w ends the curve. Returns 0 and
 * sets *knee, or -ENOENT if the slope is never reached, -EINVAL for n < 2
 * or slope <= 0.
 */
int lat_qsim_knee(const double *rho, const double *w, size_t n, double slope,
		  double *knee);

/* Kingman's knee in closed form: 1 - sqrt((ca^2 + cs^2) / (2 slope)),
 * or NaN when that is not in (0, 1). */
double lat_qsim_kingman_knee(double ca, double cs, double slope);

/*
 * Highest utilization whose simulated sojourn p99 stays under @target τ:
 * bisection on rho in [LAT_QSIM_TARGET_LO, LAT_QSIM_TARGET_HI] until the
 * bracket is narrower than @tol (>= 1e-6), each step a full run of @cfg
 * with the same seed (common random numbers keep p99 monotone in rho).
 * out->rho is the low end of the final bracket (p99 < target there);
 * out->above_range says that even LAT_QSIM_TARGET_HI meets the target
 * (then out->rho = LAT_QSIM_TARGET_HI); out->runs counts the simulations.
 * Returns 0; -ENOENT if even LAT_QSIM_TARGET_LO misses the target (the
 * service time alone is too long); -EINVAL or -ENOMEM from lat_qsim_run.
 */
#define LAT_QSIM_TARGET_LO 0.001
#define LAT_QSIM_TARGET_HI 0.999
struct lat_qsim_target {
	double rho;
	unsigned runs;
	bool above_range;
};
int lat_qsim_target_p99(const struct lat_qsim_config *cfg, double target,
			double tol, struct lat_qsim_target *out);

/*
 * A sweep of utilization: one simulation per point from lo to hi in
 * steps, the formulas beside each, and the knee of the simulated mean
 * wait (lat_qsim_knee) with Kingman's closed form for one server. What
 * `latlab queue --sweep` runs.
 */
#define LAT_QSIM_MAX_SWEEP 10000

struct lat_qsim_point {
	double rho;
	bool stable;                  /* rho < 1: simulated (else formulas
				       * only: the queue grows forever) */
	struct lat_qsim_result r;     /* histograms already released */
	struct lat_qsim_formulas f;
};

struct lat_qsim_sweep {
	struct lat_qsim_point *pts;   /* n points, owned */
	size_t n, done;               /* done < n when stopped early */
	double knee_slope;
	int knee_err;                 /* 0, or -ENOENT: slope never reached */
	double knee;                  /* NAN unless knee_err == 0 */
	double kingman_knee;          /* NAN for c > 1 or out of (0, 1) */
};

/*
 * How many points lo, lo + step, ... <= hi lays out; 0 unless 0 < lo <=
 * hi <= 10, step > 0 and there are at most LAT_QSIM_MAX_SWEEP.
 */
size_t lat_qsim_sweep_points(double lo, double hi, double step);

/*
 * Lay out the points lo, lo + step, ... <= hi (i * step, not repeated
 * addition, so 0.1 + 89 * 0.01 is 0.99). Returns 0, -EINVAL unless
 * 0 < lo <= hi <= 10, step > 0, slope > 0 and at most LAT_QSIM_MAX_SWEEP
 * points, or -ENOMEM. Release with lat_qsim_sweep_destroy.
 */
int lat_qsim_sweep_init(struct lat_qsim_sweep *s, double lo, double hi,
			double step, double knee_slope);

/* Polled between points; true stops the sweep there. */
typedef bool (*lat_qsim_stop_fn)(void *ctx, size_t done, size_t n);

/*
 * Run @cfg at every point (its rho replaced), in order, until done or
 * @stop (may be NULL) says so; then find the knee over the points done.
 * Returns 0, or lat_qsim_run's error (s->done is the failed point).
 */
int lat_qsim_sweep_run(struct lat_qsim_sweep *s,
		       const struct lat_qsim_config *cfg,
		       lat_qsim_stop_fn stop, void *ctx);

/* Free the points. Safe on a zeroed or destroyed sweep. */
void lat_qsim_sweep_destroy(struct lat_qsim_sweep *s);

/*
 * A sweep's range as text, "lo:hi:step" (0.1:0.99:0.01): three finite
 * numbers split by ':' into *@lo, *@hi, *@step. Returns 0, -EINVAL for
 * anything else, or -ERANGE when they lay out no sweep
 * (lat_qsim_sweep_points is 0).
 */
int lat_qsim_parse_range(const char *spec, double *lo, double *hi,
			 double *step);

/* ---- the report: what `latlab queue` prints, as printers ------------ */

/* What a report says about the run beside its results. */
struct lat_qsim_report {
	struct lat_qsim_config cfg; /* the configuration simulated */
	double tau_ns;          /* mean service time in ns; 0: times in τ */
	const char *service_from; /* where an empirical service came from
				   * (a file name), or NULL */
	double sweep_lo, sweep_hi, sweep_step; /* a sweep's rho range */
	double knee_slope;      /* the knee's W_q/tau slope per unit rho */
	double target;          /* p99 sojourn target in τ; 0: none */
};

/* The search for the highest rho meeting a p99 target, and its run. */
struct lat_qsim_target_run {
	int status;             /* lat_qsim_target_p99's return: 0, -ENOENT */
	struct lat_qsim_target found;
	double tol;             /* the bisection's precision in rho */
	bool stopped;           /* the stop ended the final run (rho found,
				 * t->at released) */
	struct lat_qsim_result at; /* final run at rho (histograms kept) */
};

/*
 * The search and its run, as `latlab queue --target-p99` does them: zero
 * @t, lat_qsim_target_p99(@cfg, @target, @tol) into t->status and
 * t->found, then, unless the target is out of reach (-ENOENT), one more
 * run of @cfg at the rho found into t->at, to show its p99 and interval.
 * Returns 0 (t->status 0 or -ENOENT); -EINTR when @cfg's stop ended the
 * search (t->status -EINTR, t->found.runs counted) or the final run
 * (t->status 0, t->stopped, t->found set); or the first error. t->at is released on
 * every error; otherwise the caller releases it (lat_qsim_result_destroy,
 * harmless on the zeroed result of -ENOENT).
 */
int lat_qsim_target_search(const struct lat_qsim_config *cfg, double target,
			   double tol, struct lat_qsim_target_run *t);

/* The precision in rho of `latlab queue`'s search for a target p99. */
#define LAT_QSIM_TARGET_TOL 1e-3

/* Kendall's letter for a distribution: M, D, E<k> or G, into @buf. */
const char *lat_qsim_kendall(const struct lat_qsim_dist *d, char *buf,
			     size_t len);

/*
 * One point for people on @out: the queue in Kendall's notation, the
 * simulated wait and sojourn (mean with its 95 % interval, percentiles)
 * beside the formulas with their errors, and the accounting (Little's
 * law, values beyond the histograms, correlated batches).
 */
void lat_qsim_print_point(FILE *out, const struct lat_qsim_report *o,
			  const struct lat_qsim_result *r);
/* A sweep: per rho the mean wait, the formulas, p99 and p99.9; knees. */
void lat_qsim_print_sweep(FILE *out, const struct lat_qsim_report *o,
			  const struct lat_qsim_sweep *s);
/* A target search: the highest rho and the p99 there. */
void lat_qsim_print_target(FILE *out, const struct lat_qsim_report *o,
			   const struct lat_qsim_target_run *t);

/*
 * The utilization a run achieved against the one asked: far apart (few
 * customers over very many servers, extreme shapes), the results are not
 * those of the load asked for. A stable run's busy fraction is within a
 * few per cent of rho; beyond 5% this writes a warning into @buf and
 * returns true (lat_qsim_json_point puts it in "warnings").
 */
bool lat_qsim_util_warning(const struct lat_qsim_result *r, char *buf,
			   size_t len);

/*
 * The same facts as one JSON object (mode "point", "sweep" or
 * "target_p99"), written into @j; the caller owns lat_json_init and
 * lat_json_finish. Times are in τ, with tau_ns to convert.
 *
 * A run its stop cut short still gets a document: a point with fewer
 * than two batches (no result) is {"mode", "complete": false,
 * "customers": 0}; one with more is the full point with "complete":
 * false; a target search stopped in the bisection is {"mode", "status":
 * "interrupted", "rho": null, "runs"}, one stopped in its final run
 * {"mode", "status": "interrupted", "rho"}; a sweep holds the points done
 * with "complete": false. The text printers expect a finished run.
 */
struct lat_json;
void lat_qsim_json_point(struct lat_json *j, const struct lat_qsim_report *o,
			 const struct lat_qsim_result *r);
void lat_qsim_json_sweep(struct lat_json *j, const struct lat_qsim_report *o,
			 const struct lat_qsim_sweep *s);
void lat_qsim_json_target(struct lat_json *j,
			  const struct lat_qsim_report *o,
			  const struct lat_qsim_target_run *t);

/*
 * A sweep as a standalone SVG chart on @out: mean wait with its interval,
 * the approximate and exact formulas and the p99 over rho, log y; a sweep
 * stopped early (done < n) is marked partial under the title.
 * Returns 0, -ENOMEM, or the lat_svg error.
 */
int lat_qsim_sweep_svg(FILE *out, const struct lat_qsim_report *o,
		       const struct lat_qsim_sweep *s);

/* ---- the whole of `latlab queue` ------------------------------------ */

/* Which input of a report a refusal is about. */
enum lat_qsim_field { LAT_QSIM_ARRIVAL, LAT_QSIM_SERVICE,
		      LAT_QSIM_SERVICE_FROM, LAT_QSIM_CA, LAT_QSIM_CS };

/*
 * @o's two distributions from what a command takes: the arrivals from the
 * spec @arrival (lat_qsim_dist_parse) or, when NULL, the cv @ca
 * (lat_qsim_dist_from_cv); the service likewise from @service or @cs, or
 * from o->service_from when set and @service is NULL
 * (lat_qsim_dist_init_hlog_spec; then o->tau_ns is its mean in ns and
 * *@refused the counts it left out). Returns 0, or the first refusal with
 * its input in *@bad (LAT_QSIM_CA / _CS for a cv out of range) and one
 * phrase in @why (empty for -ENOMEM). Release o->cfg.service with
 * lat_qsim_dist_destroy.
 */
int lat_qsim_report_dists(struct lat_qsim_report *o, const char *arrival,
			  double ca, const char *service, double cs,
			  int64_t *refused, enum lat_qsim_field *bad,
			  char *why, size_t len);

/*
 * One experiment of a report and where its outputs go. The caller fills
 * rep (its cfg.stop stops a run inside; sweep_step > 0 makes it a sweep,
 * else target > 0 a target search, else one point), out, json, warn and
 * the optional svg, prefix and stop; the run fills svg_rc and why.
 */
struct lat_qsim_session {
	const struct lat_qsim_report *rep;
	FILE *out;              /* the text report, or one JSON document */
	bool json;
	FILE *warn;             /* warnings (a utilization far from rho) */
	const char *prefix;     /* before each warning ("latlab queue: ") */
	FILE *svg;              /* a sweep's chart (lat_qsim_sweep_svg), or
				 * NULL */
	lat_qsim_stop_fn stop;  /* between a sweep's points, may be NULL */
	void *stop_ctx;
	int svg_rc;             /* out: lat_qsim_sweep_svg's result */
	char why[160];          /* out: what a stopped run's output holds,
				 * or which run failed */
};

/*
 * Run @s's experiment and write its outputs: the text report or JSON
 * document on out (a stopped run's partial one, as lat_qsim_json_*
 * describe), a sweep's chart on svg. Returns 0; -EINTR when a stop ended
 * it (the output written; why says what it holds); or the first run's
 * error (nothing written; why names the run). Allocates (the runs).
 */
int lat_qsim_session_run(struct lat_qsim_session *s);

#endif
