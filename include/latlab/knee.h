/*
 * lat_knee: the saturation knee of a real pipeline, measured and set
 * beside queueing theory (Kingman, Pollaczek-Khinchine) and the simulator
 * fed with what was measured.
 *
 * The bottleneck stage is read as a G/G/1 FIFO queue. For each event i,
 * from its own stamps (clock cycles, struct lat_pipe_msg):
 *   A_i = t_sent        arrival: the producer published it into q1;
 *   B_i = work[0].begin the stage began its work;
 *   D_i = work[0].end   departure: the stage finished it.
 * The server is free for event i from max(A_i, D_{i-1}); so
 *   W_i = max(A_i, D_{i-1}) - A_i   the wait in queue (Lindley),
 *   S_i = D_i - max(A_i, D_{i-1})   the service: the work, the pop, the
 *                                    stamps, and whatever else held the
 *                                    stage's CPU (the consumer sharing it,
 *                                    a neighbour's time slice), and, for
 *                                    an event that found the stage idle,
 *                                    the wake-up (B_i - A_i less the work).
 * These definitions make D_i = max(A_i, D_{i-1}) + S_i hold exactly, so the
 * measured waits obey Lindley's recursion with the measured services and
 * gaps: a simulator fed those marginals differs from the measurement only
 * by the dependence it cannot see (services that are longer after idle,
 * bunched sends). Utilization is busy time over wall time,
 * rho = sum S_i / (D_last - A_first); tau = mean S; c_a and c_s are the
 * coefficients of variation of the gaps A_i - A_{i-1} and of S_i.
 *
 * Invariants:
 *  - Nothing lost: every event given to lat_knee_acc_add is counted,
 *    either in the chain (events) or as unchained (its predecessor's
 *    sample was dropped by the pipeline, so D_{i-1} is unknown and W_i
 *    cannot be computed: it is counted, not guessed).
 *  - Exact bookkeeping: busy time and waits are summed as integers in
 *    cycles; only the final division is in floating point.
 *  - The library never prints except to a FILE * it is given and never
 *    names a flag; runs are done by a runner (struct lat_knee_runner) so
 *    that the sweep logic can be tested with a fake pipeline whose queue
 *    is known exactly (tests/test_knee.c).
 */
#ifndef LATLAB_KNEE_H
#define LATLAB_KNEE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/clock.h"
#include "latlab/hist.h"
#include "latlab/pipe.h"
#include "latlab/qsim.h"

#define LAT_KNEE_MAX_POINTS 64
#define LAT_KNEE_BATCHES 32
/* tau must be at least this many wake-up floors (see lat_knee_floor). */
#define LAT_KNEE_FLOOR_FACTOR 20.0

/* Asked between two pieces of work that may take a while (the replays
 * of a point, the runs): true stops. */
typedef bool (*lat_knee_stop_fn)(void *ctx);

/* ---- per-event bookkeeping ---------------------------------------------- */

/* One chained event as the queue saw it, cycles: its gap from the
 * previous arrival (0 for the first), its service and its wait. */
struct lat_knee_ev {
	uint64_t gap, svc, wait;
	bool restart;             /* first, or after an unchained event:
				   * replays take this wait as measured */
};

/* Events kept per point for the replays (lat_knee_point_attribute). */
#define LAT_KNEE_TRACE_MAX (1u << 21)

struct lat_knee_acc {
	uint64_t expected;        /* events planned: sets the batch length */
	uint64_t events;          /* in the chain: W and S known */
	uint64_t unchained;       /* after a dropped predecessor: counted */
	uint64_t next_seq;        /* seq expected next */
	bool started;
	lat_cycles_t first_a, prev_a, prev_d, last_d;
	uint64_t busy;            /* sum S_i, cycles */
	uint64_t wait_sum;        /* sum W_i, cycles */
	uint64_t waited;          /* events with W_i > 0 */
	double wait_sq, svc_sq;   /* sums of squares, cycles^2 */
	uint64_t gaps;            /* gaps measured (consecutive arrivals) */
	uint64_t gap_sum;         /* cycles */
	double gap_sq;
	double batch_wait[LAT_KNEE_BATCHES]; /* sum W per batch, cycles */
	uint64_t batch_n[LAT_KNEE_BATCHES];
	struct lat_hist wait;     /* W_i, cycles */
	struct lat_hist service;  /* S_i, cycles */
	struct lat_hist gap;      /* A_i - A_{i-1}, cycles */
	struct lat_hist pickup;   /* B_i - max(A_i, D_{i-1}): wake/pop */
	struct lat_hist wake;     /* B_i - A_i of events that found the
				   * stage idle (A_i >= D_{i-1}): the
				   * wake-up, what the floor is made of */
	struct lat_hist e2e;      /* t_final - t0, cycles */
	/* the chained events in order, for the replays: the first
	 * trace_cap of them; those after are counted in trace_missed */
	struct lat_knee_ev *trace;
	uint64_t trace_cap, trace_n, trace_missed;
	bool chain_broken;        /* an unchained event since the last */
	uint64_t svc_idle_sum, idle_n; /* S of events with W = 0 */
};

