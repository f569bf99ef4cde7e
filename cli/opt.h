/*
 * The option table: each subcommand declares its options once, as data,
 * and the shared parser (cli/opt.c) does the rest: getopt_long, the
 * refusal of a value given twice, the syntax and range of each value with
 * one message per kind (one line on stderr, exit 2). So a flag and its
 * range are written in one place, and every command refuses bad input in
 * the same words. What each option means is told by the command's page,
 * docs/cli/<cmd>.txt (its --help); tests/test_cli_help.c checks that the
 * page and the table name the same options.
 *
 * A command file:
 *
 *   struct args { struct lat_lab_opts o; bool json; const char *svg; };
 *   #define CLI_ARGS struct args
 *   static const struct cli_opt opts[] = {
 *     { CLI_U64("rounds", o.rounds, 1, 20) },
 *     { CLI_FLAG("json", json) },
 *     { CLI_STRING("svg", svg) },
 *     { 0 } };
 *   ...  cli_parse(&cli_cmd_lab, &a, argc, argv);
 *
 * The value lands in the field named (offsetof into CLI_ARGS, stored by
 * the field's size and type, so an int, a uint32_t or a double field all
 * work); cli_given("rounds") says afterwards whether the flag was given.
 * Rules between options are data too: { CLI_DURATION("interval", ...),
 * .needs = "hlog" }, { CLI_U64("events", ...), .excludes = "duration" }.
 */
#ifndef LATLAB_CLI_OPT_H
#define LATLAB_CLI_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/topo.h"

struct cli_cmd;

enum cli_opt_kind {
	CLI_OPT_END,      /* the { 0 } that ends a table */
	CLI_OPT_SET,      /* no value: store .set into the field */
	CLI_OPT_U64,      /* whole number in [min, max], k/M/G suffixes */
	CLI_OPT_BYTES,    /* a size, 32K or 128M (lat_parse_bytes) */
	CLI_OPT_DOUBLE,   /* finite number in [lo, hi], stored / div */
	CLI_OPT_DURATION, /* time with a unit, ns in [lo, hi], stored / div */
	CLI_OPT_STRING,   /* the argument itself (const char *) */
	CLI_OPT_WORDS,    /* one of .words (space-separated): its index */
	CLI_OPT_CPUS,     /* a CPU list (2,4,6 or 2-4) into struct cli_cpus */
	CLI_OPT_CALL,     /* .fn(args, value) does it all (the odd ones);
			   always takes a value */
};

/* The parsed --cpus of a command (CLI_OPT_CPUS): in the order given. */
struct cli_cpus {
	int n;
	int cpu[LAT_TOPO_MAX_CPUS];
};

struct cli_opt {
	const char *name;     /* long name, without the -- */
	char short_name;      /* 'r' for -r, or 0 */
	enum cli_opt_kind kind;
	size_t off, size;     /* the field in CLI_ARGS */
	bool real;            /* the field is a double */
	long long set;        /* CLI_OPT_SET: the value stored */
	uint64_t min, max;    /* CLI_OPT_U64 range; CLI_OPT_CPUS: max CPUs */
	double lo, hi;        /* CLI_OPT_DOUBLE / _DURATION range (ns) */
	double unit_ns;       /* a bare duration's unit; 0: a unit is needed */
	double div;           /* the field holds value / div (0 = 1) */
	bool optional;        /* --name[=value]; without it, store .absent */
	uint64_t absent;
	const char *words;    /* CLI_OPT_WORDS: "fixed poisson" */
	void (*fn)(void *args, const char *value); /* CLI_OPT_CALL */
	/* Rules between options, checked once all are parsed, each refusal
	 * in one form: given without every option in .needs (long names,
	 * space-separated) "--a needs --b"; given with any in .excludes
	 * "--a and --b exclude each other". A rule that depends on a value
	 * (--seed needs --arrivals poisson) stays in the command's parse(). */
	const char *needs;
	const char *excludes;
};

/*
 * One designator per kind; the command defines CLI_ARGS (its args struct)
 * before its table. The rest of an entry (.short_name, .div, .optional,
 * ...) follows as designated initializers.
 */
#define CLI_FIELD_(f)                                                     \
	.off = offsetof(CLI_ARGS, f), .size = sizeof(((CLI_ARGS *)0)->f),  \
	.real = _Generic(((CLI_ARGS *)0)->f, double: true, default: false)
#define CLI_FLAG(n, f) .name = n, .kind = CLI_OPT_SET, CLI_FIELD_(f), .set = 1
#define CLI_SET(n, f, v) .name = n, .kind = CLI_OPT_SET, CLI_FIELD_(f), .set = v
#define CLI_U64(n, f, lo_, hi_)                                           \
	.name = n, .kind = CLI_OPT_U64, CLI_FIELD_(f), .min = lo_, .max = hi_
#define CLI_BYTES(n, f) .name = n, .kind = CLI_OPT_BYTES, CLI_FIELD_(f)
#define CLI_DOUBLE(n, f, lo_, hi_)                                        \
	.name = n, .kind = CLI_OPT_DOUBLE, CLI_FIELD_(f), .lo = lo_, .hi = hi_
#define CLI_DURATION(n, f, unit, lo_, hi_)                                \
	.name = n, .kind = CLI_OPT_DURATION, CLI_FIELD_(f), .unit_ns = unit, \
	.lo = lo_, .hi = hi_
#define CLI_STRING(n, f) .name = n, .kind = CLI_OPT_STRING, CLI_FIELD_(f)
#define CLI_WORDS(n, f, w) .name = n, .kind = CLI_OPT_WORDS, CLI_FIELD_(f), \
	.words = w
#define CLI_CPUS(n, f, most) .name = n, .kind = CLI_OPT_CPUS, CLI_FIELD_(f), \
	.max = most
#define CLI_CALL(n, f) .name = n, .kind = CLI_OPT_CALL, .fn = f

/*
 * Parse @argv (argv[0] is the command's name) into @args with @cmd's
 * table; exit 2 with one line on any bad option or value. Returns the
 * index of the first operand: a command whose cli_cmd has no .operands
 * refuses any. Leaves getopt's optind at the same index.
 */
int cli_parse(const struct cli_cmd *cmd, void *args, int argc, char **argv);

/* After cli_parse: was --@name given? (@name must be in the table.) */
bool cli_given(const char *name);

#endif
