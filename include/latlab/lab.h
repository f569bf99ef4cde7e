/*
 * lat_lab: break the pipeline on purpose and show each break's fingerprint.
 *
 * A lab run is a plan of pipeline runs in which baselines and experiments
 * alternate (B E1 B E2 B ..., or each round in a shuffled order), so each
 * experiment is compared with the baselines run just before and just after
 * it, not with baselines run minutes earlier. Every run is summarised as a
 * row (struct lat_lab_row, from lat_lab_row_from_result); the rows are then
 * judged (lat_lab_judge) into one verdict per experiment: the fingerprint
 * the experiment should leave, whether it was seen, and the numbers behind
 * that answer (struct lat_lab_verdict), which the text printer and the
 * JSON writer both render.
 *
 * Invariants:
 *  - No verdict turns on the tail of e2e (p99, p99.9, mean): one gap of a
 *    few ms in a run moves it or not, a coin flip per run on a shared
 *    machine. The sham asks each disease's question of a run with none.
 *  - A change counts only when it exceeds the baselines' own spread (their
 *    scatter around the trend), the drift of the baselines over the lab run
 *    (the trend itself) and LAT_LAB_MIN_RATIO. A change beyond the spread
 *    but not the drift is "within drift": no verdict.
 *  - Every lab run includes the sham experiment "null" (the baseline, run
 *    as an experiment): its expected fingerprint is "no effect", the lab's
 *    own false-positive check.
 *  - Each disease runs where it can show (share-line with the two writers
 *    on different CPUs, against a baseline with that same placement, and
 *    only while the host runs those CPUs on different cores;
 *    alloc-mmap at a rate its page faults can sustain, against a baseline
 *    at that rate); where this machine cannot show it (one usable CPU,
 *    a counter that cannot be read), the verdict says so and why.
 *  - A counter that is n/a in any row compared is never compared.
 *  - The judge is a pure function of the rows; only lat_lab_run runs
 *    pipelines. Nothing here prints except to a FILE * it is handed.
 */
#ifndef LATLAB_LAB_H
#define LATLAB_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/instr.h"
#include "latlab/json.h"
#include "latlab/pipe.h"

#define LAT_LAB_MAX_PARTS LAT_PIPE_MAX_DELTAS
#define LAT_LAB_NAME_LEN 32
#define LAT_LAB_MAX_ROUNDS 20
/*
 * A ratio counts when it exceeds LAT_LAB_MIN_RATIO, and the spread and the
 * drift of the baselines each times LAT_LAB_MARGIN (a handful of runs
 * estimate both loosely).
 */
#define LAT_LAB_MIN_RATIO 1.25
#define LAT_LAB_MARGIN 1.1
/*
 * The spread is the range of the baselines' residuals around their trend;
 * past this many baselines (about one round of every experiment), the
 * median of the ranges of every window of this many consecutive ones, so
 * that more rounds do not widen it.
 */
#define LAT_LAB_SPREAD_WINDOW 9

/* The experiments, in the order of a round without --rounds. */
enum lat_lab_exp {
	LAT_LAB_NULL,            /* sham: the baseline, run as an experiment */
	LAT_LAB_ALLOC,           /* malloc+free of 256 B per event, stage 1 */
	LAT_LAB_ALLOC_MMAP,      /* ... of 140 KiB: above the mmap threshold */
	LAT_LAB_NO_PIN,          /* the scheduler places the threads */
	LAT_LAB_NOISE,           /* a thread streaming over 64 MiB beside */
	LAT_LAB_STALL,           /* stage 1 stalls once */
	LAT_LAB_SHARE_LINE,      /* the two writers' counters on one line,
				  * the writers on two CPUs */
	LAT_LAB_SHARE_LINE_1CPU, /* the same line, both writers on one CPU:
				  * the control that must show nothing */
	LAT_LAB_N_EXP
};

/*
 * The baselines experiments are compared with. An experiment is compared
 * only with baselines of its own arm: same placement and rate, so the
 * disease is the only difference.
 */
enum lat_lab_arm {
	LAT_LAB_ARM_DEFAULT,     /* the pipeline's default placement */
	LAT_LAB_ARM_SPLIT,       /* stage 1 and consumer on different CPUs
				  * (the producer doubles up if need be) */
	LAT_LAB_ARM_JOINED,      /* stage 1 and consumer on one CPU */
	LAT_LAB_ARM_SLOW,        /* default placement at LAT_LAB_SLOW_DIV
				  * times fewer events per second */
	LAT_LAB_N_ARMS
};