/* Zero @a and allocate its histograms for @expected events (>= 1).
 * Returns 0, -EINVAL or -ENOMEM (then nothing is left allocated). */
int lat_knee_acc_init(struct lat_knee_acc *a, uint64_t expected);
void lat_knee_acc_destroy(struct lat_knee_acc *a);

/*
 * One event, in seq order: @t0 intended send, @a arrival (t_sent), @b
 * work begin, @d work end (departure), @fin the consumer's stamp, all in
 * cycles. A seq gap (dropped samples) makes this event unchained. No
 * allocation.
 */
void lat_knee_acc_add(struct lat_knee_acc *a, uint64_t seq, lat_cycles_t t0,
		      lat_cycles_t arr, lat_cycles_t b, lat_cycles_t d,
		      lat_cycles_t fin);

/* A lat_pipe_hooks.sample that feeds the lat_knee_acc in @ctx. */
void lat_knee_acc_sample(void *ctx, const struct lat_pipe_msg *m,
			 const int64_t *delta_ns, int n_deltas);

/* ---- one point ----------------------------------------------------------- */

/*
 * Where the fed simulator's wait comes from, by replaying the point's own
 * events through Lindley's recursion W' = max(0, W + S - G'):
 *  - in the measured order the replay IS the measurement (the definitions
 *    of W, S and the gaps make Lindley exact): replay_ns equals the
 *    measured mean, a check of the bookkeeping;
 *  - with the services permuted at random the services keep their
 *    distribution but lose their place: a wake-up paid by an event that
 *    found the stage idle, or a preemption that stretched several
 *    services in a row, lands anywhere. svc_shuffled_ns - measured is
 *    what the services' order did to the wait;
 *  - with the gaps permuted, the same for the sends: a late producer's
 *    bunch of short gaps is spread over the run;
 *  - both permuted is the simulator's model (independent draws from the
 *    measured marginals) on the point's own events; the simulator adds
 *    the histogram's resolution and a run of 10^6 customers where the
 *    point has thousands.
 * Means over LAT_KNEE_SHUFFLES permutations (seeded: reproducible).
 */
#define LAT_KNEE_SHUFFLES 32

struct lat_knee_attr {
	uint64_t n;               /* events replayed (0: none, NaN below) */
	double replay_ns;         /* measured order */
	double svc_shuffled_ns;   /* services permuted */
	double gap_shuffled_ns;   /* gaps permuted */
	double both_shuffled_ns;  /* both permuted */
	double svc_shuffled_sd_ns, gap_shuffled_sd_ns; /* their spread
				   * over the permutations */
	double svc_z, gap_z;      /* (measured - shuffled) / spread: set
				   * by lat_knee_point_explain */
	double svc_idle_ns;       /* mean S of events that found stage 1
				   * idle (their S holds the wake-up) */
	double svc_busy_ns;       /* mean S of events that queued */
	double gap_lag1, svc_lag1;/* lag-1 autocorrelations */
	double backlog_gap_corr;  /* corr(W_i + S_i, G_{i+1}): positive
				   * when sends come later while stage 1
				   * has more work in hand */
};

/* The predictions every point carries, in this order. */
enum lat_knee_pred {
	LAT_KNEE_PRED_KINGMAN,    /* Kingman from the measured rho, c_a, c_s */
	LAT_KNEE_PRED_SIM,        /* lat_qsim_run fed the gap and service
				   * histograms: independent draws */
	LAT_KNEE_PRED_TRACE,      /* the measured gaps in their order, the
				   * services drawn from their histogram */
	LAT_KNEE_PREDS,
};

/* "kingman", "simulator", "simulator_trace". */
const char *lat_knee_pred_name(enum lat_knee_pred k);

/* Which prediction is closer to the measured mean wait. */
enum lat_knee_closer {
	LAT_KNEE_CLOSER_NONE,     /* a prediction is missing */
	LAT_KNEE_CLOSER_KINGMAN,
	LAT_KNEE_CLOSER_SIM,
	LAT_KNEE_CLOSER_TIE,      /* the two errors differ by less than
				   * the measurement's 95% interval */
};

/* Why the fed simulator differs from the measurement at a point: the
 * largest of the effects the replays separate, with its sign. */
