/* Unit tests of the analyzer's warnings: each finding from records fed in, with its code and numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "render/sinks.h"
#include "dissect/dissect.h"
#include "tests/dissect/test_pkt.h"

#define T0 1700000000000000000ull
#define US 1000ull

static struct rt_analyzer *analyzer(FILE *timeline, const char *flow)
{
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.flow = flow;
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	if (timeline) {
		struct rt_an_timeline_opts tlo = {.bucket_ns = 100 * US};
		struct rt_an_sink sink;
		assert_int_equal(rt_an_timeline_sink(timeline, &tlo, &sink, errbuf), 0);
		assert_int_equal(rt_analyzer_add_sink(an, &sink, errbuf), 0);
	}
	return an;
}

/* A RoCEv2 RC SEND only with 64 bytes of payload and a valid ICRC, to UDP port `dport`. */
static void roce_frame(struct pkt *p, uint16_t dport, uint8_t tos, uint32_t psn)
{
	p->len = 0;
	pk_eth(p, 0x0800);
	uint32_t ip = pk_ipv4(p, tos, 64, 17);
	uint32_t udp = pk_udp(p, 49152, dport);
	pk_bth(p, 0x04, 0, 0, 0xffff, 0, 0, 0x11, 0, psn);
	pk_fill(p, 0xab, 64);
	pk_udp_done(p, udp);
	p->len += 4; /* the ICRC: counted in the lengths, then computed */
	pk_udp_done(p, udp);
	pk_ipv4_done(p, ip);
	p->len -= 4;
	uint32_t crc;
	assert_int_equal(rt_icrc_compute(p->b + ip, p->len - ip, &crc), 0);
	pk_le32(p, crc);
}

/* Dissect (RoCEv2 on 4791) and feed one frame. */
static void feed(struct rt_analyzer *an, const struct pkt *p, uint32_t caplen, uint64_t ts)
{
	struct rt_dissect_opts o;
	rt_dissect_opts_init(&o);
	struct rt_frame f = {.data = p->b,
	                     .caplen = caplen,
	                     .wirelen = p->len,
	                     .ts_ns = ts,
	                     .linktype = RT_LINK_ETHERNET};
	struct rt_record r;
	rt_dissect(&o, &f, &r);
	rt_analyzer_feed(an, &r);
}

/* The warning with `code`, or NULL. */
static const struct rt_an_warning *find(const struct rt_an_warning *w, unsigned n, const char *code)
{
	for (unsigned i = 0; i < n && i < RT_AN_WARNINGS_MAX; i++)
		if (!strcmp(w[i].code, code))
			return &w[i];
	return NULL;
}

/* Whether the warning's message says `text` (false for no warning). */
static bool says(const struct rt_an_warning *w, const char *text)
{
	return w && strstr(w->message, text);
}

static uint64_t value(const struct rt_an_warning *w, const char *name)
{
	for (unsigned i = 0; i < w->nvalues; i++)
		if (!strcmp(w->values[i].name, name))
			return w->values[i].value;
	fail_msg("%s has no value %s", w->code, name);
	return 0;
}

static struct rt_an_warning ws[RT_AN_WARNINGS_MAX];

static unsigned warnings(struct rt_analyzer *an)
{
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_finish(an, errbuf);
	return rt_analyzer_warnings(an, ws, RT_AN_WARNINGS_MAX);
}

static void test_clean_capture(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(NULL, NULL);
	struct pkt p;
	for (uint32_t i = 0; i < 10; i++) {
		roce_frame(&p, 4791, 26 << 2 | 2, i);
		feed(an, &p, p.len, T0 + i * US);
	}
	assert_int_equal(warnings(an), 0);
	rt_analyzer_free(an);
}

static void test_empty(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(NULL, NULL);
	unsigned n = warnings(an);
	assert_int_equal(n, 1);
	assert_string_equal(ws[0].code, "empty_capture");
	rt_analyzer_free(an);
}

/* RoCEv2 on 4792, read as 4791: no RoCE, a hint naming the port and --udp-port. */
static void test_other_port(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(NULL, NULL);
	struct pkt p;
	for (uint32_t i = 0; i < 20; i++) {
		roce_frame(&p, 4792, 26 << 2 | 2, i);
		feed(an, &p, p.len, T0 + i * US);
	}
	/* other UDP traffic that is not RoCE gives no hint */
	for (uint32_t i = 0; i < 20; i++) {
		roce_frame(&p, 53, 0, i);
		p.b[42] = 0xee; /* a BTH opcode no table has: not RoCE */
		feed(an, &p, p.len, T0 + (30 + i) * US);
	}
	unsigned n = warnings(an);
	const struct rt_an_warning *w = find(ws, n, "roce_other_port");
	assert_non_null(w);
	assert_int_equal(value(w, "port"), 4792);
	assert_int_equal(value(w, "datagrams"), 20);
	assert_int_equal(value(w, "valid"), value(w, "checked"));
	assert_true(says(w, "--udp-port 4792"));
	assert_null(find(ws, n, "no_roce")); /* the hint says it better */
	assert_int_equal(n, 1);
	rt_analyzer_free(an);
}