/* A run that achieved less than this fraction of its offered rate fell
 * behind (shown, not hidden: the judge treats it like any other). */
#define LAT_LAB_BEHIND 0.9
/* The slow arm's rate and event count are the lab's divided by this. */
#define LAT_LAB_SLOW_DIV 40
/*
 * share-line needs its two writers' CPUs on different cores of the host,
 * and a guest cannot choose: this VM's two vCPUs sometimes run as SMT
 * siblings of one host core (a line hand-off of ~30 ns one way, against
 * ~150 ns when apart), and then a miss on the shared line costs ~10 ns.
 * A hand-off (lat_lab_handoff_ns) below LAT_LAB_APART_NS means "one core".
 * Before a share-line run the lab waits up to LAT_LAB_APART_WAIT_MS for
 * the CPUs to be apart, and runs it again (LAT_LAB_LINE_TRIES in all)
 * when they were not apart by its end.
 */
#define LAT_LAB_APART_NS 80.0
#define LAT_LAB_APART_WAIT_MS 10000
#define LAT_LAB_LINE_TRIES 3
/* Heap block of the alloc experiments, bytes. */
#define LAT_LAB_ALLOC_BYTES 256
#define LAT_LAB_ALLOC_MMAP_BYTES (140 * 1024)

/* The fingerprint an experiment should leave. */
enum lat_lab_fp {
	LAT_LAB_FP_NO_EFFECT,   /* no latency statistic moves */
	LAT_LAB_FP_ALLOCS,      /* one allocation per event, none in the
				 * baselines */
	LAT_LAB_FP_FAULTS,      /* at least one page fault per event */
	LAT_LAB_FP_SCHED,       /* context switches or migrations move */
	LAT_LAB_FP_BODY,        /* e2e p50 and p90 grow (body shift) */
	LAT_LAB_FP_STALL,       /* flight recorder: one slow work1 at the
				 * freeze, a backlog of slow q1+wake after */
	LAT_LAB_FP_LINE,        /* work1's p50 grows (the miss lands there,
				 * on every event) */
	LAT_LAB_FP_NO_LINE,     /* work1's p50 does not grow */
	LAT_LAB_N_FP
};

/* What the lab concluded about one experiment. */
enum lat_lab_outcome {
	LAT_LAB_SEEN,           /* the expected fingerprint, beyond noise */
	LAT_LAB_NOT_SEEN,       /* not there (see the numbers) */
	LAT_LAB_WITHIN_DRIFT,   /* its change exceeds the spread but not the
				 * drift: no verdict either way */
	LAT_LAB_CANNOT_SHOW,    /* this machine cannot show it (why says) */
	LAT_LAB_NO_DATA,        /* not run to the end (stopped), or no
				 * baseline beside it */
	LAT_LAB_N_OUTCOMES
};

/* Direction of one statistic against the neighbouring baselines. */
enum lat_lab_effect {
	LAT_LAB_EFFECT_NONE,    /* within the spread */
	LAT_LAB_EFFECT_UP,      /* grew beyond spread and drift */
	LAT_LAB_EFFECT_DOWN,    /* shrank beyond spread and drift */
	LAT_LAB_EFFECT_DRIFT,   /* beyond the spread, not the drift */
};

enum lat_lab_metric {
	LAT_LAB_CTX_SWITCHES,
	LAT_LAB_MIGRATIONS,
	LAT_LAB_PAGE_FAULTS,     /* minor + major */
	LAT_LAB_ALLOCATIONS,
	LAT_LAB_RUN_DELAY_NS,
	LAT_LAB_NMETRICS
};

/* The flight recorder's window, reduced to what the stall verdict needs. */
struct lat_lab_flight {
	bool frozen;              /* the recorder triggered and froze */
	double threshold_ns;      /* the e2e it froze above */
	double trigger_e2e_ns;
	int trigger_part;         /* part holding most of the trigger's excess
				   * over its window median; -1 none */
	bool trigger_only;        /* that part is slow at the trigger and not
				   * in the samples right after it */
	/* per part: consecutive slow cells right after the trigger (the
	 * events queued behind it show here) */
	uint32_t slow_after[LAT_LAB_MAX_PARTS];
};

