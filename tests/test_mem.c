/*
 * Description: lat_mem without timing: the random permutation is one
 * cycle over every line (and page by page, each page entered once) and
 * the chain laid from it walks every line once; working-set sizes; the
 * plateau finder and naming on synthetic curves (clean, noisy, a cache
 * that runs out early, an L3 that drifts up, a ramp, a flat line, a
 * spike); the THP mode and MemAvailable from fake sysfs/proc trees;
 * buffers on base and huge pages; one chase size's bookkeeping; CPU
 * relations.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/mem.h"
#include "t_test.h"
#include "t_tree.h"

static char root[256];

#define put(rel, text) t_tree_put(root, rel, text)

/* Following next[] from 0 returns to 0 after exactly n steps, visiting
 * every index once. */
static int one_cycle(const uint32_t *next, size_t n)
{
	unsigned char *seen = calloc(n, 1);
	size_t i = 0, steps = 0;
	int ok = 1;

	if (!seen)
		return 0;
	do {
		if (next[i] >= n || seen[i]) {
			ok = 0;
			break;
		}
		seen[i] = 1;
		i = next[i];
		steps++;
	} while (i != 0 && steps <= n);
	ok = ok && i == 0 && steps == n;
	free(seen);
	return ok;
}

static void test_cycle(void)
{
	static const size_t ns[] = { 1, 2, 3, 7, 64, 1000, 65537 };
	uint32_t *a = malloc(65537 * sizeof(*a)), *b = malloc(1000 * sizeof(*b));

	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		T_EQ_I64(lat_mem_cycle_build(a, ns[k], 42 + k), 0);
		T_CHECK(one_cycle(a, ns[k]));
		for (size_t i = 0; ns[k] > 1 && i < ns[k]; i++)
			T_CHECK(a[i] != i); /* no fixed point in one cycle */
	}
	/* deterministic per seed, different across seeds */
	lat_mem_cycle_build(a, 1000, 7);
	lat_mem_cycle_build(b, 1000, 7);
	T_CHECK(!memcmp(a, b, 1000 * sizeof(*a)));
	lat_mem_cycle_build(b, 1000, 8);
	T_CHECK(memcmp(a, b, 1000 * sizeof(*a)));
	/* a broken permutation is caught by the checker itself */
	a[3] = a[4];
	T_CHECK(!one_cycle(a, 1000));
	T_EQ_I64(lat_mem_cycle_build(a, 0, 1), -EINVAL);
	T_EQ_I64(lat_mem_cycle_build(NULL, 4, 1), -EINVAL);
	free(a);
	free(b);
}

/* Page by page: one cycle through every index, each page's indices
 * visited together (entered once, left once), pages in a random order,
 * lines in a random order within a page; a partial last page too. */
static void test_cycle_paged(void)
{
	static const size_t ns[] = { 1, 63, 64, 65, 640, 4099 };
	static const unsigned per[] = { 1, 8, 64 };
	uint32_t *a = malloc(4099 * sizeof(*a)), *b = malloc(4099 * sizeof(*b));

	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
		for (size_t q = 0; q < sizeof(per) / sizeof(per[0]); q++) {
			size_t n = ns[k], pp = per[q], leaves = 0, i = 0;

			T_EQ_I64(lat_mem_cycle_build_paged(a, n, pp, 5 + k),
				 0);
			T_CHECK(one_cycle(a, n));
			/* a walk around the cycle changes page exactly once
			 * per page: so each page's lines are consecutive */
			for (size_t s = 0; s < n; s++, i = a[i])
				leaves += i / pp != a[i] / pp;
			T_EQ_I64(leaves, (n + pp - 1) / pp == 1
					 ? 0 : (n + pp - 1) / pp);
		}
	/* not the sequential order within a page, and not every page in
	 * order: random, deterministic per seed */
	lat_mem_cycle_build_paged(a, 4099, 64, 7);
	lat_mem_cycle_build_paged(b, 4099, 64, 7);
	T_CHECK(!memcmp(a, b, 4099 * sizeof(*a)));
	{
		size_t in_order = 0, next_page = 0;

		for (size_t i = 0; i < 4099; i++) {
			in_order += a[i] == i + 1;
			next_page += a[i] / 64 == i / 64 + 1;
		}
		T_CHECK(in_order < 4099 / 8);
		T_CHECK(next_page < 64 / 4);
	}
	lat_mem_cycle_build_paged(b, 4099, 64, 8);
	T_CHECK(memcmp(a, b, 4099 * sizeof(*a)));
	T_EQ_I64(lat_mem_cycle_build_paged(a, 0, 64, 1), -EINVAL);
	T_EQ_I64(lat_mem_cycle_build_paged(NULL, 4, 64, 1), -EINVAL);
	T_EQ_I64(lat_mem_cycle_build_paged(a, 4, 0, 1), -EINVAL);
	T_EQ_I64(lat_mem_cycle_build_paged(a, 4, LAT_MEM_MAX_PAGE_LINES + 1,
					   1), -EINVAL);
	free(a);
	free(b);
}

