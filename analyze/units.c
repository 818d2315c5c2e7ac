/* Command-line units: link speeds ("100G") and durations ("100us"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/analyze.h"

static double number(const char *s, const char **rest)
{
	char *end;
	double v = strtod(s, &end);
	*rest = end;
	if (end == s || !isfinite(v) || v <= 0)
		return -1;
	return v;
}

uint64_t rt_parse_rate_bps(const char *s)
{
	const char *u;
	double v = number(s, &u);
	if (v < 0)
		return 0;
	double mul = 1;
	if (!strcasecmp(u, "") || !strcasecmp(u, "bps"))
		mul = 1;
	else if (!strcasecmp(u, "k") || !strcasecmp(u, "kbps"))
		mul = 1e3;
	else if (!strcasecmp(u, "m") || !strcasecmp(u, "mbps"))
		mul = 1e6;
	else if (!strcasecmp(u, "g") || !strcasecmp(u, "gbps"))
		mul = 1e9;
	else if (!strcasecmp(u, "t") || !strcasecmp(u, "tbps"))
		mul = 1e12;
	else
		return 0;
	double bps = v * mul;
	/* 1 Mb/s .. 100 Tb/s: outside that a quantum is absurd */
	if (bps < 1e6 || bps > 1e14)
		return 0;
	return (uint64_t)(bps + 0.5);
}

uint64_t rt_parse_duration_ns(const char *s)
{
	const char *u;
	double v = number(s, &u);
	if (v < 0)
		return 0;
	double mul;
	if (!strcmp(u, "") || !strcmp(u, "ns"))
		mul = 1;
	else if (!strcmp(u, "us"))
		mul = 1e3;
	else if (!strcmp(u, "ms"))
		mul = 1e6;
	else if (!strcmp(u, "s"))
		mul = 1e9;
	else
		return 0;
	double ns = v * mul;
	if (ns < 1 || ns > 1e15)
		return 0;
	return (uint64_t)(ns + 0.5);
}
