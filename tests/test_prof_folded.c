/*
 * Folded stacks without a profiler: weights add up per stack, and the
 * JSON summary `latlab profile --render --json` prints counts both; a
 * file loads by path with the line at fault named.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "latlab/json.h"
#include "latlab/prof.h"
#include "t_test.h"

static void test_json_summary(void)
{
	struct lat_prof_folded f;
	struct lat_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	lat_prof_folded_init(&f);
	T_EQ_I64(lat_prof_folded_add(&f, "main;a", 3), 0);
	T_EQ_I64(lat_prof_folded_add(&f, "main;b", 4), 0);
	T_EQ_I64(lat_prof_folded_add(&f, "main;a", 5), 0); /* same stack */
	lat_json_init(&j, out);
	lat_prof_folded_json(&j, NULL, &f);
	T_EQ_I64(lat_json_finish(&j), 0);
	fclose(out);
	T_CHECK(strstr(buf, "\"total\":12") != NULL);
	T_CHECK(strstr(buf, "\"stacks\":2") != NULL);
	free(buf);
	lat_prof_folded_release(&f);
}

/* A folded file by path: its stacks, the line at fault, a missing file. */
static void test_load(void)
{
	char path[] = "/tmp/latlab-folded-XXXXXX";
	struct lat_prof_folded f;
	size_t line = 0;
	int fd = mkstemp(path);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;

	T_CHECK(out && fputs("main;a 3\n\nmain;b 4\n", out) >= 0);
	T_CHECK(out && !fclose(out));
	lat_prof_folded_init(&f);
	T_EQ_I64(lat_prof_folded_load(&f, path, &line), 0);
	T_EQ_I64(f.total, 7);
	out = fopen(path, "a");
	T_CHECK(out && fputs("not a stack\n", out) >= 0 && !fclose(out));
	T_EQ_I64(lat_prof_folded_load(&f, path, &line), -LAT_EFORMAT);
	T_EQ_I64(line, 4);
	lat_prof_folded_release(&f);
	remove(path);
	lat_prof_folded_init(&f);
	T_EQ_I64(lat_prof_folded_load(&f, path, &line), -ENOENT);
	lat_prof_folded_release(&f);
}

int main(void)
{
	test_json_summary();
	test_load();
	T_DONE();
}
