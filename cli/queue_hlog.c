/*
 * latlab queue --service-from FILE.hlog[:TAG]: service times measured by
 * latlab (e.g. a pipeline's work stage) as an empirical distribution. The
 * file is read by lat_hlog_load() (the 'latlab report' reader: .hlog or
 * .hgrm, intervals merged, refused counts counted), so both commands agree
 * on what a log holds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "queue.h"
#include "latlab/hist_io.h"

/* FILE[:TAG]: the tag follows ".hlog:" or ".hgrm:". */
static void split_spec(const char *spec, char *path, size_t len,
		       const char **tag)
{
	const char *dot = strstr(spec, ".hlog:");
	size_t n;

	if (!dot)
		dot = strstr(spec, ".hgrm:");
	n = dot ? (size_t)(dot - spec) + 5 : strlen(spec);
	if (n >= len)
		cli_usage_error("queue", "--service-from: path too long");
	memcpy(path, spec, n);
	path[n] = 0;
	*tag = dot ? dot + 6 : NULL;
	if (*tag && !**tag)
		cli_usage_error("queue", "--service-from '%s': empty tag "
				    "after ':'", spec);
}

void queue_load_service(const char *spec, struct lat_qsim_dist *d,
			double *tau_ns)
{
	static struct lat_hlog_data data; /* large; one per process */
	char path[4096];
	const char *tag;
	int rc;

	split_spec(spec, path, sizeof(path), &tag);
	rc = lat_hlog_load(path, tag, 0, &data);
	if (rc)
		cli_usage_error("queue", "--service-from: %s", data.why);
	if (data.refused)
		fprintf(stderr, "latlab queue: --service-from: %lld counts "
			"did not fit while merging and are left out\n",
			(long long)data.refused);
	rc = lat_qsim_dist_init_hist(d, data.total.hist);
	lat_hlog_data_free(&data);
	if (rc == -ENOMEM)
		cli_fail("queue", "out of memory");
	if (rc)
		cli_usage_error("queue", "--service-from '%s': no "
				    "positive values to sample", spec);
	*tau_ns = d->scale_ns;
}