static void test_not_ect(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(NULL, NULL);
	struct pkt p;
	for (uint32_t i = 0; i < 10; i++) {
		roce_frame(&p, 4791, i < 8 ? 0 : 2, i);
		feed(an, &p, p.len, T0 + i * US);
	}
	unsigned n = warnings(an);
	const struct rt_an_warning *w = find(ws, n, "not_ecn_capable");
	assert_non_null(w);
	assert_int_equal(value(w, "not_ect"), 8);
	assert_int_equal(value(w, "packets"), 10);
	assert_true(says(w, "80%"));
	rt_analyzer_free(an);
}

/* Frames cut by the snap length, headers whole or not; timestamps going backwards. */
static void test_snaplen_and_time(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(NULL, NULL);
	struct pkt p;
	const uint64_t ts[] = {10, 20, 15, 30, 5, 40};
	for (uint32_t i = 0; i < 6; i++) {
		roce_frame(&p, 4791, 2, i);
		feed(an, &p, i < 2 ? 60 : i < 3 ? 40 : p.len, T0 + ts[i] * US);
	}
	unsigned n = warnings(an);
	const struct rt_an_warning *w = find(ws, n, "snaplen_cut");
	assert_non_null(w);
	assert_int_equal(value(w, "frames"), 3);
	assert_int_equal(value(w, "headers_cut"), 1); /* 40 bytes hold no whole UDP header */
	w = find(ws, n, "time_backwards");
	assert_non_null(w);
	assert_int_equal(value(w, "count"), 2);
	assert_int_equal(value(w, "max_step_ns"), 25 * US);
	rt_analyzer_free(an);
}

/* A snap length that cut only payload (a header-only capture) is a fact of the capture, no warning. */
static void test_snaplen_payload_only(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(NULL, NULL);
	struct pkt p;
	for (uint32_t i = 0; i < 6; i++) {
		roce_frame(&p, 4791, 2, i);
		feed(an, &p, 60, T0 + i * US); /* the BTH whole, the payload and ICRC cut */
	}
	unsigned n = warnings(an);
	assert_null(find(ws, n, "snaplen_cut"));
	assert_int_equal(an->tally.icrc_cut, 6);
	assert_int_equal(an->tally.headers_cut, 0);
	assert_int_equal(an->tot.truncated, 0);
	rt_analyzer_free(an);
}

/* Drops from the capture file win over the counters file's; PSN gaps are named with them. */
static void test_capture_drops(void **state)
{
	(void)state;
	char path[] = "/tmp/rt-warn-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char line[] =
	    "{\"ts\":\"1700000001.000000000\",\"capture\":{\"device\":\"eth0\",\"received\":90,"
	    "\"os_dropped\":40,\"if_dropped\":2}}\n";
	assert_int_equal(write(fd, line, sizeof(line) - 1), (ssize_t)(sizeof(line) - 1));
	close(fd);
	for (int isb = 0; isb < 2; isb++) {
		struct rt_analyzer *an = analyzer(NULL, NULL);
		struct pkt p;
		for (uint32_t i = 0; i < 10; i++) {
			roce_frame(&p, 4791, 2, i < 5 ? i : i + 3); /* 3 PSNs missing */
			feed(an, &p, p.len, T0 + i * US);
		}
		char errbuf[RT_ERRBUF_SIZE];
		assert_int_equal(rt_analyzer_load_counters(an, path, errbuf), 0);
		if (isb)
			rt_analyzer_capture_drops(an, 7, 5);
		unsigned n = warnings(an);
		const struct rt_an_warning *w = find(ws, n, "capture_drops");
		assert_non_null(w);
		assert_int_equal(value(w, "dropped"), isb ? 12 : 42);
		assert_int_equal(value(w, "if_dropped"), isb ? 7 : 2);
		assert_int_equal(value(w, "os_dropped"), isb ? 5 : 40);
		assert_int_equal(value(w, "gap_psns"), 3);
		assert_true(says(w, isb ? "dropped 12 frames" : "dropped 42 frames"));
		assert_true(says(w, "lost before the capture point or dropped by the capture"));
		/* the counters file has a capture line but no sample */
		assert_non_null(find(ws, n, "counters_file_unusable"));
		rt_analyzer_free(an);
	}
	unlink(path);
	/* counts that add up past 64 bits stop at the largest, and say so (they wrapped to 4) */
	struct rt_analyzer *an = analyzer(NULL, NULL);
	struct pkt p;
	roce_frame(&p, 4791, 2, 0);
	feed(an, &p, p.len, T0);
	rt_analyzer_capture_drops(an, UINT64_MAX - 1, 6);
	unsigned n = warnings(an);
	const struct rt_an_warning *w = find(ws, n, "capture_drops");
	assert_non_null(w);
	assert_true(value(w, "dropped") == UINT64_MAX);
	assert_true(says(w, "dropped 18446744073709551615 frames (2^64-1 means as many or more"));
	rt_analyzer_free(an);
}

