/*
 * lat_lab_write_json: the lab for scripts: rows, baselines, verdicts as
 * enums (stable names) and numbers.
 */
#include <errno.h>
#include <stdio.h>

#include "latlab/lab.h"

static void json_cmp(struct lat_json *j, const char *key,
		     const struct lat_lab_cmp *c)
{
	lat_json_obj_begin(j, key);
	lat_json_double(j, "ratio", c->ratio);
	lat_json_double(j, "spread", c->spread);
	lat_json_double(j, "drift", c->drift);
	lat_json_double(j, "tolerance", c->tolerance);
	lat_json_str(j, "effect", lat_lab_effect_name(c->effect));
	lat_json_obj_end(j);
}

static void json_cpus(struct lat_json *j, const char *key, const int *cpu)
{
	lat_json_arr_begin(j, key);
	for (int i = 0; i < 3; i++)
		lat_json_int(j, NULL, cpu[i]);
	lat_json_arr_end(j);
}

static void json_part(struct lat_json *j, const char *key,
		      const struct lat_lab_row *r, int p)
{
	if (p >= 0 && p < r->n_parts)
		lat_json_str(j, key, r->part[p]);
	else
		lat_json_null(j, key);
}

static void json_flight(struct lat_json *j, const struct lat_lab_row *names,
			const struct lat_lab_flight *f)
{
	lat_json_obj_begin(j, "flight");
	lat_json_bool(j, "frozen", f->frozen);
	lat_json_double(j, "threshold_ns", f->threshold_ns);
	lat_json_double(j, "trigger_e2e_ns", f->trigger_e2e_ns);
	json_part(j, "trigger_part", names, f->trigger_part);
	lat_json_bool(j, "trigger_only", f->trigger_only);
	lat_json_obj_begin(j, "slow_after_trigger");
	for (int p = 0; p < names->n_parts; p++)
		lat_json_uint(j, names->part[p], f->slow_after[p]);
	lat_json_obj_end(j);
	lat_json_obj_end(j);
}

/* One per-part statistic of row @w, keyed by part name. */
static void parts_obj(struct lat_json *j, const struct lat_lab_row *w,
		      const char *key, const double *v)
{
	lat_json_obj_begin(j, key);
	for (int p = 0; p < w->n_parts; p++)
		lat_json_double(j, w->part[p], v[p]);
	lat_json_obj_end(j);
}

static void json_row(struct lat_json *j, const struct lat_lab_row *w)
{
	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "name", w->name);
	lat_json_str(j, "kind", w->baseline ? "baseline" : "experiment");
	if (w->baseline)
		lat_json_null(j, "experiment");
	else
		lat_json_str(j, "experiment", lat_lab_exp_name(w->exp));
	lat_json_str(j, "arm", lat_lab_arm_name(w->arm));
	lat_json_int(j, "round", w->round + 1);
	lat_json_uint(j, "events", w->events);
	lat_json_uint(j, "events_planned", w->events_planned);
	lat_json_double(j, "p50_ns", w->p50_ns);
	lat_json_double(j, "p90_ns", w->p90_ns);
	lat_json_double(j, "p99_ns", w->p99_ns);
	lat_json_double(j, "p999_ns", w->p999_ns);
	lat_json_double(j, "max_ns", w->max_ns);
	lat_json_double(j, "mean_ns", w->mean_ns);
	parts_obj(j, w, "part_mean_ns", w->part_mean_ns);
	parts_obj(j, w, "part_p50_ns", w->part_p50_ns);
	parts_obj(j, w, "part_p99_ns", w->part_p99_ns);
	parts_obj(j, w, "part_p999_ns", w->part_p999_ns);
	lat_json_double(j, "offered_per_s", w->offered_per_s);
	lat_json_double(j, "achieved_per_s", w->achieved_per_s);
	lat_json_double(j, "wall_s", w->wall_s);
	for (int m = 0; m < LAT_LAB_NMETRICS; m++)
		if (w->has_metric[m])
			lat_json_uint(j, lat_lab_metric_name(m), w->metric[m]);
		else
			lat_json_null(j, lat_lab_metric_name(m));
	if (w->ipc >= 0)
		lat_json_double(j, "ipc", w->ipc);
	else
		lat_json_null(j, "ipc");
	lat_json_bool(j, "exact", w->exact);
	lat_json_uint(j, "dropped", w->dropped);
	lat_json_bool(j, "interrupted", w->interrupted);
	lat_json_bool(j, "fell_behind", w->fell_behind);
	if (w->stall_ns > 0) {
		lat_json_double(j, "stall_ns", w->stall_ns);
		json_flight(j, w, &w->flight);
	}
	if (w->tries) {
		lat_json_double(j, "handoff_before_ns", w->handoff_before_ns);
		lat_json_double(j, "handoff_after_ns", w->handoff_after_ns);
		lat_json_int(j, "tries", w->tries);
		lat_json_bool(j, "one_core", w->one_core);
	}
	lat_json_obj_end(j);
}

