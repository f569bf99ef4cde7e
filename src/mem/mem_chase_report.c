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
#include "mem_chase_int.h"

const char *const lat_mem_chase_key[V_N] = { "random", "random_huge",
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

const char *lat_mem_chase_off_text(char *buf, size_t len,
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
	lat_mem_chase_llc_analyse(r);
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
				lat_mem_chase_off_text(off, sizeof(off), p));
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
				       lat_mem_chase_off_text(off,
							      sizeof(off), p));
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
				json_point(j, lat_mem_chase_key[v],
					   &r->pt[v][i]);
		lat_json_double(j, "core_cycles",
				r->pt[V_RANDOM][i].p50_ns * r->core_ghz);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	json_plateaus(j, "plateaus", r, r->pl, r->n_pl);
	lat_json_obj_begin(j, "plateaus_by_curve");
	for (int v = 0; v < V_N; v++)
		if (r->on[v] && v != V_SEQ)
			json_plateaus(j, lat_mem_chase_key[v], r, r->vpl[v],
				      r->vn_pl[v]);
	lat_json_obj_end(j);
	lat_mem_chase_llc_json(j, r);
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
		rc = lat_mem_chase_llc_drift(r, scratch, cal, stop, ctx);
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
