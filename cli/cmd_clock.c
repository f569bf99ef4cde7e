/*
 * latlab clock: own the cycle clock. Calibrates the counter three times
 * against CLOCK_MONOTONIC_RAW, measures its drift, what one read of each
 * kind costs, and whether the counter can be trusted as time at all.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "latlab/clock.h"
#include "latlab/fmt.h"
#include "latlab/json.h"

#define CMD "clock"
#define CALIBRATIONS 3
#define MAX_WARNINGS 8

static const char usage[] =
"latlab clock: own the cycle clock\n"
"\n"
"Calibrates the cycle counter (TSC / cntvct_el0) three times against\n"
"CLOCK_MONOTONIC_RAW, measures its drift, what one read of each kind\n"
"costs (p50/p99 of back-to-back pairs), and whether the counter is\n"
"invariant, i.e. whether cycles are time at all.\n"
"\n"
"usage: latlab clock [--drift-seconds <s>] [--calib-ms <ms>]\n"
"                    [--pairs <n>] [--json]\n"
"\n"
"options:\n"
"  --drift-seconds <s>  drift interval in seconds, 0.01..3600\n"
"                       (default 3)\n"
"  --calib-ms <ms>      length of each of the three calibrations,\n"
"                       10..60000 (default 200)\n"
"  --pairs <n>          back-to-back read pairs per kind of read,\n"
"                       1000..50M, k/M suffixes (default 200k)\n"
"  --json               print one JSON object instead of the report\n"
"\n"
"EXAMPLES:\n"
"  latlab clock                        # the full lab, ~4 s\n"
"  latlab clock --drift-seconds 60     # is the ratio still right a "
"minute later?\n"
"  latlab clock --json | jq .read_cost # read costs for a script\n"
"  latlab clock --calib-ms 20 --drift-seconds 0.5 --pairs 10k"
"  # quick look\n";

#if defined(__x86_64__)
#define ARCH "x86_64"
#elif defined(__aarch64__)
#define ARCH "aarch64"
#else
#define ARCH "other"
#endif

struct clock_opts {
	double drift_s;
	unsigned calib_ms;
	uint64_t pairs;
	bool json;
};

struct clock_report {
	struct lat_clock_info info;
	struct lat_clock_repeat cal;
	struct lat_clock_drift drift;
	bool rdtscp_works;
	struct lat_clock_cost costs[LAT_CLOCK_READ_KINDS];
	long cpus;
	const char *warnings[MAX_WARNINGS];
	int n_warnings;
};

static void warn(struct clock_report *r, const char *text)
{
	if (r->n_warnings < MAX_WARNINGS)
		r->warnings[r->n_warnings++] = text;
}

enum { OPT_DRIFT = 256, OPT_CALIB, OPT_PAIRS, OPT_JSON };

static const struct option options[] = {
	{ "drift-seconds", required_argument, NULL, OPT_DRIFT },
	{ "calib-ms", required_argument, NULL, OPT_CALIB },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ NULL, 0, NULL, 0 },
};

static void parse(int argc, char **argv, struct clock_opts *o)
{
		int c;

	while ((c = cli_getopt(argc, argv, ":", options)) != -1) {
		switch (c) {
		case OPT_DRIFT:
			o->drift_s = cli_double(CMD, "--drift-seconds",
						    optarg, 0.01, 3600);
			break;
		case OPT_CALIB:
			o->calib_ms = (unsigned)cli_u64(CMD, "--calib-ms",
							    optarg, 10, 60000);
			break;
		case OPT_PAIRS:
			o->pairs = cli_u64(CMD, "--pairs", optarg, 1000,
					       50000000);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		default:
			cli_bad_option(CMD, argv, c);
		}
	}
	cli_no_operands(CMD, argc, argv);
}

static void collect(const struct clock_opts *o, struct clock_report *r)
{
	int rc;

	memset(r, 0, sizeof(*r));
	lat_clock_info(&r->info);
	r->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	r->rdtscp_works = lat_clock_rdtscp_works();
	if (!r->info.invariant)
		warn(r, "the cycle counter is NOT invariant here: its rate "
			"changes with power states or frequency, so cycles are "
			"not time; use clock_gettime for durations");
	rc = lat_clock_calibrate_repeat(&r->cal, CALIBRATIONS, o->calib_ms);
	if (rc)
		cli_fail(CMD, "calibration failed: %s", lat_strerror(rc));
	if (!r->cal.stable)
		warn(r, "the three calibrations differ by more than 100 ppm: "
			"the counter's rate is not steady here");
	if (o->drift_s > 2) /* a long wait says so, and how to end it */
		fprintf(stderr, "latlab clock: measuring the drift over %g s "
			"(Ctrl-C ends it early)\n", o->drift_s);
	rc = lat_clock_drift(&r->cal.use, o->drift_s, &r->drift);
	if (!rc && cli_stop_signal()) {
		static char msg[128];

		snprintf(msg, sizeof(msg), "interrupted: the drift was "
			 "measured over %.3f s, not the %g s asked",
			 r->drift.seconds, o->drift_s);
		warn(r, msg);
	}
	if (!rc)
		/* interrupted: a short measure, not the full one */
		rc = lat_clock_read_costs(&r->cal.use, cli_stop_signal() ?
					  1000 : o->pairs, r->costs);
	if (rc)
		cli_fail(CMD, "measuring: %s", lat_strerror(rc));
	for (int k = 0; k < LAT_CLOCK_READ_KINDS; k++)
		if (r->costs[k].backwards) {
			warn(r, "some read pairs went backwards (a migration "
				"between CPUs whose counters differ); they "
				"are counted and left out of the percentiles");
			break;
		}
}
static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static void print_rdtscp_note(const struct clock_report *r, char *buf,
			      size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
	snprintf(buf, len, "CPUID %s it, /proc/cpuinfo %s it, %s",
		 r->info.rdtscp_cpuid ? "advertises" : "hides",
		 r->info.rdtscp_cpuinfo ? "lists" : "omits",
		 r->rdtscp_works ? "it executes" : "it faults: not run");
#else
	(void)r;
	snprintf(buf, len, "x86 only");
#endif
}

