/* The one JSON reader (RFC 8259): a document parsed into a tree of values kept in the document's own arena. */
#ifndef RT_JSON_READ_H
#define RT_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Every document rocetrace reads back (doctor --json of other hosts, the
 * counters file, the traffic source log) goes through this reader:
 *
 *	struct rt_jdoc doc;
 *	rt_jdoc_init(&doc);
 *	for (each line) {
 *		if (rt_jdoc_parse(&doc, line, len, errbuf) < 0)
 *			... errbuf: "line 1, column 17: expected ':'"
 *		const char *dev = rt_jget_str(doc.root, "dev");
 *	}
 *	rt_jdoc_free(&doc);
 *
 * A parse reuses the memory of the previous one: the values of a document
 * live until its next parse or its free. Numbers keep their text, so each
 * is read as what the caller needs: exactly as an unsigned 64-bit integer
 * (rt_jval_u64), or as a double.
 */

enum rt_jtype {
	RT_JNULL,
	RT_JFALSE,
	RT_JTRUE,
	RT_JNUMBER,
	RT_JSTRING,
	RT_JARRAY,
	RT_JOBJECT,
};

struct rt_jval {
	enum rt_jtype type;
	/* RT_JSTRING: bytes of str; RT_JNUMBER: of its text; RT_JARRAY, RT_JOBJECT: members */
	size_t len;
	const char *key; /* member name when the parent is an object, else NULL */
	/* RT_JSTRING: the value unescaped (UTF-8; \u0000 and lone surrogates become U+FFFD);
	 * RT_JNUMBER: the number as written. NUL-terminated. */
	const char *str;
	struct rt_jval *child; /* first element or member (arrays, objects) */
	struct rt_jval *next;  /* next sibling */
};

struct rt_jblock;

struct rt_jdoc {
	const struct rt_jval *root; /* after a parse that succeeded, else NULL */
	struct rt_jblock *blocks;   /* the arena the values live in */
	struct rt_jblock *cur;      /* the block allocations come from */
};

/* Containers nested deeper than this are refused. */
#define RT_JSON_DEPTH_MAX 64

void rt_jdoc_init(struct rt_jdoc *doc);
/*
 * Parse one JSON value from text[0..len) (whitespace around it allowed,
 * nothing else after it) into doc, replacing what it held. Returns 0 with
 * doc->root set; -EINVAL with errbuf (RT_ERRBUF_SIZE) saying what and where
 * ("line L, column C: ...", counted from 1, columns in bytes); -ENOMEM.
 */
int rt_jdoc_parse(struct rt_jdoc *doc, const char *text, size_t len, char *errbuf);
void rt_jdoc_free(struct rt_jdoc *doc);

/* Member `key` of an object (the first of that name), or NULL (also when obj is NULL or no object). */
const struct rt_jval *rt_jget(const struct rt_jval *obj, const char *key);
/* Member `key` when it is a string, else NULL. */
const char *rt_jget_str(const struct rt_jval *obj, const char *key);
/* Member `key` when it is a number: true with *out set (rt_jval_num). */
bool rt_jget_num(const struct rt_jval *obj, const char *key, double *out);

/*
 * A number as an unsigned 64-bit integer, exactly: 0 with *out set; -EINVAL
 * when v is no number or not written as a non-negative integer (a sign, a
 * fraction or an exponent); -ERANGE when it is above 2^64-1.
 */
int rt_jval_u64(const struct rt_jval *v, uint64_t *out);
/* A number as the nearest double (beyond the range: +-HUGE_VAL); false when v is no number. */
bool rt_jval_num(const struct rt_jval *v, double *out);
/*
 * A "SECONDS.NANOSECONDS" string (rocetrace's timestamps: digits, a point
 * and at most 9 digits of fraction) as nanoseconds; false when v is no such
 * string or the time does not fit in 64 bits.
 */
bool rt_jval_ts(const struct rt_jval *v, uint64_t *ts_ns);

#endif
