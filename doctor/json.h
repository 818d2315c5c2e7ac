/* A small JSON reader (RFC 8259) into a tree of nodes, for documents other rocetrace commands wrote. */
#ifndef RT_DOCTOR_JSON_H
#define RT_DOCTOR_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum rt_json_type {
	RT_JSON_NULL,
	RT_JSON_FALSE,
	RT_JSON_TRUE,
	RT_JSON_NUMBER,
	RT_JSON_STRING,
	RT_JSON_ARRAY,
	RT_JSON_OBJECT,
};

struct rt_json_value {
	enum rt_json_type type;
	char *key;  /* member name when the parent is an object, else NULL */
	char *str;  /* RT_JSON_STRING: the value, unescaped (UTF-8, NUL-terminated) */
	double num; /* RT_JSON_NUMBER */
	struct rt_json_value *child; /* first element or member (arrays, objects) */
	struct rt_json_value *next;  /* next sibling */
};

/*
 * Parse one JSON value from text[0..len) (whitespace around it allowed,
 * nothing else after it). Returns the root, or NULL with errbuf (size
 * errlen) saying what and at which byte. Nesting deeper than 64 is refused.
 */
struct rt_json_value *rt_json_parse(const char *text, size_t len, char *errbuf, size_t errlen);
void rt_json_free(struct rt_json_value *v);

/* Member `key` of an object (the first one of that name), or NULL. */
const struct rt_json_value *rt_json_get(const struct rt_json_value *obj, const char *key);
/* Member `key` when it is a string, else NULL. */
const char *rt_json_get_str(const struct rt_json_value *obj, const char *key);
/* Member `key` when it is a number: true and *out set. */
bool rt_json_get_num(const struct rt_json_value *obj, const char *key, double *out);

#endif
