/*
 * Description: a library user reproduces `latlab report`'s numbers with
 * the public API alone (lat_hlog_load, lat_hlog_summarize,
 * lat_hist_summary_write_json): for each file in tests/data, every tag's
 * row and the total row it renders must appear verbatim in `latlab report
 * --json`'s output, and lat_hlog_print / lat_hlog_json write the
 * command's whole output byte for byte. The test includes only
 * include/latlab headers.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/hist_io.h"
#include "latlab/json.h"
#include "t_test.h"

/* All of @cmd's stdout, NUL-terminated. */
static char *run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *m = open_memstream(&buf, &len);

	if (!p || !m)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, n, m);
	T_EQ_I64(pclose(p), 0);
	fclose(m);
	return buf;
}

/* The members a row renders, as the report writes them. */
static char *row_json(const char *tag, int64_t intervals,
		      const struct lat_hist_summary *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct lat_json j;

	lat_json_init(&j, m);
	lat_json_obj_begin(&j, NULL);
	if (tag) {
		lat_json_str(&j, "tag", tag);
		lat_json_int(&j, "intervals", intervals);
	}
	lat_hist_summary_write_json(&j, s);
	lat_json_obj_end(&j);
	T_EQ_I64(lat_json_finish(&j), 0);
	fclose(m);
	return buf;
}

/*
 * The whole of `latlab report [--json] @path` on stdout, byte for byte,
 * from lat_hlog_print / lat_hlog_json.
 */
static void same_document(const char *latlab, const char *path,
			  const struct lat_hlog_data *d, bool json)
{
	char cmd[8192], *want, *got = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&got, &len);
	double ns = lat_hlog_ns_per_value(d, 0);
	struct lat_json j;

	snprintf(cmd, sizeof(cmd), "'%s' report %s '%s' 2>/dev/null", latlab,
		 json ? "--json" : "", path);
	want = run(cmd);
	if (json) {
		lat_json_init(&j, m);
		lat_hlog_json(&j, path, d, ns);
		T_EQ_I64(lat_json_finish(&j), 0);
	} else {
		lat_hlog_print(m, path, d, ns);
	}
	fclose(m);
	if (!want || strcmp(want, got)) {
		fprintf(stderr, "%s%s: the API wrote\n%s\nthe command\n%s\n",
			path, json ? " --json" : "", got, want ? want : "");
		t_failures++;
	}
	free(want);
	free(got);
}

static void check_file(const char *latlab, const char *src, const char *name)
{
	static struct lat_hlog_data d;
	struct lat_hist_summary s;
	char path[4096], cmd[8192];
	char *out, *row;
	int rows = 0;

	snprintf(path, sizeof(path), "%s/tests/data/%s", src, name);
	snprintf(cmd, sizeof(cmd), "'%s' report --json '%s' 2>/dev/null",
		 latlab, path);
	out = run(cmd);
	T_CHECK(out != NULL);
	if (!out)
		return;
	T_EQ_I64(lat_hlog_load(path, NULL, 0, &d), 0);
	for (int i = 0; i < d.ntags; i++, rows++) {
		lat_hlog_summarize(&d, d.tags[i].hist, 1, &s);
		row = row_json(d.tags[i].name, d.tags[i].intervals, &s);
		/* the row without its braces is a run of members */
		row[strlen(row) - 1] = '\0';
		if (!strstr(out, row + 1)) {
			fprintf(stderr, "%s: tag row %s\nnot in %s\n", name,
				row, out);
			t_failures++;
		}
		free(row);
	}
	lat_hlog_summarize(&d, d.total.hist, 1, &s);
	row = row_json(NULL, 0, &s);
	row[strlen(row) - 1] = '\0';
	if (!strstr(out, row + 1)) {
		fprintf(stderr, "%s: total %s\nnot in %s\n", name, row, out);
		t_failures++;
	}
	T_CHECK(d.total.hist->total_count > 0);
	T_CHECK(rows == d.ntags);
	free(row);
	free(out);
	same_document(latlab, path, &d, false);
	same_document(latlab, path, &d, true);
	lat_hlog_data_free(&d);
}

int main(void)
{
	const char *latlab = getenv("LATLAB"), *src = getenv("LATLAB_SRC");

	if (!latlab || !src)
		T_SKIP("LATLAB and LATLAB_SRC must be set (ctest sets them)");
	check_file(latlab, src, "report-small.hlog");
	check_file(latlab, src, "report-mixed.hlog");
	check_file(latlab, src, "report-ones.hgrm");
	T_DONE();
}