static void print_text(const struct clock_opts *o,
		       const struct clock_report *r)
{
	char p50[LAT_FMT_LEN], p99[LAT_FMT_LEN], note[96];
	const struct lat_clock_info *in = &r->info;
	const struct lat_clock_cost *raw;

	printf("latlab clock: %s counter on %s, %ld CPUs\n\n", in->source,
	       ARCH, r->cpus);
	printf("calibration against CLOCK_MONOTONIC_RAW (%d x %u ms)\n",
	       CALIBRATIONS, o->calib_ms);
	for (int i = 0; i < CALIBRATIONS; i++)
		printf("  #%d  %.4f cycles/ns   (%d windows, window slopes "
		       "within %.2f ppm)\n", i + 1, r->cal.cal[i].cycles_per_ns,
		       r->cal.cal[i].windows, r->cal.cal[i].spread_ppm);
	printf("  spread of the three: %.3f ppm (%s)\n", r->cal.spread_ppm,
	       r->cal.stable ? "stable" :
	       "NOT stable: > 100 ppm");
	if (in->hw_hz > 0)
		printf("  hardware says %.4f cycles/ns (cntfrq_el0): fit is "
		       "off by %+.2f ppm\n", in->hw_hz / 1e9,
		       (r->cal.median_cycles_per_ns / (in->hw_hz / 1e9) - 1) * 1e6);
	/* fabs(x) < 5e-4 would print as "-0.000". */
	printf("\ndrift vs CLOCK_MONOTONIC_RAW over %.2f s: %+.3f ppm "
	       "(endpoints known to +-%.3f ppm)\n", r->drift.seconds,
	       fabs(r->drift.ppm) < 5e-4 ? 0.0 : r->drift.ppm,
	       r->drift.uncertainty_ppm);
	if (in->kernel_uses_counter)
		printf("  the kernel derives MONOTONIC_RAW from the %s here, "
		       "so this checks the\n  calibration, not the "
		       "oscillator\n", in->source);

	printf("\ncost of one read, from %llu back-to-back pairs:\n",
	       (unsigned long long)o->pairs);
	printf("  %-30s %9s %9s\n", "", "p50", "p99");
	for (int k = 0; k < LAT_CLOCK_READ_KINDS; k++) {
		const struct lat_clock_cost *c = &r->costs[k];

		if (k == LAT_CLOCK_READ_RDTSCP) {
			print_rdtscp_note(r, note, sizeof(note));
			if (!c->available) {
				printf("  %-30s  not run (%s)\n", c->how, note);
				continue;
			}
		}
		printf("  %-30s %9s %9s", c->how,
		       lat_fmt_ns(p50, sizeof(p50), c->p50_ns),
		       lat_fmt_ns(p99, sizeof(p99), c->p99_ns));
		if (c->backwards)
			printf("  %llu pairs backwards",
			       (unsigned long long)c->backwards);
		printf("\n");
		if (k == LAT_CLOCK_READ_RDTSCP)
			printf("    (%s)\n", note);
	}
	raw = &r->costs[LAT_CLOCK_READ_RAW];
	/* The finest interval a stamp resolves: the counter's step or the
	 * read's own cost, whichever is larger; every figure above comes
	 * in multiples of it. */
	if (raw->pairs > raw->backwards)
		printf("  back-to-back %s advances by %lld cycles (p50): no "
		       "stamp here resolves\n  less than %s\n", raw->how,
		       (long long)raw->p50_raw,
		       lat_fmt_ns(p50, sizeof(p50), raw->p50_ns));
	printf("  the hot path stamps with %s (start) and %s (end)\n",
	       r->costs[LAT_CLOCK_READ_START].how, r->costs[LAT_CLOCK_READ_END].how);

	printf("\ninvariant counter: %s", in->invariant ? "yes" : "NO");
#if defined(__x86_64__) || defined(__i386__)
	printf(" (CPUID 0x80000007 EDX[8] %s; constant_tsc %s, nonstop_tsc "
	       "%s, tsc_reliable %s)", in->invariant_cpuid ? "set" : "clear",
	       yes_no(in->constant_tsc), yes_no(in->nonstop_tsc),
	       yes_no(in->tsc_reliable));
#else
	printf(" (generic timer, %.0f Hz)", in->hw_hz);
#endif
	printf("\nkernel clocksource: %s%s\n", in->clocksource,
	       in->kernel_uses_counter ? "" :
	       " (the kernel keeps time with another clock; common in VMs)");
	for (int i = 0; i < r->n_warnings; i++)
		printf("warning: %s\n", r->warnings[i]);
}

