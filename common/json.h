/* One JSON writer for every output: objects and arrays with their commas, keys and values, into an
 * output buffer. */
#ifndef RT_JSON_H
#define RT_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "common/outbuf.h"

/*
 * The version of the layout of rocetrace's JSON: every JSON document
 * (analyze --json, doctor --json, dissect --count --json) starts with
 * "schema": RT_JSON_SCHEMA. Keys are only ever added; a key whose meaning
 * would change gets a new name instead, and this number goes up when one
 * is removed. JSON Lines carry no version per line (docs/FORMATS.md).
 */
#define RT_JSON_SCHEMA 1

/*
 * The writer keeps, per open container, whether it holds a member yet, so
 * callers never write a comma themselves:
 *
 *	rt_json_obj(&j);                       {
 *	RT_JSON_U64(&j, "frame", 7);             "frame":7
 *	RT_JSON_KEY(&j, "quanta");               ,"quanta":
 *	rt_json_arr(&j);                         [
 *	rt_json_next(&j); rt_json_u64(&j, 1);      1
 *	rt_json_next(&j); rt_json_u64(&j, 2);      ,2
 *	rt_json_arr_end(&j);                     ]
 *	rt_json_obj_end(&j);                   }
 *
 * A member is a key (RT_JSON_KEY for a literal, rt_json_key otherwise)
 * followed by one value; an array element is rt_json_next() followed by one
 * value. Containers nest up to 63 deep.
 */
struct rt_json {
	struct rt_outbuf *o;
	uint64_t more;  /* bit d: the container at depth d holds a member already */
	unsigned depth; /* containers open */
};

static inline void rt_json_init(struct rt_json *j, struct rt_outbuf *o)
{
	j->o = o;
	j->more = 0;
	j->depth = 0;
}

/* Marks a member of the innermost container; true when one came before it (a comma is due). */
static inline bool rt_json_member(struct rt_json *j)
{
	uint64_t bit = UINT64_C(1) << (j->depth & 63);
	bool more = (j->more & bit) != 0;
	j->more |= bit;
	return more;
}

static inline void rt_json_open(struct rt_json *j, char c)
{
	rt_out_char(j->o, c);
	j->depth++;
	j->more &= ~(UINT64_C(1) << (j->depth & 63));
}

static inline void rt_json_close(struct rt_json *j, char c)
{
	rt_out_char(j->o, c);
	j->depth--;
}

static inline void rt_json_obj(struct rt_json *j)
{
	rt_json_open(j, '{');
}
static inline void rt_json_obj_end(struct rt_json *j)
{
	rt_json_close(j, '}');
}
static inline void rt_json_arr(struct rt_json *j)
{
	rt_json_open(j, '[');
}
static inline void rt_json_arr_end(struct rt_json *j)
{
	rt_json_close(j, ']');
}

/* Before each array element. */
static inline void rt_json_next(struct rt_json *j)
{
	if (rt_json_member(j))
		rt_out_char(j->o, ',');
}

/*
 * `lit` is ,"KEY": as a literal of `len` bytes; the comma is written only
 * when due. With room in the buffer, both copies have the literal's length
 * (known where this is inlined): the comma goes first, and the rest lands
 * on it when no comma is due.
 */
static inline void rt_json_key_lit(struct rt_json *j, const char *lit, size_t len)
{
	bool more = rt_json_member(j);
	struct rt_outbuf *o = j->o;
	if (len <= RT_OUTBUF_SIZE - o->len) {
		char *dst = o->buf + o->len;
		dst[0] = ',';
		memcpy(dst + more, lit + 1, len - 1);
		o->len += len - 1 + more;
	} else {
		rt_out_write(o, lit + !more, len - !more);
	}
}

/* A literal key: one copy, no escaping, no strlen. */
#define RT_JSON_KEY(j, key) rt_json_key_lit((j), ",\"" key "\":", sizeof(",\"" key "\":") - 1)

/* A key that is not a literal (escaped as needed). */
static inline void rt_json_key(struct rt_json *j, const char *key)
{
	if (rt_json_member(j))
		rt_out_char(j->o, ',');
	rt_out_json_str(j->o, key);
	rt_out_char(j->o, ':');
}