static void json_verdict(struct lat_json *j, const struct lat_lab *L,
			 const struct lat_lab_verdict *V)
{
	const struct lat_lab_row *names = &L->row[0];

	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "experiment", lat_lab_exp_name(V->exp));
	lat_json_str(j, "does", lat_lab_exp_what(V->exp));
	lat_json_str(j, "expected", lat_lab_fp_name(V->expected));
	lat_json_str(j, "expected_text", lat_lab_fp_text(V->expected));
	lat_json_str(j, "outcome", lat_lab_outcome_name(V->outcome));
	lat_json_bool(j, "seen", V->seen);
	if (V->why)
		lat_json_str(j, "why", V->why);
	else
		lat_json_null(j, "why");
	lat_json_int(j, "runs", V->runs);
	lat_json_obj_begin(j, "e2e");
	json_cmp(j, "p50", &V->p50);
	json_cmp(j, "p90", &V->p90);
	json_cmp(j, "p99", &V->p99);
	json_cmp(j, "p999", &V->p999);
	json_cmp(j, "mean", &V->mean);
	lat_json_obj_end(j);
	if (V->fp_stat[0])
		lat_json_str(j, "fingerprint_stat", V->fp_stat);
	else
		lat_json_null(j, "fingerprint_stat");
	if (V->expected == LAT_LAB_FP_ALLOCS ||
	    V->expected == LAT_LAB_FP_FAULTS) {
		lat_json_double(j, "per_event", V->per_event);
		lat_json_double(j, "baseline_per_event", V->base_per_event);
	} else if (V->expected == LAT_LAB_FP_STALL) {
		lat_json_double(j, "stall_ns", V->stall_ns);
		if (V->runs)
			json_flight(j, names, &V->flight);
	} else if (V->fp_stat[0]) {
		json_cmp(j, "fingerprint", &V->fp);
	}
	if (V->handoff_ns > 0)
		lat_json_double(j, "handoff_ns", V->handoff_ns);
	json_part(j, "growth_part", names, V->growth_part);
	lat_json_double(j, "growth_share", V->growth_share);
	lat_json_obj_end(j);
}

void lat_lab_write_json(struct lat_json *j, const struct lat_lab *L)
{
	const struct lat_lab_place *p = &L->place;

	lat_json_uint(j, "events", L->opts.events);
	lat_json_double(j, "rate_per_s", L->opts.rate);
	lat_json_int(j, "rounds", L->opts.rounds);
	lat_json_uint(j, "seed", L->opts.seed);
	lat_json_int(j, "runs_planned", L->n_plan);
	lat_json_int(j, "runs_done", L->n_rows);
	lat_json_bool(j, "stopped", L->stopped);
	lat_json_obj_begin(j, "placement");
	lat_json_int(j, "usable_cpus", p->n_usable);
	lat_json_bool(j, "oversubscribed", p->oversubscribed);
	lat_json_bool(j, "can_split", p->can_split);
	for (int a = 0; a < LAT_LAB_N_ARMS; a++)
		json_cpus(j, lat_lab_arm_name(a), p->cpu[a]);
	lat_json_obj_end(j);
	lat_json_arr_begin(j, "rows");
	for (int i = 0; i < L->n_rows; i++)
		json_row(j, &L->row[i]);
	lat_json_arr_end(j);
	lat_json_obj_begin(j, "baselines");
	for (int a = 0; a < LAT_LAB_N_ARMS; a++) {
		if (!L->arm_baselines[a])
			continue;
		lat_json_obj_begin(j, lat_lab_arm_name(a));
		lat_json_int(j, "runs", L->arm_baselines[a]);
		json_cmp(j, "p50", &L->base_p50[a]);
		json_cmp(j, "mean", &L->base_mean[a]);
		lat_json_obj_end(j);
	}
	lat_json_obj_end(j);
	lat_json_arr_begin(j, "verdicts");
	for (int e = 0; e < LAT_LAB_N_EXP; e++)
		if (L->verdict[e].wanted)
			json_verdict(j, L, &L->verdict[e]);
	lat_json_arr_end(j);
	lat_json_obj_begin(j, "unavailable");
	for (int m = 0; m <= LAT_LAB_NMETRICS; m++)
		if (L->unavailable[m][0])
			lat_json_str(j, m < LAT_LAB_NMETRICS ?
				     lat_lab_metric_name(m) : "ipc",
				     L->unavailable[m]);
	lat_json_obj_end(j);
}

int lat_lab_report(FILE *out, bool json, const char *command, int sig,
		   const struct lat_lab *L)
{
	struct lat_json j;

	if (!json)
		return lat_lab_print(out, L);
	lat_json_doc_begin(&j, out, command);
	lat_lab_write_json(&j, L);
	lat_json_int(&j, "signal", sig);
	return lat_json_doc_end(&j) ? -EINVAL : ferror(out) ? -EIO : 0;
}
