/*
 * One run of the coordinated-omission experiment with everything its
 * printers show, and the printers: the three measurements as a table for
 * people and as one JSON object (what `latlab co` prints).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "latlab/co.h"
#include "latlab/fmt.h"
#include "latlab/json.h"

/* 1 ns .. 1 h: any latency this toy service can show */
#define CO_HIST_MAX 3600000000000ll

int lat_co_report_init(struct lat_co_report *r,
		       const struct lat_co_config *cfg)
{
	int rc = lat_co_config_check(cfg);

	memset(r, 0, sizeof(*r));
	if (rc)
		return rc;
	r->cfg = *cfg;
	for (int i = 0; i < LAT_CO_MODES; i++) {
		rc = lat_hist_init(&r->h[i], 1, CO_HIST_MAX,
				   LAT_HIST_DEFAULT_SIG_FIGS);
		if (rc) {
			lat_co_report_release(r);
			return rc;
		}
	}
	rc = cfg->clock == LAT_CO_WALL ? lat_clock_calibrate(&r->cal, 100) : 0;
	if (rc)
		lat_co_report_release(r);
	return rc;
}

int lat_co_report_run(struct lat_co_report *r)
{
	int rc = lat_co_run(&r->cfg, &r->cal, &r->h[LAT_CO_CLOSED],
			    &r->h[LAT_CO_CORRECTED], &r->h[LAT_CO_OPEN],
			    &r->st);

	if (!rc || rc == -EINTR)
		lat_co_judge(&r->cfg, &r->h[LAT_CO_CLOSED],
			     &r->h[LAT_CO_OPEN], &r->v);
	return rc;
}

void lat_co_report_release(struct lat_co_report *r)
{
	for (int i = 0; i < LAT_CO_MODES; i++)
		lat_hist_destroy(&r->h[i]);
}

double lat_co_cpu_share(const struct lat_co_closed_stats *st)
{
	return st->wall_ns ? (double)st->cpu_ns / (double)st->wall_ns : 0;
}

static const char *const mode_key[LAT_CO_MODES] = {
	"closed", "open", "corrected",
};
static const char *const mode_label[LAT_CO_MODES] = {
	"closed loop", "open loop", "closed, corrected",
};

/* Print @ns with its unit, padded to @width columns (µ is 2 bytes). */
static void print_ns(FILE *out, const char *name, int64_t ns, int width)
{
	char buf[LAT_FMT_LEN];

	fprintf(out, " %s ", name);
	lat_fmt_pad_left(out, lat_fmt_ns(buf, sizeof(buf), (double)ns), width);
}

void lat_co_print(FILE *out, const struct lat_co_report *r)
{
	char svc[LAT_FMT_LEN], stall[LAT_FMT_LEN], rate[LAT_FMT_LEN];
	char text[LAT_CO_TEXT_LEN];

	lat_fmt_ns(svc, sizeof(svc), r->cfg.service_ns);
	lat_fmt_ns(stall, sizeof(stall), r->cfg.stall_ns);
	lat_fmt_rate(rate, sizeof(rate), r->cfg.rate_per_s);
	fprintf(out, "%" PRIu64 " requests at %s, %s of work each, one %s "
		"stall at request %" PRIu64 "\n\n", r->cfg.requests, rate, svc,
		stall, r->cfg.stall_at);
	for (int i = 0; i < LAT_CO_MODES; i++) {
		const struct lat_hist *h = &r->h[i];

		fprintf(out, "%-17s n=%-7" PRId64, mode_label[i],
			h->total_count);
		print_ns(out, "p50", lat_hist_value_at_percentile(h, 50), 9);
		print_ns(out, "p99", lat_hist_value_at_percentile(h, 99), 9);
		print_ns(out, "p99.9", lat_hist_value_at_percentile(h, 99.9),
			 9);
		print_ns(out, "max", lat_hist_max(h), 0);
		fprintf(out, "\n");
	}
	lat_co_explain(text, sizeof(text), r);
	fprintf(out, "\n");
	lat_fmt_paragraph(out, text, 0);
	lat_co_load_note(text, sizeof(text), r);
	if (text[0])
		lat_fmt_paragraph(out, text, 0);
}

void lat_co_json(struct lat_json *j, const struct lat_co_report *r)
{
	char verdict[LAT_CO_TEXT_LEN];

	const struct lat_co_closed_stats *st = &r->st;
	const struct lat_co_verdict *v = &r->v;

	lat_json_obj_begin(j, NULL);
	lat_json_obj_begin(j, "config");
	lat_json_uint(j, "requests", r->cfg.requests);
	lat_json_double(j, "rate_per_s", r->cfg.rate_per_s);
	lat_json_double(j, "service_ns", r->cfg.service_ns);
	lat_json_double(j, "stall_ns", r->cfg.stall_ns);
	lat_json_uint(j, "stall_at", r->cfg.stall_at);
	lat_json_str(j, "clock", r->cfg.clock == LAT_CO_CPU ? "cpu" : "wall");
	lat_json_double(j, "cycles_per_ns", r->cal.cycles_per_ns);
	lat_json_obj_end(j);
	lat_json_obj_begin(j, "modes");
	for (int i = 0; i < LAT_CO_MODES; i++) {
		const struct lat_hist *h = &r->h[i];

		lat_json_obj_begin(j, mode_key[i]);
		lat_json_int(j, "n", h->total_count);
		lat_json_int(j, "over_range", h->overflow_count);
		lat_json_int(j, "p50_ns", lat_hist_value_at_percentile(h, 50));
		lat_json_int(j, "p99_ns", lat_hist_value_at_percentile(h, 99));
		lat_json_int(j, "p999_ns",
			     lat_hist_value_at_percentile(h, 99.9));
		lat_json_int(j, "max_ns", lat_hist_max(h));
		lat_json_obj_end(j);
	}
	lat_json_obj_end(j);
	/* false when interrupted: the counts are of the requests done */
	lat_json_bool(j, "complete", st->done == r->cfg.requests);
	lat_json_uint(j, "requests_done", st->done);
	lat_json_uint(j, "closed_sent_late", st->sent_late);
	lat_json_uint(j, "closed_max_send_delay_ns", st->max_send_delay_ns);
	lat_json_uint(j, "wall_ns", st->wall_ns);
	lat_json_uint(j, "cpu_ns", st->cpu_ns);
	lat_json_double(j, "cpu_share", lat_co_cpu_share(st));
	lat_co_explain(verdict, sizeof(verdict), r);
	lat_json_str(j, "verdict", verdict);
	lat_json_obj_begin(j, "finding");
	lat_json_str(j, "kind", lat_co_finding_name(v->finding));
	lat_json_double_if(j, "healthy_pct", v->finding == LAT_CO_OMISSION,
			   v->healthy_pct);
	lat_json_double_if(j, "healthy_ns", v->finding == LAT_CO_OMISSION,
			   (double)v->healthy_ns);
	lat_json_double(j, "held_back", v->held_back);
	lat_json_bool(j, "max_agrees", v->max_agrees);
	lat_json_obj_end(j);
	lat_json_obj_end(j);
}

static void co_text(FILE *out, const void *r)
{
	lat_co_print(out, r);
}

static void co_doc(struct lat_json *j, const void *r)
{
	lat_co_json(j, r);
}

int lat_co_write(FILE *out, const struct lat_co_report *r, bool json)
{
	return lat_json_or_text(out, json, r, co_text, co_doc);
}
