/*
 * Description: a whole `latlab pipeline` run through the public API
 * alone (latlab/session.h): begin, run, write to memory streams, and the
 * outputs are the command's: the JSON object with "command", exact
 * accounting for every event and "signal"; the table; an hlog with every
 * delta's tag; an SVG; a flight recorder CSV; a note stream with the
 * recorder's outcome. A run stopped before its first event writes only
 * the interruption stub; an output directory that cannot be made fails
 * at its step, after the results, naming the step. Outputs given by name
 * are renamed into place at the end, and a run stopped before its first
 * event leaves the file that stood there and no temporary.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latlab/session.h"
#include "t_test.h"
#include "t_mem.h"

static struct lat_session S; /* large: not on the stack */

static void small(uint64_t events)
{
	lat_session_init(&S);
	S.cfg.events = events;
	S.cfg.calibrate_ms = 20;
	T_EQ_I64(lat_pipe_autoplace(&S.cfg, false, NULL), 0);
}

/* Everything on: the JSON and every file the command writes. */
static void test_json_and_files(void)
{
	struct mem out, hlog, svg, csv, note;
	char exact[64];

	small(5000);
	S.json = true;
	S.out = mem_open(&out);
	S.hlog = mem_open(&hlog);
	S.hlog_name = "run.hlog";
	S.svg = mem_open(&svg);
	S.instr.flight = true;
	S.instr.freeze_above = 1; /* 1 ns: the first event freezes it */
	S.flight_csv = mem_open(&csv);
	S.flight_csv_name = "run.csv";
	S.note = mem_open(&note);
	S.note_prefix = "test: ";
	T_EQ_I64(lat_session_begin(&S), 0);
	T_EQ_I64(lat_session_run(&S), 0);
	T_CHECK(lat_session_started(&S));
	T_EQ_I64(S.r.produced, 5000);
	T_CHECK(S.r.exact);
	T_EQ_I64(lat_session_write(&S, 0), 0);
	T_EQ_I64(S.failed, LAT_SESSION_OK);
	mem_close(&out);
	mem_close(&hlog);
	mem_close(&svg);
	mem_close(&csv);
	mem_close(&note);
	T_CHECK(has(&out, "{\"command\":\"pipeline\","));
	T_CHECK(has(&out, "\"hlog\":\"run.hlog\""));
	T_CHECK(has(&out, "\"signal\":0}"));
	T_CHECK(has(&out, "\"threads_counters\""));
	T_CHECK(has(&out, "\"flight\""));
	snprintf(exact, sizeof(exact), "\"produced\":%d", 5000);
	T_CHECK(has(&out, exact));
	T_CHECK(has(&hlog, "Tag=e2e"));
	T_CHECK(has(&hlog, "Tag=pace"));
	T_CHECK(has(&svg, "<svg"));
	T_CHECK(has(&csv, "seq"));
	T_CHECK(has(&note, "flight recorder: frozen")); /* its outcome */
	lat_session_destroy(&S);
	lat_session_destroy(&S); /* twice is safe */
	free(out.buf);
	free(hlog.buf);
	free(svg.buf);
	free(csv.buf);
	free(note.buf);
}

/* The table for people: the counters follow the pipeline's table; a
 * stop by SIGINT marks the hlog partial. */
static void test_table_partial_hlog(void)
{
	struct mem out, hlog;

	small(3000);
	S.out = mem_open(&out);
	S.hlog = mem_open(&hlog);
	T_EQ_I64(lat_session_begin(&S), 0);
	T_EQ_I64(lat_session_run(&S), 0);
	T_EQ_I64(lat_session_write(&S, SIGINT), 0);
	mem_close(&out);
	mem_close(&hlog);
	T_CHECK(has(&out, "-> exact"));
	T_CHECK(has(&out, "task-clock"));
	T_CHECK(has(&hlog, "#[Partial: interrupted by SIGINT after 3000 of "
		    "3000 events]"));
	lat_session_destroy(&S);
	free(out.buf);
	free(hlog.buf);
}

