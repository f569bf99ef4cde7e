/*
 * lat_hist_io: HdrHistogram file formats for struct lat_hist.
 *
 *  - .hgrm percentile-distribution text (lat_hgrm_*), byte-identical to
 *    Java's AbstractHistogram.outputPercentileDistribution, and a reader
 *    that rebuilds a histogram from it as well as the format allows.
 *  - V2 binary encoding (lat_hist_v2_*): uncompressed (cookie 0x1c849313),
 *    zlib-compressed (cookie 0x1c849314) and base64 of either.
 *  - .hlog interval logs, format 1.3 (lat_hlog_*): writer and reader.
 *
 * The reference is the official Java implementation (HdrHistogram 2.x:
 * AbstractHistogram.outputPercentileDistribution, encodeIntoByteBuffer,
 * HistogramLogWriter/Reader); the project's format notes, including
 * where the C and JS ports differ, are shared/docs/hdr-spec.md (kept
 * outside this repository). The rules a user relies on are restated in
 * the invariants and function comments here.
 *
 * Invariants:
 *  - Every decoder treats its input as hostile: all reads are bounds
 *    checked, malformed or truncated input returns -LAT_EFORMAT or
 *    -LAT_ETRUNC, and memory is bounded: a counts array longer than
 *    LAT_HIST_IO_MAX_COUNTS is refused with -LAT_ECOMPAT before anything
 *    is allocated, and compressed input is inflated in fixed chunks (no
 *    buffer sized from a length field). Nothing crashes or loops on input.
 *  - Decoded histograms have total, min and max recomputed from the counts
 *    (V2 has no total field). normalizingIndexOffset is ignored (payloads
 *    are in logical order in every official writer) and so is the integer
 *    to double conversion ratio. V0/V1 and DoubleHistogram encodings are
 *    refused with -LAT_EUNSUPP.
 *  - Encoders write what Java writes: the payload covers slots 0..index of
 *    the last non-zero count (one zero entry when empty), a single zero is
 *    zigzag(0), runs of zeros are zigzag(-run). The hlog writer compresses
 *    at zlib level 9 as Java's HistogramLogWriter does.
 *  - Nothing here is for a hot path: encoders and decoders allocate.
 *  - Functions are thread-compatible: distinct objects may be used from
 *    distinct threads; one writer or reader object belongs to one thread.
 */
#ifndef LATLAB_HIST_IO_H
#define LATLAB_HIST_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/common.h"
#include "latlab/hist.h"
#include "latlab/json.h"

/* Cookies (big-endian, first 4 bytes of an encoding). */
#define LAT_HIST_V2_COOKIE 0x1c849313u
#define LAT_HIST_V2_COMPRESSED_COOKIE 0x1c849314u
#define LAT_HIST_V2_HEADER_LEN 40

/*
 * Largest counts array a decoder allocates (slots of 8 bytes): 2^23 slots,
 * 64 MiB. Every legal configuration fits (1..2^63-1 at 5 significant
 * digits needs 6,160,384 slots); a header that asks for more is refused.
 */
#define LAT_HIST_IO_MAX_COUNTS (1 << 23)

/* ------------------------------------------------------------------ */
/* .hgrm percentile distribution                                       */
/* ------------------------------------------------------------------ */

/*
 * Write @h's percentile distribution to @out exactly as Java's
 * outputPercentileDistribution(out, ticks_per_half, unit_ratio, csv) does:
 * the header, one row per percentile tick, the 3-column 100% row, and the
 * Mean/StdDeviation, Max/Total count, Buckets/SubBuckets footer (no
 * footer in CSV form). Every value, mean, stddev and max is divided by
 * @unit_ratio (1.0 keeps the histogram's unit; 1e6 turns ns into ms).
 * Numbers are formatted the way Java's Formatter does (half-up rounding of
 * Java's decimal digits), so the text is byte-identical for equal data.
 * @ticks_per_half: 1..1000 (Java's default is 5). @unit_ratio: > 0.
 * Returns 0, -EINVAL for bad arguments, -EIO if writing failed.
 */
int lat_hgrm_write(FILE *out, const struct lat_hist *h,
		   int32_t ticks_per_half, double unit_ratio, bool csv);