static void json_cal(struct lat_json *j, const struct lat_clock_cal *c)
{
	lat_json_obj_begin(j, NULL);
	lat_json_double(j, "cycles_per_ns", c->cycles_per_ns);
	lat_json_double(j, "window_spread_ppm", c->spread_ppm);
	lat_json_int(j, "windows", c->windows);
	lat_json_obj_end(j);
}

static void json_costs(struct lat_json *j, const struct clock_report *r)
{
	char note[96];

	lat_json_obj_begin(j, "read_cost");
	for (int k = 0; k < LAT_CLOCK_READ_KINDS; k++) {
		const struct lat_clock_cost *c = &r->costs[k];

		lat_json_obj_begin(j, c->key);
		lat_json_str(j, "how", c->how);
		lat_json_bool(j, "available", c->available);
		lat_json_uint(j, "pairs", c->pairs);
		lat_json_uint(j, "backwards", c->backwards);
		/* Not run: NaN, which the writer turns into null. */
		lat_json_double(j, "p50_ns", c->available ? c->p50_ns : NAN);
		lat_json_double(j, "p99_ns", c->available ? c->p99_ns : NAN);
		if (c->available)
			lat_json_int(j, k <= LAT_CLOCK_READ_RDTSCP ? "p50_cycles" :
				     "p50_raw_ns", c->p50_raw);
		if (k == LAT_CLOCK_READ_RDTSCP) {
			print_rdtscp_note(r, note, sizeof(note));
			lat_json_bool(j, "cpuid_claims", r->info.rdtscp_cpuid);
			lat_json_bool(j, "cpuinfo_claims",
				      r->info.rdtscp_cpuinfo);
			lat_json_bool(j, "executes", r->rdtscp_works);
			lat_json_str(j, "note", note);
		}
		lat_json_obj_end(j);
	}
	lat_json_obj_end(j);
}

