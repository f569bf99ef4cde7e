/*
 * Raw stacks to folded stacks: the thread's name as the root frame, then
 * the user frames outermost first, then the kernel frames (suffixed _[k]).
 * Symbol tables are opened once per process and once for the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof_int.h"
#include "prof_offcpu.h"

#define FRAME_LEN 256

struct fold_ctx {
	struct lat_prof *p;
	struct prof_sym **syms; /* one per process seen, by index */
	pid_t *sym_pids;
	size_t nsyms;
	struct prof_ksyms *ksyms;
	char *buf;              /* the folded line being built */
	size_t cap;
	bool reasons;           /* off-CPU: a reason frame under the thread */
};

const char *prof_offcpu_reason_frame(uint32_t reason)
{
	switch (reason) {
	case PROF_OFF_PREEMPTED:
		return "[runnable: preempted]";
	case PROF_OFF_YIELDED:
		return "[runnable: yielded]";
	case PROF_OFF_BLOCKED:
		return "[blocked]";
	}
	return "[off-cpu: unknown reason]";
}

static struct prof_sym *sym_for(struct fold_ctx *c, pid_t pid)
{
	struct prof_sym *s, **v;
	pid_t *pv;

	for (size_t i = 0; i < c->nsyms; i++)
		if (c->sym_pids[i] == pid)
			return c->syms[i];
	v = realloc(c->syms, (c->nsyms + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->syms = v;
	pv = realloc(c->sym_pids, (c->nsyms + 1) * sizeof(*pv));
	if (!pv)
		return NULL;
	c->sym_pids = pv;
	if (prof_sym_open(c->p, pid, &s))
		return NULL;
	c->syms[c->nsyms] = s;
	c->sym_pids[c->nsyms++] = pid;
	return s;
}

/* The folded format's separators may not appear inside a frame. */
static void clean_frame(char *f)
{
	for (; *f; f++)
		if (*f == ';' || *f == '\n' || *f == '\r')
			*f = ':';
}

/* One address of a chain, with what the chain's markers say about it. */
struct frame_ref {
	uint64_t ip;
	bool kernel;
	bool exact;             /* a sampled pc, not a return address */
};

/*
 * An off-CPU kernel stack is taken inside sched_switch's tracepoint, so
 * its leaf frames are the tracer's own (bpf_trace_run, the program):
 * start the stack at __schedule, where the thread really left.
 */
static size_t trim_tracer(struct fold_ctx *c, struct frame_ref *refs,
			  size_t n)
{
	char name[FRAME_LEN];

	for (size_t k = 0; k < n && refs[k].kernel; k++) {
		prof_ksyms_name(c->ksyms, refs[k].ip, name, sizeof(name));
		if (!strcmp(name, "__schedule_[k]")) {
			memmove(refs, refs + k, (n - k) * sizeof(*refs));
			return n - k;
		}
	}
	return n;
}

static bool yielded(struct fold_ctx *c, const struct frame_ref *refs,
		    size_t n)
{
	char name[FRAME_LEN];

	for (size_t k = 0; k < n && refs[k].kernel; k++) {
		prof_ksyms_name(c->ksyms, refs[k].ip, name, sizeof(name));
		if (strstr(name, "sched_yield"))
			return true;
	}
	return false;
}

static int fold_one(struct fold_ctx *c, const struct prof_raw *r,
		    struct frame_ref *refs)
{
	struct prof_sym *s = sym_for(c, r->pid);
	const char *tname = prof_name_of(c->p, r->tid);
	size_t need = (size_t)(r->nr + 3) * (FRAME_LEN + 1) + 1, at, n = 0;
	bool kernel = false, exact = true;
	uint32_t reason = r->tag;
	char frame[FRAME_LEN];

	if (!s)
		return -ENOMEM;
	if (need > c->cap) {
		char *b = realloc(c->buf, need);

		if (!b)
			return -ENOMEM;
		c->buf = b;
		c->cap = need;
	}
	/* the chain is leaf first; the first address after a context
	 * marker is that context's exact pc */
	for (uint32_t i = 0; i < r->nr; i++) {
		uint64_t ip = r->ips[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			exact = true;
			continue;
		}
		refs[n++] = (struct frame_ref){ ip, kernel, exact };
		if (!kernel && exact) {
			/* the user leaf: does the chain miss its caller? */
			uint64_t caller = prof_sym_leaf_ra(s, ip, r->ra);
			bool next_is_it = i + 1 < r->nr &&
					  r->ips[i + 1] == caller;

			if (caller && !next_is_it)
				refs[n++] = (struct frame_ref){ caller, false,
								false };
		}
		exact = false;
	}
	if (c->reasons) {
		n = trim_tracer(c, refs, n);
		if (reason == PROF_OFF_PREEMPTED && yielded(c, refs, n))
			reason = PROF_OFF_YIELDED;
	}
	if (tname)
		snprintf(frame, sizeof(frame), "%s", tname);
	else
		snprintf(frame, sizeof(frame), "tid-%d", (int)r->tid);
	at = (size_t)snprintf(c->buf, c->cap, "%s", frame);
	if (c->reasons) /* off CPU: why, right above the thread */
		at += (size_t)snprintf(c->buf + at, c->cap - at, ";%s",
				       prof_offcpu_reason_frame(reason));
	while (n-- > 0) { /* root first in the line */
		if (refs[n].kernel)
			prof_ksyms_name(c->ksyms, refs[n].ip, frame,
					sizeof(frame));
		else
			prof_sym_user(s, refs[n].ip, refs[n].exact, frame,
				      sizeof(frame));
		clean_frame(frame);
		at += (size_t)snprintf(c->buf + at, c->cap - at, ";%s", frame);
	}
	return 0;
}

static int fold_table(struct lat_prof *p, const struct prof_rawtab *t,
		      bool reasons, struct lat_prof_folded *f)
{
	struct fold_ctx c = { .p = p, .reasons = reasons };
	struct frame_ref *refs = NULL;
	size_t maxnr = 1;
	int rc;

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i]->nr > maxnr)
			maxnr = t->v[i]->nr;
	refs = malloc((maxnr + 1) * sizeof(*refs)); /* + a leaf's caller */
	if (!refs)
		return -ENOMEM;
	rc = prof_ksyms_load(&c.ksyms);
	for (size_t i = 0; !rc && i < t->n; i++) {
		rc = fold_one(&c, t->v[i], refs);
		if (!rc)
			rc = lat_prof_folded_add(f, c.buf, t->v[i]->count);
	}
	for (size_t i = 0; i < c.nsyms; i++)
		prof_sym_close(c.syms[i]);
	free(c.syms);
	free(c.sym_pids);
	free(c.buf);
	free(refs);
	prof_ksyms_free(c.ksyms);
	return rc;
}

int lat_prof_fold(struct lat_prof *p, struct lat_prof_folded *f)
{
	return fold_table(p, &p->on, false, f);
}

int lat_prof_fold_offcpu(struct lat_prof *p, struct lat_prof_folded *f)
{
	return fold_table(p, &p->off, true, f);
}
