/*
 * latlab pipeline --sched: begin (probe loaded and attached before the
 * pipeline starts) and end (stopped after it drained, then attributed).
 */
#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "pipeline_sched.h"

struct lat_sched_attr *cli_sched_begin(const char *cmd,
				       struct lat_pipe_config *cfg,
				       const struct lat_flight *flight)
{
	struct lat_sched_attr *a;
	int rc = lat_sched_attr_init(&a, cfg, flight);

	if (rc == -LAT_EUNSUPP && a) {
		fprintf(stderr, "latlab %s: --sched: probe unavailable: %s; "
			"running without it\n", cmd,
			lat_sched_attr_result(a)->unavailable);
		return a;
	}
	if (rc == -EINVAL)
		cli_usage_error(cmd, "--sched needs the per-stage stamps "
				    "(drop --no-stamps)");
	if (rc)
		cli_fail(cmd, "--sched: the probe did not load: %s",
			 lat_strerror(rc));
	rc = lat_sched_attr_start(a);
	if (rc)
		cli_fail(cmd, "--sched: the probe did not attach: %s",
			 lat_strerror(rc));
	return a;
}

void cli_sched_end(const char *cmd, struct lat_sched_attr *a,
		   struct lat_pipe_result *r)
{
	int rc;

	if (!lat_sched_attr_result(a)->unavailable[0] &&
	    (rc = lat_sched_attr_finish(a, r)))
		cli_fail(cmd, "--sched: %s", lat_strerror(rc));
	lat_sched_attr_fill_result(a, r);
}
