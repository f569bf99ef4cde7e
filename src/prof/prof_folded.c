/*
 * Folded stacks: a set of distinct "root;...;leaf" strings with weights,
 * indexed by an open-addressing hash so that adding a sample is O(1).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/json.h"
#include "latlab/prof.h"

void lat_prof_folded_init(struct lat_prof_folded *f)
{
	memset(f, 0, sizeof(*f));
}

void lat_prof_folded_release(struct lat_prof_folded *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].frames);
	free(f->v);
	free(f->hash);
	lat_prof_folded_init(f);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static int rehash(struct lat_prof_folded *f, size_t cap)
{
	size_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++) {
		size_t j = str_hash(f->v[i].frames) & (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	free(f->hash);
	f->hash = h;
	f->hash_cap = cap;
	return 0;
}

/* A stack is non-empty frames joined by single ';', no newline. */
static bool valid_stack(const char *s)
{
	size_t len = strlen(s);

	size_t frames = 1;

	if (!len || s[0] == ';' || s[len - 1] == ';' || strstr(s, ";;"))
		return false;
	for (const char *c = s; (c = strchr(c, ';')); c++)
		frames++;
	return frames <= LAT_PROF_MAX_FRAMES && !strpbrk(s, "\n\r");
}

int lat_prof_folded_add(struct lat_prof_folded *f, const char *frames,
			uint64_t weight)
{
	size_t j;
	int rc;

	if (!frames || !valid_stack(frames) || f->total + weight < f->total)
		return -EINVAL;
	if ((f->n + 1) * 2 > f->hash_cap) {
		rc = rehash(f, f->hash_cap ? f->hash_cap * 2 : 64);
		if (rc)
			return rc;
	}
	j = str_hash(frames) & (f->hash_cap - 1);
	for (; f->hash[j]; j = (j + 1) & (f->hash_cap - 1)) {
		struct lat_prof_stack *s = &f->v[f->hash[j] - 1];

		if (!strcmp(s->frames, frames)) {
			s->weight += weight;
			f->total += weight;
			return 0;
		}
	}
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct lat_prof_stack *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n].frames = strdup(frames);
	if (!f->v[f->n].frames)
		return -ENOMEM;
	f->v[f->n].weight = weight;
	f->hash[j] = ++f->n;
	f->total += weight;
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct lat_prof_stack *const *x = a, *const *y = b;

	return strcmp((*x)->frames, (*y)->frames);
}

void lat_prof_folded_json(struct lat_json *j, const char *name,
			  const struct lat_prof_folded *f)
{
	lat_json_obj_begin(j, name);
	lat_json_uint(j, "total", f->total);
	lat_json_uint(j, "stacks", f->n);
	lat_json_obj_end(j);
}

int lat_prof_folded_write(const struct lat_prof_folded *f, FILE *out)
{
	const struct lat_prof_stack **order;

	order = malloc((f->n ? f->n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++)
		order[i] = &f->v[i];
	qsort(order, f->n, sizeof(*order), cmp_stack);
	for (size_t i = 0; i < f->n; i++)
		fprintf(out, "%s %llu\n", order[i]->frames,
			(unsigned long long)order[i]->weight);
	free(order);
	return ferror(out) ? -EIO : 0;
}

/* Parse "stack count" in place; the count follows the last space. */
static int parse_line(struct lat_prof_folded *f, char *s)
{
	char *sp = strrchr(s, ' '), *end;
	unsigned long long w;
	int rc;

	if (!sp || sp == s || sp[1] < '0' || sp[1] > '9')
		return -LAT_EFORMAT;
	errno = 0;
	w = strtoull(sp + 1, &end, 10);
	if (errno || *end)
		return -LAT_EFORMAT;
	*sp = '\0';
	if (!valid_stack(s))
		return -LAT_EFORMAT;
	rc = lat_prof_folded_add(f, s, w);
	return rc == -EINVAL ? -LAT_EFORMAT : rc; /* -EINVAL: total overflow */
}

int lat_prof_folded_read(struct lat_prof_folded *f, FILE *in, size_t *line)
{
	char *buf = NULL;
	size_t cap = 0, no = 0;
	ssize_t len;
	int rc = 0;

	while ((len = getline(&buf, &cap, in)) >= 0) {
		no++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (!len)
			continue;
		if (memchr(buf, '\0', (size_t)len)) {
			rc = -LAT_EFORMAT;
			break;
		}
		rc = parse_line(f, buf);
		if (rc)
			break;
	}
	free(buf);
	if (!rc && ferror(in))
		rc = -EIO;
	if (line)
		*line = rc ? no : 0;
	return rc;
}

/* Does @stack start with the whole frames of @prefix? */
static bool has_prefix(const char *stack, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(stack, prefix, n) && (stack[n] == ';' || !stack[n]);
}

static bool has_frame(const char *stack, const char *frame)
{
	size_t n = strlen(frame);

	for (const char *s = stack; s; s = strchr(s, ';')) {
		if (*s == ';')
			s++;
		if (!strncmp(s, frame, n) && (s[n] == ';' || !s[n]))
			return true;
	}
	return false;
}

uint64_t lat_prof_folded_weight(const struct lat_prof_folded *f,
				const char *prefix, const char *frame)
{
	uint64_t w = 0;

	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->v[i].frames;

		if (prefix && !has_prefix(s, prefix))
			continue;
		if (frame && !has_frame(s, frame))
			continue;
		w += f->v[i].weight;
	}
	return w;
}

int lat_prof_folded_load(struct lat_prof_folded *f, const char *path,
			 size_t *line)
{
	FILE *in = fopen(path, "re");
	int rc;

	if (!in)
		return -errno;
	rc = lat_prof_folded_read(f, in, line);
	fclose(in);
	return rc;
}
