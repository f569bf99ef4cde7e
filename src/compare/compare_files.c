/*
 * The files of one `latlab report`: loaded together (each read once, so a
 * FIFO works) and written as the report's standard output: one file's
 * table or JSON, several files' JSON, or the comparison of every file
 * with the first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/compare.h"
#include "latlab/json.h"

int lat_compare_files_load(struct lat_compare_file *f, int n,
			   const char *const *paths, const char *tag,
			   double ns_per_value, bool spreads, char *why,
			   size_t len)
{
	if (n < 1 || n > LAT_COMPARE_MAX_FILES)
		return -EINVAL;
	memset(f, 0, sizeof(*f) * (size_t)n);
	*why = '\0';
	for (int i = 0; i < n; i++) {
		struct lat_hlog_data *d = calloc(1, sizeof(*d));
		int rc;

		if (!d)
			return -ENOMEM;
		f[i].loaded = d;
		f[i].data = d;
		f[i].path = paths[i];
		rc = spreads ? lat_compare_load(paths[i], tag, ns_per_value, d,
						&f[i].spreads)
			     : lat_hlog_load(paths[i], tag, ns_per_value, d);
		if (!rc && d->is_hgrm && tag) {
			snprintf(d->why, sizeof(d->why), "'%s' is .hgrm",
				 paths[i]);
			rc = -ENOTSUP;
		}
		if (rc) {
			snprintf(why, len, "%s", d->why);
			return rc;
		}
		f[i].ns_per_value = lat_hlog_ns_per_value(d, ns_per_value);
	}
	return 0;
}

void lat_compare_files_release(struct lat_compare_file *f, int n)
{
	for (int i = 0; i < n; i++) {
		lat_compare_spreads_free(&f[i].spreads);
		if (f[i].loaded)
			lat_hlog_data_free(f[i].loaded);
		free(f[i].loaded);
		f[i].loaded = NULL;
	}
}

/* One file: its object; several: {"files": [...]}. */
static void files_json(struct lat_json *j, const struct lat_compare_file *f,
		       int n)
{
	if (n > 1) {
		lat_json_obj_begin(j, NULL);
		lat_json_arr_begin(j, "files");
	}
	for (int i = 0; i < n; i++)
		lat_hlog_json(j, f[i].path, f[i].data, f[i].ns_per_value);
	if (n > 1) {
		lat_json_arr_end(j);
		lat_json_obj_end(j);
	}
}

int lat_compare_files_write(FILE *out, const struct lat_compare_file *f,
			    int n, bool compare, bool json)
{
	struct lat_json j;
	int rc = 0;

	if (!json) {
		for (int i = 0; !compare && i < n; i++)
			lat_hlog_print(out, f[i].path, f[i].data,
				       f[i].ns_per_value);
		rc = compare ? lat_compare_print(out, f, n) : 0;
		return rc ? rc : ferror(out) ? -EIO : 0;
	}
	lat_json_init(&j, out);
	if (compare)
		rc = lat_compare_json(&j, f, n);
	else
		files_json(&j, f, n);
	/* a comparison stopped by an error leaves the document open */
	return rc ? rc : lat_json_finish(&j);
}