static int print_json(const struct clock_opts *o,
		      const struct clock_report *r)
{
	const struct lat_clock_info *in = &r->info;
	struct lat_json j;

	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_str(&j, "arch", ARCH);
	lat_json_str(&j, "source", in->source);
	lat_json_int(&j, "cpus", r->cpus);
	lat_json_uint(&j, "calib_ms", o->calib_ms);
	lat_json_arr_begin(&j, "calibrations");
	for (int i = 0; i < CALIBRATIONS; i++)
		json_cal(&j, &r->cal.cal[i]);
	lat_json_arr_end(&j);
	lat_json_double(&j, "cycles_per_ns", r->cal.use.cycles_per_ns);
	lat_json_double(&j, "calibration_spread_ppm", r->cal.spread_ppm);
	lat_json_bool(&j, "calibration_stable",
		      r->cal.stable);
	/* null, not 0, when the hardware states no frequency (x86) */
	lat_json_double(&j, "hw_hz", in->hw_hz > 0 ? in->hw_hz : NAN);
	lat_json_obj_begin(&j, "drift");
	lat_json_double(&j, "seconds", r->drift.seconds);
	lat_json_double(&j, "ppm", r->drift.ppm);
	lat_json_double(&j, "uncertainty_ppm", r->drift.uncertainty_ppm);
	lat_json_obj_end(&j);
	json_costs(&j, r);
	lat_json_obj_begin(&j, "invariant");
	lat_json_bool(&j, "verdict", in->invariant);
	lat_json_bool(&j, "cpuid", in->invariant_cpuid);
	lat_json_bool(&j, "constant_tsc", in->constant_tsc);
	lat_json_bool(&j, "nonstop_tsc", in->nonstop_tsc);
	lat_json_bool(&j, "tsc_reliable", in->tsc_reliable);
	lat_json_bool(&j, "tsc_known_freq", in->tsc_known_freq);
	lat_json_obj_end(&j);
	lat_json_str(&j, "clocksource", in->clocksource);
	lat_json_bool(&j, "kernel_uses_counter", in->kernel_uses_counter);
	lat_json_arr_begin(&j, "warnings");
	for (int i = 0; i < r->n_warnings; i++)
		lat_json_str(&j, NULL, r->warnings[i]);
	lat_json_arr_end(&j);
	lat_json_obj_end(&j);
	return lat_json_finish(&j);
}

static int clock_main(int argc, char **argv)
{
	struct clock_opts o = {
		.drift_s = 3, .calib_ms = 200, .pairs = 200000, .json = false,
	};
	static struct clock_report r;

	parse(argc, argv, &o);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	cli_catch_stop_signals();
	collect(&o, &r);
	if (o.json) {
		/* Scripts read stdout; a person watching still sees these. */
		for (int i = 0; i < r.n_warnings; i++)
			fprintf(stderr, "latlab clock: warning: %s\n",
				r.warnings[i]);
		if (print_json(&o, &r))
			cli_fail(CMD, "internal error: malformed JSON");
	} else {
		print_text(&o, &r);
	}
	return cli_stop_signal() ? 128 + cli_stop_signal() : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_clock = {
	.name = "clock",
	.summary = "own the cycle clock: calibration, drift, read cost",
	.usage = usage,
	.run = clock_main,
};
