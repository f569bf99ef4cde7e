/*
 * lat_json: a small streaming JSON writer for --json output.
 *
 * Keys are passed with each value; inside an array pass NULL. Strings are
 * escaped; non-finite doubles are written as null (JSON has no NaN).
 * Nesting depth is limited to LAT_JSON_MAX_DEPTH; deeper calls are ignored
 * and make lat_json_finish() return -EINVAL, so a bug cannot corrupt output
 * silently.
 */
#ifndef LATLAB_JSON_H
#define LATLAB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define LAT_JSON_MAX_DEPTH 32

struct lat_json {
	FILE *out;
	int depth;
	bool error;
	bool has_items[LAT_JSON_MAX_DEPTH];
};

void lat_json_init(struct lat_json *j, FILE *out);
void lat_json_obj_begin(struct lat_json *j, const char *key);
void lat_json_obj_end(struct lat_json *j);
void lat_json_arr_begin(struct lat_json *j, const char *key);
void lat_json_arr_end(struct lat_json *j);
void lat_json_str(struct lat_json *j, const char *key, const char *val);
void lat_json_int(struct lat_json *j, const char *key, int64_t val);
void lat_json_uint(struct lat_json *j, const char *key, uint64_t val);
void lat_json_double(struct lat_json *j, const char *key, double val);
void lat_json_bool(struct lat_json *j, const char *key, bool val);
void lat_json_null(struct lat_json *j, const char *key);
/* Newline, flush; 0 if the document is complete and well nested. */
int lat_json_finish(struct lat_json *j);

#endif
