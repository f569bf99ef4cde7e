/*
 * How much of the last-level cache this process really gets. sysfs (and
 * the CPUID leaf it comes from; on a VM, what the hypervisor presents)
 * gives the whole cache; other cores, on a VM other guests' cores, share
 * it. Two estimates: from the chase curve, and from one working set
 * chased lap after lap for a few seconds, whose spread says whether what
 * this process gets changes while it does nothing different.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "latlab/bench.h"
#include "latlab/clock.h"
#include "latlab/mem.h"
#include "latlab/stats.h"

double lat_mem_llc_effective(uint64_t bytes, double ns, double llc_ns,
			     double dram_ns)
{
	double hit;

	if (!(dram_ns > llc_ns) || !(llc_ns > 0) || !(ns > 0))
		return NAN;
	hit = (dram_ns - ns) / (dram_ns - llc_ns);
	if (hit > 1)
		hit = 1;
	if (hit < 0)
		hit = 0;
	return (double)bytes * hit;
}

double lat_mem_llc_curve_capacity(const uint64_t *bytes, const double *y,
				  int n, int first, double llc_ns,
				  double dram_ns)
{
	double best = NAN;

	for (int i = first < 0 ? 0 : first; i < n; i++) {
		double c = lat_mem_llc_effective(bytes[i], y[i], llc_ns,
						 dram_ns);

		if (!isnan(c) && !(c <= best))
			best = c;
	}
	return best;
}

/* where the laps ended: kept, so the loads cannot be deleted */
static void *volatile llc_sink;

/* The median chunk of one lap: a lap in which the thread was preempted
 * keeps the chunks it ran undisturbed. */
static double lap_ns(void **p, uint64_t lines, double *chunk, double ns_per_cycle)
{
	uint64_t left = lines;
	int n = 0;

	while (left >= LAT_MEM_LLC_CHUNK && n < LAT_MEM_LLC_MAX_CHUNKS) {
		lat_cycles_t t0 = lat_clock_start();

		*p = lat_mem_chase(*p, LAT_MEM_LLC_CHUNK);
		chunk[n++] = (double)(lat_clock_end() - t0) * ns_per_cycle /
			     LAT_MEM_LLC_CHUNK;
		left -= LAT_MEM_LLC_CHUNK;
	}
	*p = lat_mem_chase(*p, left); /* the rest of the lap, untimed */
	qsort(chunk, (size_t)n, sizeof(chunk[0]), lat_cmp_double);
	return chunk[n / 2];
}

int lat_mem_llc_drift_run(struct lat_mem_buf *buf, uint32_t *scratch,
			  uint64_t bytes, double llc_ns, double dram_ns,
			  double seconds, const struct lat_clock_cal *cal,
			  bool (*stop)(void *ctx), void *ctx,
			  struct lat_mem_llc_drift *out)
{
	static double chunk[LAT_MEM_LLC_MAX_CHUNKS];
	double lap[LAT_MEM_LLC_MAX_LAPS], cap[LAT_MEM_LLC_MAX_LAPS];
	uint64_t lines = bytes / LAT_CACHELINE;
	double t_end, t0, ns_per_cycle;
	void *p;
	unsigned n = 0;
	int rc;

	out->bytes = lines * LAT_CACHELINE;
	out->laps = 0;
	out->interrupted = false;
	out->llc_ns = llc_ns;
	out->dram_ns = dram_ns;
	if (lines < LAT_MEM_LLC_CHUNK || out->bytes > buf->len ||
	    !(seconds > 0) || !(dram_ns > llc_ns) || !cal->cycles_per_ns)
		return -EINVAL;
	rc = lat_mem_cycle_build(scratch, lines, 0x6c6c63);
	if (rc)
		return rc;
	lat_mem_chain_link(buf->base, scratch, lines);
	ns_per_cycle = 1 / cal->cycles_per_ns;
	p = lat_mem_chase(buf->base, lines); /* one lap: what fits is in */
	t0 = lat_bench_now_ns();
	t_end = t0 + seconds * 1e9;
	while (n < LAT_MEM_LLC_MAX_LAPS && lat_bench_now_ns() < t_end) {
		if (stop && stop(ctx)) {
			out->interrupted = true;
			break;
		}
		lap[n] = lap_ns(&p, lines, chunk, ns_per_cycle);
		cap[n] = lat_mem_llc_effective(out->bytes, lap[n], llc_ns,
					       dram_ns);
		n++;
	}
	llc_sink = p;
	out->seconds = (lat_bench_now_ns() - t0) / 1e9;
	out->laps = n;
	if (!n)
		return 0;
	qsort(lap, n, sizeof(lap[0]), lat_cmp_double);
	qsort(cap, n, sizeof(cap[0]), lat_cmp_double);
	out->lap_min_ns = lap[0];
	out->lap_p10_ns = lap[n / 10];
	out->lap_p50_ns = lap[n / 2];
	out->lap_p90_ns = lap[n - 1 - n / 10];
	out->lap_max_ns = lap[n - 1];
	out->cap_min = cap[0];
	out->cap_p10 = cap[n / 10];
	out->cap_p50 = cap[n / 2];
	out->cap_p90 = cap[n - 1 - n / 10];
	out->cap_max = cap[n - 1];
	return 0;
}

bool lat_mem_llc_drift_changes(const struct lat_mem_llc_drift *d)
{
	if (!d->laps || !(d->dram_ns > d->llc_ns))
		return false;
	return (d->lap_p90_ns - d->lap_p10_ns) / (d->dram_ns - d->llc_ns) >=
	       LAT_MEM_LLC_DRIFT_SPREAD;
}