/*
 * lat_hgrm_write (not CSV) after a '#[Value unit: N ns per value]'
 * comment, N = @ns_per_value (of @h's values) * @unit_ratio: the plotter
 * ignores it and lat_hgrm_read takes the file's unit from it, so the
 * numbers read back are the same nanoseconds. Same returns.
 */
int lat_hgrm_write_unit(FILE *out, const struct lat_hist *h,
			int32_t ticks_per_half, double unit_ratio,
			double ns_per_value);

/* What a .hgrm file said about itself, besides its rows. */
struct lat_hgrm_info {
	int32_t sig_figs;        /* decimals of the values, = d */
	int32_t rows;            /* data rows read */
	bool csv;                /* the file was in CSV form */
	bool has_footer;         /* Mean/Max/Buckets lines were present */
	double mean;             /* footer, in file units (NAN if absent) */
	double stddev;           /* footer, in file units (NAN if absent) */
	double max;              /* footer, in file units (NAN if absent) */
	int64_t total_count;     /* footer, or the last row's count */
	int32_t buckets;         /* footer, 0 if absent */
	int32_t sub_buckets;     /* footer, 0 if absent */
	double ns_per_value;     /* from a '#[Value unit: N ns per value]'
				  * comment written by latlab, else 0 */
	bool fractional_values;  /* some value had a non-zero fraction: the
				  * file was written with a unit ratio */
};

/*
 * Rebuild a histogram from .hgrm text (@text, @len bytes, need not be
 * NUL-terminated). Each row's counts (the difference of consecutive
 * TotalCount values) are recorded at the row's value times @scale, rounded
 * to an integer; the histogram has L = 1, the file's significant digits
 * (from SubBuckets, else from the decimals) and H covering the largest
 * value.
 *
 * What is lost: counts between two rows are placed at the upper row's
 * value (the top of its slot), so percentiles at the printed levels are
 * exact and others round up to the next printed level; min becomes the
 * first row's value, i.e. the top of the minimum's slot; values printed
 * with a unit ratio keep only their printed decimals. Mean, stddev and max
 * from the footer are exact and are returned in @info.
 *
 * @scale: > 0 (1 keeps file units; 1e6 turns a file in ms back into ns),
 * or 0 to use the file's '#[Value unit: N ns per value]' comment (written
 * by 'latlab report --hgrm'), 1 when it has none.
 * Returns 0 and a new histogram in *out (free with lat_hist_free), or
 * -LAT_EFORMAT (not .hgrm text, counts not cumulative, footer total
 * disagreeing with the rows), -LAT_ETRUNC (no rows), -ERANGE (a value
 * that does not fit in int64 after scaling), -ENOMEM.
 */
int lat_hgrm_read(const char *text, size_t len, double scale,
		  struct lat_hgrm_info *info, struct lat_hist **out);

/* ------------------------------------------------------------------ */
/* V2 binary encoding                                                  */
/* ------------------------------------------------------------------ */

/*
 * Upper bound of the uncompressed encoding of @h in bytes (header plus at
 * most 9 bytes per slot).
 */
size_t lat_hist_v2_encoded_bound(const struct lat_hist *h);

/*
 * Encode @h uncompressed into @buf (@cap bytes); *len gets the size.
 * Byte-identical to Java's encodeIntoByteBuffer. Returns 0, -ENOSPC when
 * @cap is too small, -EINVAL when a count is negative.
 */
int lat_hist_v2_encode(const struct lat_hist *h, uint8_t *buf, size_t cap,
		       size_t *len);

/*
 * Encode @h in the compressed wrapper (cookie, length, zlib stream) at
 * zlib @level (0..9, or -1 for zlib's default). *out is malloc'ed (free
 * it), *len its size. Returns 0, -EINVAL, -ENOMEM.
 */
int lat_hist_v2_encode_compressed(const struct lat_hist *h, int level,
				  uint8_t **out, size_t *len);

/*
 * The compressed encoding in base64 (the .hlog form, "HISTF..."), NUL
 * terminated; *out is malloc'ed. Returns as lat_hist_v2_encode_compressed.
 */
int lat_hist_v2_encode_base64(const struct lat_hist *h, int level,
			      char **out, size_t *len);

