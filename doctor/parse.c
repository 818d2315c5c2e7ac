/* Parsers for doctor: RDMA sysfs texts (state, rate, GIDs) and the output of dcb, mlnx_qos and lldptool. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "doctor/facts.h"

/* The line after the one p is in, or NULL at the end of the text. */
static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');
	return nl && nl[1] ? nl + 1 : NULL;
}

int rt_doc_parse_state(const char *text, char *out, size_t size)
{
	const char *colon = strchr(text, ':');
	const char *s = colon ? colon + 1 : text;
	while (*s == ' ' || *s == '\t')
		s++;
	size_t len = strcspn(s, "\n");
	while (len && s[len - 1] == ' ')
		len--;
	if (!len || len >= size)
		return -EINVAL;
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

int rt_doc_parse_rate(const char *text, uint64_t *bps)
{
	char *end;
	errno = 0;
	double g = strtod(text, &end);
	if (errno || end == text || g < 0 || g > 1e6)
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (strncmp(end, "Gb/sec", 6) != 0)
		return -EINVAL;
	*bps = (uint64_t)(g * 1e9 + 0.5);
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rt_doc_parse_gid(const char *text, uint8_t gid[16])
{
	const char *p = text;
	for (int g = 0; g < 8; g++) {
		unsigned v = 0;
		int digits = 0;
		while (hexval(*p) >= 0 && digits < 4) {
			v = v << 4 | (unsigned)hexval(*p++);
			digits++;
		}
		if (!digits || (g < 7 && *p++ != ':'))
			return -EINVAL;
		gid[2 * g] = (uint8_t)(v >> 8);
		gid[2 * g + 1] = (uint8_t)v;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	return *p ? -EINVAL : 0;
}

enum rt_doc_gid_type rt_doc_parse_gid_type(const char *text)
{
	if (!strcmp(text, "RoCE v2"))
		return RT_GID_ROCE_V2;
	if (!strcmp(text, "IB/RoCE v1") || !strcmp(text, "RoCE v1"))
		return RT_GID_ROCE_V1;
	return RT_GID_UNKNOWN;
}

int rt_doc_parse_dscp(const char *w)
{
	char *end;
	if (isdigit((unsigned char)w[0])) {
		long v = strtol(w, &end, 0);
		return *end || v < 0 || v > 63 ? -EINVAL : (int)v;
	}
	if (!strncasecmp(w, "CS", 2) && w[2] >= '0' && w[2] <= '7' && !w[3])
		return (w[2] - '0') * 8;
	if (!strncasecmp(w, "AF", 2) && w[2] >= '1' && w[2] <= '4' && w[3] >= '1' && w[3] <= '3' &&
	    !w[4])
		return (w[2] - '0') * 8 + (w[3] - '0') * 2;
	if (!strcasecmp(w, "EF"))
		return 46;
	if (!strcasecmp(w, "LE"))
		return 1;
	return -EINVAL;
}

/* The words after `keyword` on its line, copied into buf; NULL when the keyword is absent. */
static const char *line_after(const char *text, const char *keyword, char *buf, size_t size)
{
	size_t kl = strlen(keyword);
	for (const char *p = text; p; p = next_line(p)) {
		const char *s = p;
		while (*s == ' ' || *s == '\t')
			s++;
		if (strncmp(s, keyword, kl) != 0 ||
		    (s[kl] && s[kl] != ' ' && s[kl] != '\t' && s[kl] != '\n' && s[kl] != ':'))
			continue;
		s += kl;
		size_t len = strcspn(s, "\n");
		if (len >= size)
			len = size - 1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		return buf;
	}
	return NULL;
}

int rt_doc_parse_dcb_pfc(const char *text, uint8_t *pfc_en)
{
	char line[512];
	if (!line_after(text, "prio-pfc", line, sizeof(line)))
		return -EINVAL;
	uint8_t en = 0;
	int n = 0;
	char *save = NULL;
	for (char *w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		char *colon = strchr(w, ':');
		if (!colon)
			return -EINVAL;
		*colon = '\0';
		const char *v = colon + 1;
		bool on = !strcmp(v, "on");
		if (!on && strcmp(v, "off"))
			return -EINVAL;
		if (!strcmp(w, "all")) {
			en = on ? 0xff : 0;
		} else {
			char *end;
			long p = strtol(w, &end, 10);
			if (*end || p < 0 || p > 7)
				return -EINVAL;
			en = (uint8_t)(on ? en | 1u << p : en & ~(1u << p));
		}
		n++;
	}
	if (!n)
		return -EINVAL;
	*pfc_en = en;
	return 0;
}

int rt_doc_parse_dcb_app(const char *text, int8_t map[64])
{
	memset(map, -1, 64);
	int n = 0;
	for (const char *p = text; p; p = next_line(p)) {
		char line[2048];
		const char *s = p;
		while (*s == ' ' || *s == '\t')
			s++;
		if (strncmp(s, "dscp-prio", 9) != 0)
			continue;
		size_t len = strcspn(s + 9, "\n");
		if (len >= sizeof(line))
			return -EINVAL;
		memcpy(line, s + 9, len);
		line[len] = '\0';
		char *save = NULL;
		for (char *w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			char *colon = strrchr(w, ':');
			if (!colon)
				return -EINVAL;
			*colon = '\0';
			int d = rt_doc_parse_dscp(w);
			char *end;
			long prio = strtol(colon + 1, &end, 10);
			if (d < 0 || end == colon + 1 || *end || prio < 0 || prio > 7)
				return -EINVAL;
			if (map[d] < 0)
				map[d] = (int8_t)prio;
			n++;
		}
	}
	return n;
}

int rt_doc_parse_mlnx_qos(const char *text, struct rt_doc_qos *q)
{
	char buf[256];
	bool any = false;
	const char *trust = line_after(text, "Priority trust state:", buf, sizeof(buf));
	if (trust) {
		while (*trust == ' ')
			trust++;
		if (!strncmp(trust, "dscp", 4) || !strncmp(trust, "pcp", 3)) {
			q->trust = trust[0] == 'd' ? RT_TRUST_DSCP : RT_TRUST_PCP;
			q->trust_known = true;
			any = true;
		}
	}
	/* "\tprio:3 dscp:31,30,29,28,27,26,25,24," (a priority may take several lines) */
	int8_t map[64];
	memset(map, -1, sizeof(map));
	int entries = 0;
	for (const char *p = text; p; p = next_line(p)) {
		const char *s = p;
		while (*s == ' ' || *s == '\t')
			s++;
		if (strncmp(s, "prio:", 5) != 0)
			continue;
		char *end;
		long prio = strtol(s + 5, &end, 10);
		if (end == s + 5 || prio < 0 || prio > 7)
			continue;
		const char *d = strstr(end, "dscp:");
		if (!d || d - end > 4)
			continue; /* "prio:N" alone: the default priority list */
		d += 5;
		while (*d && *d != '\n') {
			long v = strtol(d, &end, 10);
			if (end == d)
				break;
			if (v >= 0 && v <= 63) {
				if (map[v] < 0)
					map[v] = (int8_t)prio;
				entries++;
			}
			d = end;
			if (*d == ',')
				d++;
		}
	}
	if (entries) {
		memcpy(q->dscp2prio, map, sizeof(map));
		q->map_known = true;
		any = true;
	}
	/* "PFC configuration:" then a "priority 0 1 ... 7" row and an "enabled 0 0 0 1 ..." row */
	const char *pfc = strstr(text, "PFC configuration:");
	if (pfc && line_after(pfc, "enabled", buf, sizeof(buf))) {
		uint8_t en = 0;
		int count = 0;
		char *save = NULL;
		for (char *w = strtok_r(buf, " \t", &save); w && count < 8;
		     w = strtok_r(NULL, " \t", &save)) {
			if (strcmp(w, "0") && strcmp(w, "1"))
				return -EINVAL;
			if (w[0] == '1')
				en |= (uint8_t)(1u << count);
			count++;
		}
		if (count != 8)
			return -EINVAL;
		q->pfc_en = en;
		q->pfc_known = true;
		any = true;
	}
	return any ? 0 : -EINVAL;
}

int rt_doc_parse_lldptool_pfc(const char *text, uint8_t *pfc_en)
{
	char buf[256];
	if (!line_after(text, "PFC enabled:", buf, sizeof(buf)))
		return -EINVAL;
	uint8_t en = 0;
	int n = 0;
	char *save = NULL;
	for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(w, "none") && n == 0) {
			n = -1;
			continue;
		}
		char *end;
		long p = strtol(w, &end, 10);
		if (*end || end == w || p < 0 || p > 7 || n < 0)
			return -EINVAL;
		en |= (uint8_t)(1u << p);
		n++;
	}
	if (n == 0)
		return -EINVAL;
	*pfc_en = en;
	return 0;
}

int rt_doc_parse_dscp2prio_file(const char *text, int8_t map[64])
{
	memset(map, -1, 64);
	int n = 0;
	for (const char *p = text; p; p = next_line(p)) {
		char *end;
		const char *s = p;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!isdigit((unsigned char)*s))
			continue;
		long d = strtol(s, &end, 10);
		if (*end != ' ' && *end != '\t')
			continue;
		const char *t = end;
		while (*t == ' ' || *t == '\t')
			t++;
		long prio = strtol(t, &end, 10);
		if (end == t || (*end && *end != '\n' && *end != ' ') || d < 0 || d > 63 ||
		    prio < 0 || prio > 7)
			continue;
		map[d] = (int8_t)prio;
		n++;
	}
	return n ? n : -EINVAL;
}
