/* Durations as the text report writes them: "1.250 s", "3.500 ms", "8.7 us", "850 ns". */
#include "common/outbuf.h"
#include "common/textfmt.h"
#include "render/report_text.h"

void an_text_ns(struct rt_outbuf *o, uint64_t ns)
{
	char buf[32];
	rt_out_str(o, rt_fmt_duration(buf, sizeof(buf), ns));
}
