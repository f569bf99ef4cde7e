/*
 * .hgrm writer: Java's outputPercentileDistribution, byte for byte.
 *
 *   "%12s %14s %10s %14s\n\n"  Value Percentile TotalCount 1/(1-Percentile)
 *   "%12.<d>f %2.12f %10d %14.2f\n"  one row per percentile tick
 *   "%12.<d>f %2.12f %10d\n"          the 100% row
 *   footer: Mean/StdDeviation, Max/Total count, Buckets/SubBuckets
 * CSV form: quoted header, comma-separated rows, "Infinity" in the last
 * row, no footer. Numbers go through lat_jfmt_fixed() because Java rounds
 * differently from printf (see jfmt_int.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "common/jfmt_int.h"
#include "latlab/hist_io.h"

/* Java's "%<width>.<prec>f": right-aligned in @width columns. */
static void put_fixed(FILE *out, int width, double x, int prec)
{
	char buf[512];

	if (lat_jfmt_fixed(buf, sizeof(buf), x, prec) < 0)
		buf[0] = '\0';
	fprintf(out, "%*s", width, buf);
}

static void write_rows(FILE *out, const struct lat_hist *h,
		       int32_t ticks_per_half, double unit_ratio, bool csv)
{
	int d = h->sig_figs;
	struct lat_hist_iter it;

	lat_hist_iter_percentile_init(&it, h, ticks_per_half);
	while (lat_hist_iter_next(&it)) {
		double level = it.percentile_level / 100.0;
		bool last = it.percentile_level == 100.0;

		put_fixed(out, csv ? 0 : 12, (double)it.value / unit_ratio, d);
		fputs(csv ? "," : " ", out);
		put_fixed(out, csv ? 0 : 2, level, 12);
		if (csv)
			fprintf(out, ",%" PRId64 ",", it.cumulative_count);
		else
			fprintf(out, " %10" PRId64, it.cumulative_count);
		if (last) {
			fputs(csv ? "Infinity\n" : "\n", out);
			continue;
		}
		if (!csv)
			fputc(' ', out);
		put_fixed(out, csv ? 0 : 14, 1 / (1.0 - level), 2);
		fputc('\n', out);
	}
}

int lat_hgrm_write(FILE *out, const struct lat_hist *h,
		   int32_t ticks_per_half, double unit_ratio, bool csv)
{
	int d = h->sig_figs;

	if (ticks_per_half < 1 || ticks_per_half > 1000 ||
	    !(unit_ratio > 0) || isinf(unit_ratio))
		return -EINVAL;
	if (csv)
		fputs("\"Value\",\"Percentile\",\"TotalCount\","
		      "\"1/(1-Percentile)\"\n", out);
	else
		fprintf(out, "%12s %14s %10s %14s\n\n", "Value", "Percentile",
			"TotalCount", "1/(1-Percentile)");
	write_rows(out, h, ticks_per_half, unit_ratio, csv);
	if (!csv) {
		fputs("#[Mean    = ", out);
		put_fixed(out, 12, lat_hist_mean(h) / unit_ratio, d);
		fputs(", StdDeviation   = ", out);
		put_fixed(out, 12, lat_hist_stddev(h) / unit_ratio, d);
		fputs("]\n#[Max     = ", out);
		put_fixed(out, 12, (double)lat_hist_max(h) / unit_ratio, d);
		fprintf(out, ", Total count    = %12" PRId64 "]\n",
			h->total_count);
		fprintf(out, "#[Buckets = %12" PRId32 ", SubBuckets     = %12"
			PRId32 "]\n", h->bucket_count, h->sub_bucket_count);
	}
	return ferror(out) ? -EIO : 0;
}

int lat_hgrm_write_unit(FILE *out, const struct lat_hist *h,
			int32_t ticks_per_half, double unit_ratio,
			double ns_per_value)
{
	/* a comment the plotter ignores and lat_hgrm_read takes the unit
	 * from */
	if (fprintf(out, "#[Value unit: %.17g ns per value]\n",
		    ns_per_value * unit_ratio) < 0)
		return -EIO;
	return lat_hgrm_write(out, h, ticks_per_half, unit_ratio, false);
}
