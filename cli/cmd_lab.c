/*
 * latlab lab: the pipeline's diseases side by side. Runs the baseline
 * several times and each experiment once, in this process, with per-thread
 * counters on every hot thread, and prints one table plus one verdict per
 * experiment derived from this run's numbers (src/lab/lab.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "latlab/fmt.h"
#include "latlab/instr.h"
#include "latlab/json.h"
#include "latlab/lab.h"
#include "latlab/pipe.h"
#include "latlab/topo.h"

#define CMD "lab"

static const char usage[] =
"latlab lab: the pipeline's diseases side by side, with their fingerprints\n"
"\n"
"usage: latlab lab [--runs <n>] [--events <n>] [--rate <r>]\n"
"                  [--only <experiment>,...] [--quick] [--json]\n"
"\n"
"Runs the baseline pipeline <n> times (its run-to-run spread is the\n"
"yardstick), then each experiment once, all in this process with\n"
"per-thread counters on every hot thread. Prints one table (a row per\n"
"run) and one line per experiment naming the fingerprint it showed\n"
"against the baseline: which percentiles moved and by how much, which\n"
"counters left the baseline's range, and the stage that holds the growth.\n"
"Changes inside the baseline's own spread are called noise.\n"
"\n"
"experiments:\n"
"  alloc        malloc+free of 256 bytes per event in stage 1\n"
"  no-pin       the scheduler places the threads\n"
"  share-line   stage 1's and the consumer's counters on one cache line\n"
"  noise        a thread streaming over 64 MiB beside the pipeline\n"
"  stall        stage 1 stalls once, for 2 ms, on the middle event\n"
"\n"
"options:\n"
"  --runs <n>        baseline runs, 1..20 (default 3)\n"
"  --events <n>      events per run (default 400000: 2 s at the rate)\n"
"  --rate <r>        offered events per second (default 200000)\n"
"  --only <list>     experiments to run, comma-separated (default all)\n"
"  --quick           20000 events per run and short calibrations (tests)\n"
"  --json            one JSON object: the rows and the verdicts\n"
"\n"
"EXAMPLES:\n"
"  latlab lab                       # baseline x3 + 5 experiments, ~25 s\n"
"  latlab lab --quick --json        # a few seconds, for scripts\n"
"  latlab lab --only alloc,stall --runs 5   # two diseases, more baseline\n";

enum { OPT_RUNS = 256, OPT_EVENTS, OPT_RATE, OPT_ONLY, OPT_QUICK, OPT_JSON };

static const struct option options[] = {
	{ "runs", required_argument, NULL, OPT_RUNS },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ NULL, 0, NULL, 0 },
};

enum experiment { EXP_ALLOC, EXP_NO_PIN, EXP_SHARE_LINE, EXP_NOISE,
		  EXP_STALL, N_EXP };

static const char *const exp_name[N_EXP] = {
	"alloc", "no-pin", "share-line", "noise", "stall",
};

#define MAX_RUNS 20
#define MAX_ROWS (MAX_RUNS + N_EXP)
#define STALL_NS 2e6

struct args {
	int runs;
	uint64_t events;
	double rate;
	bool quick, json, events_set;
	bool want[N_EXP];
};

/* What the n/a columns lack, captured from the first run. */
struct na {
	char ctx[LAT_PERF_REASON_LEN], migr[LAT_PERF_REASON_LEN];
	char faults[LAT_PERF_REASON_LEN], ipc[LAT_PERF_REASON_LEN];
	char allocs[LAT_PERF_REASON_LEN];
	bool captured;
};

struct lab {
	struct args a;
	struct lat_lab_row row[MAX_ROWS];
	char where[MAX_ROWS][32];
	char verdict[MAX_ROWS][512];
	bool exact[MAX_ROWS];
	bool interrupted[MAX_ROWS]; /* stopped by a signal: a partial row */
	uint64_t dropped[MAX_ROWS];
	int n;
	struct lat_lab_base base;
	struct na na;
	char place_note[128];
};

