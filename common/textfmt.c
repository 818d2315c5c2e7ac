/* Text for people, the same in every command: rates with a unit that fits, QP numbers, lines that fit 100 columns. */
#include "common/textfmt.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

struct rt_rate_unit rt_rate_unit_for(double bps)
{
	static const struct rt_rate_unit units[] = {
	    {1e12, "Tb/s"}, {1e9, "Gb/s"}, {1e6, "Mb/s"}, {1e3, "kb/s"}, {1, "b/s"}};
	size_t i = 0;
	/* 999.96e6 prints as 1000 Mb/s at three digits: it is 1.00 Gb/s */
	while (i + 1 < sizeof(units) / sizeof(units[0]) && !(fabs(bps) >= units[i].bps * 0.99995))
		i++;
	return units[i];
}

char *rt_fmt_rate_in(char *buf, size_t size, double bps, struct rt_rate_unit unit)
{
	double v = bps / unit.bps;
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (v == 0)
		snprintf(buf, size, "0");
	else if (fabs(v) >= 99.95)
		snprintf(buf, size, "%.0f", v);
	else if (fabs(v) >= 9.995)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.2f", v);
	return buf;
}

char *rt_fmt_rate(char *buf, size_t size, double bps)
{
	if (!isfinite(bps)) {
		snprintf(buf, size, "-");
		return buf;
	}
	struct rt_rate_unit u = rt_rate_unit_for(bps);
	char num[RT_RATE_TEXT_MAX];
	snprintf(buf, size, "%s %s", rt_fmt_rate_in(num, sizeof(num), bps, u), u.name);
	return buf;
}

char *rt_fmt_qp(char buf[RT_QP_TEXT_MAX], uint32_t qp)
{
	static const char hex[] = "0123456789abcdef";
	char *p = buf;
	*p++ = '0';
	*p++ = 'x';
	for (int shift = 20; shift >= 0; shift -= 4) /* by hand: the timeline writes one a row */
		*p++ = hex[(qp >> shift) & 0xf];
	*p = '\0';
	return buf;
}

/* May the line break at the space s[i]? Not between a number and its unit ("2 us", "17.7 %"). */
static bool breakable(const char *s, size_t i, size_t n)
{
	static const char *const units[] = {"ns",  "us",  "ms",   "s",    "min",  "h",
	                                    "%",   "b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s",
	                                    "KiB", "MiB", "GiB",  "bytes"};
	if (i == 0 || s[i - 1] < '0' || s[i - 1] > '9')
		return true;
	size_t w = strcspn(s + i + 1, " ,;:)\n");
	if (i + 1 + w > n)
		w = n - i - 1;
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (strlen(units[k]) == w && !strncmp(s + i + 1, units[k], w))
			return false;
	return true;
}

/* rt_text_fill(), with `mark` (NULL: none) at the end of each line it breaks, within the width. */
static int fill(FILE *fp, const char *s, size_t n, unsigned col, unsigned width, unsigned cont,
                const char *mark)
{
	size_t ml = mark ? strlen(mark) : 0;
	if (cont >= width / 2)
		cont = width / 2;
	size_t at = 0;
	while (at < n) {
		/* how much fits: up to the last space where a line may break, within the width */
		size_t room = width > col + ml ? width - col - ml : 1, take = n - at;
		if (take <= room + ml) /* the rest fits without a mark */
			room += ml;
		if (take > room) {
			size_t cut = room;
			while (cut > 0 && (s[at + cut] != ' ' || !breakable(s + at, cut, n - at)))
				cut--;
			if (cut == 0) { /* a word longer than the room: whole */
				cut = room;
				while (at + cut < n && s[at + cut] != ' ')
					cut++;
			}
			take = cut;
		}
		fwrite(s + at, 1, take, fp);
		at += take;
		while (at < n && s[at] == ' ')
			at++;
		if (at < n) {
			fprintf(fp, "%s\n%*s", mark ? mark : "", (int)cont, "");
			col = cont;
		}
	}
	fputc('\n', fp);
	return ferror(fp) ? (errno ? errno : EIO) : 0;
}

int rt_text_fill(FILE *fp, const char *s, size_t n, unsigned col, unsigned width, unsigned cont)
{
	return fill(fp, s, n, col, width, cont, NULL);
}

int rt_text_fill_command(FILE *fp, const char *s, size_t n, unsigned col, unsigned width,
                         unsigned cont)
{
	return fill(fp, s, n, col, width, cont, " \\");
}

int rt_text_wrap(FILE *fp, const char *text, size_t len, unsigned width, unsigned hang,
                 int hang_abs)
{
	const char *s = text, *end = text + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (n <= width) {
			fwrite(s, 1, n, fp);
			if (nl)
				fputc('\n', fp);
		} else {
			size_t indent = strspn(s, " ");
			rt_text_fill(fp, s, n, 0, width, hang_abs ? hang : (unsigned)indent + hang);
		}
		s += n + (nl ? 1 : 0);
	}
	return ferror(fp) ? (errno ? errno : EIO) : 0;
}

void rt_text_appendf(char *dst, size_t size, const char *fmt, ...)
{
	size_t len = strnlen(dst, size);
	if (len + 1 >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst + len, size - len, fmt, ap);
	va_end(ap);
}

char *rt_fmt_duration(char *buf, size_t size, uint64_t ns)
{
	if (ns >= 1000000000ull)
		snprintf(buf, size, "%.3f s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
	else if (ns >= 1000ull)
		snprintf(buf, size, "%.1f us", (double)ns / 1e3);
	else
		snprintf(buf, size, "%llu ns", (unsigned long long)ns);
	return buf;
}
