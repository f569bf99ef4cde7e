/*
 * lat_lab_print: the lab for people. Every word comes from the verdicts
 * (lat_lab_judge); this file only lays them out.
 */
#include <errno.h>
#include <stdio.h>

#include "latlab/fmt.h"
#include "latlab/lab.h"

static void cell_ns(FILE *out, double ns, int width)
{
	char b[LAT_FMT_LEN];

	lat_fmt_pad(out, lat_fmt_ns(b, sizeof(b), ns), width);
}

static void cell_metric(FILE *out, const struct lat_lab_row *w, int m,
			int width)
{
	char b[32];

	if (w->has_metric[m])
		snprintf(b, sizeof(b), "%llu",
			 (unsigned long long)w->metric[m]);
	else
		snprintf(b, sizeof(b), "n/a");
	lat_fmt_pad(out, b, width);
}

static void print_rows(FILE *out, const struct lat_lab *L)
{
	char b[LAT_FMT_LEN];

	fprintf(out, "%-3s %-17s", "#", "run");
	lat_fmt_pad(out, "p50", 9);
	lat_fmt_pad(out, "p99", 9);
	lat_fmt_pad(out, "p99.9", 9);
	lat_fmt_pad(out, "max", 9);
	lat_fmt_pad(out, "mean", 9);
	lat_fmt_pad(out, "work1 p50", 10);
	lat_fmt_pad(out, "rate", 11);
	fputc(' ', out);
	lat_fmt_pad(out, "ctx-sw", 8);
	lat_fmt_pad(out, "migr", 6);
	lat_fmt_pad(out, "faults", 9);
	lat_fmt_pad(out, "allocs", 9);
	fputc('\n', out);
	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *w = &L->row[i];

		fprintf(out, "%-3d %-17s", i + 1, w->name);
		cell_ns(out, w->p50_ns, 9);
		cell_ns(out, w->p99_ns, 9);
		cell_ns(out, w->p999_ns, 9);
		cell_ns(out, w->max_ns, 9);
		cell_ns(out, w->mean_ns, 9);
		cell_ns(out, w->n_parts > 2 ? w->part_p50_ns[2] : 0, 10);
		lat_fmt_pad(out, lat_fmt_rate(b, sizeof(b),
					      w->achieved_per_s), 11);
		fputc(w->fell_behind ? '*' : ' ', out);
		cell_metric(out, w, LAT_LAB_CTX_SWITCHES, 8);
		cell_metric(out, w, LAT_LAB_MIGRATIONS, 6);
		cell_metric(out, w, LAT_LAB_PAGE_FAULTS, 9);
		cell_metric(out, w, LAT_LAB_ALLOCATIONS, 9);
		fputc('\n', out);
	}
}

static void print_place(FILE *out, const struct lat_lab *L)
{
	const struct lat_lab_place *p = &L->place;

	fprintf(out, "placement: %d usable CPU%s; producer, stage 1, consumer "
		"on CPUs %d,%d,%d%s", p->n_usable, p->n_usable == 1 ? "" : "s",
		p->cpu[0][0], p->cpu[0][1], p->cpu[0][2],
		p->oversubscribed ? " (they share CPUs: waits yield)" : "");
	if (p->can_split && !p->same_as_default[LAT_LAB_ARM_SPLIT])
		fprintf(out, "; share-line on %d,%d,%d (the writers apart)",
			p->cpu[LAT_LAB_ARM_SPLIT][0],
			p->cpu[LAT_LAB_ARM_SPLIT][1],
			p->cpu[LAT_LAB_ARM_SPLIT][2]);
	if (!p->same_as_default[LAT_LAB_ARM_JOINED])
		fprintf(out, "; share-line-1cpu on %d,%d,%d",
			p->cpu[LAT_LAB_ARM_JOINED][0],
			p->cpu[LAT_LAB_ARM_JOINED][1],
			p->cpu[LAT_LAB_ARM_JOINED][2]);
	fputc('\n', out);
}

static void print_drift(FILE *out, const struct lat_lab *L)
{
	fprintf(out, "\nbaselines, per placement: drift = their fitted "
		"change from first to last, spread = their scatter around "
		"it\n");
	for (int a = 0; a < LAT_LAB_N_ARMS; a++) {
		const struct lat_lab_cmp *p = &L->base_p50[a], *m =
			&L->base_mean[a];

		if (!L->arm_baselines[a])
			continue;
		fprintf(out, "  %-8s %2d runs: p50 drift ×%.2f spread ×%.2f; "
			"mean drift ×%.2f spread ×%.2f\n",
			lat_lab_arm_name(a), L->arm_baselines[a], p->drift,
			p->spread, m->drift, m->spread);
	}
}

/* "×1.52 (needs ×1.43)" for a comparison. */
static void print_cmp(FILE *out, const char *name,
		      const struct lat_lab_cmp *c)
{
	fprintf(out, "%s ×%.2f (needs ×%.2f", name, c->ratio, c->tolerance);
	if (c->effect == LAT_LAB_EFFECT_DRIFT)
		fprintf(out, ": past the spread, within the drift");
	fputc(')', out);
}