static void parse_only(struct args *a, const char *list)
{
	char buf[256], *save = NULL;
	bool any = false;

	if (strlen(list) >= sizeof(buf))
		lat_cli_usage_error(CMD, "--only list too long");
	snprintf(buf, sizeof(buf), "%s", list);
	memset(a->want, 0, sizeof(a->want));
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		int e;

		for (e = 0; e < N_EXP && strcmp(t, exp_name[e]); e++)
			;
		if (e == N_EXP)
			lat_cli_usage_error(CMD, "--only: no experiment '%s' "
					    "(alloc, no-pin, share-line, "
					    "noise, stall)", t);
		a->want[e] = true;
		any = true;
	}
	/* '' or ',' would silently run the baseline alone */
	if (!any)
		lat_cli_usage_error(CMD, "--only needs at least one experiment "
				    "(alloc, no-pin, share-line, noise, "
				    "stall), not '%s'", list);
}

static void parse(struct args *a, int argc, char **argv)
{
	int c;

	a->runs = 3;
	a->events = 400000;
	a->rate = 200000;
	for (int e = 0; e < N_EXP; e++)
		a->want[e] = true;
	while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (c) {
		case OPT_RUNS:
			a->runs = (int)lat_cli_u64(CMD, "--runs", optarg, 1,
						   MAX_RUNS);
			break;
		case OPT_EVENTS:
			a->events = lat_cli_u64(CMD, "--events", optarg, 1000,
						1000000000ULL);
			a->events_set = true;
			break;
		case OPT_RATE:
			a->rate = lat_cli_double(CMD, "--rate", optarg, 1, 1e9);
			break;
		case OPT_ONLY:
			parse_only(a, optarg);
			break;
		case OPT_QUICK:
			a->quick = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		default:
			lat_cli_bad_option(CMD, argv, c);
		}
	}
	lat_cli_no_operands(CMD, argc, argv);
	if (a->quick && !a->events_set)
		a->events = 20000;
}

static struct lat_topo topo; /* large: not on the stack */

/* The pipeline's default placement; the noise thread gets a free CPU. */
static void place(struct lab *L, struct lat_pipe_config *c)
{
	struct lat_topo_place pl;
	int n = lat_pipe_n_hot(c->stages), rc;

	rc = lat_topo_load(&topo, NULL, NULL);
	if (!rc)
		rc = lat_topo_place(&topo, n, &pl);
	if (rc)
		lat_cli_fail(CMD, "cannot place %d threads: %s", n,
			     lat_strerror(rc));
	if (lat_pipe_place(c, &pl, false))
		snprintf(L->place_note, sizeof(L->place_note),
			 "%d hot threads on %d usable CPUs: they share CPUs, "
			 "waits yield", n, topo.n_usable);
	c->noise_cpu = lat_topo_unused_cpu(&topo, &pl);
}

static void configure(struct lab *L, struct lat_pipe_config *c, int exp)
{
	lat_pipe_config_init(c);
	c->events = L->a.events;
	c->rate = L->a.rate;
	if (L->a.quick)
		c->calibrate_ms = 50;
	place(L, c);
	switch (exp) {
	case EXP_ALLOC:
		c->alloc_bytes = 256;
		break;
	case EXP_NO_PIN:
		c->pin = false;
		break;
	case EXP_SHARE_LINE:
		c->share_line = true;
		break;
	case EXP_NOISE:
		c->noise = true;
		break;
	case EXP_STALL:
		c->stall_seq = c->events / 2;
		c->stall_ns = STALL_NS;
		break;
	}
}

/* Run, relaying SIGINT/SIGTERM as a stop so the run drains. */
static int run_pipe(const struct lat_pipe_config *c,
		    struct lat_pipe_result *r)
{
	const struct timespec tick = { 0, 20000000 };
	struct lat_pipe *p;
	int rc = lat_pipe_start(c, &p);

