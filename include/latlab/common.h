/*
 * latlab common definitions: error convention, cache-line size, helpers
 * shared by every module.
 *
 * Invariants:
 *  - Library functions return 0 on success or a negative errno-style code
 *    (-EINVAL, -ENOMEM, ...). errno means nothing after a return.
 *  - bool is used only for hot-path answers (full/empty/out-of-range).
 *  - Nothing in the library prints to stdout or exits the process.
 */
#ifndef LATLAB_COMMON_H
#define LATLAB_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define LATLAB_VERSION "0.1.0"

/*
 * One cache line. 64 on x86_64 and most aarch64 parts; override with
 * -DLAT_CACHELINE=128 for Apple-style 128-byte lines. Producer and consumer
 * indices are separated by LAT_PAD_BYTES (two lines) because the adjacent
 * line prefetcher on x86 pulls pairs of lines.
 */
#ifndef LAT_CACHELINE
#define LAT_CACHELINE 64
#endif
#define LAT_PAD_BYTES (2 * LAT_CACHELINE)

#if defined(__GNUC__)
#define LAT_LIKELY(x) __builtin_expect(!!(x), 1)
#define LAT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LAT_INLINE static inline __attribute__((always_inline))
#else
#define LAT_LIKELY(x) (x)
#define LAT_UNLIKELY(x) (x)
#define LAT_INLINE static inline
#endif

/* First latlab-specific error code; below it codes are -errno. */
#define LAT_EBASE 10000
enum lat_error {
	LAT_EFORMAT = LAT_EBASE + 1,   /* input is not in the expected format */
	LAT_ETRUNC = LAT_EBASE + 2,    /* input ends early */
	LAT_ECOMPAT = LAT_EBASE + 3,   /* histograms or files are incompatible */
	LAT_EUNSUPP = LAT_EBASE + 4,   /* feature unavailable on this machine */
	LAT_EBINARY = LAT_EBASE + 5,   /* a text input holds a NUL byte */
	LAT_EBADTIME = LAT_EBASE + 6,  /* a time stamp negative or going back */
};

/*
 * Text for a code returned by any latlab function (0, -errno or -LAT_E*).
 * Never returns NULL; the string is static.
 */
const char *lat_strerror(int code);

/*
 * CLOCK_MONOTONIC in nanoseconds: the clock of the kernel's own time
 * stamps (bpf_ktime_get_ns, perf), for joining them to ours and for
 * deadlines off the hot path (it is a vDSO call, not a cycle read).
 */
uint64_t lat_mono_ns(void);

#endif