enum lat_knee_why {
	LAT_KNEE_WHY_NONE,        /* not computed (no simulation) */
	LAT_KNEE_WHY_AGREE,       /* no order effect beyond chance, and
				   * the simulator inside the intervals */
	LAT_KNEE_WHY_BUNCHED,     /* sends in bunches: the order of the
				   * gaps added wait the simulator lacks */
	LAT_KNEE_WHY_SPREAD,      /* the gaps' order removed wait */
	LAT_KNEE_WHY_CLUSTERED,   /* long services in a row (preemption):
				   * the order of services added wait */
	LAT_KNEE_WHY_WAKEUP,      /* long services fall on events that
				   * found the stage idle (the wake-up in
				   * S), in front of an empty queue: the
				   * order removed wait the simulator adds */
	LAT_KNEE_WHY_ORDER,       /* the services' order removed wait,
				   * not by wake-ups */
	LAT_KNEE_WHY_SAMPLE,      /* no order effect beyond chance, the
				   * simulator outside the intervals: the
				   * point's own draw of arrivals */
};

/* An order effect counts when it is at least LAT_KNEE_WHY_Z spreads of
 * the random orders and LAT_KNEE_WHY_MIN of the measured mean wait. */
#define LAT_KNEE_WHY_MIN 0.03
#define LAT_KNEE_WHY_Z 2.5

/* "agree", "bunched_sends", ...: a stable name for scripts. */
const char *lat_knee_why_name(enum lat_knee_why w);
/* One sentence for people. */
const char *lat_knee_why_text(enum lat_knee_why w);
const char *lat_knee_closer_name(enum lat_knee_closer c);

/* Mean, p50, p99, p99.9 of a measured time, ns. */
struct lat_knee_dist {
	double mean, p50, p99, p999;
};

struct lat_knee_point {
	double rho_asked;
	double rate;              /* offered events/s */
	double rho_first;         /* a retried point: the rho its first run
				   * achieved (the run not kept); else NaN */
	uint64_t events, unchained;
	/* measured */
	double rho;               /* busy / wall */
	double tau_ns;            /* mean service S */
	double ca, cs;            /* of the gaps and of S */
	double p_wait;            /* fraction of events with W > 0 */
	struct lat_knee_dist wait;/* W before the bottleneck */
	double wait_half;         /* 95% CI half-width of mean W (batches) */
	struct lat_knee_dist e2e;
	double pickup_p50_ns;     /* wake-up + pop, p50 */
	double wait_tau;          /* wait.mean / tau */
	/* predictions, ns */
	double kingman_ns;        /* rho/(1-rho) (ca^2+cs^2)/2 tau */
	double pk_ns;             /* M/G/1 with the measured cs: exact for
				   * Poisson arrivals; NaN otherwise */
	double sim_ns, sim_half;  /* the simulator fed the measured gap and
				   * service histograms at rho = tau/gap */
	double sim_p99_ns;        /* its wait p99 */
	/* the simulator fed the measured arrival process itself: the
	 * point's gaps in their measured order, each service drawn
	 * independently from the measured service histogram
	 * (lat_qsim_dist_sample), LAT_KNEE_TRACE_REPS times; the mean
	 * over the replications and its 95% half-width */
	double sim_trace_ns, sim_trace_half;
	/* ln(prediction / measured mean), per enum lat_knee_pred: NaN
	 * when either is missing */
	double log_err[LAT_KNEE_PREDS];
	/* why the simulator and Kingman differ from the measurement
	 * (lat_knee_point_attribute, lat_knee_point_explain) */
	struct lat_knee_attr attr;
	enum lat_knee_closer closer;
	enum lat_knee_why why;
	bool sim_within_ci;       /* |sim - measured| inside the two 95%
				   * half-widths combined */
	/* the run (from the runner) */
	double loadavg, steal_pct;
	bool interrupted;         /* stopped before its events: not kept */
};

/*
 * Measured fields of @p from @a (cycles converted with @cycles_per_ns).
 * Returns 0, or -EINVAL when fewer than 2 events are in the chain.
 */
int lat_knee_point_measure(struct lat_knee_point *p,
			   const struct lat_knee_acc *a, double cycles_per_ns);

/* Replications of the trace-fed simulation (sim_trace_ns). */
#define LAT_KNEE_TRACE_REPS 32

/*
 * Kingman, P-K (when @poisson), the simulation (@sim: its customers,
 * warm-up, batches and seed; the distributions and rho are set here),
 * the trace-fed simulation and the replays for a measured @p. @stop (may
 * be NULL) is asked inside the simulation (every LAT_QSIM_STOP_EVERY
 * customers and batch) and between replications. Returns 0, 1 when
 * @stop asked (the prediction it cut and those not reached are NaN), or
 * lat_qsim_* errors (-ENOMEM, -EINVAL).
 */
int lat_knee_point_predict(struct lat_knee_point *p,
			   const struct lat_knee_acc *a, bool poisson,
			   const struct lat_qsim_config *sim,
			   lat_knee_stop_fn stop, void *stop_ctx);

/*
 * The trace-fed simulation of @a into p->sim_trace_ns and
 * p->sim_trace_half (@seed draws the services). Returns 0, 1 when @stop
 * (may be NULL) asked between replications, -EINVAL when fewer than 2
 * events were traced, or -ENOMEM.
 */
