/*
 * The changes behind a differential flame graph, as data: every frame
 * (by its path from the root) whose share of the total moved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/json.h"
#include "prof_tree.h"

struct walk {
	struct lat_prof_change *v;
	size_t n, cap;
	double tb, ta;
	char *path;
	size_t path_cap;
	int rc;
};

static void visit(struct walk *w, const struct prof_node *n, size_t at)
{
	size_t len = strlen(n->name), end = at + len + (at ? 1 : 0);
	double before = n->w[PROF_BEFORE] / w->tb, after = n->w[PROF_AFTER] / w->ta;

	if (w->rc)
		return;
	if (end + 1 > w->path_cap) {
		size_t cap = (end + 1) * 2;
		char *p = realloc(w->path, cap);

		if (!p) {
			w->rc = -ENOMEM;
			return;
		}
		w->path = p;
		w->path_cap = cap;
	}
	if (at)
		w->path[at] = ';';
	memcpy(w->path + (at ? at + 1 : 0), n->name, len + 1);
	if (before != after && n->depth > 0) {
		struct lat_prof_change *c;

		if (w->n == w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 32;

			c = realloc(w->v, cap * sizeof(*c));
			if (!c) {
				w->rc = -ENOMEM;
				return;
			}
			w->v = c;
			w->cap = cap;
		}
		c = &w->v[w->n];
		/* the path without the "all" root */
		c->frames = strdup(strchr(w->path, ';') + 1);
		if (!c->frames) {
			w->rc = -ENOMEM;
			return;
		}
		c->before_share = before;
		c->after_share = after;
		w->n++;
	}
	for (size_t i = 0; i < n->nkids; i++)
		visit(w, n->kids[i], n->depth ? end : len);
}

static int cmp_change(const void *a, const void *b)
{
	const struct lat_prof_change *x = a, *y = b;
	double dx = fabs(x->after_share - x->before_share),
	       dy = fabs(y->after_share - y->before_share);

	return dx < dy ? 1 : dx > dy ? -1 : strcmp(x->frames, y->frames);
}

int lat_prof_diff_changes(const struct lat_prof_folded *before,
			  const struct lat_prof_folded *after,
			  struct lat_prof_change **out, size_t *n)
{
	struct walk w = { .tb = (double)before->total,
			  .ta = (double)after->total };
	struct prof_node *root;

	*out = NULL;
	*n = 0;
	if (!before->total || !after->total)
		return -EINVAL;
	root = prof_tree_new("all");
	if (!root)
		return -ENOMEM;
	w.rc = prof_tree_add_folded(root, after, PROF_AFTER);
	if (!w.rc)
		w.rc = prof_tree_add_folded(root, before, PROF_BEFORE);
	if (!w.rc) {
		prof_tree_sort(root);
		visit(&w, root, 0);
	}
	prof_tree_free(root);
	free(w.path);
	if (w.rc) {
		lat_prof_changes_free(w.v, w.n);
		return w.rc;
	}
	if (w.n > 1)
		qsort(w.v, w.n, sizeof(*w.v), cmp_change);
	*out = w.v;
	*n = w.n;
	return 0;
}

void lat_prof_changes_free(struct lat_prof_change *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].frames);
	free(v);
}

int lat_prof_diff_json(struct lat_json *j, const struct lat_prof_folded *b,
		       const struct lat_prof_folded *a)
{
	struct lat_prof_change *c;
	size_t n;
	int rc = lat_prof_diff_changes(b, a, &c, &n);

	if (rc)
		return rc;
	lat_json_obj_begin(j, NULL);
	lat_json_uint(j, "before_total", b->total);
	lat_json_uint(j, "after_total", a->total);
	lat_json_uint(j, "before_stacks", b->n);
	lat_json_uint(j, "after_stacks", a->n);
	lat_json_arr_begin(j, "changed");
	for (size_t i = 0; i < n; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "frames", c[i].frames);
		lat_json_double(j, "before_share", c[i].before_share);
		lat_json_double(j, "after_share", c[i].after_share);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_obj_end(j);
	lat_prof_changes_free(c, n);
	return 0;
}
