/* libFuzzer target for the side-file readers: a counters file, or (FUZZ_SOURCE_LOG) a traffic source log, joined to an analyzer. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "render/sinks.h"
#include "tests/analyze/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Byte 0: bit 0 with a timeline (the file is read before the frames and
 * its events join the buckets), else joined to the report after them; bit
 * 1 timeline as JSON. The rest is the file. The frames are a few RC
 * packets of the flows a file names most often in the seeds:
 * 10.0.0.1 > 10.0.0.100 QP 0x200 and back, 10.0.0.2 > 10.0.0.100 QP 0x201.
 */

/* The file the readers read: made once (and unlinked at once: read through /proc), rewritten for each input. */
static int file_of(const uint8_t *data, size_t size, char *path, size_t len)
{
	static int fd = -1;
	if (fd < 0) {
		char name[] = "/tmp/rt-fuzz-side-XXXXXX";
		fd = mkstemp(name);
		if (fd < 0)
			return -1;
		unlink(name);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return -1;
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return 0;
}

static void frames(struct rt_analyzer *an)
{
	static const struct {
		uint32_t src, dst, qp;
		uint8_t opcode, ecn;
	} f[] = {
	    {0x0a000001, 0x0a000064, 0x200, 0x04, 2}, {0x0a000064, 0x0a000001, 0x100, 0x11, 2},
	    {0x0a000002, 0x0a000064, 0x201, 0x04, 3}, {0x0a000064, 0x0a000002, 0x201, 0x81, 2},
	    {0x0a000001, 0x0a000064, 0x200, 0x04, 3},
	};
	for (unsigned i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct rt_record r = f[i].opcode == RT_OPCODE_RC_ACK
		                         ? ack(1700000000000000000ull + i * 1000, f[i].src,
		                               f[i].dst, f[i].qp, i, 0x1f)
		                         : roce(1700000000000000000ull + i * 1000, f[i].src,
		                                f[i].dst, f[i].opcode, f[i].qp, i);
		r.ecn = f[i].ecn;
		rt_analyzer_feed(an, &r);
	}
}

static int load(struct rt_analyzer *an, const char *path, char *errbuf)
{
#ifdef FUZZ_SOURCE_LOG
	return rt_analyzer_load_source_log(an, path, errbuf);
#else
	return rt_analyzer_load_counters(an, path, errbuf);
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], errbuf[RT_ERRBUF_SIZE];
	if (size < 1 || file_of(data + 1, size - 1, path, sizeof(path)) < 0)
		return 0;
	FILE *sink = fopen("/dev/null", "w");
	if (!sink)
		return 0;
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	if (!an) {
		fclose(sink);
		return 0;
	}
	bool timeline = data[0] & 1;
	struct rt_an_sink s;
	struct rt_an_timeline_opts tlo = {.bucket_ns = 1000, .json = (data[0] & 2) != 0};
	if (timeline ? rt_an_timeline_sink(sink, &tlo, &s, errbuf)
	             : rt_an_report_json_sink(sink, &s, errbuf))
		goto out;
	if (rt_analyzer_add_sink(an, &s, errbuf) < 0 ||
	    rt_an_report_text_sink(sink, 5, &s, errbuf) < 0 ||
	    rt_analyzer_add_sink(an, &s, errbuf) < 0)
		goto out;
	if (timeline)
		load(an, path, errbuf);
	frames(an);
	rt_analyzer_finish(an, errbuf);
	if (!timeline)
		load(an, path, errbuf);
	rt_analyzer_report(an, errbuf);
	struct rt_an_warning w[RT_AN_WARNINGS_MAX];
	if (rt_analyzer_warnings(an, w, RT_AN_WARNINGS_MAX) > RT_AN_WARNINGS_MAX)
		abort(); /* the list holds every warning there can be */
out:
	rt_analyzer_free(an);
	fclose(sink);
	return 0;
}
