/* Command-line values: numbers, durations, rates, sizes and counts; one error format. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/commands.h"
#include "tools/options.h"

enum kind { K_UINT, K_DURATION, K_RATE, K_SIZE, K_COUNT, K_REAL };

/* What a value of each kind looks like, for "'x' is not ..." */
static const char *const kind_text[] = {
    [K_UINT] = "a whole number (use e.g. 42 or 0x2a)",
    [K_DURATION] = "a duration (use e.g. 100us, 5ms, 2s, 10min, 1h; a bare number is seconds)",
    [K_RATE] = "a rate (use e.g. 100G, 400M, 2.5Gbit/s; a bare number is bits/s)",
    [K_SIZE] = "a size (use e.g. 4096, 64K, 1MiB; a bare number is bytes)",
    [K_COUNT] = "a count (use e.g. 1000, 10K, 5M)",
    [K_REAL] = "a number (use e.g. 0.5)",
};

/* A decimal number "DIGITS[.DIGITS]" (at least one digit) at the start of s. */
struct decimal {
	uint64_t whole;
	bool overflow; /* the whole part does not fit 64 bits */
	const char *frac;
	size_t nfrac;
	const char *rest; /* what follows: the unit */
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int decimal(const char *s, struct decimal *d)
{
	const char *p = s;
	memset(d, 0, sizeof(*d));
	for (; is_digit(*p); p++) {
		unsigned dig = (unsigned)(*p - '0');
		if (d->whole > (UINT64_MAX - dig) / 10)
			d->overflow = true;
		else
			d->whole = d->whole * 10 + dig;
	}
	size_t nwhole = (size_t)(p - s);
	d->frac = p;
	if (*p == '.') {
		d->frac = ++p;
		while (is_digit(*p))
			p++;
		d->nfrac = (size_t)(p - d->frac);
	}
	d->rest = p;
	return nwhole + d->nfrac ? 0 : -EINVAL;
}

/* d times mul, rounded to a whole number. */
static int scale(const struct decimal *d, uint64_t mul, uint64_t *out)
{
	if (d->overflow || (mul && d->whole > UINT64_MAX / mul))
		return -ERANGE;
	uint64_t v = d->whole * mul;
	long double f = 0;
	for (size_t i = d->nfrac; i-- > 0;)
		f = (f + (long double)(d->frac[i] - '0')) / 10;
	uint64_t add = (uint64_t)(f * (long double)mul + 0.5L);
	if (add > UINT64_MAX - v)
		return -ERANGE;
	*out = v + add;
	return 0;
}

/* The multiplier of K, M, G, T (either case) in steps of `step`; 0 when c is none of them. */
static uint64_t prefix(char c, uint64_t step)
{
	static const char letters[] = "kmgt";
	const char *l = c ? strchr(letters, c | 0x20) : NULL;
	if (!l)
		return 0;
	uint64_t mul = step;
	for (const char *p = letters; p < l; p++)
		mul *= step;
	return mul;
}

/* The multiplier of `unit` for a value of kind k (0: not a unit of k). */
static uint64_t unit_mul(enum kind k, const char *unit, uint64_t bare)
{
	if (!*unit)
		return bare;
	uint64_t mul;
	switch (k) {
	case K_DURATION:
		return !strcmp(unit, "ns")    ? 1
		       : !strcmp(unit, "us")  ? 1000
		       : !strcmp(unit, "ms")  ? 1000000
		       : !strcmp(unit, "s")   ? 1000000000
		       : !strcmp(unit, "min") ? 60000000000ull
		       : !strcmp(unit, "h")   ? 3600000000000ull
		                              : 0;
	case K_RATE:
		mul = prefix(*unit, 1000);
		if (mul)
			unit++;
		else
			mul = 1; /* "bps" alone */
		if (mul > 1 && !*unit)
			return mul;
		/* bits in lower case; a capital B is bytes */
		if (!strcmp(unit, "bps") || !strcmp(unit, "b/s") || !strcmp(unit, "bit") ||
		    !strcmp(unit, "bit/s"))
			return mul;
		return !strcmp(unit, "Bps") || !strcmp(unit, "B/s") ? mul * 8 : 0;
	case K_SIZE:
		if (!strcasecmp(unit, "b"))
			return 1;
		mul = prefix(*unit, 1024);
		return mul && (!unit[1] || !strcasecmp(unit + 1, "ib")) ? mul : 0;
	case K_COUNT:
		mul = prefix(*unit, 1000);
		return mul && !unit[1] ? mul : 0;
	default:
		return 0;
	}
}

static int parse_units(enum kind k, const char *s, uint64_t bare, uint64_t min, uint64_t max,
                       uint64_t *out)
{
	struct decimal d;
	if (!s || decimal(s, &d) < 0)
		return -EINVAL;
	uint64_t mul = unit_mul(k, d.rest, bare), v;
	if (!mul)
		return -EINVAL;
	if (scale(&d, mul, &v) < 0 || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int rt_opt_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!s)
		return -EINVAL;
	unsigned base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	uint64_t v = 0;
	bool overflow = false;
	for (; *s; s++) {
		unsigned dig;
		if (is_digit(*s))
			dig = (unsigned)(*s - '0');
		else if (base == 16 && (*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			dig = (unsigned)((*s | 0x20) - 'a' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - dig) / base)
			overflow = true;
		else
			v = v * base + dig;
	}
	if (overflow || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int rt_opt_parse_duration(const char *s, uint64_t min, uint64_t max, uint64_t *ns)
{
	return parse_units(K_DURATION, s, RT_OPT_SEC, min, max, ns);
}

int rt_opt_parse_rate(const char *s, uint64_t min, uint64_t max, uint64_t *bps)
{
	return parse_units(K_RATE, s, 1, min, max, bps);
}

int rt_opt_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *bytes)
{
	return parse_units(K_SIZE, s, 1, min, max, bytes);
}

int rt_opt_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *n)
{
	return parse_units(K_COUNT, s, 1, min, max, n);
}

int rt_opt_parse_real(const char *s, double min, double max, double *out)
{
	struct decimal d;
	if (!s || decimal(s, &d) < 0 || *d.rest)
		return -EINVAL;
	double v = strtod(s, NULL);
	if (!isfinite(v) || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* v with the largest unit of kind k that divides it ("100us", "25G", "64KiB"). */
static void format_value(enum kind k, uint64_t v, char *buf, size_t len)
{
	static const struct {
		enum kind k;
		uint64_t mul;
		const char *name;
	} units[] = {
	    {K_DURATION, 3600000000000ull, "h"},
	    {K_DURATION, 60000000000ull, "min"},
	    {K_DURATION, 1000000000, "s"},
	    {K_DURATION, 1000000, "ms"},
	    {K_DURATION, 1000, "us"},
	    {K_DURATION, 1, "ns"},
	    {K_RATE, 1000000000000ull, "T"},
	    {K_RATE, 1000000000, "G"},
	    {K_RATE, 1000000, "M"},
	    {K_RATE, 1000, "K"},
	    {K_RATE, 1, "bps"},
	    {K_SIZE, 1ull << 40, "TiB"},
	    {K_SIZE, 1ull << 30, "GiB"},
	    {K_SIZE, 1ull << 20, "MiB"},
	    {K_SIZE, 1ull << 10, "KiB"},
	};
	for (size_t i = 0; v && i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].k == k && v % units[i].mul == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", v / units[i].mul, units[i].name);
			return;
		}
	snprintf(buf, len, "%" PRIu64, v);
}

/* s is a number without a unit ("100000", "2.5"). */
static bool is_bare(const char *s)
{
	struct decimal d;
	return s && decimal(s, &d) == 0 && !*d.rest;
}

/* What a bare number of kind k is, said after a range error. */
static const char *const bare_text[] = {
    [K_DURATION] = "a bare duration is seconds",
    [K_RATE] = "a bare rate is bits/s",
    [K_SIZE] = "a bare size is bytes",
};

static int report(const char *cmd, const char *opt, const char *s, int rc, enum kind k,
                  uint64_t min, uint64_t max)
{
	struct decimal d;
	if (rc == -EINVAL && k == K_DURATION && s && decimal(s, &d) == 0 && !strcmp(d.rest, "m")) {
		/* minutes or milliseconds: neither is guessed */
		int n = (int)(d.rest - s);
		fprintf(stderr,
		        "rocetrace %s: %s: '%s' is not a duration: write %.*smin for minutes or "
		        "%.*sms for milliseconds\n",
		        cmd, opt, s, n, s, n, s);
		return RT_EXIT_USAGE;
	}
	if (rc == -EINVAL) {
		fprintf(stderr, "rocetrace %s: %s: '%s' is not %s\n", cmd, opt, s ? s : "",
		        kind_text[k]);
		return RT_EXIT_USAGE;
	}
	char lo[32], hi[32];
	format_value(k, min, lo, sizeof(lo));
	format_value(k, max, hi, sizeof(hi));
	fprintf(stderr, "rocetrace %s: %s: '%s' is out of range (%s to %s)", cmd, opt, s, lo, hi);
	if (is_bare(s) && k < sizeof(bare_text) / sizeof(bare_text[0]) && bare_text[k]) {
		fprintf(stderr, ": %s", bare_text[k]);
		/* a small bare rate was meant in Gb/s: say how to write that, when that is in range */
		char as_g[48];
		uint64_t g;
		if (k == K_RATE && decimal(s, &d) == 0 && d.whole < 1000 &&
		    (size_t)snprintf(as_g, sizeof(as_g), "%sG", s) < sizeof(as_g) &&
		    rt_opt_parse_rate(as_g, min, max, &g) == 0)
			fprintf(stderr, "; for %s Gb/s write %s", s, as_g);
	}
	fputc('\n', stderr);
	return RT_EXIT_USAGE;
}

int rt_opt_uint(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                uint64_t *out)
{
	int rc = rt_opt_parse_uint(s, min, max, out);
	return rc ? report(cmd, opt, s, rc, K_UINT, min, max) : 0;
}

int rt_opt_duration(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                    uint64_t *ns)
{
	int rc = rt_opt_parse_duration(s, min, max, ns);
	return rc ? report(cmd, opt, s, rc, K_DURATION, min, max) : 0;
}

int rt_opt_duration_was_ns(const char *cmd, const char *opt, const char *s, uint64_t min,
                           uint64_t max, uint64_t *ns)
{
	struct decimal d;
	uint64_t old;
	if (is_bare(s) && decimal(s, &d) == 0 && (d.overflow || d.whole >= RT_OPT_WAS_NS_FROM)) {
		char as_ns[32] = "";
		if (scale(&d, 1, &old) == 0)
			format_value(K_DURATION, old, as_ns, sizeof(as_ns));
		fprintf(stderr,
		        "rocetrace %s: %s: '%s' has no unit: a bare duration is seconds, but "
		        "rocetrace 0.1 read this option's as nanoseconds; write %s%s%ss\n",
		        cmd, opt, s, as_ns, *as_ns ? " for nanoseconds, or " : "", s);
		return RT_EXIT_USAGE;
	}
	return rt_opt_duration(cmd, opt, s, min, max, ns);
}

int rt_opt_rate(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                uint64_t *bps)
{
	int rc = rt_opt_parse_rate(s, min, max, bps);
	return rc ? report(cmd, opt, s, rc, K_RATE, min, max) : 0;
}

int rt_opt_size(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                uint64_t *bytes)
{
	int rc = rt_opt_parse_size(s, min, max, bytes);
	return rc ? report(cmd, opt, s, rc, K_SIZE, min, max) : 0;
}

int rt_opt_count(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max,
                 uint64_t *n)
{
	int rc = rt_opt_parse_count(s, min, max, n);
	return rc ? report(cmd, opt, s, rc, K_COUNT, min, max) : 0;
}

int rt_opt_real(const char *cmd, const char *opt, const char *s, double min, double max,
                double *out)
{
	int rc = rt_opt_parse_real(s, min, max, out);
	if (!rc)
		return 0;
	if (rc == -EINVAL)
		return report(cmd, opt, s, rc, K_REAL, 0, 0);
	fprintf(stderr, "rocetrace %s: %s: '%s' is out of range (%g to %g)\n", cmd, opt, s, min,
	        max);
	return RT_EXIT_USAGE;
}