static void print_evidence(FILE *out, const struct lat_lab *L,
			   const struct lat_lab_verdict *V)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];

	fprintf(out, "      ");
	switch (V->expected) {
	case LAT_LAB_FP_ALLOCS:
	case LAT_LAB_FP_FAULTS:
		fprintf(out, "%s %.2f (baselines beside it: at most %.2f)",
			V->fp_stat, V->per_event, V->base_per_event);
		break;
	case LAT_LAB_FP_STALL:
		if (!V->flight.frozen) {
			fprintf(out, "stall %s: %s", lat_fmt_ns(a, sizeof(a),
				V->stall_ns), V->why ? V->why : "");
			break;
		}
		fprintf(out, "stall %s, froze on e2e %s > %s: ",
			lat_fmt_ns(a, sizeof(a), V->stall_ns),
			lat_fmt_ns(b, sizeof(b), V->flight.trigger_e2e_ns),
			lat_fmt_ns(c, sizeof(c), V->flight.threshold_ns));
		if (V->flight.trigger_part < 0)
			fprintf(out, "no part slow at the trigger");
		else
			fprintf(out, "%s slow at the trigger%s",
				L->row[0].part[V->flight.trigger_part],
				V->flight.trigger_only ? " only" :
				" and after it");
		for (int p = 0; p < L->row[0].n_parts; p++)
			if (V->flight.slow_after[p])
				fprintf(out, "; %s slow in %u samples right "
					"after it", L->row[0].part[p],
					V->flight.slow_after[p]);
		break;
	default:
		print_cmp(out, V->fp_stat, &V->fp);
		if (V->handoff_ns > 0)
			fprintf(out, "; line hand-off between the writers' "
				"CPUs %.0f ns at least", V->handoff_ns);
	}
	fputc('\n', out);
	fprintf(out, "      e2e against the baselines beside it: ");
	print_cmp(out, "p50", &V->p50);
	fprintf(out, ", ");
	print_cmp(out, "p90", &V->p90);
	fprintf(out, ", ");
	print_cmp(out, "p99.9", &V->p999);
	fprintf(out, ", ");
	print_cmp(out, "mean", &V->mean);
	if (V->growth_part >= 0)
		fprintf(out, "; %.0f%% of the mean's growth in %s",
			100 * V->growth_share, L->row[0].part[V->growth_part]);
	fputc('\n', out);
}

static void print_verdicts(FILE *out, const struct lat_lab *L)
{
	fprintf(out, "\nverdicts: each experiment against the baselines run "
		"just before and after it;\na change counts past ×%.2f, the "
		"baselines' spread and their drift (each +%.0f%%);\n"
		"seen / not_seen: the expected fingerprint (for null, 'no "
		"effect') was or was not seen\n",
		LAT_LAB_MIN_RATIO, 100 * (LAT_LAB_MARGIN - 1));
	for (int e = 0; e < LAT_LAB_N_EXP; e++) {
		const struct lat_lab_verdict *V = &L->verdict[e];

		if (!V->wanted)
			continue;
		fprintf(out, "  %-16s %-12s expected: %s\n",
			lat_lab_exp_name(e), lat_lab_outcome_name(V->outcome),
			lat_lab_fp_text(V->expected));
		if (V->outcome == LAT_LAB_CANNOT_SHOW ||
		    V->outcome == LAT_LAB_NO_DATA)
			fprintf(out, "      %s%s\n", V->why, V->handoff_ns > 0 ?
				" (hand-off measured)" : "");
		else
			print_evidence(out, L, V);
	}
}

static void print_notes(FILE *out, const struct lat_lab *L)
{
	static const char *const label[LAT_LAB_NMETRICS + 1] = {
		"ctx-sw", "migr", "faults", "allocs", "run-delay", "IPC",
	};

	for (int m = 0; m <= LAT_LAB_NMETRICS; m++)
		if (L->unavailable[m][0])
			fprintf(out, "n/a: %s: %s\n", label[m],
				L->unavailable[m]);
	for (int i = 0; i < L->n_rows; i++) {
		const struct lat_lab_row *w = &L->row[i];

		if (!w->exact || w->dropped)
			fprintf(out, "warning: run %d (%s): accounting %s, "
				"%llu samples dropped by the aggregator ring\n",
				i + 1, w->name, w->exact ? "exact" : "NOT exact",
				(unsigned long long)w->dropped);
		if (w->interrupted)
			fprintf(out, "interrupted: run %d (%s) stopped after "
				"%llu of %llu events; its row is partial, not "
				"judged, and the runs after it did not happen\n",
				i + 1, w->name, (unsigned long long)w->events,
				(unsigned long long)w->events_planned);
	}
	if (L->stopped && (!L->n_rows || !L->row[L->n_rows - 1].interrupted))
		fprintf(out, "interrupted: stopped after run %d of %d\n",
			L->n_rows, L->n_plan);
}

int lat_lab_print(FILE *out, const struct lat_lab *L)
{
	char r[LAT_FMT_LEN];
	double wall = 0;

	for (int i = 0; i < L->n_rows; i++)
		wall += L->row[i].wall_s;
	fprintf(out, "latlab lab: %d runs in %d round%s, baselines and "
		"experiments alternating; %llu events per run at %s offered "
		"(%.1f s of pipeline time)\n", L->n_rows, L->opts.rounds,
		L->opts.rounds == 1 ? "" : "s",
		(unsigned long long)L->opts.events,
		lat_fmt_rate(r, sizeof(r), L->opts.rate), wall);
	print_place(out, L);
	fputc('\n', out);
	print_rows(out, L);
	fprintf(out, "\ne2e percentiles and mean; work1 p50: the stage's work "
		"(where share-line shows); counters summed over the hot "
		"threads' measured runs\n");
	for (int i = 0; i < L->n_rows; i++)
		if (L->row[i].fell_behind) {
			fprintf(out, "* rate below %.0f%% of the offered: the "
				"run fell behind and its latencies measure the "
				"backlog (judged all the same)\n",
				100 * LAT_LAB_BEHIND);
			break;
		}
	print_drift(out, L);
	print_verdicts(out, L);
	print_notes(out, L);
	return ferror(out) ? -EIO : 0;
}
