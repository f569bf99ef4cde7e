/*
 * Fake /proc and /sys trees for tests of readers that take a root prefix
 * (lat_topo_load, lat_cgroup_self, lat_doctor_gather): make a fresh
 * directory, write files into it (directories made on the way), remove
 * it. Any failure to set the tree up fails the test at once.
 */
#ifndef LATLAB_T_TREE_H
#define LATLAB_T_TREE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t_test.h"

/* A fresh directory "<tmpfs or /tmp>/latlab-<name>-XXXXXX" in @root. */
static inline void t_tree_new(char *root, size_t len, const char *name)
{
	/* tmpfs when there is one: a 64-CPU tree is ~1,500 files */
	snprintf(root, len, "%s/latlab-%s-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", name);
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(T_EXIT_FAIL);
	}
}

/* Write @text to <root>/<rel>, creating directories on the way. */
static inline void t_tree_put(const char *root, const char *rel,
			      const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(T_EXIT_FAIL);
	}
	fputs(text, f);
	fclose(f);
}

/* Remove the tree; false (and a message) when that failed. */
static inline bool t_tree_remove(const char *root)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) == 0)
		return true;
	fprintf(stderr, "could not remove %s\n", root);
	return false;
}

#endif
