/*
 * Kernel symbols from /proc/kallsyms: the text symbols sorted by address,
 * a frame named by the last symbol at or below it. With kptr_restrict the
 * file shows every address as 0 to us; then no kernel frame can be named
 * and each prints as "[unknown] ([kernel.kallsyms])".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof_int.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct prof_ksyms {
	struct ksym *v;
	size_t n;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int prof_ksyms_load(struct prof_ksyms **out)
{
	struct prof_ksyms *k = calloc(1, sizeof(*k));
	char *line = NULL;
	size_t cap = 0, vcap = 0;
	FILE *f;
	int rc = 0;

	*out = NULL;
	if (!k)
		return -ENOMEM;
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		*out = k; /* no symbols: every kernel frame is [unknown] */
		return 0;
	}
	while (getline(&line, &cap, f) > 0) {
		uint64_t addr;
		char type, name[256];

		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type,
			   name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (k->n == vcap) {
			size_t nc = vcap ? vcap * 2 : 4096;
			struct ksym *v = realloc(k->v, nc * sizeof(*v));

			if (!v) {
				rc = -ENOMEM;
				break;
			}
			k->v = v;
			vcap = nc;
		}
		k->v[k->n].name = strdup(name);
		if (!k->v[k->n].name) {
			rc = -ENOMEM;
			break;
		}
		k->v[k->n++].addr = addr;
	}
	free(line);
	fclose(f);
	if (rc) {
		prof_ksyms_free(k);
		return rc;
	}
	if (k->n > 1)
		qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	*out = k;
	return 0;
}

void prof_ksyms_name(const struct prof_ksyms *k, uint64_t ip, char *buf,
		     size_t len)
{
	size_t lo = 0, hi = k->n;

	/* last symbol with addr <= ip */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		snprintf(buf, len, "[unknown] ([kernel.kallsyms])_[k]");
	else
		snprintf(buf, len, "%s_[k]", k->v[lo - 1].name);
}

void prof_ksyms_free(struct prof_ksyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	free(k);
}
