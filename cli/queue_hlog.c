/*
 * latlab queue --service-from FILE.hlog[:TAG]: service times measured by
 * latlab (e.g. a pipeline's work stage) as an empirical distribution,
 * loaded by lat_qsim_dist_init_hlog(); here only the FILE[:TAG] syntax and
 * the messages.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "queue.h"

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
	char path[4096], why[512];
	const char *tag;
	int64_t refused;
	int rc;

	split_spec(spec, path, sizeof(path), &tag);
	rc = lat_qsim_dist_init_hlog(d, path, tag, &refused, why, sizeof(why));
	if (rc && *why)
		cli_usage_error("queue", "--service-from: %s", why);
	if (refused)
		fprintf(stderr, "latlab queue: --service-from: %lld counts "
			"did not fit while merging and are left out\n",
			(long long)refused);
	if (rc == -ENOMEM)
		cli_fail("queue", "out of memory");
	if (rc)
		cli_usage_error("queue", "--service-from '%s': no "
				    "positive values to sample", spec);
	*tau_ns = d->scale_ns;
}
