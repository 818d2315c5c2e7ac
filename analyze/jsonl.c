/* A small JSON Lines reader for the side files: flat objects with one level of nested objects. */
#include "analyze/jsonl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* A JSON string at p (after the quote) decoded into out (escapes kept simple: \uXXXX → '?'). */
static const char *string(const char *p, char *out, size_t size)
{
	size_t n = 0;
	while (*p && *p != '"') {
		char c = *p++;
		if (c == '\\') {
			c = *p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u':
				for (int i = 0; i < 4; i++)
					if (!*p++)
						return NULL;
				c = '?';
				break;
			case '"':
			case '\\':
			case '/':
				break;
			default:
				return NULL;
			}
		} else if ((unsigned char)c < 0x20) {
			return NULL;
		}
		if (n + 1 < size)
			out[n++] = c;
	}
	if (*p != '"')
		return NULL;
	if (size)
		out[n] = 0;
	return p + 1;
}

static const char *value(const char *p, struct rt_jv *v)
{
	p = ws(p);
	if (*p == '"') {
		v->type = RT_JV_STRING;
		return string(p + 1, v->str, sizeof(v->str));
	}
	if (!strncmp(p, "true", 4)) {
		v->type = RT_JV_BOOL;
		v->num = 1;
		return p + 4;
	}
	if (!strncmp(p, "false", 5)) {
		v->type = RT_JV_BOOL;
		v->num = 0;
		return p + 5;
	}
	if (!strncmp(p, "null", 4)) {
		v->type = RT_JV_NULL;
		return p + 4;
	}
	/* strtod also takes nan, inf, hex and a leading '+': only JSON's number grammar is accepted */
	const char *q = p;
	if (*q == '-')
		q++;
	if (*q < '0' || *q > '9')
		return NULL;
	while (*q >= '0' && *q <= '9')
		q++;
	if (*q == '.') {
		if (*++q < '0' || *q > '9')
			return NULL;
		while (*q >= '0' && *q <= '9')
			q++;
	}
	if (*q == 'e' || *q == 'E') {
		if (*++q == '+' || *q == '-')
			q++;
		if (*q < '0' || *q > '9')
			return NULL;
		while (*q >= '0' && *q <= '9')
			q++;
	}
	char *end;
	v->num = strtod(p, &end);
	if (end != q)
		return NULL;
	v->type = RT_JV_NUMBER;
	return end;
}

int rt_jsonl_parse(const char *line, struct rt_jobj *obj)
{
	obj->n = 0;
	obj->nnested = 0;
	obj->nested_name[0] = 0;
	const char *p = ws(line);
	if (*p != '{')
		return -1;
	p = ws(p + 1);
	if (*p == '}')
		return *ws(p + 1) ? -1 : 0;
	for (;;) {
		char k[RT_JKEY_MAX];
		if (*p != '"' || !(p = string(p + 1, k, sizeof(k))))
			return -1;
		p = ws(p);
		if (*p != ':')
			return -1;
		p = ws(p + 1);
		if (*p == '{') {
			/* one nested object of scalars (e.g. "counters") */
			if (obj->nested_name[0])
				return -1;
			snprintf(obj->nested_name, sizeof(obj->nested_name), "%s", k);
			p = ws(p + 1);
			if (*p == '}') {
				p++;
			} else {
				for (;;) {
					struct rt_jfield tmp;
					struct rt_jfield *f = obj->nnested < RT_JNESTED_MAX
					                          ? &obj->nested[obj->nnested]
					                          : &tmp;
					if (*p != '"' ||
					    !(p = string(p + 1, f->key, sizeof(f->key))))
						return -1;
					p = ws(p);
					if (*p != ':')
						return -1;
					if (!(p = value(p + 1, &f->v)))
						return -1;
					if (f != &tmp)
						obj->nnested++;
					p = ws(p);
					if (*p == ',') {
						p = ws(p + 1);
						continue;
					}
					if (*p != '}')
						return -1;
					p++;
					break;
				}
			}
		} else {
			struct rt_jfield tmp;
			struct rt_jfield *f = obj->n < RT_JFIELDS_MAX ? &obj->f[obj->n] : &tmp;
			memcpy(f->key, k, sizeof(f->key));
			if (!(p = value(p, &f->v)))
				return -1;
			if (f != &tmp)
				obj->n++;
		}
		p = ws(p);
		if (*p == ',') {
			p = ws(p + 1);
			continue;
		}
		if (*p != '}')
			return -1;
		return *ws(p + 1) ? -1 : 0;
	}
}

const struct rt_jv *rt_jget(const struct rt_jobj *obj, const char *key)
{
	for (unsigned i = 0; i < obj->n; i++)
		if (!strcmp(obj->f[i].key, key))
			return &obj->f[i].v;
	return NULL;
}

bool rt_jnum(const struct rt_jobj *obj, const char *key, double *out)
{
	const struct rt_jv *v = rt_jget(obj, key);
	if (!v || (v->type != RT_JV_NUMBER && v->type != RT_JV_BOOL))
		return false;
	*out = v->num;
	return true;
}

const char *rt_jstr(const struct rt_jobj *obj, const char *key)
{
	const struct rt_jv *v = rt_jget(obj, key);
	return v && v->type == RT_JV_STRING ? v->str : NULL;
}

bool rt_jts(const struct rt_jobj *obj, const char *key, uint64_t *ts_ns)
{
	const char *s = rt_jstr(obj, key);
	if (!s)
		return false;
	/* digits only: strtoull would also take blanks, a sign (wrapping "-1") and overflow */
	if (*s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long sec = strtoull(s, &end, 10);
	uint64_t frac = 0;
	int digits = 0;
	if (errno || sec > UINT64_MAX / 1000000000ull - 1)
		return false;
	if (*end == '.') {
		for (const char *p = end + 1; *p; p++) {
			if (*p < '0' || *p > '9' || digits == 9)
				return false;
			frac = frac * 10 + (uint64_t)(*p - '0');
			digits++;
		}
		while (digits++ < 9)
			frac *= 10;
	} else if (*end) {
		return false;
	}
	*ts_ns = (uint64_t)sec * 1000000000ull + frac;
	return true;
}
