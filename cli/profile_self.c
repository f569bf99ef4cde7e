/*
 * `--profile <dir>` for commands that run latlab's own threads (latlab
 * pipeline): profile this process for the run, on and off CPU, and leave
 * the folded stacks and flame graphs in <dir>.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "cli.h"
#include "out_file.h"
#include "profile.h"

struct lat_prof_self *cli_profile_self_begin(const char *cmd, const char *dir)
{
	struct lat_prof_config cfg = { .offcpu = true };
	struct lat_prof_self *s;
	char why[LAT_PROF_NOTE_LEN];
	int rc;

	cli_out_dir_check(cmd, "--profile", dir);
	rc = lat_prof_self_begin(&cfg, &s, why, sizeof(why));
	if (rc)
		cli_fail(cmd, "--profile: %s", *why ? why : lat_strerror(rc));
	return s;
}

void cli_profile_self_end(const char *cmd, struct lat_prof_self *s,
			  const char *dir, const char *what)
{
	struct lat_prof_stats st;
	struct lat_prof *p;
	int rc = lat_prof_self_end(s, &p);

	if (!rc)
		rc = lat_prof_write_dir(p, dir, what);
	lat_prof_get_stats(p, &st);
	lat_prof_free(p);
	if (rc)
		cli_fail(cmd, "--profile '%s': %s", dir, lat_strerror(rc));
	lat_prof_print_dir(stderr, dir, &st);
}
