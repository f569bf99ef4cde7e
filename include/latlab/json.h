/*
 * lat_json: a small streaming JSON writer for every --json output.
 *
 * One call per value, written at once to the FILE *: nothing is buffered
 * beyond stdio, nothing allocated. Keys are passed with each value; inside
 * an array pass NULL as the key. Strings are escaped (", \, control
 * characters as \uXXXX; UTF-8 passes through). Doubles are written in the
 * shortest form that reads back to the same double; non-finite doubles
 * are written as null (JSON has no NaN or infinity), so "not measured" is
 * NAN and never a fake 0.
 *
 * Invariants:
 *  - Commas and nesting are the writer's job: a caller that begins and
 *    ends objects and arrays in pairs gets a valid document.
 *  - Nesting depth is limited to LAT_JSON_MAX_DEPTH; deeper calls and
 *    unbalanced ends are ignored and make lat_json_finish() return
 *    -EINVAL, so a bug cannot corrupt output silently.
 *  - One writer per thread; the FILE * stays the caller's.
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

/* Start a document on @out (nothing is written yet). */
void lat_json_init(struct lat_json *j, FILE *out);

/* Open an object / array as member @key (NULL inside an array or for the
 * top-level value); close the innermost one. */
void lat_json_obj_begin(struct lat_json *j, const char *key);
void lat_json_obj_end(struct lat_json *j);
void lat_json_arr_begin(struct lat_json *j, const char *key);
void lat_json_arr_end(struct lat_json *j);

/* One value as member @key (NULL inside an array). A NULL @val string is
 * written as null; a non-finite double as null. */
void lat_json_str(struct lat_json *j, const char *key, const char *val);
void lat_json_int(struct lat_json *j, const char *key, int64_t val);
void lat_json_uint(struct lat_json *j, const char *key, uint64_t val);
void lat_json_double(struct lat_json *j, const char *key, double val);
void lat_json_bool(struct lat_json *j, const char *key, bool val);
void lat_json_null(struct lat_json *j, const char *key);

/*
 * @val when @has, else null: a figure that could not be measured here is
 * absent in the document, never written as 0.
 */
void lat_json_double_if(struct lat_json *j, const char *key, bool has,
			double val);
void lat_json_uint_if(struct lat_json *j, const char *key, bool has,
		      uint64_t val);

/* Newline and flush. Returns 0 if the document is complete and well
 * nested, else -EINVAL. (Write errors are the stream's: check ferror.) */
int lat_json_finish(struct lat_json *j);

/*
 * A command's document: one object on @out whose first member is
 * "command": @command (which program wrote it), the caller's members
 * after it; lat_json_doc_end closes the object and returns
 * lat_json_finish's result.
 */
void lat_json_doc_begin(struct lat_json *j, FILE *out, const char *command);
int lat_json_doc_end(struct lat_json *j);

/*
 * A report written as text or as one JSON document, the way every
 * module's *_write does it: @print(@out, @report) when !@json, else
 * @add(j, @report) into a document on @out that lat_json_finish closes;
 * @out is flushed either way.
 * Returns 0, -EINVAL when the document came out unbalanced, or -EIO when
 * @out failed: a write error is an error on both paths, never a report
 * that silently stopped short.
 */
int lat_json_or_text(FILE *out, bool json, const void *report,
		     void (*print)(FILE *out, const void *report),
		     void (*add)(struct lat_json *j, const void *report));

#endif