int lat_knee_point_simulate_trace(struct lat_knee_point *p,
				  const struct lat_knee_acc *a, uint64_t seed,
				  lat_knee_stop_fn stop, void *stop_ctx);

/*
 * The replays of @a's trace into p->attr (@seed picks the permutations).
 * Allocates four arrays of the trace's length (its gaps and services,
 * and a shuffled copy of each). Returns 0, 1 when @stop (may be NULL)
 * asked between permutations (attr then NaN), -ENOMEM, or -EINVAL when
 * fewer than 2 events were traced.
 */
int lat_knee_point_attribute(struct lat_knee_point *p,
			     const struct lat_knee_acc *a, uint64_t seed,
			     lat_knee_stop_fn stop, void *stop_ctx);

/* p->closer and p->why from the measured mean, the predictions and
 * p->attr (lat_knee_point_predict calls both). */
void lat_knee_point_explain(struct lat_knee_point *p);

/* ---- runs ---------------------------------------------------------------- */

enum lat_knee_phase {
	LAT_KNEE_FLOOR,     /* no work, a slow fixed rate: the wake-up floor */
	LAT_KNEE_CALIBRATE, /* the configured arrivals at a middle load: tau */
	LAT_KNEE_POINT,     /* the configured arrivals at a rate */
};

struct lat_knee_req {
	enum lat_knee_phase phase;
	double rate;              /* events/s */
	uint64_t events;
	size_t index;             /* point index (LAT_KNEE_POINT) */
	double rho_asked;
	uint64_t seed;            /* the run's arrivals and work draws */
};

struct lat_knee_info {
	double cycles_per_ns;
	double loadavg, steal_pct;
};

/*
 * Runs one request, feeding every event to @acc in seq order. Returns 0,
 * 1 when stopped early (the sweep keeps the points before it), or a
 * negative error.
 */
struct lat_knee_runner {
	void *ctx;
	int (*run)(void *ctx, const struct lat_knee_req *req,
		   struct lat_knee_acc *acc, struct lat_knee_info *info);
};

/*
 * The wake-up floor: p50 of the wake-up (B - A of the events that found
 * the stage idle) of @events events at @rate with no work, in ns. Events
 * that queued behind a late producer's burst are left out: their pickup
 * is a pop from a non-empty ring, not a wake-up. Returns 0, 1 (stopped),
 * -ENODATA when no event found the stage idle, or an error.
 */
int lat_knee_floor(const struct lat_knee_runner *r, double rate,
		   uint64_t events, double *floor_ns);

/* What a calibration run measured, ns. */
struct lat_knee_cal {
	double tau_ns;            /* mean S: busy / events */
	double cs;                /* its cv */
	double tau_queued_ns;     /* mean S of the events that queued */
	double wake_ns;           /* mean S of those that found stage 1
				   * idle, minus tau_queued_ns: the wake-up
				   * they pay (0 when either is missing) */
};

/*
 * The bottleneck's real service time: @events events offered at @rate
 * (seed @seed), tau = busy / events (the mean S, work + per-event
 * overhead, as the points will measure it), split into the service of an
 * event that queued and the wake-up an event that found the stage idle
 * pays on top. A rate near half the nominal capacity is the regime of the
 * sweep, and half the events of each kind; at saturation the producer
 * would be blocked on a full q1 and every pop would have to wake it, a
 * cost the sweep's points do not pay.
 */
int lat_knee_calibrate(const struct lat_knee_runner *r, double rate,
		       uint64_t events, uint64_t seed,
		       struct lat_knee_cal *cal);

/* ---- the sweep ----------------------------------------------------------- */

struct lat_knee_config {
	double rho[LAT_KNEE_MAX_POINTS]; /* increasing, in (0, 1) */
	size_t n_rho;
	/*
	 * The mean service at rho is tau_ns + (1 - rho) wake_ns: an event
	 * that finds stage 1 idle pays its wake-up in its service, and with
	 * Poisson arrivals a fraction 1 - rho of them find it idle. So the
	 * rate of a point is rho / (tau_ns + (1 - rho) wake_ns); with one
	 * tau for every rho, the points high up (few wake-ups) ran below
	 * the rho asked (0.922 for 0.95). wake_ns 0: tau_ns at every rho.
	 * lat_knee_sweep_adapt refits the line to the points measured.
	 */
	double tau_ns;            /* calibrated: S of an event that queued */
	double wake_ns;           /* calibrated: the wake-up on top (below
				   * 0 from a fit where tau rises with rho) */
	uint64_t seed;            /* point i runs with lat_knee_point_seed */
	/* a point whose achieved rho misses the asked one by more than
	 * this runs once more, same arrivals, at its rate times asked /
	 * achieved (0: never; nor when that is over a factor 2). What the
	 * line cannot foresee, the machine's drift between points, costs
	 * one more point-time */
	double rho_tol;
	lat_knee_stop_fn stop;    /* asked between replays; may be NULL */
	void *stop_ctx;
	double point_s;           /* seconds per point: events = rate * s */
	uint64_t min_events;      /* at least this many per point */
	bool poisson;             /* arrivals are Poisson: P-K applies */
	struct lat_qsim_config sim; /* customers, warm-up, batches, seed */
	double knee_slope;        /* LAT_QSIM_KNEE_SLOPE by default */
};

