/*
 * The clock report for people and for scripts (what `latlab clock`
 * prints): calibrations, drift, the cost of each read, invariance.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>

#include "latlab/clock.h"
#include "latlab/fmt.h"
#include "latlab/json.h"

#if defined(__x86_64__)
#define ARCH "x86_64"
#elif defined(__aarch64__)
#define ARCH "aarch64"
#else
#define ARCH "other"
#endif

#if defined(__x86_64__) || defined(__i386__)
static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}
#endif

static void rdtscp_note(const struct lat_clock_report *r, char *buf,
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

static void print_costs(FILE *out, const struct lat_clock_report *r)
{
	char p50[LAT_FMT_LEN], p99[LAT_FMT_LEN], note[96];
	const struct lat_clock_cost *raw = &r->costs[LAT_CLOCK_READ_RAW];

	fprintf(out, "\ncost of one read, from %llu back-to-back pairs:\n",
		(unsigned long long)r->pairs);
	fprintf(out, "  %-30s %9s %9s\n", "", "p50", "p99");
	for (int k = 0; k < LAT_CLOCK_READ_KINDS; k++) {
		const struct lat_clock_cost *c = &r->costs[k];

		if (k == LAT_CLOCK_READ_RDTSCP) {
			rdtscp_note(r, note, sizeof(note));
			if (!c->available) {
				fprintf(out, "  %-30s  not run (%s)\n", c->how,
					note);
				continue;
			}
		}
		fprintf(out, "  %-30s %9s %9s", c->how,
			lat_fmt_ns(p50, sizeof(p50), c->p50_ns),
			lat_fmt_ns(p99, sizeof(p99), c->p99_ns));
		if (c->backwards)
			fprintf(out, "  %llu pairs backwards",
				(unsigned long long)c->backwards);
		fprintf(out, "\n");
		if (k == LAT_CLOCK_READ_RDTSCP)
			fprintf(out, "    (%s)\n", note);
	}
	/* The finest interval a stamp resolves: the counter's step or the
	 * read's own cost, whichever is larger; every figure above comes
	 * in multiples of it. */
	if (raw->pairs > raw->backwards)
		fprintf(out, "  back-to-back %s advances by %lld cycles (p50): "
			"no stamp here resolves\n  less than %s\n", raw->how,
			(long long)raw->p50_raw,
			lat_fmt_ns(p50, sizeof(p50), raw->p50_ns));
	fprintf(out, "  the hot path stamps with %s (start) and %s (end)\n",
		r->costs[LAT_CLOCK_READ_START].how,
		r->costs[LAT_CLOCK_READ_END].how);
}

void lat_clock_report_print(FILE *out, const struct lat_clock_report *r)
{
	const struct lat_clock_info *in = &r->info;

	fprintf(out, "%s counter on %s, %ld CPUs\n\n", in->source, ARCH,
		r->cpus);
	fprintf(out, "calibration against CLOCK_MONOTONIC_RAW (%d x %u ms)\n",
		LAT_CLOCK_REPORT_CALS, r->calib_ms);
	for (int i = 0; i < LAT_CLOCK_REPORT_CALS; i++)
		fprintf(out, "  #%d  %.4f cycles/ns   (%d windows, window "
			"slopes within %.2f ppm)\n", i + 1,
			r->cal.cal[i].cycles_per_ns, r->cal.cal[i].windows,
			r->cal.cal[i].spread_ppm);
	fprintf(out, "  spread of the three: %.3f ppm (%s)\n",
		r->cal.spread_ppm,
		r->cal.stable ? "stable" : "NOT stable: > 100 ppm");
	if (in->hw_hz > 0)
		fprintf(out, "  hardware says %.4f cycles/ns (cntfrq_el0): fit "
			"is off by %+.2f ppm\n", in->hw_hz / 1e9,
			(r->cal.median_cycles_per_ns / (in->hw_hz / 1e9) - 1) *
			1e6);
	/* fabs(x) < 5e-4 would print as "-0.000". */
	fprintf(out, "\ndrift vs CLOCK_MONOTONIC_RAW over %.2f s: %+.3f ppm "
		"(endpoints known to +-%.3f ppm)\n", r->drift.seconds,
		fabs(r->drift.ppm) < 5e-4 ? 0.0 : r->drift.ppm,
		r->drift.uncertainty_ppm);
	if (in->kernel_uses_counter)
		fprintf(out, "  the kernel derives MONOTONIC_RAW from the %s "
			"here, so this checks the\n  calibration, not the "
			"oscillator\n", in->source);
	print_costs(out, r);
	fprintf(out, "\ninvariant counter: %s", in->invariant ? "yes" : "NO");
#if defined(__x86_64__) || defined(__i386__)
	fprintf(out, " (CPUID 0x80000007 EDX[8] %s; constant_tsc %s, "
		"nonstop_tsc %s, tsc_reliable %s)",
		in->invariant_cpuid ? "set" : "clear",
		yes_no(in->constant_tsc), yes_no(in->nonstop_tsc),
		yes_no(in->tsc_reliable));
#else
	fprintf(out, " (generic timer, %.0f Hz)", in->hw_hz);
#endif
	fprintf(out, "\nkernel clocksource: %s%s\n", in->clocksource,
		in->kernel_uses_counter ? "" :
		" (the kernel keeps time with another clock; common in VMs)");
	lat_clock_warnings_print(out, "", r);
}

