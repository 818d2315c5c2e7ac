/* A small JSON Lines reader for the side files (counter samples, traffic source log). */
#ifndef RT_JSONL_H
#define RT_JSONL_H

#include <stdbool.h>
#include <stdint.h>

#define RT_JKEY_MAX    64
#define RT_JSTR_MAX    128
#define RT_JFIELDS_MAX 48
#define RT_JNESTED_MAX 1024

enum rt_jv_type { RT_JV_NULL, RT_JV_BOOL, RT_JV_NUMBER, RT_JV_STRING };

struct rt_jv {
	enum rt_jv_type type;
	double num;
	char str[RT_JSTR_MAX]; /* truncated when longer */
};

struct rt_jfield {
	char key[RT_JKEY_MAX];
	struct rt_jv v;
};

/* One object: scalar members, plus the members of at most one nested object of scalars. */
struct rt_jobj {
	unsigned n, nnested;
	struct rt_jfield f[RT_JFIELDS_MAX];
	char nested_name[RT_JKEY_MAX];
	struct rt_jfield nested[RT_JNESTED_MAX];
};

/* Parse one line; 0, or -1 when it is not such an object (members beyond the limits are dropped). */
int rt_jsonl_parse(const char *line, struct rt_jobj *obj);
const struct rt_jv *rt_jget(const struct rt_jobj *obj, const char *key);
bool rt_jnum(const struct rt_jobj *obj, const char *key, double *out);
const char *rt_jstr(const struct rt_jobj *obj, const char *key);
/* A "SECONDS.NANOSECONDS" string member as nanoseconds. */
bool rt_jts(const struct rt_jobj *obj, const char *key, uint64_t *ts_ns);

#endif