/* The chain in memory: n loads from the base come back to it, and the
 * walk touches each line once. */
static void test_chain(void)
{
	enum { N = 4099 };
	uint32_t *next = malloc(N * sizeof(*next));
	char *buf = aligned_alloc(LAT_CACHELINE, (size_t)N * LAT_CACHELINE);
	unsigned char seen[N];
	void *p;

	for (int order = 0; order < 2; order++) {
		lat_mem_cycle_build(next, N, 99);
		lat_mem_chain_link(buf, order ? NULL : next, N);
		memset(seen, 0, sizeof(seen));
		p = buf;
		for (int i = 0; i < N; i++) {
			size_t line = (size_t)((char *)p - buf) / LAT_CACHELINE;

			T_CHECK(line < N && !seen[line]);
			if (line < N)
				seen[line] = 1;
			p = lat_mem_chase(p, 1);
		}
		T_CHECK(p == buf);
		/* the unrolled chase agrees with single steps */
		T_CHECK(lat_mem_chase(buf, 3 * N) == buf);
		T_CHECK(lat_mem_chase(buf, N + 5) == lat_mem_chase(buf, 5));
	}
	/* sequential: line i points to line i + 1 */
	T_CHECK(lat_mem_chase(buf, 1) == buf + LAT_CACHELINE);
	free(next);
	free(buf);
}

static void test_sizes(void)
{
	uint64_t s[128];
	int n = lat_mem_sizes(4096, 128u << 20, 4, s, 128);

	T_EQ_I64(n, 61); /* 15 doublings x 4 + 1 */
	T_EQ_I64(lat_mem_sizes(4096, 128u << 20, 4, NULL, 0), 61);
	T_EQ_I64(s[0], 4096);
	T_EQ_I64(s[n - 1], 128u << 20);
	for (int i = 0; i < n; i++) {
		T_CHECK(s[i] % LAT_CACHELINE == 0);
		if (i) {
			double r = (double)s[i] / (double)s[i - 1];

			T_CHECK(r > 1.15 && r < 1.22); /* 2^(1/4) = 1.189 */
		}
	}
	T_EQ_I64(s[4], 8192);
	/* the last size is the first at or above max */
	n = lat_mem_sizes(4096, 5000, 4, s, 128);
	T_EQ_I64(n, 3);
	T_CHECK(s[n - 1] >= 5000 && s[n - 2] < 5000);
	/* tiny steps at one line do not repeat a size */
	n = lat_mem_sizes(64, 256, 16, s, 128);
	for (int i = 1; i < n; i++)
		T_CHECK(s[i] > s[i - 1]);
	T_EQ_I64(lat_mem_sizes(63, 4096, 4, s, 128), -EINVAL);
	T_EQ_I64(lat_mem_sizes(8192, 4096, 4, s, 128), -EINVAL);
	T_EQ_I64(lat_mem_sizes(4096, 8192, 0, s, 128), -EINVAL);
	T_EQ_I64(lat_mem_sizes(4096, 8192, 17, s, 128), -EINVAL);
}

static struct lat_topo_caches model_caches(void)
{
	struct lat_topo_caches c = { .n = 3 };