/* Defaults: 0.3..0.95 in 14 points, 8 s per point, 200 events minimum,
 * Poisson, seed 1, rho_tol 0.01, simulator 10^6 customers, slope
 * LAT_QSIM_KNEE_SLOPE. */
void lat_knee_config_init(struct lat_knee_config *c);

/* @n points from @lo to @hi evenly (n >= 2). -EINVAL otherwise. */
int lat_knee_config_span(struct lat_knee_config *c, double lo, double hi,
			 size_t n);

/* 0 or -EINVAL with *@why: rho not increasing in (0, 1), n < 2, ... */
int lat_knee_config_check(const struct lat_knee_config *c, const char **why);

/*
 * c->rho and c->n_rho from a comma list of utilizations, "0.5,0.7,0.9"
 * (at most LAT_KNEE_MAX_POINTS, each a number in (0, 1), increasing:
 * lat_knee_config_check). Returns 0 or -EINVAL with one phrase in @why
 * ("'1.5' is not a utilization in (0, 1): ..."); @c is then partly set.
 */
int lat_knee_config_parse_rhos(struct lat_knee_config *c, const char *list,
			       char *why, size_t len);

/*
 * The seed of point @i of a sweep seeded @seed: a hash of both, so every
 * point draws its own arrival path (and work, and the simulator's
 * draws), independent of the others. One shared path scaled to each
 * rate (the first version) made one path's luck look like a bias of the
 * whole curve, and the points could not be read as independent samples.
 * Two work distributions at the same point share its seed: they see the
 * same arrivals.
 */
uint64_t lat_knee_point_seed(uint64_t seed, size_t i);

/* The rate of point @i of @c, events/s (see lat_knee_config.wake_ns). */
double lat_knee_point_rate(const struct lat_knee_config *c, size_t i);

/* Called after each finished point (may be NULL). */
typedef void (*lat_knee_point_fn)(void *ctx, const struct lat_knee_point *p);

/* Over a sweep, is a simulator closer to the measurement than Kingman? */
enum lat_knee_verdict {
	LAT_KNEE_VERDICT_NONE,    /* under 3 points with both predictions */
	LAT_KNEE_VERDICT_SIM,     /* the simulator, beyond the 95% interval */
	LAT_KNEE_VERDICT_KINGMAN, /* Kingman, beyond the 95% interval */
	LAT_KNEE_VERDICT_UNDECIDED, /* the interval holds 0 */
};

/* "none", "simulator", "kingman", "undecided". */
const char *lat_knee_verdict_name(enum lat_knee_verdict v);

/*
 * The predictions scored over the finished points that have all of
 * them (a saturated point has no Kingman). For each point and prediction
 * the error |ln(prediction / measured)| (0.1: a factor 1.105 either
 * way); per prediction its mean and its largest; and for each simulator
 * the gain over Kingman, |ln K/m| - |ln S/m| (positive: the simulator is
 * closer), its mean over the points with a 95% t-interval. Every point
 * draws its own arrival path (lat_knee_point_seed), so the points are
 * independent samples and the interval means what it says; a machine
 * that disturbs a stretch of the sweep still correlates them.
 */
struct lat_knee_score {
	size_t n;
	double mean_abs_log[LAT_KNEE_PREDS];
	double max_abs_log[LAT_KNEE_PREDS];
	size_t closest[LAT_KNEE_PREDS]; /* points where it was closest */
	double gain[LAT_KNEE_PREDS];    /* [KINGMAN] unused (0) */
	double gain_half[LAT_KNEE_PREDS];
	enum lat_knee_verdict verdict[LAT_KNEE_PREDS];
};

struct lat_knee_sweep {
	struct lat_knee_point pts[LAT_KNEE_MAX_POINTS];
	size_t done;              /* finished points, in order */
	bool interrupted;         /* the runner stopped: points after lost */
	/* knees by lat_qsim_knee on (rho, W/tau) of the finished points:
	 * NaN when the slope is never reached */
	double knee_measured, knee_kingman, knee_sim, knee_trace;
	struct lat_knee_score score;
};

/*
 * For each rho: the level adapted to the points so far
 * (lat_knee_sweep_adapt, on a copy of @c), rate = lat_knee_point_rate,
 * events = max(min_events, rate point_s), run, measure, predict; then
 * the knees and the score. Returns 0 (also when
 * interrupted: s->interrupted), or the first error (points before it
 * kept). Allocates one accumulator at a time.
 */
int lat_knee_sweep_run(const struct lat_knee_config *c,
		       const struct lat_knee_runner *r, struct lat_knee_sweep *s,
		       lat_knee_point_fn on_point, void *ctx);

