/* Text for people, the same in every command: rates with a unit that fits, QP numbers, lines that fit 100 columns. */
#ifndef RT_TEXTFMT_H
#define RT_TEXTFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Append to the text in dst[size] (NUL-terminated), cut to fit and always NUL-terminated. */
__attribute__((format(printf, 3, 4))) void rt_text_appendf(char *dst, size_t size, const char *fmt,
                                                           ...);

/* The widest line a text output writes. */
#define RT_TEXT_WIDTH 100

/* The longest text rt_fmt_rate() writes, with its NUL ("999.9 Tb/s"). */
#define RT_RATE_TEXT_MAX 24

/*
 * A rate's unit: the largest of b/s, kb/s, Mb/s, Gb/s, Tb/s (powers of
 * 1000) that leaves `bps` at least 1 (b/s for 0). A line with several
 * rates takes the unit of its largest, so it has one unit.
 */
struct rt_rate_unit {
	double bps; /* bits per second in one unit */
	const char *name;
};
struct rt_rate_unit rt_rate_unit_for(double bps);

/* `bps` in `unit`, three significant digits, without the unit: "2.58", "178", "0.52". */
char *rt_fmt_rate_in(char *buf, size_t size, double bps, struct rt_rate_unit unit);

/* `bps` with the unit that fits it: "2.58 Gb/s", "178 Mb/s", "0 b/s"; "-" when not finite. */
char *rt_fmt_rate(char *buf, size_t size, double bps);
/* A duration as reports and warnings write it: "1.250 s", "3.500 ms", "8.7 us", "850 ns". */
char *rt_fmt_duration(char *buf, size_t size, uint64_t ns);

/* The longest text rt_fmt_qp() writes, with its NUL. */
#define RT_QP_TEXT_MAX 11

/* A QP number as every text output prints it: "0x000011" (24 bits, six hex digits). */
char *rt_fmt_qp(char buf[RT_QP_TEXT_MAX], uint32_t qp);

/*
 * Write s[0..n) (one line, no newline) to fp, starting at column `col`,
 * broken at spaces so that no line passes `width` columns (never between a
 * number and its unit: "2 us", "16.0 MiB"); the lines after the first start at column
 * `cont` (at most width / 2). A word longer than the room is left whole.
 * Ends with a newline. 0 or an errno.
 */
int rt_text_fill(FILE *fp, const char *s, size_t n, unsigned col, unsigned width, unsigned cont);

/*
 * rt_text_fill() of a shell command: each line it breaks ends with " \\",
 * so the lines pasted into a shell are still the one command.
 */
int rt_text_fill_command(FILE *fp, const char *s, size_t n, unsigned col, unsigned width,
                         unsigned cont);

/*
 * Write text[0..len) to fp with every line longer than `width` broken at
 * spaces: the rest of it goes on lines indented by `hang` columns more than
 * the line's own indent (its leading spaces), or at column `hang` when
 * hang_abs. A word longer than the room is left whole. 0 or an errno.
 */
int rt_text_wrap(FILE *fp, const char *text, size_t len, unsigned width, unsigned hang,
                 int hang_abs);

#endif
