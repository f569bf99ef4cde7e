/*
 * lat_mem chase: the random cyclic permutation, the chain laid over a
 * buffer, the working-set sizes, one timed size, and a core-clock
 * estimate to turn counter cycles into the core cycles textbooks quote.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latlab/mem.h"
#include "latlab/stats.h"
#include "mem_int.h"

/* Uniform in [0, n) by a 64x64 -> 128 multiply (bias < n / 2^64). */
static uint64_t below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((lat_u128)lat_splitmix64(s) * n) >> 64);
}

int lat_mem_cycle_build(uint32_t *next, size_t n, uint64_t seed)
{
	uint64_t s = seed;

	if (!next || n == 0 || n > UINT32_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		next[i] = (uint32_t)i;
	/* Sattolo: swapping i only with j < i (never with itself) turns
	 * the identity into one n-cycle, each of the (n-1)! equally likely */
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)below(&s, i);
		uint32_t t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
	return 0;
}

/* Page @p's lines (@len of them) in a random order of its own: the
 * same order every time it is asked for, so a page's first line can be
 * found again when the page before it links to it. */
static void page_order(uint32_t *ord, uint32_t len, uint64_t seed, size_t p)
{
	uint64_t s = seed ^ ((uint64_t)p * 0x9e3779b97f4a7c15ull);

	for (uint32_t i = 0; i < len; i++)
		ord[i] = i;
	for (uint32_t i = len - 1; i > 0; i--) { /* Fisher-Yates */
		uint32_t j = (uint32_t)below(&s, (uint64_t)i + 1), t = ord[i];

		ord[i] = ord[j];
		ord[j] = t;
	}
}

int lat_mem_cycle_build_paged(uint32_t *next, size_t n, unsigned per_page,
			      uint64_t seed)
{
	uint32_t ord[LAT_MEM_MAX_PAGE_LINES], first;
	size_t pages;
	int rc;

	if (!next || n == 0 || n > UINT32_MAX || per_page < 1 ||
	    per_page > LAT_MEM_MAX_PAGE_LINES)
		return -EINVAL;
	pages = (n + per_page - 1) / per_page;
	/* the pages' cycle first, in next[0..pages-1]; then each page's
	 * lines from the last page down: page p writes next[p * per_page
	 * ...], never below index p, and the cycle entries still to be read
	 * (those of pages < p) sit below it */
	rc = lat_mem_cycle_build(next, pages, seed);
	if (rc)
		return rc;
	for (size_t p = pages; p-- > 0;) {
		size_t np = next[p], at = p * per_page;
		uint32_t len = (uint32_t)(n - at < per_page ? n - at : per_page);
		uint32_t nlen = (uint32_t)(n - np * per_page < per_page
					   ? n - np * per_page : per_page);

		page_order(ord, nlen, seed, np);
		first = (uint32_t)(np * per_page) + ord[0];
		page_order(ord, len, seed, p);
		for (uint32_t i = 0; i + 1 < len; i++)
			next[at + ord[i]] = (uint32_t)at + ord[i + 1];
		next[at + ord[len - 1]] = first;
	}
	return 0;
}

void lat_mem_chain_link(void *base, const uint32_t *next, size_t n)
{
	char *b = base;

	for (size_t i = 0; i < n; i++) {
		size_t to = next ? next[i] : (i + 1 == n ? 0 : i + 1);
		void *target = b + to * LAT_CACHELINE;

		memcpy(b + i * LAT_CACHELINE, &target, sizeof(target));
	}
}

int lat_mem_sizes(uint64_t min, uint64_t max, unsigned steps, uint64_t *out,
		  int cap)
{
	uint64_t prev = 0;
	int n = 0;

	if (min < LAT_CACHELINE || max < min || steps < 1 || steps > 16 ||
	    max > (UINT64_C(1) << 50))
		return -EINVAL;
	for (unsigned k = 0;; k++) {
		double s = (double)min * pow(2.0, (double)k / steps);
		uint64_t lines = (uint64_t)(s / LAT_CACHELINE + 0.5);
		uint64_t bytes = lines * LAT_CACHELINE;

		if (bytes == prev)
			continue;
		if (n < cap)
			out[n] = bytes;
		n++;
		prev = bytes;
		if (bytes >= max)
			break;
	}
	return n;
}

uint64_t lat_mem_chase_default_max(const struct lat_topo_caches *c)
{
	uint64_t llc = lat_topo_caches_llc(c);

	return llc ? 4 * llc : 64u << 20;
}

uint64_t lat_mem_chase_bytes_needed(uint64_t max_size, bool hugepages)
{
	/* the buffer(s), the permutation, and room to spare */
	return max_size * (hugepages ? 2 : 1) + max_size / LAT_CACHELINE * 4;
}

int lat_mem_chase_fits(uint64_t max_size, bool hugepages, uint64_t avail,
		       uint64_t *need)
{
	*need = lat_mem_chase_bytes_needed(max_size, hugepages);
	return avail && *need > avail / 10 * 9 ? -ENOMEM : 0;
}

/* Cost of an empty lat_clock_start/end pair (p50 of 1001, in cycles):
 * taken out of every sample, so a sample times only its loads. */
uint64_t lat_mem_stamp_overhead(void)
{
	uint64_t v[1001];

	for (int i = 0; i < 1001; i++) {
		lat_cycles_t t0 = lat_clock_start();
		lat_cycles_t t1 = lat_clock_end();

		v[i] = t1 - t0;
	}
	qsort(v, 1001, sizeof(v[0]), lat_cmp_u64);
	return v[500];
}

void lat_mem_sleep_ns(double ns)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(ns / 1e9);
	until.tv_nsec += (long)fmod(ns, 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL))
		; /* EINTR: a signal; the caller decides after the run */
}

