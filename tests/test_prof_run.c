/*
 * Description: a whole `latlab profile -- <command>` through the public
 * API alone (lat_prof_run): the command is started, sampled to its end
 * and reaped with its status; the folded stacks, the flame graph and the
 * JSON summary land in the streams given, the note says which pid was
 * sampled. A command that cannot run fails at the attach step with its
 * errno, and nothing was written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "latlab/prof.h"
#include "t_test.h"
#include "t_mem.h"

int main(void)
{
	/* a few ms of CPU in a shell loop: something to sample */
	char *cmd[] = { "sh", "-c", "i=0; while [ $i -lt 20000 ]; do "
			"i=$((i+1)); done; exit 3", NULL };
	char *missing[] = { "/nonexistent/latlab-no-such-command", NULL };
	struct mem folded, svg, out, note;
	struct lat_prof_run run = {
		.cfg = { .freq_hz = 999 }, .argv = cmd, .json = true,
		.note_prefix = "test: ",
	};
	int rc;

	run.folded = mem_open(&folded);
	run.svg = mem_open(&svg);
	run.out = mem_open(&out);
	run.note = mem_open(&note);
	rc = lat_prof_run(&run);
	if (rc && run.failed == LAT_PROF_RUN_ATTACH &&
	    (rc == -LAT_EUNSUPP || rc == -EACCES || rc == -EPERM))
		T_SKIP("cannot sample here: %s", run.why);
	T_EQ_I64(rc, 0);
	T_EQ_I64(run.failed, LAT_PROF_RUN_OK);
	T_CHECK(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 3);
	T_CHECK(run.pid > 0);
	T_CHECK(run.st.sampled_s > 0);
	T_CHECK(has(&note, "test: sampling pid "));
	T_CHECK(has(&svg, "<svg"));
	T_CHECK(has(&out, "{\""));
	/* every sample is in the folded stacks under the shell's root */
	if (run.st.samples)
		T_CHECK(has(&folded, "sh"));
	free(folded.buf);
	free(svg.buf);
	free(out.buf);
	free(note.buf);

	/* a command that cannot run: the attach step, nothing written */
	memset(&run, 0, sizeof(run));
	run.argv = missing;
	run.out = mem_open(&out);
	T_EQ_I64(lat_prof_run(&run), -ENOENT);
	T_EQ_I64(run.failed, LAT_PROF_RUN_ATTACH);
	T_CHECK(has(&out, "") && out.len == 0);
	free(out.buf);
	T_DONE();
}