	c.c[0] = (struct lat_topo_cache){ 1, "Data", 32 << 10, 64, 1 };
	c.c[1] = (struct lat_topo_cache){ 2, "Unified", 1 << 20, 64, 1 };
	c.c[2] = (struct lat_topo_cache){ 3, "Unified", 32u << 20, 64, 8 };
	return c;
}

/*
 * A textbook curve: level i up to cache i's effective size, then every
 * load misses within one step past it (a cyclic walk over an LRU cache
 * misses on every load once it does not fit; real caches blur this over
 * about a step). @eff scales the last cache (0.25: it runs out at a
 * quarter of its size).
 */
static void model_curve(const uint64_t *s, int n, double eff, double noise,
			double *y)
{
	static const double level[] = { 1.1, 3.8, 14, 120 };
	const double size[] = { 32 << 10, 1 << 20, (32u << 20) * eff };

	for (int i = 0; i < n; i++) {
		double w = (double)s[i], v = level[0];

		for (int k = 0; k < 3; k++)
			if (w > size[k])
				v += (level[k + 1] - level[k]) *
				     fmin(1, log2(w / size[k]) / 0.25);
		/* deterministic +-noise, alternating */
		y[i] = v * (1 + (i % 2 ? noise : -noise));
	}
}

static void test_plateaus(void)
{
	struct lat_topo_caches c = model_caches();
	struct lat_mem_plateau p[16];
	uint64_t s[128];
	double y[128];
	int n = lat_mem_sizes(4096, 128u << 20, 4, s, 128), np;

	/* clean and noisy: L1d, L2, L3, DRAM, edges within a step */
	for (int noisy = 0; noisy < 2; noisy++) {
		model_curve(s, n, 1, noisy ? 0.06 : 0, y);
		np = lat_mem_plateaus(s, y, n, 0.25, 3, p, 16);
		T_EQ_I64(np, 4);
		lat_mem_plateaus_name(p, np, s, &c, 4);
		for (int k = 0; k < 3 && np == 4; k++) {
			T_EQ_I64(p[k].cache, k);
			T_CHECK(p[k].edge >= p[k].last);
			T_CHECK(fabs(p[k].steps_off) <= 1);
			T_CHECK(p[k].last < p[k + 1].first);
		}
		if (np == 4) {
			T_EQ_I64(p[3].cache, LAT_MEM_MEMORY);
			T_EQ_I64(p[3].edge, -1);
			T_CHECK(isnan(p[3].steps_off));
			T_CHECK(p[3].level / p[0].level > 10);
			T_NEAR(p[0].level, 1.1, 0.1);
		}
	}
	/* a last-level cache that runs out at a quarter of its size: still
	 * named L3, and the edge says it is early by about 8 steps */
	model_curve(s, n, 0.25, 0, y);
	np = lat_mem_plateaus(s, y, n, 0.25, 3, p, 16);
	lat_mem_plateaus_name(p, np, s, &c, 4);
	T_EQ_I64(np, 4);
	if (np == 4) {
		T_EQ_I64(p[2].cache, 2);
		T_CHECK(p[2].steps_off < -6 && p[2].steps_off > -10);
		T_EQ_I64(p[3].cache, LAT_MEM_MEMORY);
	}
	/* an L3 that drifts up in three flat runs (10.5, 13.5, 17 ns: its
	 * hits pay more TLB misses as the set grows) is one level, not an
	 * L3 and a "DRAM" at 17 ns; DRAM is the 140 ns after it */
	for (int i = 0; i < n; i++) {
		uint64_t b = s[i];

		y[i] = b <= (32u << 10) ? 1.1 : b <= (1u << 20) ? 3.8
		       : b <= (3u << 20) ? 10.5 : b <= (8u << 20) ? 13.5
		       : b <= (32u << 20) ? 17 : 140;
	}
	np = lat_mem_plateaus(s, y, n, 0.25, 3, p, 16);
	lat_mem_plateaus_name(p, np, s, &c, 4);
	T_EQ_I64(np, 4);
	if (np == 4) {
		T_EQ_I64(p[2].cache, 2);
		T_CHECK(fabs(p[2].steps_off) <= 1);
		T_EQ_I64(p[3].cache, LAT_MEM_MEMORY);
		T_NEAR(p[3].level, 140, 1);
	}
	/* a step of less than LAT_MEM_DRAM_JUMP after the L3 (7 -> 13 ns) is
	 * not memory: unnamed, and the 140 ns after it is DRAM */
	for (int i = 0; i < n; i++) {
		uint64_t b = s[i];

		y[i] = b <= (32u << 10) ? 1.1 : b <= (1u << 20) ? 3.8
		       : b <= (2u << 20) ? 7 : b <= (8u << 20) ? 13 : 140;
	}
	np = lat_mem_plateaus(s, y, n, 0.25, 3, p, 16);
	lat_mem_plateaus_name(p, np, s, &c, 4);
	T_EQ_I64(np, 5);
	if (np == 5) {
		T_EQ_I64(p[2].cache, 2);
		T_EQ_I64(p[3].cache, LAT_MEM_UNNAMED);
		T_EQ_I64(p[4].cache, LAT_MEM_MEMORY);
	}
	/* flat: one plateau, no edge */
	for (int i = 0; i < n; i++)
		y[i] = 5;
	T_EQ_I64(lat_mem_plateaus(s, y, n, 0.25, 3, p, 16), 1);
	T_EQ_I64(p[0].first, 0);
	T_EQ_I64(p[0].last, n - 1);
	T_EQ_I64(p[0].edge, -1);
	/* one spike does not split a plateau */
	y[20] = 50;
	T_EQ_I64(lat_mem_plateaus(s, y, n, 0.25, 3, p, 16), 1);
	/* a ramp (4% per step, 10x overall) cannot creep into one plateau:
	 * every plateau spans less than the merge factor times the tol */
	for (int i = 0; i < n; i++)
		y[i] = pow(1.04, i);
	np = lat_mem_plateaus(s, y, n, 0.25, 3, p, 16);
	T_CHECK(np > 2);
	for (int k = 0; k < np && k < 16; k++)
		T_CHECK(y[p[k].last] / y[p[k].first] <
			LAT_MEM_LEVEL_JUMP * 1.25 + 1e-9);
	/* too few points for any run; bad arguments */
	T_EQ_I64(lat_mem_plateaus(s, y, 2, 0.25, 3, p, 16), 0);
	T_EQ_I64(lat_mem_plateaus(s, y, 0, 0.25, 3, p, 16), 0);
	T_EQ_I64(lat_mem_plateaus(s, y, n, 0, 3, p, 16), -EINVAL);
	T_EQ_I64(lat_mem_plateaus(s, y, n, 0.25, 1, p, 16), -EINVAL);
	/* a sweep that starts beyond every cache is all DRAM */
	{
		uint64_t big[4] = { 64u << 20, 80u << 20, 96u << 20,
				    128u << 20 };
		double flat[4] = { 100, 101, 102, 103 };

		np = lat_mem_plateaus(big, flat, 4, 0.25, 3, p, 16);
		T_EQ_I64(np, 1);
		lat_mem_plateaus_name(p, np, big, &c, 4);
		T_EQ_I64(p[0].cache, LAT_MEM_MEMORY);
	}
}