/* One pipeline run, summarised. Times in ns, rates in events/s. */
struct lat_lab_row {
	char name[LAT_LAB_NAME_LEN];   /* "baseline", "alloc", ... */
	bool baseline;
	enum lat_lab_arm arm;
	enum lat_lab_exp exp;          /* when !baseline */
	int round;                     /* 0-based */
	uint64_t events;               /* recorded samples */
	uint64_t events_planned;
	double p50_ns, p90_ns, p99_ns, p999_ns, max_ns, mean_ns; /* e2e */
	int n_parts;                   /* deltas before e2e: pace, q1+wake.. */
	char part[LAT_LAB_MAX_PARTS][16];
	double part_mean_ns[LAT_LAB_MAX_PARTS];
	double part_p50_ns[LAT_LAB_MAX_PARTS];
	double part_p99_ns[LAT_LAB_MAX_PARTS];
	double part_p999_ns[LAT_LAB_MAX_PARTS];
	double offered_per_s, achieved_per_s;
	double wall_s;
	uint64_t metric[LAT_LAB_NMETRICS];
	bool has_metric[LAT_LAB_NMETRICS];
	double ipc;                    /* < 0: n/a */
	bool exact, interrupted;
	bool fell_behind;              /* achieved < LAT_LAB_BEHIND of offered:
					* its latencies measure a backlog */
	uint64_t dropped;
	double stall_ns;               /* the stall experiment's stall, else 0 */
	struct lat_lab_flight flight;  /* when the recorder ran */
	/* share-line: the writers' CPUs' line hand-off, one way, measured
	 * just before and just after the run (0: not measured), and the
	 * runs it took (LAT_LAB_LINE_TRIES at most) */
	double handoff_before_ns, handoff_after_ns;
	int tries;
	bool one_core;                 /* a hand-off said the writers' CPUs
					* shared a host core: the run cannot
					* show the line (not judged) */
};

/*
 * Summarise pipeline result @r (and @in's counters and flight recorder;
 * @in may be NULL: counters n/a) into @row. Name, arm, experiment and
 * round are left for the caller. Pure; never fails.
 */
void lat_lab_row_from_result(struct lat_lab_row *row,
			     const struct lat_pipe_result *r,
			     struct lat_instr *in);

/* One statistic of an experiment against its neighbouring baselines. */
struct lat_lab_cmp {
	double ratio;       /* experiment / neighbours (geometric mean; the
			     * median over rounds) */
	double spread;      /* baselines' scatter around their trend,
			     * max/min (LAT_LAB_SPREAD_WINDOW) */
	double drift;       /* the trend's change over the lab run, as a
			     * ratio last/first (< 1: it fell) */
	double tolerance;   /* the ratio a change must pass */
	enum lat_lab_effect effect;
};

struct lat_lab_verdict {
	bool wanted;                  /* asked for (null always is); the
				       * rest of an unwanted one is zero */
	bool ran;                     /* at least one run of it */
	enum lat_lab_exp exp;
	enum lat_lab_fp expected;
	enum lat_lab_outcome outcome;
	bool seen;                    /* outcome == LAT_LAB_SEEN */
	const char *why;              /* CANNOT_SHOW / NO_DATA: a static
				       * reason; else NULL */
	int runs;                     /* runs of it judged (rounds) */
	struct lat_lab_cmp p50, p90, p99, p999, mean; /* e2e */
	/* the statistic the fingerprint turned on, when it is a ratio */
	char fp_stat[32];             /* "work1 mean", "ctx switches", ... */
	struct lat_lab_cmp fp;
	/* per-event counts (alloc: allocations; alloc-mmap: page faults) */
	double per_event, base_per_event;
	int growth_part;              /* part holding most of the mean e2e
				       * growth, -1 none */
	double growth_share;          /* its fraction of that growth */
	struct lat_lab_flight flight; /* stall: the first run's window */
	double stall_ns;
	double handoff_ns;            /* share-line: the smallest hand-off
				       * measured around its runs (0: none) */
};

/* What the lab knows about the machine's placements. */
struct lat_lab_place {
	int n_usable;                 /* usable CPUs */
	int cpu[LAT_LAB_N_ARMS][3];   /* producer, stage 1, consumer */
	bool same_as_default[LAT_LAB_N_ARMS]; /* placement = the default's */
	bool can_split;               /* two writers can be on two CPUs */
	bool oversubscribed;          /* the default shares CPUs */
};

