/*
 * Description: what `latlab profile --overhead` prints, from rows alone
 * (lat_prof_overhead_report): the text begins with the caller's title and
 * names every rate; the JSON is one object, no title, with a row per rate
 * and the placement's oversubscription as data.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/prof.h"
#include "latlab/prof_overhead.h"
#include "t_test.h"

int main(void)
{
	struct lat_prof_overhead_config c;
	struct lat_prof_overhead_row rows[LAT_PROF_OVERHEAD_MAX_RATES];
	char *doc = NULL;
	size_t len = 0;
	FILE *out;

	lat_prof_overhead_config_init(&c);
	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < c.n_rates; i++) {
		rows[i].freq_hz = c.rates[i];
		rows[i].runs = 1;
		rows[i].p50_ns = 1000 + i;
		rows[i].p99_ns = 2000 + i;
	}
	out = open_memstream(&doc, &len);
	T_EQ_I64(lat_prof_overhead_report(out, false, "title: ", &c, rows,
					  true), 0);
	fclose(out);
	T_CHECK(!strncmp(doc, "title: ", 7));
	T_CHECK(strstr(doc, "9999") != NULL);
	free(doc);
	out = open_memstream(&doc, &len);
	T_EQ_I64(lat_prof_overhead_report(out, true, "title: ", &c, rows,
					  true), 0);
	fclose(out);
	T_CHECK(doc[0] == '{');
	T_CHECK(strstr(doc, "\"oversubscribed\":true") != NULL);
	T_CHECK(strstr(doc, "\"freq_hz\":9999") != NULL);
	T_CHECK(strstr(doc, "\"e2e_p99_ns\":2003") != NULL);
	free(doc);
	/* the high-rate warning: one line, measured or saying it was not
	 * (both are honest here: the probe needs perf events) */
	struct lat_prof_stats st = { .samples = 42 };
	out = open_memstream(&doc, &len);
	int rc = lat_prof_overhead_warn(out, "w: at 2000 Hz", 2000, &st);
	fclose(out);
	T_CHECK(!strncmp(doc, "w: at 2000 Hz is above 1000 Hz", 30));
	T_CHECK(strchr(doc, '\n') == doc + strlen(doc) - 1);
	T_CHECK(rc ? strstr(doc, "could not be measured") != NULL
		   : strstr(doc, "for 42 samples") != NULL);
	free(doc);
	T_DONE();
}
