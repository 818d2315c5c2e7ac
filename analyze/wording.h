/* Numbers as the verdict and the findings write them for people: 1,234,567; 1.23; 850 ns, 12.5 us, 3.25 ms. */
#ifndef RT_ANALYZE_WORDING_H
#define RT_ANALYZE_WORDING_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Thousands grouped: "1,234,567". */
const char *an_w_int(char out[32], uint64_t v);
/* At most `digits` decimals, trailing zeros dropped, thousands grouped; two significant digits below 0.01. */
const char *an_w_num(char out[48], double v, int digits);
/* A duration: "850 ns", "12.5 us", "3.25 ms", "1.5 s". */
const char *an_w_dur(char out[48], uint64_t ns);
/* A MAC: "02:00:00:00:00:01". */
const char *an_w_mac(char out[18], const uint8_t mac[6]);
/* `one` when n is 1, else `more`. */
const char *an_w_plural(uint64_t n, const char *one, const char *more);

#endif
