/*
 * lat_qsim empirical distributions: a latlab histogram (e.g. the work-stage
 * histogram of a pipeline run) turned into a sampling table.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/hist_io.h"
#include "latlab/qsim.h"

static size_t count_slots(const struct lat_hist *h)
{
	size_t n = 0;

	for (int32_t i = 0; i < h->counts_len; i++)
		n += h->counts[i] > 0;
	return n;
}

/*
 * Each slot is a uniform piece over [lowest, lowest + range): the
 * histogram only knows a value to within its equivalent range, and
 * spreading inside it avoids a lattice of repeated service times.
 */
static void fill_table(struct lat_qsim_dist *d, const struct lat_hist *h,
		       double *mean, double *m2)
{
	double total = 0, cum = 0;
	size_t j = 0;

	for (int32_t i = 0; i < h->counts_len; i++)
		total += (double)(h->counts[i] > 0 ? h->counts[i] : 0);
	*mean = *m2 = 0;
	for (int32_t i = 0; i < h->counts_len; i++) {
		double lo, w, p;

		if (h->counts[i] <= 0)
			continue;
		lo = (double)lat_hist_value_at_index(h, i);
		w = (double)lat_hist_equivalent_range(h, (int64_t)lo);
		p = (double)h->counts[i] / total;
		cum += p;
		d->cdf[j] = cum;
		d->slot_lo[j] = lo;
		d->slot_w[j] = w;
		*mean += p * (lo + w / 2);
		*m2 += p * (lo * lo + lo * w + w * w / 3);
		j++;
	}
	d->cdf[j - 1] = 1; /* rounding must not leave u = 1 unmatched */
}

int lat_qsim_dist_init_hist(struct lat_qsim_dist *d, const struct lat_hist *h)
{
	size_t n = count_slots(h);
	double mean, m2;

	memset(d, 0, sizeof(*d));
	if (!n)
		return -EINVAL;
	d->cdf = malloc(n * sizeof(double));
	d->slot_lo = malloc(n * sizeof(double));
	d->slot_w = malloc(n * sizeof(double));
	if (!d->cdf || !d->slot_lo || !d->slot_w) {
		lat_qsim_dist_destroy(d);
		return -ENOMEM;
	}
	d->slots = n;
	fill_table(d, h, &mean, &m2);
	if (!(mean > 0)) {
		lat_qsim_dist_destroy(d);
		return -EINVAL;
	}
	for (size_t j = 0; j < n; j++) {
		d->slot_lo[j] /= mean;
		d->slot_w[j] /= mean;
	}
	d->kind = LAT_QSIM_EMPIRICAL;
	d->mean = 1;
	d->scale_ns = mean;
	d->cv = sqrt(fmax(m2 / (mean * mean) - 1, 0));
	snprintf(d->name, sizeof(d->name), "empirical");
	return 0;
}

int lat_qsim_dist_init_hlog(struct lat_qsim_dist *d, const char *path,
			    const char *tag, int64_t *refused, char *why,
			    size_t len)
{
	/* ~10 KiB: off the caller's stack */
	struct lat_hlog_data *data = calloc(1, sizeof(*data));
	int rc;

	memset(d, 0, sizeof(*d));
	if (len)
		why[0] = 0;
	if (refused)
		*refused = 0;
	if (!data)
		return -ENOMEM;
	rc = lat_hlog_load(path, tag, 0, data);
	if (rc) {
		if (len) /* the loader names the file and line; else this */
			snprintf(why, len, "%s: %s", path, lat_strerror(rc));
		if (len && data->why[0])
			snprintf(why, len, "%s", data->why);
	} else {
		if (refused)
			*refused = data->refused;
		rc = lat_qsim_dist_init_hist(d, data->total.hist);
	}
	lat_hlog_data_free(data);
	free(data);
	return rc;
}

void lat_qsim_dist_destroy(struct lat_qsim_dist *d)
{
	free(d->cdf);
	free(d->slot_lo);
	free(d->slot_w);
	d->cdf = d->slot_lo = d->slot_w = NULL;
	d->slots = 0;
}
