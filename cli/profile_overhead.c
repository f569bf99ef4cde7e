/*
 * latlab profile --overhead: the pipeline unprofiled and at 99, 999 and
 * 9999 Hz (lat_prof_overhead), as a table or --json.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/prof_overhead.h"
#include "profile.h"

#define CMD "profile"

static bool stop_on_signal(void *ctx, uint64_t produced, double elapsed_s)
{
	(void)ctx;
	(void)produced;
	(void)elapsed_s;
	return cli_stop_signal() != 0;
}

static void print_text(const struct lat_prof_overhead_config *c,
		       const struct lat_prof_overhead_row *rows, bool over)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], lo[LAT_FMT_LEN], hi[LAT_FMT_LEN];

	printf("latlab profile --overhead: the pipeline (%" PRIu64 " events at "
	       "%.0f/s) x %d round(s) per rate, rates interleaved\n",
	       c->pipe.events, c->pipe.rate, c->rounds);
	if (over)
		printf("placement: hot threads share CPUs (numbers include "
		       "scheduler effects)\n");
	printf("\n%8s %4s %9s %9s %19s %7s %7s %9s %5s %9s %10s %9s %8s\n",
	       "rate", "runs", "e2e p50", "e2e p99", "p99 of the runs",
	       "p50 x", "p99 x", "samples", "lost", "reader ms", "symbols ms",
	       "probe x", "us/smpl");
	for (int i = 0; i < c->n_rates; i++) {
		const struct lat_prof_overhead_row *r = &rows[i];
		char rate[16], span[48];

		snprintf(rate, sizeof(rate), r->freq_hz ? "%.0f Hz" : "off",
			 r->freq_hz);
		if (!r->runs) {
			printf("%8s    0  %s\n", rate,
			       r->note[0] ? r->note : "not run");
			continue;
		}
		snprintf(span, sizeof(span), "%s..%s",
			 lat_fmt_ns(lo, sizeof(lo), r->p99_min_ns),
			 lat_fmt_ns(hi, sizeof(hi), r->p99_max_ns));
		printf("%8s %4d %9s %9s %19s %6.2fx %6.2fx %9" PRIu64 " %5" PRIu64
		       " %9.1f %10.1f %8.3fx", rate, r->runs,
		       lat_fmt_ns(a, sizeof(a), r->p50_ns),
		       lat_fmt_ns(b, sizeof(b), r->p99_ns), span, r->p50_ratio,
		       r->p99_ratio, r->samples, r->lost,
		       r->freq_hz ? r->reader_cpu_ms : 0,
		       r->freq_hz ? r->fold_cpu_ms : 0, r->probe_ratio);
		/* a handful of samples cannot price one against the noise */
		if (r->freq_hz && r->probe_samples >= 20)
			printf(" %8.2f\n", r->us_per_sample);
		else
			printf(" %8s\n", "-");
	}
	printf("\nmedians over the runs; x: against the unprofiled runs of "
	       "this experiment (their own p99 spread is the yardstick);\n"
	       "reader ms: CPU of the thread draining the rings, per run; "
	       "symbols ms: CPU to symbolize afterwards;\n"
	       "probe x: CPU time of a fixed piece of work, against "
	       "unprofiled; us/smpl: its growth per sample taken,\n"
	       "the kernel's cost of one sample, paid by the sampled "
	       "thread ('-' under 20 samples: too few to price one).\n");
}

static void print_json(const struct lat_prof_overhead_config *c,
		       const struct lat_prof_overhead_row *rows, bool over)
{
	struct lat_json j;

	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_uint(&j, "events", c->pipe.events);
	lat_json_double(&j, "rate", c->pipe.rate);
	lat_json_int(&j, "rounds", c->rounds);
	lat_json_bool(&j, "oversubscribed", over);
	lat_json_arr_begin(&j, "rows");
	for (int i = 0; i < c->n_rates; i++) {
		const struct lat_prof_overhead_row *r = &rows[i];

		lat_json_obj_begin(&j, NULL);
		lat_json_double(&j, "freq_hz", r->freq_hz);
		lat_json_int(&j, "runs", r->runs);
		lat_json_str(&j, "note", r->note);
		lat_json_double(&j, "e2e_p50_ns", r->p50_ns);
		lat_json_double(&j, "e2e_p99_ns", r->p99_ns);
		lat_json_double(&j, "e2e_p99_min_ns", r->p99_min_ns);
		lat_json_double(&j, "e2e_p99_max_ns", r->p99_max_ns);
		lat_json_double(&j, "p50_ratio", r->p50_ratio);
		lat_json_double(&j, "p99_ratio", r->p99_ratio);
		lat_json_uint(&j, "samples", r->samples);
		lat_json_uint(&j, "lost", r->lost);
		lat_json_double(&j, "reader_cpu_ms", r->reader_cpu_ms);
		lat_json_double(&j, "symbols_cpu_ms", r->fold_cpu_ms);
		lat_json_double(&j, "wall_s", r->wall_s);
		lat_json_double(&j, "probe_cpu_ms", r->probe_cpu_ms);
		lat_json_double(&j, "probe_samples", r->probe_samples);
		lat_json_double(&j, "probe_ratio", r->probe_ratio);
		lat_json_double(&j, "us_per_sample", r->us_per_sample);
		lat_json_obj_end(&j);
	}
	lat_json_arr_end(&j);
	lat_json_obj_end(&j);
	if (lat_json_finish(&j))
		cli_fail(CMD, "JSON output failed");
	printf("\n");
}

int cli_profile_overhead(uint64_t events, int rounds, bool json)
{
	struct lat_prof_overhead_config c;
	struct lat_prof_overhead_row rows[LAT_PROF_OVERHEAD_MAX_RATES];
	bool over = false;
	int rc;

	lat_prof_overhead_config_init(&c);
	if (events)
		c.pipe.events = events;
	if (rounds)
		c.rounds = rounds;
	rc = lat_pipe_autoplace(&c.pipe, false, &over);
	if (rc)
		cli_fail(CMD, "placing the pipeline: %s", lat_strerror(rc));
	c.stop = stop_on_signal;
	cli_catch_stop_signals();
	rc = lat_prof_overhead_run(&c, rows);
	if (rc && rc != -EINTR)
		cli_fail(CMD, "--overhead: %s", lat_strerror(rc));
	if (json)
		print_json(&c, rows, over);
	else
		print_text(&c, rows, over);
	if (cli_stop_signal())
		return 128 + cli_stop_signal();
	return CLI_EXIT_OK;
}