/* The THP mode and MemAvailable from fake /sys and /proc trees (the
 * caches are lat_topo's: tests/test_topo.c). */
static void test_meminfo(void)
{
	char path[300];

	t_tree_new(root, sizeof(root), "mem");

	{ /* the THP mode is the bracketed word */
		char mode[16];

		snprintf(path, sizeof(path), "%s/sys", root);
		T_EQ_I64(lat_mem_thp_mode(path, mode, sizeof(mode)), -ENOENT);
		put("sys/kernel/mm/transparent_hugepage/enabled",
		    "always [madvise] never\n");
		T_EQ_I64(lat_mem_thp_mode(path, mode, sizeof(mode)), 0);
		T_CHECK(!strcmp(mode, "madvise"));
		put("sys/kernel/mm/transparent_hugepage/enabled",
		    "always madvise never\n");
		T_EQ_I64(lat_mem_thp_mode(path, mode, sizeof(mode)),
			 -LAT_EFORMAT);
		T_CHECK(!strcmp(mode, ""));
	}
	put("proc/meminfo", "MemTotal: 100 kB\nMemAvailable:   2048 kB\n");
	snprintf(path, sizeof(path), "%s/proc", root);
	T_EQ_I64(lat_mem_available(path), 2048 * 1024);
	snprintf(path, sizeof(path), "%s/nothing", root);
	T_EQ_I64(lat_mem_available(path), 0);
	T_CHECK(t_tree_remove(root));
}