	if (rc)
		return rc;
	while (!lat_pipe_progress(p, NULL, NULL)) {
		if (lat_cli_stop_signal())
			lat_pipe_stop(p);
		nanosleep(&tick, NULL);
	}
	rc = lat_pipe_wait(p, r);
	lat_pipe_free(p);
	return rc;
}

static void copy_reason(char *dst, const char *why)
{
	snprintf(dst, LAT_PERF_REASON_LEN, "%s", why ? why : "");
}

static void capture_na(struct na *na, const struct lat_instr *in)
{
	const char *minor = lat_instr_reason(in, LAT_PERF_MINOR_FAULTS);

	if (na->captured)
		return;
	copy_reason(na->ctx, lat_instr_reason(in, LAT_PERF_CTX_SWITCHES));
	copy_reason(na->migr, lat_instr_reason(in, LAT_PERF_MIGRATIONS));
	copy_reason(na->faults, minor ? minor :
			lat_instr_reason(in, LAT_PERF_MAJOR_FAULTS));
	copy_reason(na->ipc, lat_instr_reason(in, LAT_PERF_CYCLES) ?
			lat_instr_reason(in, LAT_PERF_CYCLES) :
			lat_instr_reason(in, LAT_PERF_INSTRUCTIONS));
	copy_reason(na->allocs, in->alloc_reason);
	na->captured = true;
}

static void fill_metrics(struct lat_lab_row *w, const struct lat_instr *in)
{
	uint64_t minor, major;

	w->has_metric[LAT_LAB_CTX_SWITCHES] = lat_instr_sum(in,
		LAT_PERF_CTX_SWITCHES, &w->metric[LAT_LAB_CTX_SWITCHES]);
	w->has_metric[LAT_LAB_MIGRATIONS] = lat_instr_sum(in,
		LAT_PERF_MIGRATIONS, &w->metric[LAT_LAB_MIGRATIONS]);
	w->has_metric[LAT_LAB_PAGE_FAULTS] =
		lat_instr_sum(in, LAT_PERF_MINOR_FAULTS, &minor) &&
		lat_instr_sum(in, LAT_PERF_MAJOR_FAULTS, &major);
	w->metric[LAT_LAB_PAGE_FAULTS] =
		w->has_metric[LAT_LAB_PAGE_FAULTS] ? minor + major : 0;
	w->has_metric[LAT_LAB_ALLOCATIONS] = lat_instr_allocs(in,
		&w->metric[LAT_LAB_ALLOCATIONS]);
	w->has_metric[LAT_LAB_RUN_DELAY] = lat_instr_sum(in,
		LAT_PERF_RUN_DELAY, &w->metric[LAT_LAB_RUN_DELAY]);
	w->ipc = lat_instr_ipc(in);
}

static void fill_row(struct lat_lab_row *w, const struct lat_pipe_result *r)
{
	const struct lat_hist *e2e = &r->delta[r->n_deltas - 1].hist;

	w->events = r->recorded;
	w->p50 = (double)lat_hist_value_at_percentile(e2e, 50.0);
	w->p99 = (double)lat_hist_value_at_percentile(e2e, 99.0);
	w->p999 = (double)lat_hist_value_at_percentile(e2e, 99.9);
	w->max = (double)lat_hist_max(e2e);
	w->e2e_mean = lat_hist_mean(e2e);
	w->n_parts = r->n_deltas - 1;
	for (int i = 0; i < w->n_parts && i < LAT_LAB_MAX_PARTS; i++) {
		snprintf(w->part[i], sizeof(w->part[i]), "%s",
			 r->delta[i].name);
		w->part_mean[i] = lat_hist_mean(&r->delta[i].hist);
	}
	w->offered_rate = r->offered_rate;
	w->achieved_rate = r->achieved_rate;
	w->wall_s = r->wall_s;
}