/*
 * Decode a V2 encoding, compressed or not (told apart by the cookie),
 * from @len bytes at @buf. Returns 0 and a new histogram in *out (free
 * with lat_hist_free; d may be 0 as in Java files), or -LAT_EFORMAT,
 * -LAT_ETRUNC, -LAT_EUNSUPP (V0/V1/DoubleHistogram), -LAT_ECOMPAT (counts
 * array above LAT_HIST_IO_MAX_COUNTS), -ERANGE (counts sum beyond int64),
 * -ENOMEM. *out is NULL on failure.
 */
int lat_hist_v2_decode(const uint8_t *buf, size_t len, struct lat_hist **out);

/* Decode base64 text (@len chars) holding a V2 encoding; as above. */
int lat_hist_v2_decode_base64(const char *text, size_t len,
			      struct lat_hist **out);

/* ------------------------------------------------------------------ */
/* base64 (RFC 4648, standard alphabet, '=' padding, no line breaks)   */
/* ------------------------------------------------------------------ */

/* Characters lat_base64_encode() writes for @n bytes, without the NUL. */
size_t lat_base64_encoded_len(size_t n);

/*
 * Encode @n bytes into @out (@cap >= encoded_len + 1, NUL terminated).
 * Returns 0 or -ENOSPC.
 */
int lat_base64_encode(const uint8_t *in, size_t n, char *out, size_t cap);

/*
 * Decode @len characters (a multiple of 4, padding only at the end) into
 * @out (@cap >= len / 4 * 3); *n gets the byte count. Returns 0,
 * -LAT_EFORMAT for a bad character, length or padding, -ENOSPC.
 */
int lat_base64_decode(const char *in, size_t len, uint8_t *out, size_t cap,
		      size_t *n);

/* ------------------------------------------------------------------ */
/* .hlog interval log writer                                           */
/* ------------------------------------------------------------------ */

struct lat_hlog_writer;

struct lat_hlog_writer_opts {
	/*
	 * Run start, seconds since the epoch: written as StartTime and as
	 * BaseTime, and interval start times are relative to it. 0 = now.
	 */
	double start_time_s;
	/* Optional first comment line ("#[<comment>]"); NULL for none. */
	const char *comment;
	/*
	 * Interval_Max is max / max_unit_ratio (informational; readers
	 * ignore it). 0 = Java's default 1e6 (ns recorded, ms shown).
	 */
	double max_unit_ratio;
};

/*
 * Create @path (truncating it) and write the header: optional comment,
 * "#[Histogram log format version 1.3]", StartTime, BaseTime, legend.
 * The header is flushed before returning. @opts may be NULL (defaults).
 * Returns 0 and *out, or -errno from fopen/write, -EINVAL, -ENOMEM.
 */
int lat_hlog_writer_open(const char *path,
			 const struct lat_hlog_writer_opts *opts,
			 struct lat_hlog_writer **out);

/*
 * As lat_hlog_writer_open() on an already open stream; @f stays the
 * caller's (lat_hlog_writer_close() flushes but does not fclose it).
 */
int lat_hlog_writer_open_stream(FILE *f,
				const struct lat_hlog_writer_opts *opts,
				struct lat_hlog_writer **out);

/*
 * Append one interval line: [Tag=<tag>,]<start>,<length>,<max>,<base64>
 * and flush it to the kernel, so that a run interrupted after this call
 * leaves a valid log with every interval written so far.
 * @tag: NULL or "" for none; otherwise 1..63 chars without ',', space, CR,
 * LF (-EINVAL). @start_s: seconds since the writer's start time (>= 0).
 * @length_s: interval length in seconds (>= 0). Call from one thread (the
 * aggregator); allocates (encoding buffers are reused between calls).
 * Returns 0, -EINVAL, -ENOMEM, -EIO.
 */
int lat_hlog_writer_write_interval(struct lat_hlog_writer *w, const char *tag,
				   double start_s, double length_s,
				   const struct lat_hist *h);

/* Append a comment line "#<text>" (no newline inside @text). */
int lat_hlog_writer_comment(struct lat_hlog_writer *w, const char *text);

/*
 * Flush, close the file (if opened by path) and free @w. Accepts NULL.
 * Returns 0 or the first write error seen (-EIO / -errno).
 */
int lat_hlog_writer_close(struct lat_hlog_writer *w);

