/* Slurm hostlist expressions: PREFIX[RANGES]...[RANGES] items expanded into names, in scontrol's
 * order, with clear refusals of what Slurm refuses. */
#include "common/hostlist.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BRACKETS 16
#define MAX_NAME     255 /* a DNS name at most */
#define SHOWN        80  /* characters of an item an error message quotes */

struct range {
	uint64_t lo, hi;
	int width; /* digits of lo as written: the zero padding */
};

/* One item taken apart: text[0] [b0] text[1] [b1] ... [b(k-1)]; text[k] is always empty. */
struct pattern {
	const char *text[MAX_BRACKETS + 1];
	size_t text_len[MAX_BRACKETS + 1];
	size_t k;
	struct range *ranges;           /* every bracket's ranges, one after the other */
	size_t first[MAX_BRACKETS + 1]; /* bracket b's ranges: ranges[first[b] .. first[b+1]) */
	uint64_t count[MAX_BRACKETS];   /* names bracket b gives */
};

static bool separator(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* "'ITEM': WHY" into errbuf (a long item cut to its start); returns -err. */
__attribute__((format(printf, 5, 6))) static int refuse(char *errbuf, int err, const char *item,
                                                        size_t len, const char *fmt, ...)
{
	int shown = len > SHOWN ? SHOWN : (int)len;
	int at =
	    snprintf(errbuf, RT_ERRBUF_SIZE, "'%.*s%s': ", shown, item, len > SHOWN ? "..." : "");
	va_list ap;
	va_start(ap, fmt);
	if (at > 0 && at < RT_ERRBUF_SIZE)
		vsnprintf(errbuf + at, RT_ERRBUF_SIZE - (size_t)at, fmt, ap);
	va_end(ap);
	return -err;
}

size_t rt_hostlist_item_len(const char *s)
{
	size_t i = 0;
	int depth = 0;
	for (; s[i]; i++) {
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']' && depth > 0)
			depth--;
		else if (depth == 0 && separator(s[i]))
			break;
	}
	return i;
}

/* A decimal number of s[0..len) without sign or blanks, below 2^64. */
static bool number(const char *s, size_t len, uint64_t *v)
{
	*v = 0;
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (*v > (UINT64_MAX - d) / 10)
			return false;
		*v = *v * 10 + d;
	}
	return true;
}

/* The ranges of one bracket's inside s[0..len) appended to p->ranges from index *used. */
static int parse_ranges(const char *item, size_t item_len, const char *s, size_t len,
                        struct pattern *p, size_t *used, char *errbuf)
{
	size_t b = p->k;
	p->first[b] = *used;
	p->count[b] = 0;
	for (size_t at = 0;;) {
		size_t end = at;
		while (end < len && s[end] != ',')
			end++;
		const char *r = s + at, *dash = memchr(r, '-', end - at);
		size_t lo_len = dash ? (size_t)(dash - r) : end - at;
		struct range *rg = &p->ranges[(*used)++];
		rg->width = (int)lo_len;
		bool ok = number(r, lo_len, &rg->lo);
		rg->hi = rg->lo;
		if (ok && dash)
			ok = number(dash + 1, end - at - lo_len - 1, &rg->hi);
		if (!ok)
			return refuse(errbuf, EINVAL, item, item_len,
			              "'%.*s' is neither a number N nor a range N-M "
			              "(digits only, below 2^64)",
			              (int)(end - at), r);
		if (rg->hi < rg->lo)
			return refuse(errbuf, EINVAL, item, item_len, "the range %.*s goes down",
			              (int)(end - at), r);
		uint64_t n = rg->hi - rg->lo + 1;
		if (n == 0 || p->count[b] + n < p->count[b])
			p->count[b] = UINT64_MAX;
		else
			p->count[b] += n;
		if (end == len)
			break;
		at = end + 1;
	}
	return 0;
}

/* Take item s[0..len) apart into p (p->ranges allocated; the caller frees it). */
static int parse(const char *s, size_t len, struct pattern *p, char *errbuf)
{
	size_t commas = 0, used = 0, start = 0;
	for (size_t i = 0; i < len; i++)
		commas += s[i] == ',';
	p->k = 0;
	p->ranges = calloc(commas + MAX_BRACKETS, sizeof(*p->ranges));
	if (!p->ranges)
		return refuse(errbuf, ENOMEM, s, len, "out of memory");
	for (size_t i = 0; i < len; i++) {
		if (separator(s[i]))
			return refuse(errbuf, EINVAL, s, len,
			              "a comma or blank outside brackets: one item at a time");
		if (s[i] == ']')
			return refuse(errbuf, EINVAL, s, len, "']' without '['");
		if (s[i] != '[')
			continue;
		const char *close = memchr(s + i + 1, ']', len - i - 1);
		const char *open = memchr(s + i + 1, '[', len - i - 1);
		if (!close)
			return refuse(errbuf, EINVAL, s, len, "'[' without ']'");
		if (open && open < close)
			return refuse(errbuf, EINVAL, s, len, "brackets inside brackets");
		if (p->k == MAX_BRACKETS)
			return refuse(errbuf, EINVAL, s, len, "more than %d brackets",
			              MAX_BRACKETS);
		p->text[p->k] = s + start;
		p->text_len[p->k] = i - start;
		size_t inside = (size_t)(close - s) - i - 1;
		if (!inside)
			return refuse(errbuf, EINVAL, s, len, "empty brackets");
		int rc = parse_ranges(s, len, s + i + 1, inside, p, &used, errbuf);
		if (rc < 0)
			return rc;
		p->k++;
		i = (size_t)(close - s);
		start = i + 1;
	}
	if (p->k && start < len)
		return refuse(errbuf, EINVAL, s, len,
		              "text after the last ']' ('%.*s'), which Slurm does not "
		              "allow either",
		              (int)(len - start), s + start);
	p->first[p->k] = used;
	p->text[p->k] = s + start;
	p->text_len[p->k] = len - start;
	return 0;
}