struct lat_lab_opts {
	uint64_t events;              /* per run (slow arm: / SLOW_DIV) */
	double rate;                  /* events/s */
	int rounds;                   /* 1..LAT_LAB_MAX_ROUNDS */
	uint64_t seed;                /* order of rounds after the first */
	bool want[LAT_LAB_N_EXP];     /* experiments (null always runs) */
	bool sham_only;               /* the false-positive check alone:
				       * baseline and null, nothing else */
	unsigned calibrate_ms;        /* pipeline clock calibration */
	bool counters;                /* per-thread counters (else n/a) */
	unsigned apart_wait_ms;       /* share-line: how long to wait for
				       * its CPUs to be apart
				       * (LAT_LAB_APART_WAIT_MS) */
	bool keep_e2e;                /* keep each curve's merged e2e
				       * histogram (struct lat_lab.e2e) for
				       * lat_lab_write_svg */
};

/*
 * With opts.keep_e2e: the e2e histogram of every run merged per curve,
 * one curve per experiment and one per arm's baselines (an arm's
 * baselines run at its own placement or rate: they are not mixed).
 */
#define LAT_LAB_MAX_CURVES (LAT_LAB_N_EXP + LAT_LAB_N_ARMS)
struct lat_lab_e2e {
	char name[LAT_LAB_NAME_LEN + 16]; /* "baseline", "baseline, slow arm",
					   * "alloc", ... */
	struct lat_hist *hist;        /* merged e2e, ns; owned */
	int runs;
};

/* Rows of a plan: at most a baseline before and after each experiment. */
#define LAT_LAB_MAX_ROWS (LAT_LAB_MAX_ROUNDS * 3 * LAT_LAB_N_EXP)

/* A whole lab: options, plan, rows, verdicts. Large: not on the stack. */
struct lat_lab {
	struct lat_lab_opts opts;
	struct lat_lab_place place;
	int n_plan;
	struct lat_lab_row row[LAT_LAB_MAX_ROWS]; /* plan, then results */
	int n_rows;                   /* rows run (<= n_plan) */
	bool stopped;                 /* the stop function ended the lab */
	struct lat_lab_verdict verdict[LAT_LAB_N_EXP];
	/* per arm: the baselines' e2e p50 and mean (ratio 1 = no runs) */
	struct lat_lab_cmp base_p50[LAT_LAB_N_ARMS], base_mean[LAT_LAB_N_ARMS];
	int arm_baselines[LAT_LAB_N_ARMS];
	char unavailable[LAT_LAB_NMETRICS + 1][LAT_PERF_REASON_LEN];
				      /* why a metric (last: IPC) is n/a */
	struct lat_lab_e2e e2e[LAT_LAB_MAX_CURVES]; /* with keep_e2e */
	int n_e2e;
};

/* Defaults: 200000 events at 200000/s, 1 round, every experiment. */
void lat_lab_opts_init(struct lat_lab_opts *o);

/*
 * Check @o. Returns 0 or -EINVAL with *@why a static message naming the
 * field ("rounds must be between 1 and 20", "want names no disease: null
 * runs in every lab"; with sham_only, want must name none).
 */
int lat_lab_opts_check(const struct lat_lab_opts *o, const char **why);

/*
 * Experiment named @name ("alloc", "share-line", ...), or -1. "null" is
 * an experiment too.
 */
int lat_lab_exp_by_name(const char *name);
/*
 * The experiments of comma-separated @list ("stall,noise") into
 * @o->want, every other one off. Returns 0, or -ENOENT with the first
 * name that is no experiment copied into @bad (@len bytes). Empty names
 * (",,") are skipped.
 */
int lat_lab_want_parse(struct lat_lab_opts *o, const char *list,
		       char *bad, size_t len);
const char *lat_lab_exp_name(enum lat_lab_exp e);
/* One line: what the experiment does to the pipeline. */
const char *lat_lab_exp_what(enum lat_lab_exp e);
enum lat_lab_fp lat_lab_exp_fp(enum lat_lab_exp e);
/* Stable names for JSON: "no_effect", "allocs", ...; "seen", ... */
const char *lat_lab_fp_name(enum lat_lab_fp f);
/* The fingerprint in words, for people. */
const char *lat_lab_fp_text(enum lat_lab_fp f);
const char *lat_lab_outcome_name(enum lat_lab_outcome o);
const char *lat_lab_effect_name(enum lat_lab_effect e);
const char *lat_lab_arm_name(enum lat_lab_arm a);
/* "ctx_switches", "page_faults", ..., "run_delay_ns". */
const char *lat_lab_metric_name(enum lat_lab_metric m);