/* ------------------------------------------------------------------ */
/* .hlog interval log reader                                           */
/* ------------------------------------------------------------------ */

struct lat_hlog_reader;

/* One interval, as Java's HistogramLogReader delivers it. */
struct lat_hlog_interval {
	char tag[64];            /* "" when the line has no Tag= */
	double start_s;          /* absolute: line timestamp + base time */
	double length_s;
	double max_field;        /* the informational Interval_Max field */
	int64_t line;            /* 1-based line number in the file */
	struct lat_hist *hist;   /* owned by the caller: lat_hist_free() */
};

/*
 * Open @path for reading. Returns 0 and *out, -errno from fopen, -EISDIR
 * for a directory, -ENOMEM.
 */
int lat_hlog_reader_open(const char *path, struct lat_hlog_reader **out);

/* Read from an open stream (@f stays the caller's). */
int lat_hlog_reader_open_stream(FILE *f, struct lat_hlog_reader **out);

/*
 * Read the next interval. Comment lines (StartTime/BaseTime are noted),
 * the legend and blank lines are skipped wherever they are; fields are
 * separated by commas or spaces as Java's scanner does; lines may be of
 * any length up to 64 MiB. Base time: the BaseTime line if present, else
 * deduced as Java does (a first timestamp more than a year before
 * StartTime means relative timestamps, base = StartTime; else base 0; no
 * StartTime means StartTime = the first timestamp).
 * Returns 1 with @iv filled, 0 at end of file, or a negative code
 * with lat_hlog_reader_line() telling where: -LAT_EFORMAT for a malformed
 * line (fewer than 4 fields, a bad number or base64), -LAT_ETRUNC for a
 * last line without its newline that does not parse (a file cut short)
 * or a histogram cut short, -LAT_EUNSUPP, -LAT_ECOMPAT, -ERANGE, -ENOMEM,
 * -EIO.
 */
int lat_hlog_reader_next(struct lat_hlog_reader *r,
			 struct lat_hlog_interval *iv);

/* StartTime seen so far (seconds since the epoch), NAN if none yet. */
double lat_hlog_reader_start_time(const struct lat_hlog_reader *r);
/* Base time in use (0 until decided), seconds since the epoch. */
double lat_hlog_reader_base_time(const struct lat_hlog_reader *r);
/* Line number of the last line read (for error messages). */
int64_t lat_hlog_reader_line(const struct lat_hlog_reader *r);

/* Close (if opened by path) and free. Accepts NULL. */
void lat_hlog_reader_close(struct lat_hlog_reader *r);

/* ------------------------------------------------------------------ */
/* Loading a whole file, merged per tag (what `latlab report` reads)   */
/* ------------------------------------------------------------------ */

/* More tags than this in one log is refused (memory is per tag). */
#define LAT_HLOG_MAX_TAGS 64

/* Every interval of one tag, merged. */
struct lat_hlog_tag {
	char name[64];            /* "" = untagged */
	struct lat_hist *hist;    /* merged intervals, owned */
	int64_t intervals;
	double first_start_s;     /* absolute seconds since the epoch */
	double last_end_s;
	bool mixed_precision;     /* intervals of another layout were merged */
};

/*
 * An .hlog or .hgrm file loaded by lat_hlog_load: one merged histogram
 * per tag and one in total. Large (~10 KiB): keep it off small stacks.
 */
struct lat_hlog_data {
	bool is_hgrm;
	struct lat_hlog_tag tags[LAT_HLOG_MAX_TAGS];
	int ntags;
	struct lat_hlog_tag total;  /* every selected interval merged */
	int64_t refused;            /* counts lost while merging */
	double start_time_s;        /* hlog StartTime, NAN if none */
	struct lat_hgrm_info hgrm;  /* when is_hgrm */
	double hgrm_scale;          /* ns per .hgrm value actually used */
	char why[512];              /* on failure: one line naming the file
				     * and, when known, the line */
};

