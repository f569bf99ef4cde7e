/*
 * latlab pipeline --sched: the scheduler probe around the run and the
 * attribution of its slow events (lat_sched_attr). Kept out of
 * cmd_pipeline.c so that the command only calls begin, end and the
 * library's printers.
 */
#ifndef LATLAB_CLI_PIPELINE_SCHED_H
#define LATLAB_CLI_PIPELINE_SCHED_H

#include "latlab/sched_attr.h"

/*
 * Open the probe for @cfg's hot threads and chain its hooks (after every
 * other hook user: @flight is the instrumentation's recorder or NULL),
 * then attach. When the probe cannot run here, say why on stderr and
 * return an attr that reports itself unavailable; a probe that fails to
 * load with everything present exits 1.
 */
struct lat_sched_attr *cli_sched_begin(const char *cmd,
				       struct lat_pipe_config *cfg,
				       const struct lat_flight *flight);

/* Stop the probe and attribute @r, whose diagnosis then carries the
 * probe's facts (lat_sched_attr_fill_result); exits 1 on a probe error. */
void cli_sched_end(const char *cmd, struct lat_sched_attr *a,
		   struct lat_pipe_result *r);

#endif