/*
 * One point: run c->rho[@i] as lat_knee_sweep_run does and append it to
 * @s (s->done grows by one), or set s->interrupted. For callers that
 * interleave sweeps (two work distributions point by point, so both see
 * the same minutes of a shared machine). Clear @s first (memset) and
 * call lat_knee_sweep_knees at the end. Returns 0 or an error.
 */
int lat_knee_sweep_point(const struct lat_knee_config *c,
			 const struct lat_knee_runner *r,
			 struct lat_knee_sweep *s, size_t i,
			 lat_knee_point_fn on_point, void *ctx);

/*
 * The service-time line of @c from the points of @s finished so far, for
 * the rates of the next ones (none: unchanged). Three points or more over
 * 0.1 of rho: tau(rho) = a + b rho fitted to their measured rho and tau,
 * weighted by events (c->tau_ns = a + b, c->wake_ns = -b). Fewer: the
 * level only, c->tau_ns = their mean service less the wake-ups their
 * idle-found events paid, (1 - p_wait) wake_ns. The calibration second
 * ran minutes before the last points, and the service drifts with rho
 * beyond the first event's wake-up (here 2-4% lower at 0.9 than at 0.3:
 * fewer idle starts, a warmer stage), so with the calibration alone the
 * points high up ran at 0.87 for 0.9 and 0.93 for 0.95. lat_knee_sweep_run
 * and lat_knee_report_sweep call it before each point (the report on its
 * reference run, so every distribution keeps one rate per rho).
 */
void lat_knee_sweep_adapt(struct lat_knee_config *c,
			  const struct lat_knee_sweep *s);

/* The knees and the score of the finished points (lat_knee_sweep_run
 * does it). */
void lat_knee_sweep_knees(struct lat_knee_sweep *s, double slope);

/* s->score from the finished points (lat_knee_sweep_knees calls it). */
void lat_knee_sweep_score(struct lat_knee_sweep *s);

/* ---- the real pipeline as a runner -------------------------------------- */

struct lat_knee_pipe {
	struct lat_pipe_config base; /* placed, the work and its dist set */
	const char *hlog_dir;     /* NULL, or a directory for one .hlog per
				   * point: <dir>/knee-<dist>-rho<r>.hlog */
	lat_pipe_stop_fn stop;    /* may be NULL */
	void *stop_ctx;
	int stage_nice;           /* nice value for stage 1's and the
				   * producer's threads (0: leave them):
				   * their CPU share then does not shrink
				   * with every neighbour on a loaded
				   * machine. Below 0 needs CAP_SYS_NICE */
	int nice_error;           /* out: 0, or -errno of setpriority */
	struct lat_knee_acc *acc; /* the run's accumulator (internal) */
	/* out: the last run's facts, for the report */
	struct lat_pipe_result last;  /* histograms released: facts only */
	bool have_last;
	int hlog_error;
};

/*
 * Place @c (one stage) for a knee: as lat_pipe_autoplace, except that
 * when the three hot threads must share CPUs, stage 1 gets a CPU to
 * itself and the consumer joins the producer; the producer sleeps until
 * 50 us before each send and spins the rest (pace_sleep_ns, no yield);
 * and the rings wait by futex (LAT_WAIT_BLOCK), not by yielding.
 * Otherwise the consumer's CPU time would be part of the measured
 * service, a yielding stage on a loaded machine would run again only
 * after every runnable neighbour had (a wake-up floor of ms, where a
 * futex wake takes tens of us), and a yielding producer would lose whole
 * slices and send in bunches. *@shared says whether any hot threads
 * share a CPU. Returns 0 or lat_pipe_autoplace / lat_pipe_place_pool
 * errors.
 */
int lat_knee_place(struct lat_pipe_config *c, bool *shared);

/*
 * A runner over lat_pipe_run_until with @p as its context. Each run takes
 * the request's seed (arrivals and work draws); with Poisson arrivals its
 * rate is scaled by the drawn path's own mean gap, so that the n events
 * span exactly (n - 1) / rate and the point lands on the rho asked, not
 * 1/sqrt(n) off it by the path's luck.
 */
void lat_knee_pipe_runner(struct lat_knee_pipe *p, struct lat_knee_runner *r);

/* ---- the report: what `latlab knee` prints, as data and printers ---- */

/* Work distributions one report compares (det, exp, ... side by side). */
#define LAT_KNEE_MAX_DISTS 4

/* One work distribution's sweep. */
struct lat_knee_run {
	struct lat_work_dist dist;
	double tau_ns;            /* calibrated mean service time */
	double cal_cs;            /* its c_s at calibration */
	double tau_queued_ns;     /* S of the events that queued then */
	double wake_ns;           /* what one that found stage 1 idle paid
				   * on top (struct lat_knee_cal) */
	double work_cv;           /* the drawn table's cv (0 for det) */
	struct lat_knee_sweep sweep;
	bool started;             /* the calibration ran */
};

