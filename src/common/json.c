#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "latlab/json.h"

void lat_json_init(struct lat_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->error = false;
	j->has_items[0] = false;
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Comma and key before any value at the current level. */
static void begin_item(struct lat_json *j, const char *key)
{
	if (j->has_items[j->depth])
		fputc(',', j->out);
	j->has_items[j->depth] = true;
	if (key) {
		put_string(j->out, key);
		fputc(':', j->out);
	}
}

static void open(struct lat_json *j, const char *key, char c)
{
	if (j->depth + 1 >= LAT_JSON_MAX_DEPTH) {
		j->error = true;
		return;
	}
	begin_item(j, key);
	fputc(c, j->out);
	j->has_items[++j->depth] = false;
}

static void close_(struct lat_json *j, char c)
{
	if (j->depth == 0) {
		j->error = true;
		return;
	}
	j->depth--;
	fputc(c, j->out);
}

void lat_json_obj_begin(struct lat_json *j, const char *key)
{
	open(j, key, '{');
}

void lat_json_obj_end(struct lat_json *j)
{
	close_(j, '}');
}

void lat_json_arr_begin(struct lat_json *j, const char *key)
{
	open(j, key, '[');
}

void lat_json_arr_end(struct lat_json *j)
{
	close_(j, ']');
}

void lat_json_str(struct lat_json *j, const char *key, const char *val)
{
	begin_item(j, key);
	if (val)
		put_string(j->out, val);
	else
		fputs("null", j->out);
}

void lat_json_int(struct lat_json *j, const char *key, int64_t val)
{
	begin_item(j, key);
	fprintf(j->out, "%lld", (long long)val);
}

void lat_json_uint(struct lat_json *j, const char *key, uint64_t val)
{
	begin_item(j, key);
	fprintf(j->out, "%llu", (unsigned long long)val);
}

/*
 * The shortest of %.15g..%.17g that reads back as the same double: exact
 * for scripts, and 1700000000.123 rather than 1700000000.1229999 for
 * people.
 */
static void put_double(FILE *f, double val)
{
	char buf[32];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, val);
		if (strtod(buf, NULL) == val)
			break;
	}
	fputs(buf, f);
}

void lat_json_double(struct lat_json *j, const char *key, double val)
{
	begin_item(j, key);
	if (isfinite(val))
		put_double(j->out, val);
	else
		fputs("null", j->out);
}

void lat_json_bool(struct lat_json *j, const char *key, bool val)
{
	begin_item(j, key);
	fputs(val ? "true" : "false", j->out);
}

void lat_json_null(struct lat_json *j, const char *key)
{
	begin_item(j, key);
	fputs("null", j->out);
}

void lat_json_double_if(struct lat_json *j, const char *key, bool has,
			double val)
{
	if (has)
		lat_json_double(j, key, val);
	else
		lat_json_null(j, key);
}

void lat_json_uint_if(struct lat_json *j, const char *key, bool has,
		      uint64_t val)
{
	if (has)
		lat_json_uint(j, key, val);
	else
		lat_json_null(j, key);
}

int lat_json_finish(struct lat_json *j)
{
	fputc('\n', j->out);
	fflush(j->out);
	return (j->error || j->depth != 0) ? -EINVAL : 0;
}

void lat_json_doc_begin(struct lat_json *j, FILE *out, const char *command)
{
	lat_json_init(j, out);
	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "command", command);
}

int lat_json_doc_end(struct lat_json *j)
{
	lat_json_obj_end(j);
	return lat_json_finish(j);
}

int lat_json_or_text(FILE *out, bool json, const void *report,
		     void (*print)(FILE *out, const void *report),
		     void (*add)(struct lat_json *j, const void *report))
{
	struct lat_json j;
	int err = 0;

	if (!json) {
		print(out, report);
		fflush(out); /* as lat_json_finish does: errors show now */
	} else {
		lat_json_init(&j, out);
		add(&j, report);
		err = lat_json_finish(&j);
	}
	return err ? err : ferror(out) ? -EIO : 0;
}
