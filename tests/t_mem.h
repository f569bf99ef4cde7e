/*
 * An output captured in memory for a test: open it as a FILE * for the
 * code under test, then ask whether a text is in it.
 */
#ifndef LATLAB_T_MEM_H
#define LATLAB_T_MEM_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_test.h"

struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static inline FILE *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	T_CHECK(m->f != NULL);
	return m->f;
}

/* Close the stream (its text is then complete in m->buf); idempotent. */
static inline void mem_close(struct mem *m)
{
	if (m->f)
		fclose(m->f);
	m->f = NULL;
}

/* Is @what in the output? Closes the stream first; says what it saw
 * when not. */
static inline bool has(struct mem *m, const char *what)
{
	bool yes;

	mem_close(m);
	yes = m->buf && strstr(m->buf, what);
	if (!yes)
		fprintf(stderr, "missing '%s' in:\n%.300s\n", what,
			m->buf ? m->buf : "(nothing)");
	return yes;
}

#endif
