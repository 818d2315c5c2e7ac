/* Flow selectors (--flow): ID, IP, SRC>DST, SRC>DST:QP or qp:QP, and whether a flow matches one. */
#include "analyze/flowsel.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define QP_MASK 0xffffffu

static bool parse_ip(const char *s, size_t n, uint8_t out[16], uint8_t *ver)
{
	char tmp[64];
	if (n && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (!n || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	memset(out, 0, 16);
	if (inet_pton(AF_INET, tmp, out) == 1) {
		*ver = 4;
		return true;
	}
	if (inet_pton(AF_INET6, tmp, out) == 1) {
		*ver = 6;
		return true;
	}
	return false;
}

static bool parse_u32(const char *s, uint32_t *out, uint32_t max)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	/* decimal or 0x hex, as documented: base 0 would read a leading 0 as octal ("010" = 8) */
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	errno = 0;
	unsigned long v = strtoul(s, &end, hex ? 16 : 10);
	if (errno || *end || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

int rt_flowsel_parse(struct rt_flowsel *sel, const char *text)
{
	memset(sel, 0, sizeof(*sel));
	sel->kind = RT_FLOWSEL_ALL;
	if (!text || !*text || !strcmp(text, "all"))
		return 0;
	if (!strncmp(text, "qp:", 3)) {
		if (!parse_u32(text + 3, &sel->qp, QP_MASK))
			return -EINVAL;
		sel->kind = RT_FLOWSEL_QP;
		return 0;
	}
	if (parse_u32(text, &sel->id, UINT32_MAX - 1)) {
		sel->kind = RT_FLOWSEL_ID;
		return 0;
	}
	const char *gt = strchr(text, '>');
	if (!gt) {
		if (!parse_ip(text, strlen(text), sel->a, &sel->ipver))
			return -EINVAL;
		sel->kind = RT_FLOWSEL_HOST;
		return 0;
	}
	if (!parse_ip(text, (size_t)(gt - text), sel->a, &sel->ipver))
		return -EINVAL;
	const char *d = gt + 1;
	const char *qp = NULL;
	size_t dn = strlen(d);
	if (d[0] == '[') {
		const char *rb = strchr(d, ']');
		if (!rb)
			return -EINVAL;
		dn = (size_t)(rb - d) + 1;
		if (rb[1] == ':')
			qp = rb + 2;
		else if (rb[1])
			return -EINVAL;
	} else {
		const char *c = strchr(d, ':');
		if (c && !strchr(c + 1, ':')) {
			dn = (size_t)(c - d);
			qp = c + 1;
		}
	}
	uint8_t ver_b;
	if (!parse_ip(d, dn, sel->b, &ver_b) || ver_b != sel->ipver)
		return -EINVAL;
	sel->kind = RT_FLOWSEL_PAIR;
	if (qp) {
		if (!parse_u32(qp, &sel->qp, QP_MASK))
			return -EINVAL;
		sel->kind = RT_FLOWSEL_PAIR_QP;
	}
	return 0;
}

bool rt_flowsel_match(const struct rt_flowsel *sel, uint32_t id, uint8_t ipver, const uint8_t *src,
		      const uint8_t *dst, uint32_t dest_qp)
{
	size_t n = ipver == 4 ? 4 : 16;
	switch (sel->kind) {
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
	default:
		return true;
	}
}
