/* Recursive-descent JSON reader into an arena: strings unescaped (\uXXXX and surrogate pairs to UTF-8), numbers kept as text. */
#include "common/json_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errbuf.h"

/* The arena: blocks kept from parse to parse, filled again from the first. */
struct rt_jblock {
	struct rt_jblock *next;
	size_t size, used;
	_Alignas(max_align_t) unsigned char data[];
};

#define BLOCK_MIN ((size_t)64 * 1024)

struct parser {
	struct rt_jdoc *doc;
	const char *s;
	size_t len, pos;
	char *errbuf;
	int err; /* 0, or the negative errno of the first failure */
};

static void *arena_alloc(struct parser *p, size_t n)
{
	n = (n + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
	struct rt_jdoc *d = p->doc;
	while (d->cur && d->cur->size - d->cur->used < n) {
		d->cur = d->cur->next;
		if (d->cur)
			d->cur->used = 0;
	}
	if (!d->cur) {
		size_t size = n > BLOCK_MIN ? n : BLOCK_MIN;
		struct rt_jblock *b = malloc(sizeof(*b) + size);
		if (!b) {
			if (!p->err)
				p->err = rt_errmsg(p->errbuf, ENOMEM, "out of memory reading JSON");
			return NULL;
		}
		b->next = NULL;
		b->size = size;
		b->used = 0;
		struct rt_jblock **tail = &d->blocks;
		while (*tail)
			tail = &(*tail)->next;
		*tail = b;
		d->cur = b;
	}
	void *m = d->cur->data + d->cur->used;
	d->cur->used += n;
	return m;
}

/* Records the first failure, with the line and column of p->pos. */
__attribute__((format(printf, 2, 3))) static void fail(struct parser *p, const char *fmt, ...)
{
	if (p->err)
		return;
	unsigned long line = 1;
	size_t bol = 0;
	for (size_t i = 0; i < p->pos && i < p->len; i++)
		if (p->s[i] == '\n') {
			line++;
			bol = i + 1;
		}
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->err =
	    rt_errmsg(p->errbuf, EINVAL, "line %lu, column %zu: %s", line, p->pos - bol + 1, what);
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
	                           p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static int hex4(struct parser *p, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++, p->pos++) {
		char c = p->pos < p->len ? p->s[p->pos] : '\0';
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

/* After "\u": the code point of one escape or of a surrogate pair; -1 on a bad escape. */
static int unicode_escape(struct parser *p, uint32_t *cp)
{
	if (hex4(p, cp) < 0)
		return -1;
	if (*cp >= 0xD800 && *cp < 0xDC00 && p->len - p->pos >= 6 && p->s[p->pos] == '\\' &&
	    p->s[p->pos + 1] == 'u') {
		size_t save = p->pos;
		uint32_t lo;
		p->pos += 2;
		if (hex4(p, &lo) < 0)
			return -1;
		if (lo >= 0xDC00 && lo < 0xE000)
			*cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
		else
			p->pos = save;
	}
	if (*cp == 0 || (*cp >= 0xD800 && *cp < 0xE000))
		*cp = 0xFFFD; /* no NUL inside C strings; lone surrogates replaced */
	return 0;
}

/* One escape after the backslash, written at out; its length, or 0 on a bad one. */
static size_t escape(struct parser *p, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	char e = p->s[p->pos++];
	const char *k = e ? strchr(from, e) : NULL;
	if (k) {
		*out = to[k - from];
		return 1;
	}
	uint32_t cp;
	if (e != 'u') {
		p->pos--;
		fail(p, "bad escape '\\%c'", e);
		return 0;
	}
	return unicode_escape(p, &cp) < 0 ? 0 : put_utf8(out, cp);
}

/* At the opening quote: the unescaped string in the arena, its length in *n. */
static char *parse_string(struct parser *p, size_t *n)
{
	size_t start = ++p->pos, end = start;
	bool plain = true;
	while (end < p->len && p->s[end] != '"') {
		if ((unsigned char)p->s[end] < 0x20) {
			p->pos = end;
			fail(p, "control character in string");
			return NULL;
		}
		if (p->s[end] == '\\') {
			plain = false;
			end++;
		}
		end++;
	}
	if (end >= p->len) {
		p->pos = p->len;
		fail(p, "unterminated string");
		return NULL;
	}
	/* the unescaped text is never longer than the escaped one (\uXXXX: 6 bytes in, at most 4 out) */
	char *out = arena_alloc(p, end - start + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	if (plain) {
		memcpy(out, p->s + start, end - start);
		o = end - start;
		p->pos = end;
	}
	while (p->pos < end) {
		char c = p->s[p->pos++];
		if (c != '\\') {
			out[o++] = c;
			continue;
		}
		size_t l = escape(p, out + o);
		if (!l)
			return NULL;
		o += l;
	}
	p->pos = end + 1;
	out[o] = '\0';
	*n = o;
	return out;
}

static size_t digits(struct parser *p)
{
	size_t start = p->pos;
	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		p->pos++;
	return p->pos - start;
}

/* A number by the grammar (no leading zeros, no '+', no nan/inf); its text copied to the arena. */
static bool parse_number(struct parser *p, struct rt_jval *v)
{
	size_t start = p->pos;
	if (p->pos < p->len && p->s[p->pos] == '-')
		p->pos++;
	size_t first = p->pos, n = digits(p);
	if (!n) {
		fail(p, "unexpected character");
		return false;
	}
	if (n > 1 && p->s[first] == '0') {
		p->pos = first;
		fail(p, "number with a leading zero");
		return false;
	}
	if (p->pos < p->len && p->s[p->pos] == '.') {
		p->pos++;
		if (!digits(p)) {
			fail(p, "bad number");
			return false;
		}
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (!digits(p)) {
			fail(p, "bad number");
			return false;
		}
	}
	char *text = arena_alloc(p, p->pos - start + 1);
	if (!text)
		return false;
	memcpy(text, p->s + start, p->pos - start);
	text[p->pos - start] = '\0';
	v->str = text;
	v->len = p->pos - start;
	return true;
}

static struct rt_jval *parse_value(struct parser *p, unsigned depth);

/* Elements of an array or members of an object, after the opening bracket. */
static bool parse_container(struct parser *p, unsigned depth, struct rt_jval *v)
{
	bool object = v->type == RT_JOBJECT;
	char close = object ? '}' : ']';
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return true;
	}
	struct rt_jval **tail = &v->child;
	for (;;) {
		const char *key = NULL;
		skip_ws(p);
		if (object) {
			size_t klen;
			if (p->pos >= p->len || p->s[p->pos] != '"') {
				fail(p, "expected a member name");
				return false;
			}
			if (!(key = parse_string(p, &klen)))
				return false;
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				fail(p, "expected ':'");
				return false;
			}
			p->pos++;
		}
		struct rt_jval *e = parse_value(p, depth + 1);
		if (!e)
			return false;
		e->key = key;
		*tail = e;
		tail = &e->next;
		v->len++;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == close) {
			p->pos++;
			return true;
		}
		fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
		return false;
	}
}

static bool literal(struct parser *p, const char *word, size_t l)
{
	if (p->len - p->pos >= l && !memcmp(p->s + p->pos, word, l)) {
		p->pos += l;
		return true;
	}
	return false;
}

static struct rt_jval *parse_value(struct parser *p, unsigned depth)
{
	skip_ws(p);
	if (p->pos >= p->len) {
		fail(p, "unexpected end");
		return NULL;
	}
	char c = p->s[p->pos];
	if ((c == '{' || c == '[') && depth >= RT_JSON_DEPTH_MAX) {
		fail(p, "nested deeper than %d", RT_JSON_DEPTH_MAX);
		return NULL;
	}
	struct rt_jval *v = arena_alloc(p, sizeof(*v));
	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	bool ok = true;
	if (c == '{' || c == '[') {
		v->type = c == '{' ? RT_JOBJECT : RT_JARRAY;
		ok = parse_container(p, depth, v);
	} else if (c == '"') {
		v->type = RT_JSTRING;
		ok = (v->str = parse_string(p, &v->len)) != NULL;
	} else if (literal(p, "null", 4)) {
		v->type = RT_JNULL;
	} else if (literal(p, "true", 4)) {
		v->type = RT_JTRUE;
	} else if (literal(p, "false", 5)) {
		v->type = RT_JFALSE;
	} else {
		v->type = RT_JNUMBER;
		ok = parse_number(p, v);
	}
	return ok ? v : NULL;
}

void rt_jdoc_init(struct rt_jdoc *doc)
{
	memset(doc, 0, sizeof(*doc));
}

int rt_jdoc_parse(struct rt_jdoc *doc, const char *text, size_t len, char *errbuf)
{
	struct parser p = {.doc = doc, .s = text, .len = len, .errbuf = errbuf};
	doc->root = NULL;
	doc->cur = doc->blocks;
	if (doc->cur)
		doc->cur->used = 0;
	const struct rt_jval *v = parse_value(&p, 0);
	if (v) {
		skip_ws(&p);
		if (p.pos != p.len)
			fail(&p, "text after the value");
	}
	if (p.err)
		return p.err;
	doc->root = v;
	return 0;
}

void rt_jdoc_free(struct rt_jdoc *doc)
{
	while (doc->blocks) {
		struct rt_jblock *next = doc->blocks->next;
		free(doc->blocks);
		doc->blocks = next;
	}
	rt_jdoc_init(doc);
}

const struct rt_jval *rt_jget(const struct rt_jval *obj, const char *key)
{
	if (!obj || obj->type != RT_JOBJECT)
		return NULL;
	for (const struct rt_jval *m = obj->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

const char *rt_jget_str(const struct rt_jval *obj, const char *key)
{
	const struct rt_jval *m = rt_jget(obj, key);
	return m && m->type == RT_JSTRING ? m->str : NULL;
}

bool rt_jget_num(const struct rt_jval *obj, const char *key, double *out)
{
	return rt_jval_num(rt_jget(obj, key), out);
}

int rt_jval_u64(const struct rt_jval *v, uint64_t *out)
{
	if (!v || v->type != RT_JNUMBER || v->str[0] == '-' || strpbrk(v->str, ".eE"))
		return -EINVAL;
	uint64_t n = 0;
	for (const char *c = v->str; *c; c++) {
		unsigned d = (unsigned)(*c - '0');
		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*out = n;
	return 0;
}

bool rt_jval_num(const struct rt_jval *v, double *out)
{
	if (!v || v->type != RT_JNUMBER)
		return false;
	*out = strtod(v->str, NULL);
	return true;
}

bool rt_jval_ts(const struct rt_jval *v, uint64_t *ts_ns)
{
	if (!v || v->type != RT_JSTRING)
		return false;
	const char *s = v->str;
	uint64_t sec = 0, frac = 0;
	int ndig = 0;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		sec = sec * 10 + (uint64_t)(*s - '0');
		/* the seconds of any 64-bit time in ns with room for the fraction */
		if (sec > UINT64_MAX / 1000000000u - 1)
			return false;
	}
	if (*s == '.') {
		for (s++; *s; s++) {
			if (*s < '0' || *s > '9' || ndig == 9)
				return false;
			frac = frac * 10 + (uint64_t)(*s - '0');
			ndig++;
		}
		while (ndig++ < 9)
			frac *= 10;
	} else if (*s) {
		return false;
	}
	*ts_ns = sec * 1000000000u + frac;
	return true;
}
