/* Flow selectors (--flow): parse one, match a flow against it, and print a flow so one can be written. */
#include "analyze/flowsel.h"
#include "common/textfmt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Largest destination QP: 24 bits. */
#define QP_MAX 0xffffffu

/* s[0..n) without the spaces at either end. */
static void trim(const char **s, size_t *n)
{
	while (*n && **s == ' ') {
		(*s)++;
		(*n)--;
	}
	while (*n && (*s)[*n - 1] == ' ')
		(*n)--;
}

/* An IPv4 or IPv6 address, IPv6 optionally in brackets, exactly s[0..n). */
static bool parse_ip(const char *s, size_t n, uint8_t out[16], uint8_t *ver)
{
	char tmp[64];
	trim(&s, &n);
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (!n || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	memset(out, 0, 16);
	if (inet_pton(AF_INET, tmp, out) == 1) {
		*ver = 4;
		return true;
	}
	if (!strchr(tmp, '[') && inet_pton(AF_INET6, tmp, out) == 1) {
		*ver = 6;
		return true;
	}
	return false;
}

/* A number exactly s[0..n): decimal, or 0x and hex (leading zeros are decimal, not octal). */
static bool parse_num(const char *s, size_t n, uint32_t max, uint32_t *out)
{
	char tmp[24], *end;
	trim(&s, &n);
	if (!n || n >= sizeof(tmp) || s[0] < '0' || s[0] > '9')
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	bool hex = tmp[0] == '0' && (tmp[1] == 'x' || tmp[1] == 'X');
	if (hex && !tmp[2])
		return false;
	errno = 0;
	unsigned long long v = strtoull(tmp, &end, hex ? 16 : 10);
	if (errno || *end || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

/*
 * A "qp QP", "qp=QP" or "qp:QP" ("QP" too) at the start of s[0..*n) or after a space:
 * the QP into *qp and *n cut before it. False when there is none (*bad: one
 * whose QP is no number).
 */
static bool qp_suffix(const char *s, size_t *n, uint32_t *qp, bool *bad)
{
	*bad = false;
	for (size_t i = 0; i + 2 < *n; i++) {
		if (strncasecmp(s + i, "qp", 2) != 0 || (i && s[i - 1] != ' '))
			continue;
		size_t j = i + 2;
		if (s[j] != ' ' && s[j] != '=' && s[j] != ':')
			continue;
		j++;
		if (!parse_num(s + j, *n - j, QP_MAX, qp)) {
			*bad = true;
			return false;
		}
		*n = i;
		return true;
	}
	return false;
}

int rt_flowsel_parse(struct rt_flowsel *sel, const char *text)
{
	memset(sel, 0, sizeof(*sel));
	sel->kind = RT_FLOWSEL_ALL;
	if (!text)
		return 0;
	const char *s = text;
	size_t n = strlen(text);
	trim(&s, &n);
	if (!n || (n == 3 && !strncmp(s, "all", 3)))
		return 0;
	bool bad;
	uint32_t qp;
	bool has_qp = qp_suffix(s, &n, &qp, &bad);
	if (bad)
		return -EINVAL;
	trim(&s, &n);
	const char *gt = memchr(s, '>', n);
	if (!gt) {
		if (has_qp) { /* "qp:QP" alone */
			if (n)
				return -EINVAL;
			sel->kind = RT_FLOWSEL_QP;
			sel->qp = qp;
			return 0;
		}
		if (parse_num(s, n, UINT32_MAX - 1, &sel->id)) {
			sel->kind = RT_FLOWSEL_ID;
			return 0;
		}
		if (!parse_ip(s, n, sel->a, &sel->ipver))
			return -EINVAL;
		sel->kind = RT_FLOWSEL_HOST;
		return 0;
	}
	uint8_t vb;
	if (!parse_ip(s, (size_t)(gt - s), sel->a, &sel->ipver))
		return -EINVAL;
	const char *d = gt + 1;
	size_t dn = n - (size_t)(d - s);
	trim(&d, &dn);
	if (!has_qp) {
		/* DST:QP: the last ':' after a bracketed IPv6, or the only one of an IPv4 */
		const char *colon = NULL;
		if (dn && d[0] == '[') {
			const char *rb = memchr(d, ']', dn);
			if (!rb)
				return -EINVAL;
			if ((size_t)(rb - d) + 1 < dn) {
				if (rb[1] != ':')
					return -EINVAL;
				colon = rb + 1;
			}
		} else {
			const char *c = memchr(d, ':', dn);
			if (c && !memchr(c + 1, ':', dn - (size_t)(c + 1 - d)))
				colon = c;
		}
		if (colon) {
			if (!parse_num(colon + 1, dn - (size_t)(colon + 1 - d), QP_MAX, &qp))
				return -EINVAL;
			has_qp = true;
			dn = (size_t)(colon - d);
		}
	}
	if (!parse_ip(d, dn, sel->b, &vb) || vb != sel->ipver)
		return -EINVAL;
	sel->kind = has_qp ? RT_FLOWSEL_PAIR_QP : RT_FLOWSEL_PAIR;
	sel->qp = has_qp ? qp : 0;
	return 0;
}

bool rt_flowsel_match(const struct rt_flowsel *sel, uint32_t id, uint8_t ipver, const uint8_t *src,
                      const uint8_t *dst, uint32_t dest_qp)
{
	size_t n = ipver == 4 ? 4 : 16;
	switch (sel->kind) {
	case RT_FLOWSEL_ALL:
		return true;
	case RT_FLOWSEL_ID:
		return id == sel->id;
	case RT_FLOWSEL_QP:
		return dest_qp == sel->qp;
	case RT_FLOWSEL_HOST:
		return ipver == sel->ipver && (!memcmp(src, sel->a, n) || !memcmp(dst, sel->a, n));
	case RT_FLOWSEL_PAIR:
	case RT_FLOWSEL_PAIR_QP:
		return ipver == sel->ipver && !memcmp(src, sel->a, n) && !memcmp(dst, sel->b, n) &&
		       (sel->kind == RT_FLOWSEL_PAIR || dest_qp == sel->qp);
	}
	return false;
}

int rt_flowsel_set_parse(struct rt_flowsel_set *set, const char *text)
{
	set->n = 0;
	if (!text)
		return 0;
	for (const char *w = text;; w++) {
		char one[256];
		size_t len = strcspn(w, ",");
		if (set->n == RT_FLOWSEL_SET_MAX || len >= sizeof(one) || (!len && *text))
			return -EINVAL; /* "A,,B": a missing one ("" alone is every flow) */
		memcpy(one, w, len);
		one[len] = '\0';
		if (rt_flowsel_parse(&set->v[set->n++], one) < 0)
			return -EINVAL;
		w += len;
		if (!*w)
			return 0;
	}
}

bool rt_flowsel_set_match(const struct rt_flowsel_set *set, uint32_t id, uint8_t ipver,
                          const uint8_t *src, const uint8_t *dst, uint32_t dest_qp)
{
	for (unsigned i = 0; i < set->n; i++)
		if (rt_flowsel_match(&set->v[i], id, ipver, src, dst, dest_qp))
			return true;
	return false;
}

bool rt_flowsel_set_has_id(const struct rt_flowsel_set *set)
{
	for (unsigned i = 0; i < set->n; i++)
		if (set->v[i].kind == RT_FLOWSEL_ID)
			return true;
	return false;
}

bool rt_flow_ids_has(const uint32_t *ids, uint32_t n, uint32_t id)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ids[mid] == id)
			return true;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

char *rt_flowsel_format(char buf[RT_FLOWSEL_TEXT_MAX], uint8_t ipver, const uint8_t *src,
                        const uint8_t *dst, uint32_t dest_qp)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int af = ipver == 6 ? AF_INET6 : AF_INET;
	if (!inet_ntop(af, src, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (!inet_ntop(af, dst, b, sizeof(b)))
		snprintf(b, sizeof(b), "?");
	char qp[RT_QP_TEXT_MAX];
	rt_fmt_qp(qp, dest_qp);
	if (ipver == 6)
		snprintf(buf, RT_FLOWSEL_TEXT_MAX, "[%s]>[%s]:%s", a, b, qp);
	else
		snprintf(buf, RT_FLOWSEL_TEXT_MAX, "%s>%s:%s", a, b, qp);
	return buf;
}
