/* Counter arithmetic that stops at the largest value instead of wrapping. */
#ifndef RT_SATMATH_H
#define RT_SATMATH_H

#include <stdint.h>

/* a + b, or UINT64_MAX when the sum does not fit. */
static inline uint64_t rt_sat_add_u64(uint64_t a, uint64_t b)
{
	uint64_t s;
	return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

#endif
