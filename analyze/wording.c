/* Numbers as the verdict and the findings write them for people: grouped, rounded, durations in units. */
#include "analyze/wording.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thousands separated by commas in the integer part of a number written out in full ("-1234.5"). */
static void group(char *out, size_t size, const char *plain)
{
	const char *digits = plain + (plain[0] == '-'), *dot = strchr(digits, '.');
	size_t nint = dot ? (size_t)(dot - digits) : strlen(digits), k = 0;
	if (plain[0] == '-' && k + 1 < size)
		out[k++] = '-';
	for (size_t i = 0; i < nint && k + 2 < size; i++) {
		if (i && (nint - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	snprintf(out + k, size - k, "%s", dot ? dot : "");
}

const char *an_w_int(char out[32], uint64_t v)
{
	char plain[24];
	snprintf(plain, sizeof(plain), "%llu", (unsigned long long)v);
	group(out, 32, plain);
	return out;
}

/* Two significant digits of a number below 0.01 ("0.0012", "1.5e-7"). */
static void two_digits(char out[48], double v)
{
	char e[32];
	snprintf(e, sizeof(e), "%.1e",
	         fabs(v)); /* "1.2e-03": the digits and the exponent, rounded */
	int exp = atoi(strchr(e, 'e') + 1);
	const char *sign = v < 0 ? "-" : "";
	if (exp < -6) {
		snprintf(out, 48, "%s%c.%ce%d", sign, e[0], e[2], exp);
		return;
	}
	char zeros[8] = "";
	for (int i = 0; i < -exp - 1 && i < 6; i++)
		zeros[i] = '0';
	snprintf(out, 48, "%s0.%s%c%c", sign, zeros, e[0], e[2]);
}

const char *an_w_num(char out[48], double v, int digits)
{
	double a = fabs(v);
	if (a != 0 && a < 0.01) {
		two_digits(out, v);
		return out;
	}
	char plain[48];
	snprintf(plain, sizeof(plain), "%.*f", digits, v);
	char *dot = strchr(plain, '.');
	if (dot) {
		char *end = plain + strlen(plain);
		while (end > dot + 1 && end[-1] == '0')
			*--end = 0;
		if (end == dot + 1)
			*dot = 0;
	}
	group(out, 48, plain);
	return out;
}

const char *an_w_dur(char out[48], uint64_t ns)
{
	char n[48];
	double v = (double)ns;
	if (v < 1e3)
		snprintf(out, 48, "%s ns", an_w_num(n, v, 0));
	else if (v < 1e6)
		snprintf(out, 48, "%s us", an_w_num(n, v / 1e3, 2));
	else if (v < 1e9)
		snprintf(out, 48, "%s ms", an_w_num(n, v / 1e6, 3));
	else
		snprintf(out, 48, "%s s", an_w_num(n, v / 1e9, 3));
	return out;
}

const char *an_w_mac(char out[18], const uint8_t mac[6])
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
	         mac[5]);
	return out;
}

const char *an_w_plural(uint64_t n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}
