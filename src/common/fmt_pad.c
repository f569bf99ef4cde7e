/* lat_fmt: column widths for tables that hold UTF-8 units (µs). */
#include "latlab/fmt.h"

int lat_fmt_width(const char *s)
{
	int w = 0;

	/* every byte but UTF-8 continuation bytes (10xxxxxx) */
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

void lat_fmt_pad(FILE *out, const char *s, int width)
{
	for (int pad = width - lat_fmt_width(s); pad > 0; pad--)
		fputc(' ', out);
	fputs(s, out);
}