static bool stop_counting(void *ctx)
{
	++*(int *)ctx;
	return true;
}

static void test_buffers_and_chase(void)
{
	int stops = 0;
	struct lat_mem_buf b, h;
	struct lat_clock_cal cal = { 0 };
	struct lat_mem_chase_cfg cfg = { .order = LAT_MEM_RANDOM,
					 .samples = 8,
					 .loads_per_sample = 256, .seed = 1 };
	struct lat_mem_point pt;
	uint32_t scratch[1024];

	T_EQ_I64(lat_mem_buf_map(&b, 64 << 10, false), 0);
	T_EQ_I64(b.pages, LAT_MEM_PAGES_BASE);
	T_EQ_I64(b.huge_bytes, 0);
	T_CHECK(((uintptr_t)b.base % LAT_PAD_BYTES) == 0);
	T_EQ_I64(lat_mem_buf_map(&h, 4u << 20, true), 0);
	/* asked is not got: whatever came, it is said, and never more
	 * than the buffer */
	T_CHECK(h.huge_bytes <= h.len);
	T_CHECK(h.pages != LAT_MEM_PAGES_BASE || h.huge_err < 0);
	T_CHECK(h.pages == LAT_MEM_PAGES_BASE ||
		((uintptr_t)h.base % (2u << 20)) == 0);
	lat_mem_buf_unmap(&h);
	T_CHECK(h.base == NULL);
	lat_mem_buf_unmap(&h); /* twice is harmless */
	T_EQ_I64(lat_mem_buf_map(&h, 0, false), -EINVAL);

	lat_clock_cal_from_ratio(&cal, 2.5);
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, scratch, 64 << 10, &pt),
		 0);
	T_EQ_I64(pt.bytes, 64 << 10);
	T_EQ_I64(pt.lines, 1024);
	T_EQ_I64(pt.loads, 8 * 256);
	T_EQ_I64(pt.over_range, 0);
	T_CHECK(pt.min_ns > 0 && pt.min_ns <= pt.p50_ns &&
		pt.p50_ns <= pt.p90_ns && pt.p90_ns <= pt.p99_ns &&
		pt.p99_ns <= pt.max_ns);
	T_NEAR(pt.p50_cycles, pt.p50_ns * 2.5, 1e-6 * pt.p50_cycles);
	/* the chain it laid is one cycle over the 1024 lines */
	T_CHECK(lat_mem_chase(b.base, 1024) == b.base);
	T_CHECK(one_cycle(scratch, 1024));
	/* page by page: one cycle too, entering each 4 KiB page once */
	cfg.order = LAT_MEM_PAGE_LOCAL;
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, scratch, 64 << 10, &pt),
		 0);
	T_CHECK(one_cycle(scratch, 1024));
	T_CHECK(lat_mem_chase(b.base, 1024) == b.base);
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, NULL, 4096, &pt),
		 -EINVAL);
	cfg.order = LAT_MEM_SEQUENTIAL;
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, NULL, 4096, &pt), 0);
	T_EQ_I64(pt.lines, 64);
	/* refused: beyond the buffer, below a line, no scratch, no samples */
	cfg.order = LAT_MEM_RANDOM;
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, scratch, 128 << 10, &pt),
		 -EINVAL);
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, scratch, 32, &pt),
		 -EINVAL);
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, NULL, 4096, &pt),
		 -EINVAL);
	cfg.samples = 0;
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, scratch, 4096, &pt),
		 -EINVAL);
	/* a stop asked for is answered inside the size, between samples,
	 * and only every LAT_MEM_STOP_EVERY samples */
	cfg.samples = 2 * LAT_MEM_STOP_EVERY;
	cfg.stop = stop_counting;
	cfg.stop_ctx = &stops;
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, scratch, 4096, &pt),
		 -EINTR);
	T_EQ_I64(stops, 1);
	cfg.samples = LAT_MEM_STOP_EVERY - 1;
	T_EQ_I64(lat_mem_chase_size(&cfg, &cal, &b, scratch, 4096, &pt), 0);
	T_EQ_I64(stops, 1);
	lat_mem_buf_unmap(&b);
	T_CHECK(lat_mem_stamp_overhead() > 0);
}

