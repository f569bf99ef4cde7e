/*
 * The composite values of a knee sweep as text: a list of utilizations
 * ("0.5,0.7,0.9") and a list of work distributions ("det,exp"), each
 * refusal with its reason naming the item, never a command-line flag.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/knee.h"

/* Split @list at commas into @buf; NULL when it does not fit. */
static char *split_first(char *buf, size_t size, const char *list,
			 char **save, char *why, size_t len)
{
	if (strlen(list) >= size) {
		snprintf(why, len, "is too long");
		return NULL;
	}
	strcpy(buf, list);
	return strtok_r(buf, ",", save);
}

int lat_knee_config_parse_rhos(struct lat_knee_config *c, const char *list,
			       char *why, size_t len)
{
	char buf[1024], *tok, *save = NULL, *end;
	const char *bad;
	size_t n = 0;

	*why = '\0';
	for (tok = split_first(buf, sizeof(buf), list, &save, why, len); tok;
	     tok = strtok_r(NULL, ",", &save), n++) {
		if (n == LAT_KNEE_MAX_POINTS) {
			snprintf(why, len, "at most %d points",
				 LAT_KNEE_MAX_POINTS);
			return -EINVAL;
		}
		c->rho[n] = strtod(tok, &end);
		if (end == tok || *end || !isfinite(c->rho[n])) {
			snprintf(why, len, "'%s' is not a number", tok);
			return -EINVAL;
		}
		if (!(c->rho[n] > 0 && c->rho[n] < 1)) {
			snprintf(why, len, "'%s' is not a utilization in "
				 "(0, 1): at rho >= 1 the queue grows without "
				 "bound", tok);
			return -EINVAL;
		}
	}
	if (*why)
		return -EINVAL;
	c->n_rho = n;
	if (lat_knee_config_check(c, &bad)) {
		snprintf(why, len, "%s", bad);
		return -EINVAL;
	}
	return 0;
}

int lat_knee_parse_dists(struct lat_work_dist *d, int *n, const char *list,
			 char *why, size_t len)
{
	char buf[256], *tok, *save = NULL;

	*why = '\0';
	*n = 0;
	for (tok = split_first(buf, sizeof(buf), list, &save, why, len); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == LAT_KNEE_MAX_DISTS) {
			snprintf(why, len, "at most %d distributions",
				 LAT_KNEE_MAX_DISTS);
			return -EINVAL;
		}
		if (lat_work_dist_parse(&d[(*n)++], tok)) {
			snprintf(why, len, "'%s': expected det, exp, "
				 "lognormal:<cv> or bimodal:<p>:<slow time>",
				 tok);
			return -EINVAL;
		}
	}
	if (!*n && !*why)
		snprintf(why, len, "needs a distribution");
	return *why ? -EINVAL : 0;
}