/* One run: the baseline when @exp < 0. Returns false when stopped. */
static bool run_one(struct lab *L, int exp, int baseline_no)
{
	struct lat_instr_opts o = { .counters = true };
	struct lat_lab_row *w = &L->row[L->n];
	struct lat_pipe_config c;
	struct lat_pipe_result r;
	struct lat_instr in;
	int rc;

	configure(L, &c, exp);
	rc = lat_instr_init(&in, &o, &c);
	if (rc)
		lat_cli_fail(CMD, "cannot set up the counters: %s",
			     lat_strerror(rc));
	if (!L->a.json)
		fprintf(stderr, "latlab lab: running %s ...\n",
			exp < 0 ? "the baseline" : exp_name[exp]);
	rc = run_pipe(&c, &r);
	if (rc)
		lat_cli_fail(CMD, "%s run failed: %s",
			     exp < 0 ? "baseline" : exp_name[exp],
			     lat_strerror(rc));
	memset(w, 0, sizeof(*w));
	if (exp < 0)
		snprintf(w->name, sizeof(w->name), "baseline %d", baseline_no);
	else
		snprintf(w->name, sizeof(w->name), "%s", exp_name[exp]);
	w->baseline = exp < 0;
	fill_row(w, &r);
	fill_metrics(w, &in);
	capture_na(&L->na, &in);
	L->exact[L->n] = r.exact;
	L->interrupted[L->n] = r.interrupted;
	L->dropped[L->n] = r.dropped;
	L->n++;
	lat_pipe_result_destroy(&r);
	lat_instr_destroy(&in);
	return !lat_cli_stop_signal();
}

static void judge(struct lab *L)
{
	lat_lab_base_init(&L->base, L->row, L->n);
	for (int i = 0; i < L->n; i++) {
		const struct lat_lab_row *w = &L->row[i];
		double share;
		int at;

		snprintf(L->where[i], sizeof(L->where[i]), "-");
		L->verdict[i][0] = '\0';
		if (w->baseline)
			continue;
		at = lat_lab_where(&L->base, w, &share);
		if (at >= 0)
			snprintf(L->where[i], sizeof(L->where[i]), "%s %.0f%%",
				 w->part[at], 100 * share);
		lat_lab_fingerprint(&L->base, w, L->verdict[i],
				    sizeof(L->verdict[i]));
	}
}

static void cell_ns(double ns, int width)
{
	char b[LAT_FMT_LEN];

	lat_fmt_pad(stdout, lat_fmt_ns(b, sizeof(b), ns), width);
}

static void cell_metric(const struct lat_lab_row *w, int m, int width)
{
	char b[32];

	if (w->has_metric[m])
		snprintf(b, sizeof(b), "%llu",
			 (unsigned long long)w->metric[m]);
	else
		snprintf(b, sizeof(b), "n/a");
	lat_fmt_pad(stdout, b, width);
}

static void print_na(const char *what, const char *why)
{
	if (why[0])
		printf("n/a: %s: %s\n", what, why);
}

static void print_table(const struct lab *L)
{
	char b[LAT_FMT_LEN];

	printf("%-12s", "run");
	lat_fmt_pad(stdout, "p50", 9);
	lat_fmt_pad(stdout, "p99", 9);
	lat_fmt_pad(stdout, "p99.9", 9);
	lat_fmt_pad(stdout, "max", 9);
	printf("  %-14s", "growth in");
	lat_fmt_pad(stdout, "rate", 11);
	lat_fmt_pad(stdout, "wall", 8);
	lat_fmt_pad(stdout, "ctx-sw", 8);
	lat_fmt_pad(stdout, "migr", 6);
	lat_fmt_pad(stdout, "faults", 8);
	lat_fmt_pad(stdout, "allocs", 9);
	lat_fmt_pad(stdout, "IPC", 6);
	putchar('\n');
	for (int i = 0; i < L->n; i++) {
		const struct lat_lab_row *w = &L->row[i];

		printf("%-12s", w->name);
		cell_ns(w->p50, 9);
		cell_ns(w->p99, 9);
		cell_ns(w->p999, 9);
		cell_ns(w->max, 9);
		printf("  %-14s", L->where[i]);
		lat_fmt_pad(stdout, lat_fmt_rate(b, sizeof(b),
						 w->achieved_rate), 11);
		snprintf(b, sizeof(b), "%.2f s", w->wall_s);
		lat_fmt_pad(stdout, b, 8);
		cell_metric(w, LAT_LAB_CTX_SWITCHES, 8);
		cell_metric(w, LAT_LAB_MIGRATIONS, 6);
		cell_metric(w, LAT_LAB_PAGE_FAULTS, 8);
		cell_metric(w, LAT_LAB_ALLOCATIONS, 9);
		if (w->ipc >= 0)
			snprintf(b, sizeof(b), "%.2f", w->ipc);
		else
			snprintf(b, sizeof(b), "n/a");
		lat_fmt_pad(stdout, b, 6);
		putchar('\n');
	}
}