/*
 * Load @path: an .hgrm (recognised by its "Value" header) or an .hlog.
 * Intervals are merged with lat_hist_merge_grow into one histogram per
 * tag; the total is built from the tags at the finest precision among
 * them, finest first, so a coarse tag cannot blur a fine one. @tag: NULL
 * for every tag, else only intervals with that tag ("" = untagged).
 * @scale: .hgrm values are multiplied by it (0 = what the file says, else
 * 1). Returns 0, or a negative code with @d->why set: -errno (open/read),
 * -LAT_EFORMAT and the reader's codes (with the line), -LAT_EFORMAT for
 * more than LAT_HLOG_MAX_TAGS tags, -LAT_ETRUNC when no interval was
 * selected, -EFBIG for an .hgrm over 256 MiB. Release with
 * lat_hlog_data_free (also after a failure).
 */
int lat_hlog_load(const char *path, const char *tag, double scale,
		  struct lat_hlog_data *d);

/*
 * Called by lat_hlog_load_each for every selected interval of an .hlog,
 * in file order, once it is merged (@iv->hist is freed after the call).
 * Return 0 to go on, or a negative code: the load stops and returns it.
 * Never called for an .hgrm (it has no intervals).
 */
typedef int (*lat_hlog_each_fn)(void *ctx,
				const struct lat_hlog_interval *iv);

/*
 * lat_hlog_load that also hands each selected interval to @each (NULL:
 * none) in the same pass: the file is opened and read once, so a FIFO or
 * a pipe (<(cmd)) can be both merged and looked at interval by interval.
 */
int lat_hlog_load_each(const char *path, const char *tag, double scale,
		       struct lat_hlog_data *d, lat_hlog_each_fn each,
		       void *ctx);

/*
 * The summary row of @h (a tag's or the total) in ns: lat_hist_summarize
 * at the file's scale, with an .hgrm footer's exact mean, stddev and max
 * where the rebuilt histogram is only approximate.
 */
void lat_hlog_summarize(const struct lat_hlog_data *d,
			const struct lat_hist *h, double ns_per_value,
			struct lat_hist_summary *s);

void lat_hlog_data_free(struct lat_hlog_data *d);

/*
 * @s as members of the JSON object open in @j: count, min_ns, p50_ns ..
 * p9999_ns, max_ns, mean_ns, stddev_ns; the values are null when the row
 * is empty (there are none, and 0 would be a measurement).
 */
void lat_hist_summary_write_json(struct lat_json *j,
				 const struct lat_hist_summary *s);

/* ---- what `latlab report` prints from a loaded file ---- */

/* Room for any tag's label: 4 bytes per byte of a 63-byte name. */
#define LAT_HLOG_LABEL_LEN 256

/*
 * @name fit for a terminal, in @buf: "(untagged)" for "", control bytes
 * as \xNN (tags come from files and may hold escape sequences).
 */
const char *lat_hlog_tag_label(const char *name, char *buf, size_t len);

/*
 * ns per value of @d's histograms as loaded: 1 for an .hgrm (scaled to ns
 * while reading), else @asked when > 0, else 1.
 */
double lat_hlog_ns_per_value(const struct lat_hlog_data *d, double asked);

/*
 * For people on @out: one line about @path (intervals, tags, seconds; or
 * the .hgrm's rows and digits), then a table of the summary row
 * (lat_hlog_summarize) per tag and "(all)".
 */
void lat_hlog_print(FILE *out, const char *path, const struct lat_hlog_data *d,
		    double ns_per_value);

/*
 * The same as one JSON object into @j (the caller owns lat_json_init /
 * lat_json_finish): file, format, ns_per_value, refused_counts, rows and
 * sig_figs (.hgrm) or intervals and start_time_s (.hlog), tags[] (tag,
 * intervals, the summary members) and total{}.
 */
void lat_hlog_json(struct lat_json *j, const char *path,
		   const struct lat_hlog_data *d, double ns_per_value);

/*
 * What @d could not keep, one line each on @out, each line starting with
 * @prefix ("latlab report: "): for an .hgrm, that counts between ticks sit
 * at the upper tick and, when its values have decimals and neither the
 * caller (@unit_given) nor the file gave a unit, that 1 value = 1 ns was
 * assumed; per tag and in total, intervals of mixed precision merged; and
 * the counts the merge refused. @path names the file in the lines (NULL:
 * one file, not named). Prints nothing for a file that lost nothing.
 */
void lat_hlog_notes(FILE *out, const char *prefix, const char *path,
		    const struct lat_hlog_data *d, bool unit_given);

#endif