static bool stop_now(void *ctx, uint64_t produced, double elapsed_s)
{
	(void)ctx;
	(void)produced;
	(void)elapsed_s;
	return true;
}

/* Stopped during the calibration: no result, the stub only. */
static void test_unstarted(void)
{
	struct mem out, note;

	small(3000);
	S.json = true;
	S.stop = stop_now;
	S.out = mem_open(&out);
	S.note = mem_open(&note);
	T_EQ_I64(lat_session_begin(&S), 0);
	T_EQ_I64(lat_session_run(&S), -EINTR);
	T_CHECK(!lat_session_started(&S));
	T_EQ_I64(lat_session_write(&S, SIGTERM), 0);
	mem_close(&out);
	mem_close(&note);
	T_CHECK(has(&out, "{\"command\": \"pipeline\", \"interrupted\": true, "
		    "\"signal\": 15, \"started\": false}\n"));
	T_CHECK(has(&note, "interrupted by SIGTERM during start-up"));
	lat_session_destroy(&S);
	free(out.buf);
	free(note.buf);
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) /* temporaries are ".name.XXXXXX" */
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static bool file_has(const char *path, const char *what)
{
	static char buf[1 << 20]; /* the whole file: the hlog's e2e is last */
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return strstr(buf, what) != NULL;
}

/* Outputs given by name: written whole at the end, or not at all. */
static void test_named_outputs(void)
{
	char dir[] = "/tmp/latlab-session-XXXXXX", svg[64], hlog[64];
	FILE *old;

	T_CHECK(mkdtemp(dir) != NULL);
	snprintf(svg, sizeof(svg), "%s/run.svg", dir);
	snprintf(hlog, sizeof(hlog), "%s/run.hlog", dir);
	old = fopen(svg, "w");
	T_CHECK(old && fputs("old\n", old) >= 0 && !fclose(old));
	/* stopped before the first event: the old file stays, no other */
	small(2000);
	S.svg_name = svg;
	S.hlog_name = hlog;
	S.stop = stop_now;
	T_EQ_I64(lat_session_begin(&S), 0);
	T_EQ_I64(lat_session_run(&S), -EINTR);
	T_EQ_I64(lat_session_write(&S, SIGINT), 0);
	lat_session_destroy(&S);
	T_CHECK(file_has(svg, "old"));
	T_EQ_I64(entries(dir), 1);
	/* a whole run: both in place, nothing else left beside them */
	small(2000);
	S.svg_name = svg;
	S.hlog_name = hlog;
	T_EQ_I64(lat_session_begin(&S), 0);
	T_EQ_I64(lat_session_run(&S), 0);
	T_EQ_I64(lat_session_write(&S, 0), 0);
	lat_session_destroy(&S);
	T_CHECK(file_has(svg, "<svg"));
	T_CHECK(file_has(hlog, "Tag=e2e"));
	T_EQ_I64(entries(dir), 2);
	/* a name that cannot be created: refused before the run */
	small(2000);
	S.svg_name = "/proc/self/no/such/dir/run.svg";
	T_CHECK(lat_session_begin(&S) < 0);
	T_EQ_I64(S.failed, LAT_SESSION_CREATE);
	T_CHECK(!strcmp(S.failed_name, "/proc/self/no/such/dir/run.svg"));
	lat_session_destroy(&S);
	remove(svg);
	remove(hlog);
	rmdir(dir);
}

/* An .hgrm directory that cannot be made: the step is named. */
static void test_failed_step(void)
{
	small(2000);
	S.hgrm_dir = "/proc/self/no/such/dir";
	T_EQ_I64(lat_session_begin(&S), 0);
	T_EQ_I64(lat_session_run(&S), 0);
	T_CHECK(lat_session_write(&S, 0) < 0);
	T_EQ_I64(S.failed, LAT_SESSION_HGRM);
	lat_session_destroy(&S);
}

int main(void)
{
	test_json_and_files();
	test_table_partial_hlog();
	test_unstarted();
	test_failed_step();
	test_named_outputs();
	T_DONE();
}