static void print_text(const struct lab *L)
{
	char a[LAT_FMT_LEN];

	printf("latlab lab: %d baseline run%s + %d experiment%s, %llu events "
	       "each at %s offered\n", L->base.runs, L->base.runs == 1 ? "" :
	       "s", L->n - L->base.runs, L->n - L->base.runs == 1 ? "" : "s",
	       (unsigned long long)L->a.events,
	       lat_fmt_rate(a, sizeof(a), L->a.rate));
	if (L->place_note[0])
		printf("placement: %s\n", L->place_note);
	putchar('\n');
	print_table(L);
	printf("\ne2e percentiles; \"growth in\": the stage holding most of "
	       "the mean e2e growth\nover the baseline; counters are summed "
	       "over the hot threads' measured runs.\n");
	print_na("ctx-sw", L->na.ctx);
	print_na("migr", L->na.migr);
	print_na("faults", L->na.faults);
	print_na("allocs", L->na.allocs);
	print_na("IPC", L->na.ipc);
	printf("\nfingerprints against the baseline (median of %d run%s):\n",
	       L->base.runs, L->base.runs == 1 ? "" : "s");
	for (int i = 0; i < L->n; i++)
		if (!L->row[i].baseline)
			printf("  %-11s %s\n", L->row[i].name, L->verdict[i]);
	for (int i = 0; i < L->n; i++)
		if (!L->exact[i] || L->dropped[i])
			printf("warning: %s: accounting %s, %llu samples "
			       "dropped by the aggregator ring\n",
			       L->row[i].name, L->exact[i] ? "exact" :
			       "NOT exact", (unsigned long long)L->dropped[i]);
	/* a Ctrl-C'd row looks like any other in the table: say so */
	for (int i = 0; i < L->n; i++)
		if (L->interrupted[i])
			printf("interrupted: %s stopped after %llu of %llu "
			       "events; its row is partial and the runs "
			       "after it did not happen\n", L->row[i].name,
			       (unsigned long long)L->row[i].events,
			       (unsigned long long)L->a.events);
}

static void json_metric(struct lat_json *j, const struct lat_lab_row *w,
			const char *key, int m)
{
	if (w->has_metric[m])
		lat_json_uint(j, key, w->metric[m]);
	else
		lat_json_null(j, key);
}

static void json_reason(struct lat_json *j, const char *key, const char *why)
{
	if (why[0])
		lat_json_str(j, key, why);
}