void lat_clock_warnings_print(FILE *out, const char *prefix,
			      const struct lat_clock_report *r)
{
	char buf[160];

	for (unsigned w = 1; w <= LAT_CLOCK_WARN_LAST; w <<= 1)
		if (r->warnings & w)
			fprintf(out, "%swarning: %s\n", prefix,
				lat_clock_warning_text(r, w, buf, sizeof(buf)));
}

static void json_costs(struct lat_json *j, const struct lat_clock_report *r)
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
			lat_json_int(j, k <= LAT_CLOCK_READ_RDTSCP ?
				     "p50_cycles" : "p50_raw_ns", c->p50_raw);
		if (k == LAT_CLOCK_READ_RDTSCP) {
			rdtscp_note(r, note, sizeof(note));
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

void lat_clock_report_json(struct lat_json *j, const struct lat_clock_report *r)
{
	const struct lat_clock_info *in = &r->info;
	char buf[160];

	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "arch", ARCH);
	lat_json_str(j, "source", in->source);
	lat_json_int(j, "cpus", r->cpus);
	lat_json_uint(j, "calib_ms", r->calib_ms);
	lat_json_arr_begin(j, "calibrations");
	for (int i = 0; i < LAT_CLOCK_REPORT_CALS; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_double(j, "cycles_per_ns", r->cal.cal[i].cycles_per_ns);
		lat_json_double(j, "window_spread_ppm",
				r->cal.cal[i].spread_ppm);
		lat_json_int(j, "windows", r->cal.cal[i].windows);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_double(j, "cycles_per_ns", r->cal.use.cycles_per_ns);
	lat_json_double(j, "calibration_spread_ppm", r->cal.spread_ppm);
	lat_json_bool(j, "calibration_stable", r->cal.stable);
	/* null, not 0, when the hardware states no frequency (x86) */
	lat_json_double(j, "hw_hz", in->hw_hz > 0 ? in->hw_hz : NAN);
	lat_json_obj_begin(j, "drift");
	lat_json_double(j, "seconds", r->drift.seconds);
	lat_json_double(j, "ppm", r->drift.ppm);
	lat_json_double(j, "uncertainty_ppm", r->drift.uncertainty_ppm);
	lat_json_obj_end(j);
	json_costs(j, r);
	lat_json_obj_begin(j, "invariant");
	lat_json_bool(j, "verdict", in->invariant);
	lat_json_bool(j, "cpuid", in->invariant_cpuid);
	lat_json_bool(j, "constant_tsc", in->constant_tsc);
	lat_json_bool(j, "nonstop_tsc", in->nonstop_tsc);
	lat_json_bool(j, "tsc_reliable", in->tsc_reliable);
	lat_json_bool(j, "tsc_known_freq", in->tsc_known_freq);
	lat_json_obj_end(j);
	lat_json_str(j, "clocksource", in->clocksource);
	lat_json_bool(j, "kernel_uses_counter", in->kernel_uses_counter);
	lat_json_arr_begin(j, "warnings");
	for (unsigned w = 1; w <= LAT_CLOCK_WARN_LAST; w <<= 1)
		if (r->warnings & w)
			lat_json_str(j, NULL,
				     lat_clock_warning_text(r, w, buf,
							    sizeof(buf)));
	lat_json_arr_end(j);
	lat_json_obj_end(j);
}

/* lat_json_or_text's shapes, typed */
static void report_text(FILE *out, const void *r)
{
	lat_clock_report_print(out, r);
}

static void report_doc(struct lat_json *j, const void *r)
{
	lat_clock_report_json(j, r);
}

int lat_clock_report_write(FILE *out, bool json,
			   const struct lat_clock_report *r)
{
	return lat_json_or_text(out, json, r, report_text, report_doc);
}
