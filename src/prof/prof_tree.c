/*
 * Folded stacks merged into a tree of frames: what a flame graph draws.
 * A node's weight is inclusive (itself and everything above it); a diff
 * tree carries the weights of both profiles.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof_tree.h"

static struct prof_node *node_new(const char *name, size_t len)
{
	struct prof_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->name = strndup(name, len);
	if (!n->name) {
		free(n);
		return NULL;
	}
	return n;
}

struct prof_node *prof_tree_new(const char *root_name)
{
	return node_new(root_name, strlen(root_name));
}

static struct prof_node *child(struct prof_node *n, const char *name,
			       size_t len)
{
	struct prof_node *c;

	for (size_t i = 0; i < n->nkids; i++) {
		c = n->kids[i];
		if (strlen(c->name) == len && !memcmp(c->name, name, len))
			return c;
	}
	if (n->nkids == n->capkids) {
		size_t cap = n->capkids ? n->capkids * 2 : 4;
		struct prof_node **v = realloc(n->kids, cap * sizeof(*v));

		if (!v)
			return NULL;
		n->kids = v;
		n->capkids = cap;
	}
	c = node_new(name, len);
	if (!c)
		return NULL;
	c->depth = n->depth + 1;
	n->kids[n->nkids++] = c;
	return c;
}

int prof_tree_add(struct prof_node *root, const char *frames, uint64_t w,
		  int which)
{
	struct prof_node *n = root;
	const char *s = frames;

	root->w[which] += w;
	while (*s) {
		size_t len = strcspn(s, ";");

		n = child(n, s, len);
		if (!n)
			return -ENOMEM;
		n->w[which] += w;
		s += len;
		if (*s == ';')
			s++;
	}
	return 0;
}

int prof_tree_add_folded(struct prof_node *root,
			 const struct lat_prof_folded *f, int which)
{
	for (size_t i = 0; i < f->n; i++) {
		int rc = prof_tree_add(root, f->v[i].frames, f->v[i].weight,
				       which);

		if (rc)
			return rc;
	}
	return 0;
}

static int cmp_node(const void *a, const void *b)
{
	const struct prof_node *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Children in name order (FlameGraph's convention: the x axis is not
 * time, and sorted siblings make two graphs comparable). */
void prof_tree_sort(struct prof_node *n)
{
	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), cmp_node);
	for (size_t i = 0; i < n->nkids; i++)
		prof_tree_sort(n->kids[i]);
}

int prof_tree_depth(const struct prof_node *n)
{
	int d = n->depth;

	for (size_t i = 0; i < n->nkids; i++) {
		int k = prof_tree_depth(n->kids[i]);

		if (k > d)
			d = k;
	}
	return d;
}

void prof_tree_free(struct prof_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		prof_tree_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}
