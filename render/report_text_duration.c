/* Durations as the text report writes them: "1.250 s", "3.500 ms", "8.7 us", "850 ns". */
#include <stdio.h>

#include "common/outbuf.h"
#include "render/report_text.h"

char *an_text_duration(char *buf, size_t size, uint64_t ns)
{
	if (ns >= 1000000000ull)
		snprintf(buf, size, "%.3f s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
	else if (ns >= 1000ull)
		snprintf(buf, size, "%.1f us", (double)ns / 1e3);
	else
		snprintf(buf, size, "%llu ns", (unsigned long long)ns);
	return buf;
}

void an_text_ns(struct rt_outbuf *o, uint64_t ns)
{
	char buf[32];
	rt_out_str(o, an_text_duration(buf, sizeof(buf), ns));
}