static void print_json(const struct lab *L, int sig)
{
	struct lat_json j;

	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_str(&j, "command", CMD);
	lat_json_int(&j, "baseline_runs", L->base.runs);
	lat_json_uint(&j, "events", L->a.events);
	lat_json_double(&j, "rate", L->a.rate);
	lat_json_bool(&j, "quick", L->a.quick);
	if (L->place_note[0])
		lat_json_str(&j, "placement_note", L->place_note);
	lat_json_arr_begin(&j, "rows");
	for (int i = 0; i < L->n; i++) {
		const struct lat_lab_row *w = &L->row[i];

		lat_json_obj_begin(&j, NULL);
		lat_json_str(&j, "name", w->name);
		lat_json_str(&j, "kind", w->baseline ? "baseline" :
			     "experiment");
		lat_json_uint(&j, "events", w->events);
		lat_json_double(&j, "p50_ns", w->p50);
		lat_json_double(&j, "p99_ns", w->p99);
		lat_json_double(&j, "p999_ns", w->p999);
		lat_json_double(&j, "max_ns", w->max);
		lat_json_double(&j, "mean_ns", w->e2e_mean);
		lat_json_obj_begin(&j, "part_mean_ns");
		for (int p = 0; p < w->n_parts; p++)
			lat_json_double(&j, w->part[p], w->part_mean[p]);
		lat_json_obj_end(&j);
		if (strcmp(L->where[i], "-"))
			lat_json_str(&j, "growth_in", L->where[i]);
		else
			lat_json_null(&j, "growth_in");
		lat_json_double(&j, "offered_rate", w->offered_rate);
		lat_json_double(&j, "achieved_rate", w->achieved_rate);
		lat_json_double(&j, "wall_s", w->wall_s);
		json_metric(&j, w, "ctx_switches", LAT_LAB_CTX_SWITCHES);
		json_metric(&j, w, "migrations", LAT_LAB_MIGRATIONS);
		json_metric(&j, w, "page_faults", LAT_LAB_PAGE_FAULTS);
		json_metric(&j, w, "allocations", LAT_LAB_ALLOCATIONS);
		json_metric(&j, w, "run_delay_ns", LAT_LAB_RUN_DELAY);
		if (w->ipc >= 0)
			lat_json_double(&j, "ipc", w->ipc);
		else
			lat_json_null(&j, "ipc");
		lat_json_bool(&j, "exact", L->exact[i]);
		lat_json_uint(&j, "dropped", L->dropped[i]);
		lat_json_bool(&j, "interrupted", L->interrupted[i]);
		if (w->baseline)
			lat_json_null(&j, "fingerprint");
		else
			lat_json_str(&j, "fingerprint", L->verdict[i]);
		lat_json_obj_end(&j);
	}
	lat_json_arr_end(&j);
	lat_json_obj_begin(&j, "baseline");
	lat_json_double(&j, "p50_ns", L->base.p50);
	lat_json_double(&j, "p999_ns", L->base.p999);
	lat_json_double(&j, "spread_p50", L->base.spread_p50);
	lat_json_double(&j, "spread_p999", L->base.spread_p999);
	lat_json_obj_end(&j);
	lat_json_obj_begin(&j, "unavailable");
	json_reason(&j, "ctx_switches", L->na.ctx);
	json_reason(&j, "migrations", L->na.migr);
	json_reason(&j, "page_faults", L->na.faults);
	json_reason(&j, "allocations", L->na.allocs);
	json_reason(&j, "ipc", L->na.ipc);
	lat_json_obj_end(&j);
	lat_json_int(&j, "signal", sig);
	lat_json_obj_end(&j);
	if (lat_json_finish(&j))
		lat_cli_fail(CMD, "internal error: unbalanced JSON");
}

static int cmd_lab(int argc, char **argv)
{
	static struct lab L; /* ~40 KiB of rows: not on the stack */
	bool go = true;
	int sig;

	memset(&L, 0, sizeof(L));
	parse(&L.a, argc, argv);
	lat_cli_catch_stop_signals();
	for (int i = 1; go && i <= L.a.runs; i++)
		go = run_one(&L, -1, i);
	for (int e = 0; go && e < N_EXP; e++)
		if (L.a.want[e])
			go = run_one(&L, e, 0);
	judge(&L);
	sig = lat_cli_stop_signal();
	if (L.a.json)
		print_json(&L, sig);
	else
		print_text(&L);
	return sig ? 128 + sig : LAT_EXIT_OK;
}

const struct lat_cmd lat_cmd_lab = {
	.name = "lab",
	.summary = "baseline vs experiments: each disease's fingerprint",
	.usage = usage,
	.run = cmd_lab,
};
