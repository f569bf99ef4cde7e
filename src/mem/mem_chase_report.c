/*
 * The pointer-chase sweep `latlab mem chase` runs and reports: every
 * working-set size chased in random order (base and huge pages) and in
 * sequence, the plateaus of the fastest samples named after the sysfs
 * caches, the verdict, and its table, JSON and chart.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/mem.h"
#include "latlab/svg.h"

enum {
	V_RANDOM = LAT_MEM_CHASE_RANDOM,
	V_HUGE = LAT_MEM_CHASE_HUGE,
	V_SEQ = LAT_MEM_CHASE_SEQ,
	V_PAGED = LAT_MEM_CHASE_PAGED,
	V_N = LAT_MEM_CHASE_VARIANTS,
};

/* "Within one step": sizes are rounded to whole lines, so a size one
 * step from a cache's can be 1.0003 steps away on paper. */
#define ONE_STEP 1.01
static const char *const v_key[V_N] = { "random", "random_huge",
					"sequential", "page_local" };


static const char *pages_text(const struct lat_mem_buf *b)
{
	switch (b->pages) {
	case LAT_MEM_PAGES_HUGETLB:
		return "MAP_HUGETLB";
	case LAT_MEM_PAGES_THP:
		return "transparent huge pages (madvise)";
	default:
		return "base pages";
	}
}

static const char *plateau_name(const struct lat_mem_chase_sweep *r,
				const struct lat_mem_plateau *p)
{
	if (p->cache == LAT_MEM_MEMORY)
		return "DRAM";
	if (p->cache >= 0)
		return lat_topo_cache_name(&r->caches, p->cache);
	return "unnamed";
}

/* The plateaus of variant @v's fastest samples, named after the caches:
 * on a loaded machine the p50 carries other processes' evictions (they
 * share the cores and the L3); the minimum is what the hardware does
 * when left alone. */
static int find_plateaus(const struct lat_mem_chase_sweep *r, int v,
			 struct lat_mem_plateau *pl)
{
	double y[LAT_MEM_CHASE_MAX_SIZES];
	int n;

	for (int i = 0; i < r->done; i++)
		y[i] = r->pt[v][i].min_ns;
	n = lat_mem_plateaus(r->sizes, y, r->done, 0.25,
			     r->steps < 3 ? 2 : (int)(r->steps * 3 + 3) / 4,
			     pl, 16);
	if (n > 16)
		n = 16;
	if (n < 0)
		n = 0;
	lat_mem_plateaus_name(pl, n, r->sizes, &r->caches, r->steps);
	return n;
}

/* The plateau of @pl named after cache @c that has an edge, or -1. */
static int named_edge(const struct lat_mem_plateau *pl, int n, int c)
{
	for (int k = 0; k < n; k++)
		if (pl[k].cache == c && pl[k].edge >= 0)
			return k;
	return -1;
}

static const char *const v_text[V_N] = {
	"random", "huge pages", "sequential", "page by page",
};