/* Where the chase ends, so the loads are never dead code. */
static void *volatile chase_sink;

int lat_mem_chase_size(const struct lat_mem_chase_cfg *cfg,
		       const struct lat_clock_cal *cal, struct lat_mem_buf *buf,
		       uint32_t *scratch, uint64_t bytes,
		       struct lat_mem_point *out)
{
	uint64_t lines = bytes / LAT_CACHELINE, warm, over;
	double k, cpn;
	struct lat_hist h;
	void *p;
	int rc;

	if (!cfg || !cal || !buf || !out || !buf->base || lines == 0 ||
	    bytes > buf->len || cfg->samples < 1 ||
	    cfg->loads_per_sample < 8 || cal->cycles_per_ns <= 0 ||
	    lines > UINT32_MAX ||
	    (cfg->order != LAT_MEM_SEQUENTIAL && !scratch))
		return -EINVAL;
	rc = lat_hist_init(&h, 1, INT64_C(1) << 40, LAT_HIST_DEFAULT_SIG_FIGS);
	if (rc)
		return rc;
	if (cfg->order == LAT_MEM_RANDOM) {
		lat_mem_cycle_build(scratch, lines, cfg->seed ^ lines);
		lat_mem_chain_link(buf->base, scratch, lines);
	} else if (cfg->order == LAT_MEM_PAGE_LOCAL) {
		long pg = sysconf(_SC_PAGESIZE);
		unsigned per = pg >= LAT_CACHELINE &&
			       pg / LAT_CACHELINE <= LAT_MEM_MAX_PAGE_LINES
			       ? (unsigned)(pg / LAT_CACHELINE) : 64;

		lat_mem_cycle_build_paged(scratch, lines, per,
					  cfg->seed ^ lines);
		lat_mem_chain_link(buf->base, scratch, lines);
	} else {
		lat_mem_chain_link(buf->base, NULL, lines);
	}
	warm = lines < (UINT64_C(1) << 20) ? lines : UINT64_C(1) << 20;
	if (cfg->warmup_loads > warm)
		warm = cfg->warmup_loads;
	over = lat_mem_stamp_overhead();
	p = lat_mem_chase(buf->base, warm);
	for (unsigned s = 0; s < cfg->samples; s++) {
		lat_cycles_t t0, t1;

		/* between samples, untimed: a size of 100000 samples is
		 * tens of seconds, too long to leave Ctrl-C unanswered */
		if (cfg->stop && s % LAT_MEM_STOP_EVERY == LAT_MEM_STOP_EVERY - 1 &&
		    cfg->stop(cfg->stop_ctx)) {
			chase_sink = p;
			lat_hist_destroy(&h);
			return -EINTR;
		}
		t0 = lat_clock_start();

		p = lat_mem_chase(p, cfg->loads_per_sample);
		t1 = lat_clock_end();
		t1 -= t0;
		lat_hist_record(&h, (int64_t)(t1 > over ? t1 - over : 1));
	}
	chase_sink = p;

	k = (double)cfg->loads_per_sample;
	cpn = cal->cycles_per_ns;
	memset(out, 0, sizeof(*out));
	out->bytes = lines * LAT_CACHELINE;
	out->lines = lines;
	out->loads = (uint64_t)cfg->samples * cfg->loads_per_sample;
	out->min_ns = (double)lat_hist_min(&h) / k / cpn;
	out->p50_cycles = (double)lat_hist_value_at_percentile(&h, 50) / k;
	out->p50_ns = out->p50_cycles / cpn;
	out->p90_ns = (double)lat_hist_value_at_percentile(&h, 90) / k / cpn;
	out->p99_ns = (double)lat_hist_value_at_percentile(&h, 99) / k / cpn;
	out->max_ns = (double)lat_hist_max(&h) / k / cpn;
	out->over_range = h.overflow_count;
	lat_hist_destroy(&h);
	return 0;
}

/* This thread's CPU time in ns: a preemption is not in it. */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU ns for @n iterations of 8 dependent multiplies (adds on aarch64). */
static double chain_ns(uint64_t n)
{
	uint64_t x = n | 1;
	double t0 = cpu_ns(), t1;

	for (uint64_t i = 0; i < n; i++) {
		/* the empty asm makes x opaque between steps, so the
		 * compiler cannot fold the chain into one operation */
#if defined(__x86_64__)
#define STEP x *= 0x9e3779b97f4a7c15ull; lat_bench_keep(x)
#else
#define STEP x += 0x9e3779b97f4a7c15ull; lat_bench_keep(x)
#endif
		STEP; STEP; STEP; STEP; STEP; STEP; STEP; STEP;
#undef STEP
	}
	t1 = cpu_ns();
	chase_sink = (void *)(uintptr_t)x;
	return t1 - t0;
}

double lat_mem_core_ghz(unsigned ms)
{
#if defined(__x86_64__)
	const double cycles_per_step = 3; /* imul r64 latency */
#else
	const double cycles_per_step = 1; /* add latency */
#endif
	double best = 0;
	uint64_t n = 1 << 16;
	double t;

	/* 20 short runs of about ms / 20 of this thread's CPU time, the
	 * fastest kept: CPU time leaves preemption out, and what the
	 * hypervisor steals can only make a run read slow, never fast */
	while ((t = chain_ns(n)) < 2e5 && n < (UINT64_C(1) << 40))
		n *= 2;
	n = (uint64_t)((double)n * (ms * 1e6 / 20) / t) + 1;
	for (int r = 0; r < 20; r++) {
		double ghz = (double)n * 8 * cycles_per_step / chain_ns(n);

		if (ghz > best)
			best = ghz;
	}
	return isfinite(best) ? best : 0;
}
