/*
 * Instrument your own loop with liblatlab: time each iteration with the
 * cycle clock, record it in an HdrHistogram-compatible histogram, write
 * one .hlog interval per 100 ms, and print the percentiles at the end.
 *
 *   cc loop_hlog.c $(pkg-config --cflags --libs latlab) -o loop_hlog
 *   ./loop_hlog loop.hlog && latlab report loop.hlog
 *
 * The loop's work is a stand-in (a short hash over a buffer); put yours
 * between lat_clock_start() and lat_clock_end(). Recording is O(1), with
 * no allocation, lock or syscall: it can stay in production code.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include <latlab/clock.h>
#include <latlab/hist.h>
#include <latlab/hist_io.h>

#define ITERATIONS 200000
#define INTERVAL_NS 100000000 /* 100 ms per .hlog interval */

/* Stand-in work: every 64th iteration does 16x more, a visible tail. */
static uint64_t work(uint64_t i)
{
	static unsigned char buf[4096];
	uint64_t h = 1469598103934665603ull;
	size_t n = i % 64 ? 256 : sizeof(buf);

	for (size_t k = 0; k < n; k++)
		h = (h ^ (buf[k] + i)) * 1099511628211ull;
	buf[i % sizeof(buf)] = (unsigned char)h;
	return h;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "loop.hlog";
	struct lat_clock_cal cal;
	struct lat_hist *interval, *all;
	struct lat_hlog_writer *w;
	lat_cycles_t run_start, iv_start;
	volatile uint64_t sink = 0;
	double iv_start_s = 0;
	int rc;

	rc = lat_clock_calibrate(&cal, 200);
	if (!rc)
		rc = lat_hist_create(1, 60000000000LL, 3, &interval);
	if (!rc)
		rc = lat_hist_create(1, 60000000000LL, 3, &all);
	if (!rc)
		rc = lat_hlog_writer_open(path, NULL, &w);
	if (rc) {
		fprintf(stderr, "loop_hlog: %s\n", lat_strerror(rc));
		return 1;
	}
	run_start = iv_start = lat_clock_now();
	for (uint64_t i = 0; i < ITERATIONS; i++) {
		lat_cycles_t t0 = lat_clock_start();

		sink += work(i);
		lat_cycles_t t1 = lat_clock_end();

		lat_hist_record(interval, (int64_t)lat_clock_to_ns(&cal,
								   t1 - t0));
		/* the cold part: close an interval every 100 ms */
		if (lat_clock_to_ns(&cal, t1 - iv_start) >= INTERVAL_NS ||
		    i + 1 == ITERATIONS) {
			double len = lat_clock_to_ns(&cal, t1 - iv_start) / 1e9;

			rc = lat_hlog_writer_write_interval(w, "loop",
							    iv_start_s, len,
							    interval);
			if (rc)
				break;
			lat_hist_add(all, interval);
			lat_hist_reset(interval);
			iv_start = t1;
			iv_start_s = lat_clock_to_ns(&cal, t1 - run_start) /
				     1e9;
		}
	}
	if (lat_hlog_writer_close(w) && !rc)
		rc = -EIO;
	if (rc) {
		fprintf(stderr, "loop_hlog: writing %s: %s\n", path,
			lat_strerror(rc));
		return 1;
	}
	printf("loop_hlog: %lld iterations (%.4f cycles/ns), written to %s\n",
	       (long long)all->total_count, cal.cycles_per_ns, path);
	printf("  p50 %lld ns  p99 %lld ns  p99.9 %lld ns  max %lld ns\n",
	       (long long)lat_hist_value_at_percentile(all, 50),
	       (long long)lat_hist_value_at_percentile(all, 99),
	       (long long)lat_hist_value_at_percentile(all, 99.9),
	       (long long)lat_hist_max(all));
	(void)sink;
	lat_hist_free(interval);
	lat_hist_free(all);
	return 0;
}
