/*
 * latlab queue --service-from FILE.hlog[:TAG]: service times measured by
 * latlab (e.g. a pipeline's work stage) as an empirical distribution.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "queue.h"

#if __has_include("latlab/hist_io.h")
#include "latlab/hist_io.h"
#define HAVE_HLOG_READER 1
#else
#define HAVE_HLOG_READER 0
#endif

/* FILE.hlog[:TAG]: the tag follows the last ':' after ".hlog". */
static void split_spec(const char *spec, char *path, size_t len,
		       const char **tag)
{
	const char *dot = strstr(spec, ".hlog:");
	size_t n = dot ? (size_t)(dot - spec) + 5 : strlen(spec);

	if (n >= len)
		lat_cli_usage_error("queue", "--service-from: path too long");
	memcpy(path, spec, n);
	path[n] = 0;
	*tag = dot ? dot + 6 : NULL;
	if (*tag && !**tag)
		lat_cli_usage_error("queue", "--service-from '%s': empty tag "
				    "after ':'", spec);
}

void queue_load_service(const char *spec, struct lat_qsim_dist *d,
			double *tau_ns)
{
	char path[4096];
	const char *tag;
	FILE *f;

	split_spec(spec, path, sizeof(path), &tag);
	f = fopen(path, "r");
	if (!f)
		lat_cli_usage_error("queue", "--service-from: cannot read "
				    "'%s': %s", path, strerror(errno));
	fclose(f);
#if HAVE_HLOG_READER
#error "wire the hlog reader here"
#else
	(void)d;
	(void)tau_ns;
	(void)tag;
	lat_cli_fail("queue", "--service-from '%s': this build has no .hlog "
		     "reader yet (hist_io)", path);
#endif
}