/* An empty side file, and a source log naming flows the capture lacks. */
static void test_side_files(void **state)
{
	(void)state;
	char empty[] = "/tmp/rt-warn-XXXXXX", log[] = "/tmp/rt-warn-XXXXXX";
	int fd = mkstemp(empty);
	assert_true(fd >= 0);
	close(fd);
	fd = mkstemp(log);
	assert_true(fd >= 0);
	const char line[] =
	    "{\"ts\":\"1700000001.000000000\",\"event\":\"rate\",\"src\":\"10.9.9.9\","
	    "\"dst\":\"10.9.9.8\",\"dest_qp\":5,\"rate_mbps\":100}\n";
	assert_int_equal(write(fd, line, sizeof(line) - 1), (ssize_t)(sizeof(line) - 1));
	close(fd);
	struct rt_analyzer *an = analyzer(NULL, NULL);
	struct pkt p;
	roce_frame(&p, 4791, 2, 1);
	feed(an, &p, p.len, T0);
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_finish(an, errbuf);
	assert_int_equal(rt_analyzer_load_counters(an, empty, errbuf), 0);
	assert_int_equal(rt_analyzer_load_source_log(an, log, errbuf), 0);
	unsigned n = rt_analyzer_warnings(an, ws, RT_AN_WARNINGS_MAX);
	const struct rt_an_warning *w = find(ws, n, "counters_file_unusable");
	assert_non_null(w);
	assert_true(says(w, "is empty"));
	w = find(ws, n, "source_log_unusable");
	assert_non_null(w);
	assert_true(says(w, "names no flow of the capture"));
	assert_int_equal(value(w, "unmatched_events"), 1);
	rt_analyzer_free(an);
	unlink(empty);
	unlink(log);
}

/* A --flow selector that matches no flow (timeline and analyze). */
static void test_flow_selector(void **state)
{
	(void)state;
	FILE *sink = fopen("/dev/null", "w");
	assert_non_null(sink);
	const char *sels[] = {"qp:0x999", "10.0.0.1>10.0.0.2:0x11"};
	for (int k = 0; k < 2; k++) {
		struct rt_analyzer *an = analyzer(sink, sels[k]);
		struct pkt p;
		roce_frame(&p, 4791, 2, 1);
		feed(an, &p, p.len, T0);
		unsigned n = warnings(an);
		const struct rt_an_warning *w = find(ws, n, "flow_selector_empty");
		if (k == 0) {
			assert_non_null(w);
			assert_true(says(w, "qp:0x999"));
			assert_int_equal(value(w, "flows"), 1);
		} else {
			assert_null(w);
		}
		rt_analyzer_free(an);
	}
	/* analyze --flow (no timeline): the same warning, without the timeline's rows */
	struct rt_analyzer *an = analyzer(NULL, "qp:0x999");
	struct pkt p;
	roce_frame(&p, 4791, 2, 1);
	feed(an, &p, p.len, T0);
	const struct rt_an_warning *w = find(ws, warnings(an), "flow_selector_empty");
	assert_non_null(w);
	assert_false(says(w, "'all' rows"));
	rt_analyzer_free(an);
	fclose(sink);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clean_capture),    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_other_port),       cmocka_unit_test(test_not_ect),
	    cmocka_unit_test(test_snaplen_and_time), cmocka_unit_test(test_snaplen_payload_only),
	    cmocka_unit_test(test_capture_drops),    cmocka_unit_test(test_side_files),
	    cmocka_unit_test(test_flow_selector),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