/* A whole knee experiment: every fact its printers show. */
struct lat_knee_report {
	struct lat_pipe_config base; /* arrivals, seed, work_ns */
	struct lat_knee_config kc;   /* points, point_s, knee_slope */
	double floor_ns;          /* wake-up floor (p50 pickup, no work) */
	double floor_rate;        /* events/s the floor was measured at */
	struct lat_knee_run runs[LAT_KNEE_MAX_DISTS];
	int n_runs;
	struct lat_knee_pipe kp;  /* the last run's placement and facts */
	double rate_tau_ns;       /* the calibrated tau of the run every
				   * point's rate comes from: the shortest
				   * (its split in kc.tau_ns, kc.wake_ns) */
	bool oversubscribed;      /* hot threads share CPUs */
	int autogroup_error;      /* 0, or -errno of the autogroup nice */
	int autogroup_old;        /* the autogroup nice restored after */
	int sig;                  /* signal that stopped the sweep, or 0 */
};

/* ---- the report's experiment: floor, work, calibrations, sweep ---- */

/* The wake-up floor is LAT_KNEE_FLOOR_EVENTS events at this rate, /s. */
#define LAT_KNEE_FLOOR_RATE 2000.0
#define LAT_KNEE_FLOOR_EVENTS 1000
/* Above this mean work a point of a few thousand events takes minutes,
 * and the work calibration alone (hundreds of timed calls) seconds per
 * run, ns. */
#define LAT_KNEE_MAX_WORK_NS 10e6

/* r->floor_rate and r->floor_ns by lat_knee_floor on @run. Returns its
 * result: 0, 1 (stopped), or a negative error. */
int lat_knee_report_floor(struct lat_knee_report *r,
			  const struct lat_knee_runner *run);

/* The shortest mean work a floor of @floor_ns lets a sweep measure as a
 * queue, not as wake-ups: LAT_KNEE_FLOOR_FACTOR x the floor, ns. */
double lat_knee_min_work_ns(double floor_ns);

/* The default mean work for a measured floor: lat_knee_min_work_ns, at
 * least 20 us, rounded up to 10 us. 0, or -ERANGE when the minimum is
 * over LAT_KNEE_MAX_WORK_NS (the machine is too busy for a sweep). */
int lat_knee_default_work(double floor_ns, double *work_ns);

/*
 * The whole sweep of @r (r->base.work_ns, r->kc set; r->kp the placed
 * pipeline @run runs, lat_knee_pipe_runner): calibrate tau for each of
 * @dists (1..LAT_KNEE_MAX_DISTS) into r->runs, then run every rho for
 * every distribution in turn, all at the rate of the shortest calibrated
 * tau, then the knees. One line of progress per calibration and per
 * point goes to @progress (may be NULL). A stop marks every run's sweep
 * interrupted and keeps the points done. Returns 0 (also when stopped),
 * -EINVAL, or the first run's error (-EINTR: stopped while the pipeline
 * calibrated its clock).
 */
int lat_knee_report_sweep(struct lat_knee_report *r,
			  const struct lat_work_dist *dists, int n_dists,
			  const struct lat_knee_runner *run, FILE *progress);

/* ---- a program's session around the sweep ---- */

/*
 * Place r->base for a knee (lat_knee_place, r->oversubscribed), copy it
 * into r->kp with @hlog_dir and the stop (@stop may be NULL), and make
 * @run the pipeline's runner. r->kp.stage_nice is left as the caller set
 * it. Returns 0 or lat_knee_place's error.
 */
int lat_knee_report_setup(struct lat_knee_report *r, const char *hlog_dir,
			  lat_pipe_stop_fn stop, void *stop_ctx,
			  struct lat_knee_runner *run);

/*
 * Give the session's autogroup back (lat_cgroup_autogroup_restore) on
 * every way out this process sees: at exit(), and on the signals whose
 * default is to kill (SIGHUP from a closed terminal, SIGPIPE from
 * 'latlab knee | head', SIGQUIT, SIGABRT, ...) unless they are ignored;
 * the handler restores (without waiting for a lock: if it cannot, the
 * next run of the session drops the dead holder), then dies of the same
 * signal. SIGINT and SIGTERM are the program's (a sweep stops on them and
 * exits normally), SIGSEGV and friends the sanitizers'. SIGKILL cannot
 * be caught. For a main program: it installs process-wide handlers, once.
 * Returns 0, or -ENOMEM when atexit has no room.
 */
int lat_knee_autogroup_guard(void);

/*
 * Raise the priorities for the sweep when r->kp.stage_nice is not 0:
 * the session's autogroup to that nice with lat_cgroup_autogroup_raise
 * (r->autogroup_error; r->autogroup_old is the value the session goes
 * back to) and lat_knee_autogroup_guard to give it back; the
 * threads take their nice when the runs start. Say so before calling it:
 * it changes the whole login session. Returns 0 or the error (also in
 * r->autogroup_error when the autogroup could not be set).
 */
