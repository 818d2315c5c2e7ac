/* Recursive-descent JSON reader: strings unescaped (\uXXXX and surrogate pairs to UTF-8), depth-limited, one allocation per node. */
#include "doctor/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

struct parser {
	const char *s;
	size_t len, pos;
	char *errbuf;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 2, 3))) static void fail(struct parser *p, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = true;
	if (!p->errbuf || !p->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(p->errbuf, p->errlen, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < p->errlen)
		snprintf(p->errbuf + n, p->errlen - (size_t)n, " at byte %zu", p->pos);
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
	                           p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static int hex4(struct parser *p, uint32_t *out)
{
	if (p->len - p->pos < 4) {
		fail(p, "short \\u escape");
		return -1;
	}
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else {
			fail(p, "bad \\u escape");
			return -1;
		}
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* At the opening quote; returns a malloc'ed unescaped string. */
static char *parse_string(struct parser *p)
{
	p->pos++; /* '"' */
	size_t start = p->pos;
	/* the unescaped text is never longer than the escaped one */
	size_t end = start;
	while (end < p->len && p->s[end] != '"') {
		if (p->s[end] == '\\')
			end++;
		end++;
	}
	if (end >= p->len) {
		fail(p, "unterminated string");
		return NULL;
	}
	char *out = malloc(end - start + 1);
	if (!out) {
		fail(p, "out of memory");
		return NULL;
	}
	size_t o = 0;
	while (p->s[p->pos] != '"') {
		unsigned char c = (unsigned char)p->s[p->pos++];
		if (c < 0x20) {
			fail(p, "control character in string");
			free(out);
			return NULL;
		}
		if (c != '\\') {
			out[o++] = (char)c;
			continue;
		}
		char e = p->s[p->pos++];
		switch (e) {
		case '"':
		case '\\':
		case '/':
			out[o++] = e;
			break;
		case 'b':
			out[o++] = '\b';
			break;
		case 'f':
			out[o++] = '\f';
			break;
		case 'n':
			out[o++] = '\n';
			break;
		case 'r':
			out[o++] = '\r';
			break;
		case 't':
			out[o++] = '\t';
			break;
		case 'u': {
			uint32_t cp;
			if (hex4(p, &cp) < 0) {
				free(out);
				return NULL;
			}
			if (cp >= 0xD800 && cp < 0xDC00 && p->len - p->pos >= 6 &&
			    p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u') {
				size_t save = p->pos;
				uint32_t lo;
				p->pos += 2;
				if (hex4(p, &lo) < 0) {
					free(out);
					return NULL;
				}
				if (lo >= 0xDC00 && lo < 0xE000)
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				else
					p->pos = save;
			}
			if (cp == 0 || (cp >= 0xD800 && cp < 0xE000))
				cp = 0xFFFD; /* no NUL inside C strings; lone surrogates replaced */
			/* \uXXXX is 6 bytes of input, at most 4 of output (a pair: 12 → 4) */
			o += put_utf8(out + o, cp);
			break;
		}
		default:
			fail(p, "bad escape '\\%c'", e);
			free(out);
			return NULL;
		}
	}
	p->pos++; /* closing quote */
	out[o] = '\0';
	return out;
}

static struct rt_json_value *parse_value(struct parser *p, int depth);

static struct rt_json_value *new_node(struct parser *p, enum rt_json_type t)
{
	struct rt_json_value *v = calloc(1, sizeof(*v));
	if (!v)
		fail(p, "out of memory");
	else
		v->type = t;
	return v;
}

static bool literal(struct parser *p, const char *word)
{
	size_t l = strlen(word);
	if (p->len - p->pos >= l && !memcmp(p->s + p->pos, word, l)) {
		p->pos += l;
		return true;
	}
	return false;
}

static struct rt_json_value *parse_number(struct parser *p)
{
	size_t start = p->pos;
	if (p->pos < p->len && p->s[p->pos] == '-')
		p->pos++;
	size_t digits = p->pos;
	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		p->pos++;
	if (p->pos == digits) {
		fail(p, "unexpected character");
		return NULL;
	}
	if (p->pos < p->len && p->s[p->pos] == '.') {
		p->pos++;
		size_t f = p->pos;
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
		if (p->pos == f) {
			fail(p, "bad number");
			return NULL;
		}
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		size_t e = p->pos;
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
		if (p->pos == e) {
			fail(p, "bad number");
			return NULL;
		}
	}
	char tmp[64];
	size_t l = p->pos - start;
	if (l >= sizeof(tmp)) {
		fail(p, "number too long");
		return NULL;
	}
	memcpy(tmp, p->s + start, l);
	tmp[l] = '\0';
	struct rt_json_value *v = new_node(p, RT_JSON_NUMBER);
	if (v)
		v->num = strtod(tmp, NULL);
	return v;
}

/* Elements of an array or members of an object, after the opening bracket. */
static struct rt_json_value *parse_container(struct parser *p, int depth, bool object)
{
	struct rt_json_value *v = new_node(p, object ? RT_JSON_OBJECT : RT_JSON_ARRAY);
	if (!v)
		return NULL;
	p->pos++;
	struct rt_json_value **tail = &v->child;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == (object ? '}' : ']')) {
		p->pos++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(p);
		if (object) {
			if (p->pos >= p->len || p->s[p->pos] != '"') {
				fail(p, "expected a member name");
				break;
			}
			key = parse_string(p);
			if (!key)
				break;
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(key);
				fail(p, "expected ':'");
				break;
			}
			p->pos++;
		}
		struct rt_json_value *e = parse_value(p, depth + 1);
		if (!e) {
			free(key);
			break;
		}
		e->key = key;
		*tail = e;
		tail = &e->next;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == (object ? '}' : ']')) {
			p->pos++;
			return v;
		}
		fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	rt_json_free(v);
	return NULL;
}

static struct rt_json_value *parse_value(struct parser *p, int depth)
{
	if (depth > MAX_DEPTH) {
		fail(p, "nested too deeply");
		return NULL;
	}
	skip_ws(p);
	if (p->pos >= p->len) {
		fail(p, "unexpected end");
		return NULL;
	}
	char c = p->s[p->pos];
	if (c == '{' || c == '[')
		return parse_container(p, depth, c == '{');
	if (c == '"') {
		char *s = parse_string(p);
		if (!s)
			return NULL;
		struct rt_json_value *v = new_node(p, RT_JSON_STRING);
		if (!v) {
			free(s);
			return NULL;
		}
		v->str = s;
		return v;
	}
	if (literal(p, "null"))
		return new_node(p, RT_JSON_NULL);
	if (literal(p, "true"))
		return new_node(p, RT_JSON_TRUE);
	if (literal(p, "false"))
		return new_node(p, RT_JSON_FALSE);
	return parse_number(p);
}

struct rt_json_value *rt_json_parse(const char *text, size_t len, char *errbuf, size_t errlen)
{
	struct parser p = {.s = text, .len = len, .errbuf = errbuf, .errlen = errlen};
	struct rt_json_value *v = parse_value(&p, 0);
	if (!v)
		return NULL;
	skip_ws(&p);
	if (p.pos != p.len) {
		fail(&p, "text after the value");
		rt_json_free(v);
		return NULL;
	}
	return v;
}

void rt_json_free(struct rt_json_value *v)
{
	while (v) {
		struct rt_json_value *next = v->next;
		rt_json_free(v->child);
		free(v->key);
		free(v->str);
		free(v);
		v = next;
	}
}

const struct rt_json_value *rt_json_get(const struct rt_json_value *obj, const char *key)
{
	if (!obj || obj->type != RT_JSON_OBJECT)
		return NULL;
	for (const struct rt_json_value *m = obj->child; m; m = m->next)
		if (m->key && !strcmp(m->key, key))
			return m;
	return NULL;
}

const char *rt_json_get_str(const struct rt_json_value *obj, const char *key)
{
	const struct rt_json_value *m = rt_json_get(obj, key);
	return m && m->type == RT_JSON_STRING ? m->str : NULL;
}

bool rt_json_get_num(const struct rt_json_value *obj, const char *key, double *out)
{
	const struct rt_json_value *m = rt_json_get(obj, key);
	if (!m || m->type != RT_JSON_NUMBER)
		return false;
	*out = m->num;
	return true;
}
