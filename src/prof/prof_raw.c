/*
 * The sampler's tables, filled while the rings drain: distinct raw stacks
 * with their counts, the target's executable mappings, thread names.
 * Symbolization waits until the end, so draining stays cheap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof_int.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static uint64_t raw_hash(pid_t tid, uint32_t tag, const uint64_t *ra,
			 const uint64_t *ips, uint32_t nr)
{
	uint64_t h = mix(0x9e3779b97f4a7c15ull ^ (uint64_t)tid, tag);

	for (int i = 0; i < PROF_LEAF_WORDS; i++)
		h = mix(h, ra[i]);
	for (uint32_t i = 0; i < nr; i++)
		h = mix(h, ips[i]);
	return h;
}

static int raw_rehash(struct prof_rawtab *t, size_t cap)
{
	size_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const struct prof_raw *r = t->v[i];
		size_t j = raw_hash(r->tid, r->tag, r->ra, r->ips, r->nr) &
			   (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hash_cap = cap;
	return 0;
}

int prof_raw_add(struct prof_rawtab *t, pid_t pid, pid_t tid, uint32_t tag,
		 const uint64_t *ra, const uint64_t *ips, uint32_t nr,
		 uint64_t weight)
{
	static const uint64_t no_ra[PROF_LEAF_WORDS];
	struct prof_raw *r;
	size_t j;
	int rc;

	if (!ra)
		ra = no_ra;
	if ((t->n + 1) * 2 > t->hash_cap) {
		rc = raw_rehash(t, t->hash_cap ? t->hash_cap * 2 : 256);
		if (rc)
			return rc;
	}
	j = raw_hash(tid, tag, ra, ips, nr) & (t->hash_cap - 1);
	for (; t->hash[j]; j = (j + 1) & (t->hash_cap - 1)) {
		r = t->v[t->hash[j] - 1];
		if (r->tid == tid && r->tag == tag && r->nr == nr &&
		    !memcmp(r->ra, ra, sizeof(r->ra)) &&
		    !memcmp(r->ips, ips, nr * sizeof(*ips))) {
			r->count += weight;
			return 0;
		}
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct prof_raw **v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	r = malloc(sizeof(*r) + nr * sizeof(*ips));
	if (!r)
		return -ENOMEM;
	r->pid = pid;
	r->tid = tid;
	r->tag = tag;
	r->count = weight;
	r->nr = nr;
	memcpy(r->ra, ra, sizeof(r->ra));
	memcpy(r->ips, ips, nr * sizeof(*ips));
	t->v[t->n] = r;
	t->hash[j] = ++t->n;
	return 0;
}

void prof_rawtab_release(struct prof_rawtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}

int prof_map_add(struct lat_prof *p, pid_t pid, uint64_t start,
		 uint64_t end, uint64_t pgoff, const char *path)
{
	struct prof_map *m;

	for (size_t i = 0; i < p->nmaps; i++) {
		m = &p->maps[i];
		if (m->pid == pid && m->start == start && m->end == end &&
		    m->pgoff == pgoff && !strcmp(m->path, path))
			return 0; /* seen in /proc and again in the ring */
	}
	if (p->nmaps == p->capmaps) {
		size_t cap = p->capmaps ? p->capmaps * 2 : 64;

		m = realloc(p->maps, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		p->maps = m;
		p->capmaps = cap;
	}
	m = &p->maps[p->nmaps];
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	m->pid = pid;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	p->nmaps++;
	return 0;
}

bool prof_is_code(const struct lat_prof *p, pid_t pid, uint64_t addr)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct prof_map *m = &p->maps[i];

		if (m->pid == pid && addr >= m->start && addr < m->end)
			return true;
	}
	return false;
}

/* The process exec'd: its old mappings are gone. */
void prof_maps_forget(struct lat_prof *p, pid_t pid)
{
	size_t k = 0;

	for (size_t i = 0; i < p->nmaps; i++) {
		if (p->maps[i].pid == pid)
			free(p->maps[i].path);
		else
			p->maps[k++] = p->maps[i];
	}
	p->nmaps = k;
}

/* The executable mappings of @pid as they are now. */
int prof_maps_read_proc(struct lat_prof *p, pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		uint64_t start, end, off;
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %*s %*s %n", &start, &end, perms, &off,
			   &name_at) != 4 || !name_at)
			continue;
		if (perms[2] != 'x')
			continue;
		line[strcspn(line, "\n")] = '\0';
		rc = prof_map_add(p, pid, start, end, off,
				  line[name_at] ? line + name_at : "[anon]");
		if (rc)
			break;
	}
	free(line);
	fclose(f);
	return rc;
}

int prof_name_set(struct lat_prof *p, pid_t pid, pid_t tid,
		  const char *name, bool fixed)
{
	struct prof_name *n = NULL;
	char *copy;

	for (size_t i = 0; i < p->nnames; i++)
		if (p->names[i].tid == tid)
			n = &p->names[i];
	if (n && n->fixed && !fixed)
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	/* a root frame may not hold the folded format's separators */
	for (char *c = copy; *c; c++)
		if (*c == ';' || *c == '\n' || *c == '\r')
			*c = '_';
	if (!*copy) {
		free(copy);
		return -EINVAL;
	}
	if (!n) {
		if (p->nnames == p->capnames) {
			size_t cap = p->capnames ? p->capnames * 2 : 16;

			n = realloc(p->names, cap * sizeof(*n));
			if (!n) {
				free(copy);
				return -ENOMEM;
			}
			p->names = n;
			p->capnames = cap;
		}
		n = &p->names[p->nnames++];
		n->tid = tid;
		n->name = NULL;
	}
	free(n->name);
	n->name = copy;
	n->pid = pid;
	n->fixed = fixed;
	return 0;
}

const char *prof_name_of(const struct lat_prof *p, pid_t tid)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (p->names[i].tid == tid)
			return p->names[i].name;
	return NULL;
}

void prof_raw_release(struct lat_prof *p)
{
	prof_rawtab_release(&p->on);
	prof_rawtab_release(&p->off);
	for (size_t i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	free(p->maps);
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i].name);
	free(p->names);
	free(p->tids);
}
