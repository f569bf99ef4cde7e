/*
 * The chase sweep's last-level cache: whether any random curve shows it
 * at its sysfs size, and when none does, how much of it this process
 * gets (the effective-capacity model over the p50s) and whether that
 * changes while the process does the same thing (the drift run); the
 * sentence for people and the "llc" JSON member. The model and the
 * drift run themselves are mem_llc.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/stats.h"
#include "mem_chase_int.h"

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
	qsort(y, (size_t)n, sizeof(y[0]), lat_cmp_double);
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
void lat_mem_chase_llc_analyse(struct lat_mem_chase_sweep *r)
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
				       lat_mem_chase_off_text(off, sizeof(off),
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
int lat_mem_chase_llc_drift(struct lat_mem_chase_sweep *r, uint32_t *scratch,
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

/* The "llc" member of the chase object open in @j. */
void lat_mem_chase_llc_json(struct lat_json *j,
			    const struct lat_mem_chase_sweep *r)
{
	lat_json_obj_begin(j, "llc");
	lat_json_bool(j, "seen_at_sysfs_size", r->llc_seen);
	if (r->llc_edge >= 0) {
		lat_json_uint(j, "largest_edge_bytes", r->sizes[r->llc_edge]);
		lat_json_str(j, "largest_edge_curve",
			     lat_mem_chase_key[r->llc_edge_variant]);
	}
	if (r->caches.n)
		lat_json_uint(j, "sysfs_bytes", lat_topo_caches_llc(&r->caches));
	lat_json_obj_begin(j, "effective_bytes");
	for (int v = 0; v < V_N; v++)
		if (r->on[v] && v != V_SEQ)
			lat_json_double(j, lat_mem_chase_key[v],
					r->llc_capacity[v]);
	lat_json_obj_end(j);
	if (r->llc_drift_on) {
		const struct lat_mem_llc_drift *d = &r->llc_drift;

		lat_json_obj_begin(j, "drift");
		lat_json_str(j, "curve",
			     lat_mem_chase_key[r->llc_drift_variant]);
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
}
