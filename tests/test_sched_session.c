/*
 * lat_sched_session: a command traced through /proc to its exit, one
 * stopped (and killed) mid-run, the start errors with the step they come
 * from, and, where the probe can load, the same command through it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "latlab/json.h"
#include "latlab/sched.h"
#include "t_test.h"

static bool stop_now(void *ctx)
{
	(void)ctx;
	return true;
}

/* Both renderings of a finished session. */
static void render(const struct lat_sched_session *s, char **text,
		   char **json)
{
	struct lat_json j;
	size_t len;
	FILE *f = open_memstream(text, &len);

	lat_sched_session_print(f, s);
	fclose(f);
	f = open_memstream(json, &len);
	lat_json_init(&j, f);
	lat_json_obj_begin(&j, NULL);
	lat_sched_session_json(&j, s);
	lat_json_obj_end(&j);
	T_EQ_I64(lat_json_finish(&j), 0);
	fclose(f);
}

static void test_proc_to_exit(void)
{
	char *argv[] = { "sleep", "0.05", NULL }, *text, *json;
	struct lat_sched_session s = { .argv = argv, .proc_only = true };

	T_EQ_I64(lat_sched_session_start(&s), 0);
	T_CHECK(!s.probe && s.why && s.before.n == 1);
	lat_sched_session_wait(&s);
	T_EQ_I64(lat_sched_session_finish(&s, 0), 0);
	T_CHECK(s.t.reaped && WIFEXITED(s.t.status) &&
		WEXITSTATUS(s.t.status) == 0);
	/* sleep blocks once: a voluntary switch in the window's delta */
	T_EQ_I64(s.after.n, 1);
	T_CHECK(s.after.n == 1 && s.after.v[0].vol >= 1);
	render(&s, &text, &json);
	T_CHECK(strstr(text, "command: sleep (pid ") == text);
	T_CHECK(strstr(text, "exited 0"));
	T_CHECK(strstr(json, "\"source\":\"proc\""));
	T_CHECK(strstr(json, "\"probe_unavailable\""));
	free(text);
	free(json);
	lat_sched_session_close(&s);
}

static void test_stopped(void)
{
	char *argv[] = { "sleep", "60", NULL };
	struct lat_sched_session s = { .argv = argv, .proc_only = true,
				       .stop = stop_now };

	T_EQ_I64(lat_sched_session_start(&s), 0);
	lat_sched_session_wait(&s); /* returns at once: stop says so */
	T_EQ_I64(lat_sched_session_finish(&s, SIGTERM), 0);
	T_CHECK(s.interrupted);
	/* the signal was passed on, and the child reaped */
	T_CHECK(s.t.reaped && WIFSIGNALED(s.t.status) &&
		WTERMSIG(s.t.status) == SIGTERM);
	lat_sched_session_close(&s);
}

static void test_start_errors(void)
{
	char *argv[] = { "/nonexistent/command", NULL };
	struct lat_sched_session s = { .argv = argv, .proc_only = true };

	T_EQ_I64(lat_sched_session_start(&s), -ENOENT);
	T_EQ_I64(s.at, LAT_SCHED_AT_RELEASE);
	lat_sched_session_close(&s);

	memset(&s, 0, sizeof(s));
	s.pid = 4194000; /* above pid_max's default */
	if (kill(s.pid, 0) && errno == ESRCH) {
		T_EQ_I64(lat_sched_session_start(&s), -ESRCH);
		T_EQ_I64(s.at, LAT_SCHED_AT_TARGET);
	}
	lat_sched_session_close(&s);
	lat_sched_session_close(&s); /* twice: nothing left to free */
}

static void test_probe(void)
{
	char *argv[] = { "true", NULL }, *text, *json;
	struct lat_sched_session s = { .argv = argv };
	struct lat_sched_avail av;

	lat_sched_available(&av);
	if (!av.ok) {
		printf("SKIP-PART: probe unavailable: %s\n", av.reason);
		return;
	}
	T_EQ_I64(lat_sched_session_start(&s), 0);
	T_CHECK(s.probe != NULL);
	lat_sched_session_wait(&s);
	T_EQ_I64(lat_sched_session_finish(&s, 0), 0);
	render(&s, &text, &json);
	T_CHECK(strstr(text, "command: true (pid "));
	T_CHECK(strstr(json, "\"source\":\"bpf\""));
	T_CHECK(strstr(json, "\"exited\":true"));
	T_CHECK(strstr(json, "\"interrupted\":false"));
	free(text);
	free(json);
	lat_sched_session_close(&s);
}

int main(void)
{
	test_proc_to_exit();
	test_stopped();
	test_start_errors();
	test_probe();
	T_DONE();
}