static int push(struct rt_hostlist *hl, const char *name)
{
	if (hl->n == hl->cap) {
		size_t ncap = hl->cap ? hl->cap * 2 : 16;
		char **nv = realloc(hl->names, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		hl->names = nv;
		hl->cap = ncap;
	}
	if (!(hl->names[hl->n] = strdup(name)))
		return -ENOMEM;
	hl->n++;
	return 0;
}

/* The pos-th number bracket b gives, and its padding. */
static uint64_t value_at(const struct pattern *p, size_t b, uint64_t pos, int *width)
{
	for (size_t r = p->first[b]; r < p->first[b + 1]; r++) {
		uint64_t n = p->ranges[r].hi - p->ranges[r].lo + 1;
		if (pos < n) {
			*width = p->ranges[r].width;
			return p->ranges[r].lo + pos;
		}
		pos -= n;
	}
	*width = 0;
	return 0;
}

/* Every name of p (one without brackets: its text): the brackets counted like an odometer
 * whose wheels are in Slurm's order. */
static int emit(struct rt_hostlist *hl, const struct pattern *p, const char *s, size_t len,
                char *errbuf)
{
	size_t order[MAX_BRACKETS]; /* order[0] turns slowest */
	uint64_t pos[MAX_BRACKETS] = {0};
	for (size_t l = 0; l + 1 < p->k; l++)
		order[l] = p->k - 2 - l;
	if (p->k)
		order[p->k - 1] = p->k - 1;
	for (;;) {
		char name[MAX_NAME + 2];
		size_t at = 0;
		bool fits = true;
		for (size_t b = 0; b <= p->k && fits; b++) {
			int w = snprintf(name + at, sizeof(name) - at, "%.*s", (int)p->text_len[b],
			                 p->text[b]);
			if (w >= 0 && (size_t)w < sizeof(name) - at && b < p->k) {
				at += (size_t)w;
				int width;
				uint64_t v = value_at(p, b, pos[b], &width);
				w = snprintf(name + at, sizeof(name) - at, "%0*llu", width,
				             (unsigned long long)v);
			}
			fits = w >= 0 && (size_t)w < sizeof(name) - at;
			at += fits ? (size_t)w : 0;
		}
		if (!fits || at > MAX_NAME)
			return refuse(errbuf, EINVAL, s, len, "a name longer than %d characters",
			              MAX_NAME);
		if (push(hl, name) < 0)
			return refuse(errbuf, ENOMEM, s, len, "out of memory");
		size_t l = p->k;
		while (l > 0 && ++pos[order[l - 1]] == p->count[order[l - 1]]) {
			pos[order[l - 1]] = 0;
			l--;
		}
		if (l == 0)
			return 0;
	}
}

int rt_hostlist_add(struct rt_hostlist *hl, const char *s, size_t len, size_t max, char *errbuf)
{
	if (!len)
		return rt_errmsg(errbuf, EINVAL, "an empty host name");
	struct pattern p;
	int rc = parse(s, len, &p, errbuf);
	uint64_t total = 1;
	for (size_t b = 0; rc == 0 && b < p.k; b++)
		total =
		    p.count[b] && total > UINT64_MAX / p.count[b] ? UINT64_MAX : total * p.count[b];
	size_t room = hl->n < max ? max - hl->n : 0;
	if (rc == 0 && total > room)
		rc = refuse(errbuf, E2BIG, s, len, "more than %zu hosts", max);
	size_t before = hl->n;
	if (rc == 0)
		rc = emit(hl, &p, s, len, errbuf);
	while (rc < 0 && hl->n > before)
		free(hl->names[--hl->n]);
	free(p.ranges);
	return rc;
}

int rt_hostlist_expand(struct rt_hostlist *hl, const char *list, size_t max, char *errbuf)
{
	for (const char *s = list; *s;) {
		size_t len = rt_hostlist_item_len(s);
		if (len) {
			int rc = rt_hostlist_add(hl, s, len, max, errbuf);
			if (rc < 0)
				return rc;
		}
		s += len;
		if (*s)
			s++;
	}
	return 0;
}

void rt_hostlist_free(struct rt_hostlist *hl)
{
	for (size_t i = 0; i < hl->n; i++)
		free(hl->names[i]);
	free(hl->names);
	hl->names = NULL;
	hl->n = hl->cap = 0;
}
