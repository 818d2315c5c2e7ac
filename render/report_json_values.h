/* Values as the JSON report writes them: numbers or null when not known, times in seconds and in nanoseconds. */
#ifndef RT_RENDER_REPORT_JSON_VALUES_H
#define RT_RENDER_REPORT_JSON_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/json.h"

/* A number with `dec` decimals, or null when it is not known (`known` false, or not finite). */
void an_json_num_or_null(struct rt_json *j, double v, int dec, bool known);
/* An integer, or null when it is not known. */
void an_json_u64_or_null(struct rt_json *j, uint64_t v, bool known);
#define NUM(j, key, v, dec, known)                                                                 \
	do {                                                                                       \
		RT_JSON_KEY((j), key);                                                             \
		an_json_num_or_null((j), (v), (dec), (known));                                     \
	} while (0)
/* "KEY": "SECONDS.NANOSECONDS" and "KEY_ns": the same time in integer nanoseconds */
#define TS_NS(j, key, ts)                                                                          \
	do {                                                                                       \
		RT_JSON_TS((j), key, (ts));                                                        \
		RT_JSON_U64((j), key "_ns", (ts));                                                 \
	} while (0)
#define U64_OR_NULL(j, key, v, known)                                                              \
	do {                                                                                       \
		RT_JSON_KEY((j), key);                                                             \
		an_json_u64_or_null((j), (v), (known));                                            \
	} while (0)

#endif