/*
 * Find this machine's placements (reads sysfs) into @L->place, then lay
 * out @L's plan in @L->row (name, arm, exp, round set; n_plan rows):
 * round 1 in enum order, later rounds shuffled from @L->opts.seed, every
 * experiment between two baselines of its arm. Returns 0 or the error of
 * the topology.
 */
int lat_lab_plan(struct lat_lab *L);

/*
 * The pipeline configuration of planned row @i (placement, rate, the
 * experiment's switch). Stall: sized from the baselines run before it:
 * 4x their largest max e2e, at least 2 ms, at most 200 ms, on event
 * events/20; *@freeze_ns (may be NULL) gets the recorder's threshold, half
 * the stall (so above anything those baselines did), 0 for other rows.
 * Returns
 * 0 or lat_pipe_place_pool's error.
 */
int lat_lab_configure(const struct lat_lab *L, int i,
		      struct lat_pipe_config *c, double *freeze_ns);

/*
 * One-way cache-line hand-off between CPUs @a and @b now, ns: the least of
 * three short bounces (lat_bench_line_pingpong; preemption only inflates
 * one). Returns 0 or its error.
 */
int lat_lab_handoff_ns(int a, int b, double *ns);

/*
 * Run the plan (lat_lab_plan first): each row through lat_pipe_run_until
 * with @stop (may be NULL), counters on every hot thread, the flight
 * recorder on the stall. A line per run goes to @progress (may be NULL).
 * share-line: the hand-off between its writers' CPUs is measured before
 * and after; while it says one core the lab waits (opts.apart_wait_ms,
 * polling @stop), and a run whose CPUs were not apart at both ends is run
 * again, LAT_LAB_LINE_TRIES in all (the last one kept, marked one_core).
 * Stops early when @stop asks (L->stopped; the cut row is marked
 * interrupted). Returns 0, or the first pipeline error. Then judge.
 */
int lat_lab_run(struct lat_lab *L, lat_pipe_stop_fn stop, void *ctx,
		FILE *progress);

/*
 * Judge @L->row[0 .. n_rows) into @L->verdict and the drift. Pure: the
 * same rows give the same verdicts (the unit test feeds synthetic rows).
 */
void lat_lab_judge(struct lat_lab *L);

/*
 * Compare a statistic of experiment @e with the baselines of its arm:
 * @value holds it for every row (rows in run order; <= 0 or NaN where it
 * does not apply). Each run of @e is divided by the geometric mean of the
 * baselines just before and just after it; the ratio is the median over
 * its runs; spread and drift come from every baseline of the arm (an arm
 * with fewer than 3 baselines borrows the default arm's spread). Returns
 * the number of runs compared (0: out is neutral, effect NONE).
 */
int lat_lab_compare(const struct lat_lab_row *rows, int n,
		    enum lat_lab_exp e, const double *value,
		    struct lat_lab_cmp *out);

/*
 * With opts.keep_e2e, after lat_lab_run: the baseline's and each
 * experiment's e2e by percentile as one standalone SVG
 * (lat_svg_percentiles; baselines in black). Returns 0, -EINVAL (nothing
 * kept), -EIO.
 */
int lat_lab_write_svg(FILE *out, const struct lat_lab *L);

/* Free what opts.keep_e2e kept. Safe to call twice or without it. */
void lat_lab_free_e2e(struct lat_lab *L);

/* The table, the drift, and one verdict line per experiment. 0 or -EIO. */
int lat_lab_print(FILE *out, const struct lat_lab *L);

/* Everything as members of the JSON object open in @j. */
void lat_lab_write_json(struct lat_json *j, const struct lat_lab *L);

/*
 * What `latlab lab` prints on @out: lat_lab_print's table, or with @json
 * one object {"command": @command, the lab, "signal": @sig} (@sig: the
 * signal that stopped it, 0 if none). Returns 0, -EINVAL (unbalanced
 * JSON: a bug) or -EIO.
 */
int lat_lab_report(FILE *out, bool json, const char *command, int sig,
		   const struct lat_lab *L);

#endif
