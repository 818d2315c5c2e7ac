/* Command-line values: numbers, durations, rates, sizes and counts; one error format. */
#ifndef RT_TOOLS_OPTIONS_H
#define RT_TOOLS_OPTIONS_H

#include <stdint.h>

/*
 * Parsers. Each returns 0 and stores the value, -EINVAL when `s` is not that
 * kind of value (empty, sign, space, unknown unit, garbage), or -ERANGE when
 * it is but lies outside [min, max] or does not fit 64 bits.
 *
 * Numbers are decimal, a fraction allowed where a unit follows ("1.5ms",
 * "2.5G", ".5"); the result is rounded to the nearest whole unit.
 */

/* Whole number: decimal digits, or 0x and hex digits ("4791", "0x12b7"). */
int rt_opt_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * One rule for units, the same in every command: a bare duration is seconds,
 * a bare rate is bits per second, a bare size is bytes.
 */
#define RT_OPT_SEC 1000000000ull

/* Duration in ns: ns, us, ms, s, min or h; a bare number is seconds ("0.001" = 1ms). */
int rt_opt_parse_duration(const char *s, uint64_t min, uint64_t max, uint64_t *ns);
/*
 * Rate in bits per second: K, M, G or T (10^3 .. 10^12, either case),
 * optionally followed by "bit", "bit/s", "bps" or "b/s" in lower case
 * ("100G", "2.5Gbit/s", "400Mb/s"), or by "B/s" or "Bps" for bytes per
 * second ("1GB/s" = 8G); a bare number is bits per second.
 */
int rt_opt_parse_rate(const char *s, uint64_t min, uint64_t max, uint64_t *bps);
/* Size in bytes: "B", or K, M, G, T as 1024-multiples with an optional "iB" ("64K", "4KiB"). */
int rt_opt_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *bytes);
/* Count with decimal K, M, G or T (10^3 .. 10^12, either case): "10M" = 10000000. */
int rt_opt_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *n);
/* Plain decimal number with an optional fraction ("0.5", "0.00390625"), no unit. */
int rt_opt_parse_real(const char *s, double min, double max, double *out);

/*
 * The same for option `opt` of subcommand `cmd`: 0, or RT_EXIT_USAGE after one
 * line on stderr, e.g.
 *   rocetrace analyze: --bucket: '3h' is not a duration (use e.g. 100us, 5ms, 2s; ...)
 *   rocetrace gen: --port: '70000' is out of range (1 to 65535)
 * A bare number out of range adds what bare numbers are of that kind
 * (": a bare rate is bits/s; for 2 Gb/s write 2G").
 */
int rt_opt_uint(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                uint64_t *out);
int rt_opt_duration(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                    uint64_t *ns);
/*
 * A bare number of RT_OPT_WAS_NS_FROM or more given to an option whose bare
 * numbers rocetrace 0.1 read as nanoseconds (analyze's and timeline's
 * durations) is refused, with what to write for either reading; anything
 * else is parsed as rt_opt_duration() does. ("--bucket 1" is one second: a
 * 1 ns bucket was never meant.)
 */
#define RT_OPT_WAS_NS_FROM 100
int rt_opt_duration_was_ns(const char *cmd, const char *opt, const char *s, uint64_t min,
                           uint64_t max, uint64_t *ns);
int rt_opt_rate(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                uint64_t *bps);
int rt_opt_size(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                uint64_t *bytes);
int rt_opt_count(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                 uint64_t *n);
int rt_opt_real(const char *cmd, const char *opt, const char *s, double min, double max,
                double *out);

#endif