static void test_relation(void)
{
	static struct lat_topo t;

	memset(&t, 0, sizeof(t));
	t.n_cpus = 4;
	/* cpus 0,1 one core; 2 another core, same LLC; 3 another LLC */
	t.cpu[0] = (struct lat_topo_cpu){ true, true, false, 0, 0, 0 };
	t.cpu[1] = (struct lat_topo_cpu){ true, true, false, 0, 0, 0 };
	t.cpu[2] = (struct lat_topo_cpu){ true, true, false, 2, 0, 0 };
	t.cpu[3] = (struct lat_topo_cpu){ true, true, false, 3, 0, 3 };
	T_EQ_I64(lat_mem_relation_of(&t, 0, 1), LAT_MEM_SMT_SIBLING);
	T_EQ_I64(lat_mem_relation_of(&t, 0, 2), LAT_MEM_SAME_LLC);
	T_EQ_I64(lat_mem_relation_of(&t, 2, 3), LAT_MEM_CROSS_LLC);
	T_EQ_I64(lat_mem_relation_of(&t, 0, 7), LAT_MEM_REL_UNKNOWN);
	t.cpu[3].llc = -1;
	T_EQ_I64(lat_mem_relation_of(&t, 2, 3), LAT_MEM_REL_UNKNOWN);
	T_CHECK(!strcmp(lat_mem_relation_text(LAT_MEM_CROSS_LLC),
			"cross domain"));
	T_EQ_I64(lat_mem_c2c_once(1, 1, 10, NULL, NULL, NULL), -EINVAL);
}

/* The defaults latlab mem takes from the machine, as the library's. */
static void test_defaults(void)
{
	struct lat_topo_caches c;
	int t[8];

	memset(&c, 0, sizeof(c));
	T_EQ_I64(lat_mem_chase_default_max(&c), 64u << 20); /* none listed */
	c.n = 2;
	c.c[0].size = 32 << 10;
	c.c[1].size = 8 << 20;
	T_EQ_I64(lat_mem_chase_default_max(&c), 32u << 20);
	/* 4 bytes of permutation per 64-byte line; twice the buffer on huge */
	T_EQ_I64(lat_mem_chase_bytes_needed(1 << 20, false),
		 (1 << 20) + (1 << 20) / 16);
	T_EQ_I64(lat_mem_chase_bytes_needed(1 << 20, true),
		 (2 << 20) + (1 << 20) / 16);
	T_EQ_I64(lat_mem_rm_default_threads(1, t, 8), 2);
	T_CHECK(t[0] == 1 && t[1] == 2);
	T_EQ_I64(lat_mem_rm_default_threads(6, t, 8), 5);
	T_CHECK(t[0] == 1 && t[1] == 2 && t[2] == 4 && t[3] == 6 &&
		t[4] == 12);
	/* a small array keeps its last slot for the oversubscribed row */
	T_EQ_I64(lat_mem_rm_default_threads(64, t, 3), 3);
	T_CHECK(t[0] == 1 && t[1] == 2 && t[2] == 128);
}

int main(void)
{
	test_defaults();
	test_cycle();
	test_chain();
	test_sizes();
	test_cycle_paged();
	test_plateaus();
	test_meminfo();
	test_buffers_and_chase();
	test_relation();
	T_DONE();
}
