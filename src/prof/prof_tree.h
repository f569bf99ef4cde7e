/* The frame tree behind the flame graphs (prof_tree.c). */
#ifndef LATLAB_PROF_TREE_H
#define LATLAB_PROF_TREE_H

#include <stdint.h>

#include "latlab/prof.h"

enum { PROF_AFTER = 0, PROF_BEFORE = 1 };

struct prof_node {
	char *name;
	uint64_t w[2];          /* inclusive weight: [PROF_AFTER], [BEFORE] */
	int depth;              /* root 0 */
	struct prof_node **kids;
	size_t nkids, capkids;
};

struct prof_node *prof_tree_new(const char *root_name);
/* Add a folded stack's weight to profile @which (PROF_AFTER/BEFORE). */
int prof_tree_add(struct prof_node *root, const char *frames, uint64_t w,
		  int which);
int prof_tree_add_folded(struct prof_node *root,
			 const struct lat_prof_folded *f, int which);
void prof_tree_sort(struct prof_node *n);
int prof_tree_depth(const struct prof_node *n);
void prof_tree_free(struct prof_node *n);

#endif