/* "match" or "early by 6 steps" for a plateau with an edge. */
static const char *off_text(char *buf, size_t len,
			    const struct lat_mem_plateau *p)
{
	if (fabs(p->steps_off) <= ONE_STEP)
		snprintf(buf, len, "match");
	else
		snprintf(buf, len, "%s by %.0f steps",
			 p->steps_off < 0 ? "early" : "late",
			 fabs(p->steps_off));
	return buf;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of the p50s of curve @v over sizes @a..@b. */
static double p50_median(const struct lat_mem_chase_sweep *r, int v, int a,
			 int b)
{
	double y[LAT_MEM_CHASE_MAX_SIZES];
	int n = 0;

	for (int i = a; i <= b && i < r->done; i++)
		y[n++] = r->pt[v][i].p50_ns;
	if (!n)
		return NAN;
	qsort(y, (size_t)n, sizeof(y[0]), cmp_double);
	return y[n / 2];
}

/* The last-level and DRAM levels of curve @v at p50 (the plateaus are
 * found on the fastest samples; the capacity model reads the p50s, what
 * a typical pass got); false when the curve lacks either. */
static bool llc_levels(const struct lat_mem_chase_sweep *r, int v,
		       double *llc_ns, double *dram_ns, int *first)
{
	const int llc = r->caches.n - 1;
	int k = named_edge(r->vpl[v], r->vn_pl[v], llc), d = -1;

	for (int i = 0; i < r->vn_pl[v]; i++)
		if (r->vpl[v][i].cache == LAT_MEM_MEMORY)
			d = i;
	if (k < 0 || d < 0)
		return false;
	*first = r->vpl[v][k].first;
	*llc_ns = p50_median(r, v, r->vpl[v][k].first, r->vpl[v][k].last);
	*dram_ns = p50_median(r, v, r->vpl[v][d].first, r->vpl[v][d].last);
	return *dram_ns > *llc_ns;
}

/* The effective capacity of the random curves, as a clause. */
static size_t llc_capacity_text(struct lat_mem_chase_sweep *r, char *v,
				size_t len, const int *curves, int n)
{
	size_t at = 0;
	char b[32], cs[32];
	int said = 0;

	for (int c = 0; c < n; c++) {
		int w = curves[c], first;
		double l, d, y[LAT_MEM_CHASE_MAX_SIZES];

		r->llc_capacity[w] = NAN;
		/* page by page its levels are the prefetchers', not a hit's
		 * and a miss's: the model does not hold */
		if (w == V_PAGED || !r->on[w] ||
		    !llc_levels(r, w, &l, &d, &first))
			continue;
		for (int i = 0; i < r->done; i++)
			y[i] = r->pt[w][i].p50_ns;
		r->llc_capacity[w] = lat_mem_llc_curve_capacity(
			r->sizes, y, r->done, first, l, d);
		if (isnan(r->llc_capacity[w]) || at >= len)
			continue;
		at += (size_t)snprintf(v + at, len - at, "%s %s %s",
				       said ? "," : "; effective capacity "
				       "(p50s, the hits beyond the edge "
				       "counted):", v_text[w],
				       lat_fmt_bytes(b, sizeof(b), (uint64_t)
					       r->llc_capacity[w]));
		said = 1;
	}
	if (said && at < len)
		at += (size_t)snprintf(v + at, len - at, " of sysfs's %s",
				       lat_fmt_bytes(cs, sizeof(cs),
				       lat_topo_caches_llc(&r->caches)));
	return at < len ? at : len;
}

/* The last-level cache on every random curve, and what follows. */
static void analyse_llc(struct lat_mem_chase_sweep *r)
{
	static const int curves[] = { V_RANDOM, V_HUGE, V_PAGED };
	const int llc = r->caches.n - 1;
	char *v = r->llc_note, cs[32], b[32], off[40];
	size_t len = sizeof(r->llc_note), at = 0;
	int base_edge = -1, paged_edge = -1;

	r->llc_seen = false;
	r->llc_drift_on = false;
	for (int w = 0; w < V_N; w++)
		r->llc_capacity[w] = NAN;
	r->llc_edge = -1;
	r->llc_edge_variant = V_RANDOM;
	if (llc < 0) {
		snprintf(v, len, "sysfs lists no caches: nothing to compare");
		return;
	}
	at += (size_t)snprintf(v + at, len - at, "%s (sysfs %s",
			       lat_topo_cache_name(&r->caches, llc),
			       lat_fmt_bytes(cs, sizeof(cs),
					     r->caches.c[llc].size));
	if (r->caches.c[llc].shared_cpus > 0)
		at += (size_t)snprintf(v + at, len - at, ", shared by %d "
				       "CPU%s this guest sees",
				       r->caches.c[llc].shared_cpus,
				       r->caches.c[llc].shared_cpus == 1 ? ""
				       : "s");
	at += (size_t)snprintf(v + at, len - at, "):");
	if (!r->done || r->sizes[r->done - 1] < r->caches.c[llc].size) {
		snprintf(v + at, len - at, " the sweep stops at %s, below its "
			 "size: not measured",
			 lat_fmt_bytes(b, sizeof(b),
				       r->done ? r->sizes[r->done - 1] : 0));
		return;
	}
	for (size_t c = 0; c < sizeof(curves) / sizeof(curves[0]); c++) {
		int w = curves[c], k;

		if (!r->on[w] || at >= len)
			continue;
		k = named_edge(r->vpl[w], r->vn_pl[w], llc);
		if (k < 0) {
			at += (size_t)snprintf(v + at, len - at, "%s %s no "
					       "edge", c ? ";" : "",
					       v_text[w]);
			continue;
		}
		at += (size_t)snprintf(v + at, len - at, "%s %s edge at %s "
				       "(%s)", c ? ";" : "", v_text[w],
				       lat_fmt_bytes(b, sizeof(b),
					r->sizes[r->vpl[w][k].edge]),
				       off_text(off, sizeof(off),
						&r->vpl[w][k]));
		if (w == V_RANDOM)
			base_edge = r->vpl[w][k].edge;
		if (w == V_PAGED)
			paged_edge = r->vpl[w][k].edge;
		r->llc_seen |= fabs(r->vpl[w][k].steps_off) <= ONE_STEP;
		if (r->vpl[w][k].edge > r->llc_edge) {
			r->llc_edge = r->vpl[w][k].edge;
			r->llc_edge_variant = w;
		}
	}
	if (at >= len)
		return;
	if (r->llc_seen) {
		snprintf(v + at, len - at, "; seen at its sysfs size");
		return;
	}
	at += (size_t)snprintf(v + at, len - at, "; NOT seen at its sysfs "
			       "size on any curve");
	if (at < len)
		at += llc_capacity_text(r, v + at, len - at, curves,
					(int)(sizeof(curves) /
					      sizeof(curves[0])));
	if (at < len && base_edge >= 0 && paged_edge >= 0)
		at += (size_t)snprintf(v + at, len - at,
			paged_edge > base_edge + (int)r->steps / 2
			? "; one TLB miss per page instead of per load moves "
			  "the edge from %s to %s: the TLB ends part of it "
			  "early, not all"
			: "; one TLB miss per page instead of per load leaves "
			  "the edge where it was (%s, %s): the TLB is not what "
			  "ends it",
			lat_fmt_bytes(b, sizeof(b), r->sizes[base_edge]),
			lat_fmt_bytes(cs, sizeof(cs), r->sizes[paged_edge]));
	if (at < len)
		snprintf(v + at, len - at, "; the sysfs size is the whole "
			 "cache, which other cores (on a VM, other guests') "
			 "may share: this process gets what they leave it");
}

/* The size of curve @v (from @first on) whose p50 is nearest half-way
 * between the cache and DRAM: half its loads hit, so a change in what
 * this process gets moves a lap's ns most there (a size that all fits
 * stays at the cache's level, one far beyond near DRAM's, whatever the
 * neighbours do). */
static int half_hit_size(const struct lat_mem_chase_sweep *r, int v,
			 int first, double llc_ns, double dram_ns)
{
	int best = first;
	double off = INFINITY;

	for (int i = first; i < r->done; i++) {
		double hit = (dram_ns - r->pt[v][i].p50_ns) /
			     (dram_ns - llc_ns);

		if (fabs(hit - 0.5) < off) {
			off = fabs(hit - 0.5);
			best = i;
		}
	}
	return best;
}

/* Whether the laps' typical hit fraction is not the sweep's at the
 * same size (measured seconds before). */
static bool unlike_sweep(const struct lat_mem_llc_drift *d, double sweep_ns)
{
	return fabs(d->lap_p50_ns - sweep_ns) / (d->dram_ns - d->llc_ns) >=
	       LAT_MEM_LLC_DRIFT_SPREAD;
}

/* What the drift says, after its figures. */
static const char *drift_text(const struct lat_mem_chase_sweep *r)
{
	const struct lat_mem_llc_drift *d = &r->llc_drift;

	if (lat_mem_llc_drift_changes(d))
		return ": it changes from one lap to the next, so the cache is "
		       "shared with work outside this process (on a VM, other "
		       "guests' too)";
	if (unlike_sweep(d, r->llc_drift_sweep_ns))
		return ": steady over the laps, but not what the sweep got at "
		       "this size seconds before: it changes over seconds, so "
		       "the cache is shared with work outside this process (on "
		       "a VM, other guests' too)";
	if (d->cap_p10 >= 0.9 * (double)d->bytes)
		return ": nearly every lap hit, steadily: this size fits what "
		       "it gets over this time";
	return ": steady, and as in the sweep: a fixed share (a partition of "
	       "the cache, or neighbours that did not rest), not the sysfs "
	       "size";
}

/* When no curve shows the last-level cache at its sysfs size: chase the
 * size half-way from the cache's level to DRAM's lap after lap (on huge
 * pages when the kernel gave them: fewer TLB misses), and say whether
 * what this process gets changes while it does the same thing. */
static int llc_drift(struct lat_mem_chase_sweep *r, uint32_t *scratch,
		     const struct lat_clock_cal *cal,
		     bool (*stop)(void *ctx), void *ctx)
{
	struct lat_mem_llc_drift *d = &r->llc_drift;
	int w = r->on[V_HUGE] && r->huge.pages != LAT_MEM_PAGES_BASE
		? V_HUGE : V_RANDOM, first, rc, at_size;
	size_t at = strlen(r->llc_note), len = sizeof(r->llc_note);
	char *v = r->llc_note, b[32], lo[LAT_FMT_LEN], hi[LAT_FMT_LEN],
	     sw[LAT_FMT_LEN], c0[32], c1[32], c2[32], cs[32];
	double l, dram;

	if (r->llc_seen || r->llc_edge < 0 || !(r->llc_probe_s > 0) ||
	    r->interrupted || r->failed >= 0)
		return 0;
	if (!llc_levels(r, w, &l, &dram, &first)) {
		w = V_RANDOM;
		if (!llc_levels(r, w, &l, &dram, &first))
			return 0;
	}
	at_size = half_hit_size(r, w, first, l, dram);
	rc = lat_mem_llc_drift_run(w == V_HUGE ? &r->huge : &r->buf, scratch,
				   r->sizes[at_size], l, dram, r->llc_probe_s,
				   cal, stop, ctx, d);
	if (rc == -EINVAL)
		return 0; /* too small a cache to chase lap by lap */
	if (rc)
		return rc;
	r->interrupted |= d->interrupted;
	if (!d->laps)
		return 0;
	r->llc_drift_on = true;
	r->llc_drift_variant = w;
	r->llc_drift_sweep_ns = r->pt[w][at_size].p50_ns;
	r->llc_drift_sweep_cap = lat_mem_llc_effective(
		d->bytes, r->llc_drift_sweep_ns, l, dram);
	r->llc_changes = lat_mem_llc_drift_changes(d) ||
			 unlike_sweep(d, r->llc_drift_sweep_ns);
	if (at >= len)
		return 0;
	at += (size_t)snprintf(v + at, len - at, "; %s, where the sweep's p50 "
		"was nearest half-way to DRAM (%s: it got %s of it), chased "
		"lap after lap on %s for %.1f s (%u laps, nothing else changing "
		"in this process): %s to %s per load (p10..p90 of the laps), so "
		"it got %s to %s of the cache (median %s)",
		lat_fmt_bytes(b, sizeof(b), d->bytes),
		lat_fmt_ns(sw, sizeof(sw), r->llc_drift_sweep_ns),
		lat_fmt_bytes(cs, sizeof(cs), (uint64_t)r->llc_drift_sweep_cap),
		w == V_HUGE ? "huge pages" : "base pages", d->seconds, d->laps,
		lat_fmt_ns(lo, sizeof(lo), d->lap_p10_ns),
		lat_fmt_ns(hi, sizeof(hi), d->lap_p90_ns),
		lat_fmt_bytes(c0, sizeof(c0), (uint64_t)d->cap_p10),
		lat_fmt_bytes(c1, sizeof(c1), (uint64_t)d->cap_p90),
		lat_fmt_bytes(c2, sizeof(c2), (uint64_t)d->cap_p50));
	if (at < len)
		snprintf(v + at, len - at, "%s", drift_text(r));
	return 0;
}

/* Plateaus on the random curves, the DRAM level and the verdicts. */
void lat_mem_chase_analyse(struct lat_mem_chase_sweep *r)
{
	char *v = r->verdict;
	size_t len = sizeof(r->verdict), at = 0;
	double l1 = 0;
	bool all_match = true;

	for (int w = 0; w < V_N; w++)
		r->vn_pl[w] = r->on[w] && w != V_SEQ
			      ? find_plateaus(r, w, r->vpl[w]) : 0;
	r->n_pl = r->vn_pl[V_RANDOM];
	memcpy(r->pl, r->vpl[V_RANDOM], sizeof(r->pl));
	analyse_llc(r);
	r->dram_from = -1;
	for (int k = 0; k < r->n_pl; k++)
		if (r->pl[k].cache == LAT_MEM_MEMORY) {
			r->dram_ns = r->pl[k].level;
			r->dram_from = r->pl[k].first;
		}
	if (r->n_pl && r->pl[0].first == 0)
		l1 = r->pl[0].level;
	at += (size_t)snprintf(v + at, len - at, "%d plateau%s (each size's "
			       "fastest sample)", r->n_pl,
			       r->n_pl == 1 ? "" : "s");
	for (int k = 0; k < r->n_pl && at < len; k++) {
		const struct lat_mem_plateau *p = &r->pl[k];
		char lv[LAT_FMT_LEN], edge[32], cs[32], from[32], off[40];

		lat_fmt_ns(lv, sizeof(lv), p->level);
		lat_fmt_bytes(from, sizeof(from), r->sizes[p->first]);
		if (p->cache >= 0 && p->edge >= 0) {
			all_match &= fabs(p->steps_off) <= ONE_STEP;
			at += (size_t)snprintf(v + at, len - at,
				"; %s %s, edge at %s (sysfs %s: %s)",
				plateau_name(r, p), lv,
				lat_fmt_bytes(edge, sizeof(edge),
					      r->sizes[p->edge]),
				lat_fmt_bytes(cs, sizeof(cs),
					      r->caches.c[p->cache].size),
				off_text(off, sizeof(off), p));
		} else if (p->cache >= 0) {
			all_match = false;
			at += (size_t)snprintf(v + at, len - at,
				"; %s %s from %s (the sweep ended inside it: "
				"no edge)", plateau_name(r, p), lv, from);
		} else if (p->cache == LAT_MEM_MEMORY) {
			at += (size_t)snprintf(v + at, len - at,
					       "; DRAM %s from %s", lv, from);
		} else if (r->dram_from >= 0 && p->first > r->dram_from) {
			at += (size_t)snprintf(v + at, len - at,
					       "; %s from %s, slower than DRAM "
					       "(TLB misses: page walks; compare "
					       "huge pages)", lv, from);
		} else {
			lat_fmt_bytes(edge, sizeof(edge), r->sizes[p->last]);
			at += (size_t)snprintf(v + at, len - at,
					       "; unnamed %s from %s to %s", lv,
					       from, edge);
		}
	}
	if (at >= len)
		return;
	if (r->dram_from < 0 && r->done) {
		char top[32];

		at += (size_t)snprintf(v + at, len - at, "; DRAM not reached "
				       "(the sweep stops at %s)",
				       lat_fmt_bytes(top, sizeof(top),
						     r->sizes[r->done - 1]));
	}
	if (l1 > 0 && r->dram_ns > 0 && at < len) {
		at += (size_t)snprintf(v + at, len - at, "; DRAM is %.0fx "
				       "the L1 plateau", r->dram_ns / l1);
	}
	if (at < len)
		at += (size_t)snprintf(v + at, len - at, "; %s", all_match
			 ? "every cache edge is within one step of its sysfs "
			   "size"
			 : "not every cache edge is within one step of its "
			   "sysfs size (the last-level cache: below)");
	/* the same caches with one TLB miss per page instead of per load:
	 * where a cache's capacity shows without the TLB's reach */
	for (int k = 0, first = 1; r->on[V_PAGED] && k < r->vn_pl[V_PAGED] &&
				    at < len; k++) {
		const struct lat_mem_plateau *p = &r->vpl[V_PAGED][k];
		char edge[32], off[40];

		if (p->cache < 0 || p->edge < 0)
			continue;
		at += (size_t)snprintf(v + at, len - at, "%s %s edge at %s "
				       "(%s)", first ? "; page by page:" : ",",
				       plateau_name(r, p),
				       lat_fmt_bytes(edge, sizeof(edge),
						     r->sizes[p->edge]),
				       off_text(off, sizeof(off), p));
		first = 0;
	}
}

static void print_table(FILE *out, const struct lat_mem_chase_sweep *r)
{
	fprintf(out, "\nload-to-use latency by working set: dependent loads, "
		"one per 64 B line, %u samples of %u loads per size\n",
		r->samples, r->loads);
	fprintf(out, "random: a random cycle over the lines (%s)%s%s; "
		"sequential: line i -> i+1\n", pages_text(&r->buf),
		r->on[V_HUGE] ? "; huge: the same on " : "",
		r->on[V_HUGE] ? pages_text(&r->huge) : "");
	fprintf(out, "%10s %9s %9s %9s %7s %6s", "size", "p50", "min", "p99",
		"cycles", "core");
	if (r->on[V_HUGE])
		fprintf(out, " %10s", "huge p50");
	fprintf(out, " %10s %10s\n", "page p50", "seq p50");
	for (int i = 0; i < r->done; i++) {
		const struct lat_mem_point *p = &r->pt[V_RANDOM][i];
		char sz[32], a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[LAT_FMT_LEN];

		lat_fmt_bytes(sz, sizeof(sz), p->bytes);
		lat_fmt_pad(out, sz, 10);
		fputc(' ', out);
		lat_fmt_pad(out, lat_fmt_ns(a, sizeof(a), p->p50_ns), 9);
		fputc(' ', out);
		lat_fmt_pad(out, lat_fmt_ns(b, sizeof(b), p->min_ns), 9);
		fputc(' ', out);
		lat_fmt_pad(out, lat_fmt_ns(c, sizeof(c), p->p99_ns), 9);
		fprintf(out, " %7.1f %6.1f", p->p50_cycles,
			p->p50_ns * r->core_ghz);
		if (r->on[V_HUGE]) {
			fputc(' ', out);
			lat_fmt_pad(out, lat_fmt_ns(a, sizeof(a),
					r->pt[V_HUGE][i].p50_ns), 10);
		}
		fputc(' ', out);
		lat_fmt_pad(out, lat_fmt_ns(a, sizeof(a),
				r->pt[V_PAGED][i].p50_ns), 10);
		fputc(' ', out);
		lat_fmt_pad(out, lat_fmt_ns(a, sizeof(a),
				r->pt[V_SEQ][i].p50_ns), 10);
		fputc('\n', out);
	}
	fprintf(out, "cycles: counter cycles per load at p50 (%.4f per ns); "
		"core: p50 x the estimated %.2f GHz core clock\n",
		r->cycles_per_ns, r->core_ghz);
}

/* The sentences under the table: plateaus, the clock, the variants. */
static void print_findings(FILE *out, const struct lat_mem_chase_sweep *r)
{
	char line[1400];
	int last = r->done - 1;

	lat_mem_verdict_print(out, r->verdict);
	lat_mem_verdict_print(out, r->llc_note);
	snprintf(line, sizeof(line), "cycles: the counter ran at %.4f "
		 "cycles/ns over this sweep (against CLOCK_MONOTONIC_RAW), the "
		 "calibration 'latlab clock' uses says %.4f: %s (%+.3f%%)",
		 r->counter_ratio, r->cycles_per_ns,
		 fabs(r->counter_ratio / r->cycles_per_ns - 1) < 1e-3
		 ? "they agree" : "they DISAGREE",
		 (r->counter_ratio / r->cycles_per_ns - 1) * 100);
	lat_mem_verdict_print(out, line);
	if (last < 0)
		return;
	{
		char a[LAT_FMT_LEN], b[LAT_FMT_LEN], sz[32];
		double rnd = r->pt[V_RANDOM][last].p50_ns;
		double seq = r->pt[V_SEQ][last].p50_ns;

		snprintf(line, sizeof(line), "prefetcher: at %s the sequential "
			 "chain costs %s per load against %s in random order "
			 "(x%.0f): the hardware sees the stride and fetches "
			 "ahead; a dependent load in random order cannot be "
			 "guessed",
			 lat_fmt_bytes(sz, sizeof(sz), r->sizes[last]),
			 lat_fmt_ns(a, sizeof(a), seq),
			 lat_fmt_ns(b, sizeof(b), rnd), rnd / seq);
		lat_mem_verdict_print(out, line);
		snprintf(line, sizeof(line), "page by page (every line of a "
			 "4 KiB page, in random order, before the next page): "
			 "one TLB miss per page instead of per load, so its "
			 "edges are the caches' without the TLB's; its levels "
			 "are lower than a random load's (%s at %s) because the "
			 "prefetchers see the page being filled: read its "
			 "edges, not its levels",
			 lat_fmt_ns(a, sizeof(a), r->pt[V_PAGED][last].p50_ns),
			 lat_fmt_bytes(sz, sizeof(sz), r->sizes[last]));
		lat_mem_verdict_print(out, line);
		if (r->on[V_HUGE]) {
			double h = r->pt[V_HUGE][last].p50_ns;
			bool all = r->huge.pages != LAT_MEM_PAGES_BASE &&
				   r->huge.huge_bytes >= r->huge.len / 10 * 9;
			char hb[32], c[LAT_FMT_LEN];

			snprintf(line, sizeof(line), "huge pages (%s, %s of "
				 "%s backed%s%s): at %s %s per load against %s on "
				 "base pages; %s",
				 pages_text(&r->huge),
				 lat_fmt_bytes(hb, sizeof(hb),
					       r->huge.huge_bytes),
				 lat_fmt_bytes(a, sizeof(a), r->huge.len),
				 r->thp[0] ? "; transparent_hugepage/enabled: "
				 : "", r->thp,
				 lat_fmt_bytes(sz, sizeof(sz), r->sizes[last]),
				 lat_fmt_ns(b, sizeof(b), h),
				 lat_fmt_ns(c, sizeof(c), rnd),
				 !all
				 ? "the kernel gave few huge pages: this curve "
				   "is mostly base pages again (see "
				   "AnonHugePages in /proc/meminfo)"
				 : h < rnd * 0.9
				 ? "the difference is the page walk of a TLB "
				   "miss, shorter when one guest entry covers "
				   "2 MiB"
				 : "little difference although every page was "
				   "huge: the page walks hit in cache, or (in a "
				   "VM) the host backs this memory with base "
				   "pages, and a TLB entry is never larger than "
				   "the host's page");
			lat_mem_verdict_print(out, line);
		}
	}
}

static void json_point(struct lat_json *j, const char *key,
		       const struct lat_mem_point *p)
{
	lat_json_obj_begin(j, key);
	lat_json_double(j, "p50_ns", p->p50_ns);
	lat_json_double(j, "min_ns", p->min_ns);
	lat_json_double(j, "p90_ns", p->p90_ns);
	lat_json_double(j, "p99_ns", p->p99_ns);
	lat_json_double(j, "max_ns", p->max_ns);
	lat_json_double(j, "p50_cycles", p->p50_cycles);
	lat_json_uint(j, "loads", p->loads);
	lat_json_int(j, "over_range", p->over_range);
	lat_json_obj_end(j);
}

static void json_plateaus(struct lat_json *j, const char *key,
			  const struct lat_mem_chase_sweep *r,
			  const struct lat_mem_plateau *pl, int n)
{
	lat_json_arr_begin(j, key);
	for (int k = 0; k < n; k++) {
		const struct lat_mem_plateau *p = &pl[k];

		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "name", plateau_name(r, p));
		lat_json_uint(j, "first_bytes", r->sizes[p->first]);
		lat_json_uint(j, "last_bytes", r->sizes[p->last]);
		lat_json_double(j, "level_ns", p->level);
		if (p->edge >= 0)
			lat_json_uint(j, "edge_bytes", r->sizes[p->edge]);
		if (p->cache >= 0) {
			lat_json_uint(j, "cache_bytes",
				      r->caches.c[p->cache].size);
			lat_json_double(j, "steps_off", p->steps_off);
			lat_json_bool(j, "match", p->edge >= 0 &&
				      fabs(p->steps_off) <= ONE_STEP);
		}
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
}

/* min, p10, p50, p90, max of the drift's laps as @key. */
static void json_spread(struct lat_json *j, const char *key, double min,
			double p10, double p50, double p90, double max)
{
	lat_json_obj_begin(j, key);
	lat_json_double(j, "min", min);
	lat_json_double(j, "p10", p10);
	lat_json_double(j, "p50", p50);
	lat_json_double(j, "p90", p90);
	lat_json_double(j, "max", max);
	lat_json_obj_end(j);
}

void lat_mem_chase_json(struct lat_json *j,
			const struct lat_mem_chase_sweep *r, bool done)
{
	lat_json_obj_begin(j, "chase");
	lat_json_bool(j, "complete", done);
	lat_json_int(j, "steps_per_doubling", r->steps);
	lat_json_int(j, "samples", r->samples);
	lat_json_int(j, "loads_per_sample", r->loads);
	lat_json_str(j, "pages", pages_text(&r->buf));
	lat_json_str(j, "thp_enabled", r->thp);
	if (r->on[V_HUGE]) {
		lat_json_str(j, "huge_pages", pages_text(&r->huge));
		lat_json_uint(j, "huge_bytes", r->huge.huge_bytes);
		lat_json_uint(j, "huge_buffer_bytes", r->huge.len);
		lat_json_int(j, "huge_errno", -r->huge.huge_err);
	}
	lat_json_double(j, "counter_cycles_per_ns", r->counter_ratio);
	lat_json_double(j, "calibrated_cycles_per_ns", r->cycles_per_ns);
	lat_json_arr_begin(j, "points");
	for (int i = 0; i < r->done; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_uint(j, "bytes", r->sizes[i]);
		for (int v = 0; v < V_N; v++)
			if (r->on[v])
				json_point(j, v_key[v], &r->pt[v][i]);
		lat_json_double(j, "core_cycles",
				r->pt[V_RANDOM][i].p50_ns * r->core_ghz);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	json_plateaus(j, "plateaus", r, r->pl, r->n_pl);
	lat_json_obj_begin(j, "plateaus_by_curve");
	for (int v = 0; v < V_N; v++)
		if (r->on[v] && v != V_SEQ)
			json_plateaus(j, v_key[v], r, r->vpl[v], r->vn_pl[v]);
	lat_json_obj_end(j);
	lat_json_obj_begin(j, "llc");
	lat_json_bool(j, "seen_at_sysfs_size", r->llc_seen);
	if (r->llc_edge >= 0) {
		lat_json_uint(j, "largest_edge_bytes", r->sizes[r->llc_edge]);
		lat_json_str(j, "largest_edge_curve", v_key[r->llc_edge_variant]);
	}
	if (r->caches.n)
		lat_json_uint(j, "sysfs_bytes", lat_topo_caches_llc(&r->caches));
	lat_json_obj_begin(j, "effective_bytes");
	for (int v = 0; v < V_N; v++)
		if (r->on[v] && v != V_SEQ)
			lat_json_double(j, v_key[v], r->llc_capacity[v]);
	lat_json_obj_end(j);
	if (r->llc_drift_on) {
		const struct lat_mem_llc_drift *d = &r->llc_drift;

		lat_json_obj_begin(j, "drift");
		lat_json_str(j, "curve", v_key[r->llc_drift_variant]);
		lat_json_uint(j, "bytes", d->bytes);
		lat_json_double(j, "seconds", d->seconds);
		lat_json_uint(j, "laps", d->laps);
		lat_json_double(j, "llc_ns", d->llc_ns);
		lat_json_double(j, "dram_ns", d->dram_ns);
		json_spread(j, "lap_ns", d->lap_min_ns, d->lap_p10_ns,
			    d->lap_p50_ns, d->lap_p90_ns, d->lap_max_ns);
		json_spread(j, "capacity_bytes", d->cap_min, d->cap_p10,
			    d->cap_p50, d->cap_p90, d->cap_max);
		lat_json_bool(j, "changes_lap_to_lap",
			      lat_mem_llc_drift_changes(d));
		lat_json_double(j, "sweep_p50_ns", r->llc_drift_sweep_ns);
		lat_json_double(j, "sweep_capacity_bytes",
				r->llc_drift_sweep_cap);
		lat_json_bool(j, "changes", r->llc_changes);
		lat_json_obj_end(j);
	}
	lat_json_str(j, "note", r->llc_note);
	lat_json_obj_end(j);
	lat_json_double(j, "dram_ns", r->dram_ns);
	lat_json_double(j, "dram_over_l1",
			r->n_pl && r->pl[0].first == 0 && r->pl[0].level > 0
			? r->dram_ns / r->pl[0].level : NAN);
	lat_json_str(j, "verdict", r->verdict);
	lat_json_obj_end(j);
}

int lat_mem_chase_svg(FILE *f, const struct lat_mem_chase_sweep *r)
{
	static const struct lat_svg_series ser[V_N] = {
		{ "random order, base pages", "#1f77b4", NULL, true },
		{ "random order, huge pages", "#d62728", "6 3", true },
		{ "sequential (prefetched)", "#2ca02c", NULL, true },
		{ "random, page by page (base pages)", "#9467bd", "2 3", true },
	};
	double x[LAT_MEM_CHASE_MAX_SIZES], y[V_N][LAT_MEM_CHASE_MAX_SIZES];
	double lo = INFINITY, hi = 0;
	struct lat_svg g;
	int rc;

	if (r->done < 2)
		return -EINVAL;
	for (int i = 0; i < r->done; i++) {
		x[i] = log2((double)r->sizes[i]);
		for (int v = 0; v < V_N; v++) {
			y[v][i] = r->on[v] ? r->pt[v][i].p50_ns : NAN;
			if (r->on[v] && y[v][i] > 0) {
				lo = fmin(lo, y[v][i]);
				hi = fmax(hi, y[v][i]);
			}
		}
	}
	rc = lat_svg_begin(&g, f, 900, 560, "load-to-use latency by working "
			   "set (p50 per load)");
	if (!rc && r->done < r->n_sizes) { /* Ctrl-C: the sizes so far, said */
		char why[96];

		snprintf(why, sizeof(why), "the sweep was stopped after %d of "
			 "%d sizes", r->done, r->n_sizes);
		lat_svg_partial(&g, why);
	}
	if (!rc)
		/* room on the left for the legend, clear of the data */
		rc = lat_svg_axes(&g, x[0] - 0.3 * (x[r->done - 1] - x[0]),
				  x[r->done - 1] + 0.25,
				  lo / 1.5, hi * 1.5, true,
				  "working set, log2(bytes): 12 = 4 KiB, 20 = "
				  "1 MiB, 30 = 1 GiB",
				  "ns per load");
	if (!rc) {
		for (int i = 0; i < r->caches.n; i++) {
			char label[48], b[32];

			snprintf(label, sizeof(label), "%s %s",
				 lat_topo_cache_name(&r->caches, i),
				 lat_fmt_bytes(b, sizeof(b),
					       r->caches.c[i].size));
			lat_svg_vline(&g, log2((double)r->caches.c[i].size),
				      "#7f7f7f", label);
		}
		for (int v = 0; v < V_N; v++) {
			if (!r->on[v])
				continue;
			lat_svg_line(&g, &ser[v], x, y[v], (size_t)r->done);
			lat_svg_points(&g, &ser[v], x, y[v], NULL, NULL,
				       (size_t)r->done);
			lat_svg_legend(&g, &ser[v]);
		}
	}
	if (!rc)
		rc = lat_svg_end(&g);
	return rc;
}


/* Unmap @b but keep what the kernel gave (pages, huge bytes) for the
 * report. */
static void unmap_keep(struct lat_mem_buf *b)
{
	struct lat_mem_buf keep = *b;

	lat_mem_buf_unmap(b);
	*b = keep;
	b->base = b->map_base = NULL;
}

static int map_buffers(struct lat_mem_chase_sweep *r, bool hugepages)
{
	int rc = lat_mem_buf_map(&r->buf, r->sizes[r->n_sizes - 1], false);

	if (!rc && hugepages)
		rc = lat_mem_buf_map(&r->huge, r->sizes[r->n_sizes - 1], true);
	return rc;
}

int lat_mem_chase_sweep_setup(struct lat_mem_chase_sweep *r, uint64_t min,
			      uint64_t max, unsigned steps, unsigned samples,
			      unsigned loads,
			      const struct lat_topo_caches *caches,
			      double core_ghz, bool quick)
{
	int n = lat_mem_sizes(min, max, steps, r->sizes,
			      LAT_MEM_CHASE_MAX_SIZES);

	if (n < 0)
		return n;
	if (n > LAT_MEM_CHASE_MAX_SIZES)
		return -E2BIG;
	r->n_sizes = n;
	r->steps = steps;
	r->samples = samples;
	r->loads = loads;
	r->caches = *caches;
	r->core_ghz = core_ghz;
	r->llc_probe_s = quick ? LAT_MEM_LLC_PROBE_S / 10 : LAT_MEM_LLC_PROBE_S;
	return 0;
}

int lat_mem_chase_sweep_run(struct lat_mem_chase_sweep *r,
			    const struct lat_clock_cal *cal, bool hugepages,
			    bool (*stop)(void *ctx), void *ctx)
{
	struct lat_clock_pair c0, c1;
	uint32_t *scratch = NULL;
	int rc;

	r->done = 0;
	r->failed = -1;
	r->interrupted = false;
	r->cycles_per_ns = cal->cycles_per_ns;
	r->on[V_RANDOM] = r->on[V_SEQ] = r->on[V_PAGED] = true;
	r->on[V_HUGE] = hugepages;
	if (r->n_sizes < 1 || r->n_sizes > LAT_MEM_CHASE_MAX_SIZES)
		return -EINVAL;
	if (lat_mem_thp_mode(NULL, r->thp, sizeof(r->thp)))
		r->thp[0] = '\0';
	rc = map_buffers(r, hugepages);
	if (!rc) {
		scratch = malloc(r->sizes[r->n_sizes - 1] / LAT_CACHELINE *
				 sizeof(*scratch));
		if (!scratch)
			rc = -ENOMEM;
	}
	if (rc)
		goto out;
	lat_clock_pair_read(&c0, 5);
	for (int i = 0; i < r->n_sizes; i++) {
		struct lat_mem_chase_cfg cfg = {
			.order = LAT_MEM_RANDOM, .samples = r->samples,
			.loads_per_sample = r->loads, .seed = 0x6d656d,
			.stop = stop, .stop_ctx = ctx,
		};

		if (stop && stop(ctx)) {
			r->interrupted = true;
			break;
		}
		/* the variants of one size back to back: drift in the
		 * machine's load hits them alike */
		rc = lat_mem_chase_size(&cfg, cal, &r->buf, scratch,
					r->sizes[i], &r->pt[V_RANDOM][i]);
		if (!rc && r->on[V_HUGE])
			rc = lat_mem_chase_size(&cfg, cal, &r->huge, scratch,
						r->sizes[i],
						&r->pt[V_HUGE][i]);
		cfg.order = LAT_MEM_PAGE_LOCAL;
		if (!rc)
			rc = lat_mem_chase_size(&cfg, cal, &r->buf, scratch,
						r->sizes[i],
						&r->pt[V_PAGED][i]);
		cfg.order = LAT_MEM_SEQUENTIAL;
		if (!rc)
			rc = lat_mem_chase_size(&cfg, cal, &r->buf, NULL,
						r->sizes[i], &r->pt[V_SEQ][i]);
		if (rc == -EINTR) { /* stopped inside the size */
			r->interrupted = true;
			rc = 0;
			break;
		}
		if (rc) {
			r->failed = i; /* the sizes before it are analysed */
			break;
		}
		r->done = i + 1;
	}
	lat_clock_pair_read(&c1, 5);
	r->counter_ratio = (double)(c1.cycles - c0.cycles) /
			   (double)(c1.raw_ns - c0.raw_ns);
	lat_mem_chase_analyse(r);
	if (!rc)
		rc = llc_drift(r, scratch, cal, stop, ctx);
out:
	free(scratch);
	unmap_keep(&r->buf);
	unmap_keep(&r->huge);
	return rc;
}

void lat_mem_chase_print(FILE *out, const struct lat_mem_chase_sweep *r)
{
	print_table(out, r);
	print_findings(out, r);
}
