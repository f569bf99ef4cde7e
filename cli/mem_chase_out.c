/*
 * latlab mem chase: the sizes from the options, the sweep and its report
 * from the library (lat_mem_chase_sweep_run, lat_mem_chase_print/json/
 * svg), Ctrl-C as the stop, failures as exit codes.
 */
#include <stdio.h>

#include "cli.h"
#include "out_file.h"
#include "mem_cli.h"

bool mem_chase(const struct mem_opts *o, struct mem_env *env,
	       struct lat_json *j)
{
	static struct lat_mem_chase_sweep r;
	int rc;

	if (lat_mem_chase_sweep_setup(&r, o->min_size, o->max_size, o->steps,
				      o->samples, o->loads, &env->m.caches,
				      env->m.core_ghz, o->quick))
		cli_usage_error(MEM_CMD, "--min-size..--max-size at %u "
				    "steps per doubling makes more than %d "
				    "sizes", o->steps, LAT_MEM_CHASE_MAX_SIZES);
	rc = lat_mem_chase_sweep_run(&r, &env->m.cal, o->hugepages,
				     lat_stop_requested, NULL);
	if (rc && r.failed < 0)
		mem_fail(j, "chase", "cannot map %llu bytes for the chase: %s",
			 (unsigned long long)r.sizes[r.n_sizes - 1],
			 lat_strerror(rc));
	if (r.n_pl && r.pl[0].first == 0)
		env->l1_ns = r.pl[0].level;
	/* a failed size still shows the sizes before it, marked partial */
	if (j)
		lat_mem_chase_json(j, &r, !r.interrupted && !rc);
	else
		lat_mem_chase_print(stdout, &r);
	if (rc)
		mem_fail(j, "chase", "chase at %llu bytes failed: %s",
			 (unsigned long long)r.sizes[r.failed],
			 lat_strerror(rc));
	if (o->svg && r.done >= 2) {
		FILE *f = cli_out_open(MEM_CMD, o->svg);

		/* in place only when whole */
		rc = cli_out_commit(f, lat_mem_chase_svg(f, &r));
		if (rc)
			cli_fail(MEM_CMD, "cannot write '%s': %s", o->svg,
				 lat_strerror(rc));
	}
	return !r.interrupted;
}
