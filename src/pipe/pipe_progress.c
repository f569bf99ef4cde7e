/*
 * What a running or stopped pipeline tells its user: the progress line
 * redrawn while it runs, and the mark left in the interval log of a run
 * stopped early.
 */
#include <errno.h>
#include <stdio.h>

#include "latlab/fmt.h"
#include "latlab/pipe.h"

int lat_pipe_hlog_mark_partial(FILE *hlog, const struct lat_pipe_result *r,
			       uint64_t planned, const char *why)
{
	if (fprintf(hlog, "#[Partial: %s after %llu of %llu events]\n", why,
		    (unsigned long long)r->produced,
		    (unsigned long long)planned) < 0)
		return -EIO;
	return 0;
}

void lat_pipe_progress_print(FILE *f, uint64_t produced, uint64_t planned,
			     double elapsed_s)
{
	double rate = elapsed_s > 0 ? produced / elapsed_s : 0;
	char r[LAT_FMT_LEN];

	fprintf(f, "\r  %llu/%llu events, %s, %.1f s elapsed, ETA %.1f s   ",
		(unsigned long long)produced, (unsigned long long)planned,
		lat_fmt_rate(r, sizeof(r), rate), elapsed_s,
		rate > 0 ? (double)(planned - produced) / rate : 0.0);
}

bool lat_pipe_progress_watch(void *ctx, uint64_t produced, double elapsed_s)
{
	struct lat_pipe_progress *p = ctx;

	if (p->stop && p->stop(p->stop_ctx, produced, elapsed_s))
		return true;
	if (produced && !p->flowing) {
		p->flowing = true;
		if (p->on_flow)
			p->on_flow(p->stop_ctx);
	}
	/* a short run needs no line; a redraw per poll would flicker */
	if (!p->out || elapsed_s < 0.5 || elapsed_s - p->drawn_s < 0.25)
		return false;
	p->drawn_s = elapsed_s;
	p->drawn = true;
	lat_pipe_progress_print(p->out, produced, p->planned, elapsed_s);
	return false;
}

void lat_pipe_progress_end(struct lat_pipe_progress *p)
{
	if (p->drawn)
		fprintf(p->out, "\r%79s\r", "");
}