int lat_knee_report_raise(struct lat_knee_report *r);

/* What the measured floor allows (lat_knee_report_work). */
enum lat_knee_work {
	LAT_KNEE_WORK_OK,
	LAT_KNEE_WORK_TOO_BUSY,   /* no default: 20 x the floor is over
				   * LAT_KNEE_MAX_WORK_NS */
	LAT_KNEE_WORK_BAD_DIST,   /* a distribution cannot have the default
				   * mean (*bad_dist, *why) */
	LAT_KNEE_WORK_BELOW_FLOOR,/* the work is under 20 x the floor: the
				   * queue would be the wake-ups (refuse, or
				   * run with a warning) */
};

/*
 * After lat_knee_report_floor: the work of the sweep. Unless @work_set
 * (r->base.work_ns given), the default for the floor
 * (lat_knee_default_work), each of @dists checked against it; then the
 * work (r->base.work_ns, copied to r->kp.base) against 20 x the floor.
 */
enum lat_knee_work lat_knee_report_work(struct lat_knee_report *r,
					const struct lat_work_dist *dists,
					int n_dists, bool work_set,
					int *bad_dist, const char **why);

/*
 * @d[0..*n) from a comma list of work distributions, "det,exp" (each
 * lat_work_dist_parse's, at most LAT_KNEE_MAX_DISTS). Returns 0 or
 * -EINVAL with one phrase in @why naming the item (or "is too long",
 * "needs a distribution").
 */
int lat_knee_parse_dists(struct lat_work_dist *d, int *n, const char *list,
			 char *why, size_t len);

/*
 * The whole of `latlab knee` as one call. The caller fills rep (base,
 * kc, kp.stage_nice: say before the run that a non-zero nice changes the
 * login session's autogroup), the distributions, work_set (rep->base.work_ns
 * was chosen, not to be defaulted from the floor), force, hlog_dir, the
 * stop and where progress goes; the run fills the rest.
 */
struct lat_knee_session {
	struct lat_knee_report *rep;
	const struct lat_work_dist *dists;
	int n_dists;                  /* 1..LAT_KNEE_MAX_DISTS */
	bool work_set;
	bool force;                   /* sweep even when the work is under
				       * 20 x the floor (with a warning) */
	const char *hlog_dir;         /* one .hlog per point, or NULL */
	lat_pipe_stop_fn stop;        /* may be NULL */
	void *stop_ctx;
	FILE *progress;               /* one line per step and point */
	const char *prefix;           /* before each line ("latlab knee: ") */
	enum lat_knee_work verdict;   /* out: lat_knee_report_work's */
	int bad_dist;                 /* out: LAT_KNEE_WORK_BAD_DIST's */
	const char *why;              /* out: and its reason */
	const char *step;             /* out: the step that failed */
	bool swept;                   /* out: the sweep began: its report,
				       * even a failed one, is worth showing */
};

/*
 * lat_knee_report_setup (with an own runner), lat_knee_report_raise,
 * lat_knee_report_floor, lat_knee_report_work, then
 * lat_knee_report_sweep, each step said on s->progress. Returns 0 (also
 * when the stop ended the sweep: its runs are marked); -EINTR when the
 * stop came during the floor or the pipeline's clock calibration (no
 * point ran); -ECANCELED when the floor refuses the work (s->verdict
 * TOO_BUSY or BAD_DIST, or BELOW_FLOOR without force; nothing swept); or
 * a step's error, that step in s->step. Then lat_knee_write and
 * lat_knee_svg show the report.
 */
int lat_knee_session_run(struct lat_knee_session *s);

/*
 * The report for people on @out: placement and nice facts, per run the
 * measured table, the predictions beside it with their errors, the knees
 * and the slowed points, then the runs compared rho by rho.
 */
void lat_knee_print(FILE *out, const struct lat_knee_report *r);

/*
 * The same facts as one JSON object written into @j (the caller owns
 * lat_json_init / lat_json_finish): arrivals, seed, floor, threads,
 * one entry per started run with its points and knees, signal.
 */
struct lat_json;
void lat_knee_json(struct lat_json *j, const struct lat_knee_report *r);

/*
 * What `latlab knee` writes on stdout: lat_knee_print, or with @json one
 * whole JSON document (lat_knee_json). Returns 0, or -EIO / -EINVAL when
 * the output failed.
 */
int lat_knee_write(FILE *out, const struct lat_knee_report *r, bool json);

/*
 * The chart as a standalone SVG on @out: measured mean waits in units of
 * tau with 95 % intervals over the achieved rho, Kingman's and the fed
 * simulator's curves and the knees, one colour per run, log y. Returns 0
 * or the lat_svg error.
 */
int lat_knee_svg(FILE *out, const struct lat_knee_report *r);

#endif
