/*
 * Description: a library user reproduces `latlab report`'s numbers with
 * the public API alone (lat_hlog_load, lat_hlog_summarize,
 * lat_hist_summary_write_json): for each file in tests/data, every tag's
 * row and the total row it renders must appear verbatim in `latlab report
 * --json`'s output, and lat_hlog_print / lat_hlog_json write the
 * command's whole output byte for byte. The test includes only
 * include/latlab headers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latlab/compare.h"
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

/* @got must equal the output of @cmd, else say so. */
static void same(const char *cmd, char *got)
{
	char *want = run(cmd);

	if (!want || !got || strcmp(want, got)) {
		fprintf(stderr, "%s: the API wrote\n%s\nthe command\n%s\n",
			cmd, got ? got : "", want ? want : "");
		t_failures++;
	}
	free(want);
	free(got);
}

/*
 * Several files, as `latlab report` reads them (lat_compare_files_load)
 * and writes them: the comparison (text and JSON), several files' JSON,
 * a file's notes on stderr, and --hgrm's file, byte for byte.
 */
static void check_files(const char *latlab, const char *src)
{
	static struct lat_compare_file f[2];
	char p[2][4096], cmd[12288], why[512], *got;
	const char *paths[2] = { p[0], p[1] };
	char tmp[64];
	size_t len;
	FILE *m;

	snprintf(tmp, sizeof(tmp), "/tmp/test_report_api.%d.out", (int)getpid());

	snprintf(p[0], sizeof(p[0]), "%s/tests/data/report-small.hlog", src);
	snprintf(p[1], sizeof(p[1]), "%s/tests/data/report-mixed.hlog", src);
	for (int mode = 0; mode < 3; mode++) {
		bool compare = mode < 2, json = mode > 0;

		T_EQ_I64(lat_compare_files_load(f, 2, paths, NULL, 0, compare,
						why, sizeof(why)), 0);
		got = NULL;
		m = open_memstream(&got, &len);
		/* report-mixed holds other tags: the comparison refuses */
		if (compare && lat_compare_files_check(f, 2, why, sizeof(why))) {
			T_CHECK(strstr(why, "report-") != NULL);
			fclose(m);
			free(got);
			lat_compare_files_release(f, 2);
			continue;
		}
		T_EQ_I64(lat_compare_files_write(m, f, 2, compare, json), 0);
		fclose(m);
		snprintf(cmd, sizeof(cmd), "'%s' report %s %s --svg '%s' "
			 "'%s' '%s' 2>/dev/null", latlab, compare ? "--compare"
			 : "", json ? "--json" : "", tmp, p[0], p[1]);
		same(cmd, got);
		lat_compare_files_release(f, 2);
	}
	/* the same file twice compares (as noise, ratio 1) */
	T_EQ_I64(lat_compare_files_load(f, 2, (const char *[]){ p[0], p[0] },
					NULL, 0, true, why, sizeof(why)), 0);
	T_EQ_I64(lat_compare_files_check(f, 2, why, sizeof(why)), 0);
	got = NULL;
	m = open_memstream(&got, &len);
	T_EQ_I64(lat_compare_files_write(m, f, 2, true, true), 0);
	fclose(m);
	snprintf(cmd, sizeof(cmd), "'%s' report --compare --json '%s' '%s' "
		 "2>/dev/null", latlab, p[0], p[0]);
	same(cmd, got);
	/* the notes, and the merged distribution as --hgrm writes it */
	got = NULL;
	m = open_memstream(&got, &len);
	lat_hlog_notes(m, "latlab report: ", NULL, f[0].data, false);
	fclose(m);
	snprintf(cmd, sizeof(cmd), "'%s' report '%s' 2>&1 >/dev/null", latlab,
		 p[0]);
	same(cmd, got);
	got = NULL;
	m = open_memstream(&got, &len);
	T_EQ_I64(lat_hgrm_write_unit(m, f[0].data->total.hist, 5, 1e3,
				     f[0].ns_per_value), 0);
	fclose(m);
	snprintf(cmd, sizeof(cmd), "'%s' report '%s' --hgrm-ratio 1e3 --hgrm "
		 "'%s' >/dev/null 2>&1 && cat '%s'", latlab, p[0], tmp, tmp);
	same(cmd, got);
	unlink(tmp);
	lat_compare_files_release(f, 2);
	/* refusals name the file; a tag cannot select in an .hgrm */
	snprintf(p[1], sizeof(p[1]), "%s/tests/data/report-ones.hgrm", src);
	T_EQ_I64(lat_compare_files_load(f, 2, paths, "e2e", 0, false, why,
					sizeof(why)), -ENOTSUP);
	T_CHECK(strstr(why, "report-ones.hgrm") != NULL);
	lat_compare_files_release(f, 2);
	snprintf(p[1], sizeof(p[1]), "%s/tests/data/no-such-file.hlog", src);
	T_CHECK(lat_compare_files_load(f, 2, paths, NULL, 0, false, why,
				       sizeof(why)) < 0);
	T_CHECK(strstr(why, "no-such-file.hlog") != NULL);
	lat_compare_files_release(f, 2);
	T_EQ_I64(lat_compare_files_load(f, 0, paths, NULL, 0, false, why,
					sizeof(why)), -EINVAL);
}

int main(void)
{
	const char *latlab = getenv("LATLAB"), *src = getenv("LATLAB_SRC");

	if (!latlab || !src)
		T_SKIP("LATLAB and LATLAB_SRC must be set (ctest sets them)");
	check_file(latlab, src, "report-small.hlog");
	check_file(latlab, src, "report-mixed.hlog");
	check_file(latlab, src, "report-ones.hgrm");
	check_files(latlab, src);
	T_DONE();
}
