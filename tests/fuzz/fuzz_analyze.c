/* libFuzzer target for the analyzer: the input is a stream of frames (time step, length, bytes) dissected and fed in. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "render/sinks.h"
#include "dissect/dissect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Byte 0: options (bit 0 timeline as JSON, bits 1-2 link speed, bits 3-4
 * bucket, bit 5 two capture interfaces, each a vantage point). Then frames: flags (1 byte: bit 7
 * steps time back, bits 0-5 add to the wire length; with two interfaces,
 * bit 6 is the interface), time step (2 bytes LE, x 64 ns), length (2 bytes
 * LE, clipped to what is left), the frame's bytes.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t speeds[] = {100000000000ull, 25000000000ull, 10000000000ull,
	                                  400000000000ull};
	static const uint64_t buckets[] = {100000, 1000, 1000000, 10000000};
	if (size < 1)
		return 0;
	FILE *sink = fopen("/dev/null", "w");
	if (!sink)
		return 0;
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.link_speed_bps = speeds[(data[0] >> 1) & 3];
	o.storm_ns = 1000000;
	if (data[0] & 0x20) {
		o.vantage = true; /* capture interface i is capture point i */
		o.vantage_clocks = true;
		o.vantage_window_ns = 100000; /* short: windows close within the input */
	}
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	if (!an) {
		fclose(sink);
		return 0;
	}
	/* every sink: the timeline's rows, the JSON report, the text summary */
	struct rt_an_timeline_opts tlo = {.bucket_ns = buckets[(data[0] >> 3) & 3],
	                                  .json = data[0] & 1};
	struct rt_an_sink s;
	if (rt_an_timeline_sink(sink, &tlo, &s, errbuf) < 0 ||
	    rt_analyzer_add_sink(an, &s, errbuf) < 0 ||
	    rt_an_report_json_sink(sink, &s, errbuf) < 0 ||
	    rt_analyzer_add_sink(an, &s, errbuf) < 0 ||
	    rt_an_report_text_sink(sink, 5, &s, errbuf) < 0 ||
	    rt_analyzer_add_sink(an, &s, errbuf) < 0) {
		rt_analyzer_free(an);
		fclose(sink);
		return 0;
	}
	struct rt_dissect_opts dopts;
	rt_dissect_opts_init(&dopts);
	uint64_t ts = 1700000000000000000ull;
	size_t off = 1;
	uint64_t frames = 0;
	while (size - off >= 5) {
		uint8_t flags = data[off];
		uint64_t step = (uint64_t)(data[off + 1] | data[off + 2] << 8) * 64;
		size_t len = (size_t)(data[off + 3] | data[off + 4] << 8);
		off += 5;
		if (len > size - off)
			len = size - off;
		ts = (flags & 0x80) ? ts - step : ts + step;
		struct rt_record rec;
		rt_dissect_buf(&dopts, RT_LINK_ETHERNET, data + off, (uint32_t)len,
		               (uint32_t)len + (flags & 0x3f), &rec);
		rec.ts_ns = ts;
		rec.interface_id = (data[0] & 0x20) ? (flags >> 6) & 1 : 0;
		rec.point = (uint16_t)rec.interface_id;
		rt_analyzer_feed(an, &rec);
		off += len;
		frames++;
	}
	rt_analyzer_finish(an, errbuf);
	struct rt_an_counts t;
	rt_analyzer_totals(an, &t);
	if (t.packets != frames || t.roce_packets > t.packets || t.ce > t.roce_packets ||
	    t.cnp > t.roce_packets || rt_analyzer_flow_count(an) > t.roce_packets)
		abort();
	static const char *const files[1] = {"-"};
	const struct rt_an_vantage vp[2] = {
	    {.name = "a", .nfiles = 1, .files = files, .frames = frames},
	    {.name = "b", .nfiles = 1, .files = files}};
	if (rt_analyzer_vantage_points(an, vp, (data[0] & 0x20) ? 2 : 1, errbuf) < 0)
		abort();
	rt_analyzer_report(an, errbuf);
	rt_analyzer_free(an);
	fclose(sink);
	return 0;
}
