/*
 * The attribution above p99.9 handed to the pipeline's result as plain
 * data (struct lat_pipe_tail_probe), so the pipeline's diagnosis (the
 * "tail:" lines and the JSON's "diagnosis") uses the probe's facts
 * without the pipe module depending on the probe.
 */
#include <stdio.h>
#include <string.h>

#include "latlab/sched_attr.h"

/* The names behind a cause, for the causes that have them. */
static const struct lat_sched_whos *whos(const struct lat_sched_attr_sum *s,
					 enum lat_sched_cause c)
{
	switch (c) {
	case LAT_SCHED_CAUSE_FOREIGN:
		return &s->foreign;
	case LAT_SCHED_CAUSE_OWN:
		return &s->own;
	case LAT_SCHED_CAUSE_IRQ:
		return &s->irq;
	default:
		return NULL;
	}
}

void lat_sched_attr_fill_result(const struct lat_sched_attr *a,
				struct lat_pipe_result *r)
{
	const struct lat_sched_attr_result *x = lat_sched_attr_result(a);
	struct lat_pipe_tail_probe *p = &r->sched;

	_Static_assert(LAT_SCHED_NCAUSES <= LAT_PIPE_TAIL_CAUSES,
		       "every cause must fit the pipeline's result");
	memset(p, 0, sizeof(*p));
	if (!x->ran)
		return;
	p->ran = true;
	p->threshold_ns = x->threshold_ns;
	p->events = x->above.events;
	p->total_ns = x->above.total_ns;
	p->n_causes = LAT_SCHED_NCAUSES;
	for (int c = 0; c < LAT_SCHED_NCAUSES; c++) {
		struct lat_pipe_tail_cause *t = &p->cause[c];
		const struct lat_sched_whos *w = whos(&x->above, c);

		t->name = lat_sched_cause_name(c);
		t->text = lat_sched_cause_text(c);
		t->ns = x->above.ns[c];
		if (c == LAT_SCHED_CAUSE_PROBE && t->ns) {
			snprintf(t->who, sizeof(t->who), "latlab-sched");
			t->who_pid = x->reader_tid;
		} else if (w && w->n) {
			snprintf(t->who, sizeof(t->who), "%s", w->top[0].comm);
			t->who_pid = w->top[0].pid;
			/* a holder the probe did not see is not known to be
			 * another process */
			t->who_foreign = c == LAT_SCHED_CAUSE_FOREIGN &&
					 w->top[0].pid > 0;
		}
	}
}