/* ---- values ---- */

static inline void rt_json_u64(struct rt_json *j, uint64_t v)
{
	rt_out_u64(j->o, v);
}
static inline void rt_json_i64(struct rt_json *j, int64_t v)
{
	rt_out_i64(j->o, v);
}
static inline void rt_json_bool(struct rt_json *j, bool v)
{
	if (v)
		rt_out_write(j->o, "true", 4);
	else
		rt_out_write(j->o, "false", 5);
}
static inline void rt_json_null(struct rt_json *j)
{
	rt_out_write(j->o, "null", 4);
}
/* Any string, escaped. */
static inline void rt_json_str(struct rt_json *j, const char *s)
{
	rt_out_json_str(j->o, s);
}
/* A string escaped, or null when s is NULL (a figure's reason, a name that may be missing). */
static inline void rt_json_str_or_null(struct rt_json *j, const char *s)
{
	if (s)
		rt_out_json_str(j->o, s);
	else
		rt_json_null(j);
}
/* A name from a table of the program (nothing to escape): quoted as it is. */
static inline void rt_json_name(struct rt_json *j, const char *s)
{
	rt_out_char(j->o, '"');
	rt_out_str(j->o, s);
	rt_out_char(j->o, '"');
}
/* A finite number with up to `decimals` digits after the point (NaN and infinities print 0). */
static inline void rt_json_double(struct rt_json *j, double v, int decimals)
{
	rt_out_double(j->o, v, decimals);
}
/* A timestamp as the string "SECONDS.NANOSECONDS". */
static inline void rt_json_ts(struct rt_json *j, uint64_t ts_ns)
{
	rt_out_char(j->o, '"');
	rt_out_ts(j->o, ts_ns);
	rt_out_char(j->o, '"');
}
/* An IPv4 (version 4) or IPv6 address as a string. */
static inline void rt_json_ip(struct rt_json *j, int version, const uint8_t addr[16])
{
	rt_out_char(j->o, '"');
	rt_out_ip(j->o, version, addr);
	rt_out_char(j->o, '"');
}
/* A MAC address as the string "aa:bb:cc:dd:ee:ff". */
static inline void rt_json_mac(struct rt_json *j, const uint8_t mac[6])
{
	rt_out_char(j->o, '"');
	rt_out_mac(j->o, mac);
	rt_out_char(j->o, '"');
}

/* ---- members with literal keys: key and the start of the value copied in one write ---- */

#define RT_JSON_LIT_(j, lit) rt_json_key_lit((j), (lit), sizeof(lit) - 1)
#define RT_JSON_U64(j, key, v)                                                                     \
	do {                                                                                       \
		RT_JSON_KEY((j), key);                                                             \
		rt_json_u64((j), (v));                                                             \
	} while (0)
#define RT_JSON_BOOL(j, key, v)                                                                    \
	do {                                                                                       \
		if (v)                                                                             \
			RT_JSON_LIT_((j), ",\"" key "\":true");                                    \
		else                                                                               \
			RT_JSON_LIT_((j), ",\"" key "\":false");                                   \
	} while (0)
/* a name from a table of the program: nothing to escape */
#define RT_JSON_NAME(j, key, v)                                                                    \
	do {                                                                                       \
		RT_JSON_LIT_((j), ",\"" key "\":\"");                                              \
		rt_out_str((j)->o, (v));                                                           \
		rt_out_char((j)->o, '"');                                                          \
	} while (0)
#define RT_JSON_STR(j, key, v)                                                                     \
	do {                                                                                       \
		RT_JSON_KEY((j), key);                                                             \
		rt_json_str((j), (v));                                                             \
	} while (0)
/* a timestamp as "SECONDS.NANOSECONDS" */
#define RT_JSON_TS(j, key, ts)                                                                     \
	do {                                                                                       \
		RT_JSON_LIT_((j), ",\"" key "\":\"");                                              \
		rt_out_ts((j)->o, (ts));                                                           \
		rt_out_char((j)->o, '"');                                                          \
	} while (0)

#endif
