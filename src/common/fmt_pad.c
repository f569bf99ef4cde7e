/* lat_fmt: column widths for tables that hold UTF-8 units (µs). */
#include <string.h>

#include "latlab/fmt.h"

int lat_fmt_width_n(const char *s, size_t n)
{
	int w = 0;

	/* every byte but UTF-8 continuation bytes (10xxxxxx) */
	for (size_t i = 0; i < n && s[i]; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

int lat_fmt_width(const char *s)
{
	return lat_fmt_width_n(s, strlen(s));
}

void lat_fmt_pad(FILE *out, const char *s, int width)
{
	for (int pad = width - lat_fmt_width(s); pad > 0; pad--)
		fputc(' ', out);
	fputs(s, out);
}

void lat_fmt_pad_left(FILE *out, const char *s, int width)
{
	fputs(s, out);
	for (int pad = width - lat_fmt_width(s); pad > 0; pad--)
		fputc(' ', out);
}
