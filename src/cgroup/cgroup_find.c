/*
 * Which group the process is in, per controller: /proc/self/cgroup says
 * the path in the hierarchy, /proc/self/mountinfo where that hierarchy is
 * mounted (and which part of it the mount shows, in a container).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "latlab/cgroup.h"
#include "latlab/sysfile.h"

#define TEXT_LEN 65536

const char *lat_cgroup_version_name(enum lat_cgroup_version v)
{
	return v == LAT_CGROUP_V1 ? "v1" : v == LAT_CGROUP_V2 ? "v2" : "none";
}

/* True when @word is one of the comma-separated items of @list. */
static bool in_list(const char *list, size_t len, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i < len;) {
		size_t j = i;

		while (j < len && list[j] != ',')
			j++;
		if (j - i == w && !strncmp(list + i, word, w))
			return true;
		i = j + 1;
	}
	return false;
}

/* Copy @len bytes of @s, decoding mountinfo's \ooo escapes. */
static int unescape(char *out, size_t cap, const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '\\' && i + 3 < len &&
		    s[i + 1] >= '0' && s[i + 1] <= '3') {
			c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
				   (s[i + 3] - '0'));
			i += 3;
		}
		if (n + 1 >= cap)
			return -ENAMETOOLONG;
		out[n++] = c;
	}
	out[n] = '\0';
	return 0;
}

/*
 * Find the line of /proc/self/cgroup for @controller in @v1 or the v2
 * line "0::<path>"; copy the path. 0, -ENOENT, or -LAT_EFORMAT.
 */
static int find_path(const char *text, const char *controller, bool v1,
		     char *path, size_t cap)
{
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		const char *c1 = memchr(l, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - l))
				    : NULL;

		if (!c1 || !c2) {
			if (len)
				return -LAT_EFORMAT;
		} else {
			bool is_v2 = c2 == c1 + 1 && c1 - l == 1 && *l == '0';
			bool match = v1 ? !is_v2 && in_list(c1 + 1,
							    (size_t)(c2 - c1 - 1),
							    controller)
					: is_v2;

			if (match) {
				size_t plen = len - (size_t)(c2 + 1 - l);

				if (plen == 0 || plen >= cap || c2[1] != '/')
					return -LAT_EFORMAT;
				memcpy(path, c2 + 1, plen);
				path[plen] = '\0';
				return 0;
			}
		}
		l += len + (nl != NULL);
	}
	return -ENOENT;
}

/* Split a mountinfo line into its fields; the count, up to @max. */
static int split(const char *l, size_t len, const char **f, size_t *flen,
		 int max)
{
	int n = 0;

	for (size_t i = 0; i < len && n < max;) {
		while (i < len && l[i] == ' ')
			i++;
		if (i >= len)
			break;
		f[n] = l + i;
		while (i < len && l[i] != ' ')
			i++;
		flen[n] = (size_t)(l + i - f[n]);
		n++;
	}
	return n;
}

/*
 * Find the mount of @controller's v1 hierarchy or of cgroup2: its mount
 * point and the hierarchy path it shows. 0, -ENOENT or -LAT_EFORMAT.
 */
static int find_mount(const char *text, const char *controller, bool v1,
		      char *mnt_root, char *mnt_point, size_t cap)
{
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		const char *f[32];
		size_t fl[32];
		int n = split(l, len, f, fl, 32), dash = -1;

		for (int i = 6; i < n; i++)
			if (fl[i] == 1 && f[i][0] == '-') {
				dash = i;
				break;
			}
		if (n >= 5 && dash > 0 && dash + 3 <= n) {
			const char *type = f[dash + 1];
			size_t tl = fl[dash + 1];
			bool hit = v1 ? tl == 6 && !strncmp(type, "cgroup", 6) &&
						in_list(f[dash + 3],
							fl[dash + 3],
							controller)
				      : tl == 7 && !strncmp(type, "cgroup2", 7);

			if (hit) {
				if (unescape(mnt_root, cap, f[3], fl[3]) ||
				    unescape(mnt_point, cap, f[4], fl[4]))
					return -LAT_EFORMAT;
				return 0;
			}
		}
		/* other lines (and a last one cut by a full buffer) are
		 * none of our business */
		l += len + (nl != NULL);
	}
	return -ENOENT;
}

/* <root><mount point><path below the mount's root> */
static int make_dir(struct lat_cgroup *cg, const char *root,
		    const char *mnt_root, const char *mnt_point)
{
	size_t r = strlen(mnt_root);
	const char *rel = cg->path;
	int n;

	/* a container's mount shows only its own subtree */
	if (strcmp(mnt_root, "/") && !strncmp(rel, mnt_root, r) &&
	    (rel[r] == '/' || rel[r] == '\0'))
		rel += r;
	if (!strcmp(rel, "/"))
		rel = "";
	n = snprintf(cg->mount, sizeof(cg->mount), "%s%s", root, mnt_point);
	if (n < 0 || (size_t)n >= sizeof(cg->mount))
		return -ENAMETOOLONG;
	n = snprintf(cg->dir, sizeof(cg->dir), "%s%s", cg->mount, rel);
	return n < 0 || (size_t)n >= sizeof(cg->dir) ? -ENAMETOOLONG : 0;
}

static int self_in(struct lat_cgroup *cg, const char *root,
		   const char *controller, bool v1, const char *cgroups,
		   const char *mounts)
{
	char mnt_root[LAT_CGROUP_PATH_LEN], mnt_point[LAT_CGROUP_PATH_LEN];
	char list[512];
	int rc;

	rc = find_path(cgroups, controller, v1, cg->path, sizeof(cg->path));
	if (!rc)
		rc = find_mount(mounts, controller, v1, mnt_root, mnt_point,
				sizeof(mnt_root));
	if (!rc)
		rc = make_dir(cg, root, mnt_root, mnt_point);
	if (rc)
		return rc;
	cg->version = v1 ? LAT_CGROUP_V1 : LAT_CGROUP_V2;
	if (v1)
		return 0;
	/* v2: the controller must be enabled down to this group */
	rc = lat_sysfile_read(list, sizeof(list), 1, "%s/cgroup.controllers",
			      cg->dir);
	if (rc < 0)
		return rc;
	for (char *s = list, *tok; (tok = strtok_r(s, " ", &s));)
		if (!strcmp(tok, controller))
			return 0;
	return -ENOENT;
}

int lat_cgroup_self(struct lat_cgroup *cg, const char *root,
		    const char *controller)
{
	char cgroups[TEXT_LEN / 4], mounts[TEXT_LEN];
	int rc;

	memset(cg, 0, sizeof(*cg));
	if (!root)
		root = "";
	if (!controller || !*controller ||
	    strlen(controller) >= sizeof(cg->controller))
		return -EINVAL;
	snprintf(cg->controller, sizeof(cg->controller), "%s", controller);
	rc = lat_sysfile_read(cgroups, sizeof(cgroups), 0,
			      "%s/proc/self/cgroup", root);
	if (rc >= 0)
		rc = lat_sysfile_read(mounts, sizeof(mounts), 0,
				      "%s/proc/self/mountinfo", root);
	if (rc < 0)
		return rc;
	rc = self_in(cg, root, controller, true, cgroups, mounts);
	if (rc == -ENOENT) {
		rc = self_in(cg, root, controller, false, cgroups, mounts);
		if (rc == -ENOENT) {
			/* keep what was found of v2 for the caller's message */
			cg->version = LAT_CGROUP_NONE;
		}
	}
	return rc;
}
