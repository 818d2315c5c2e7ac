/* The metrics exposition (text 0.0.4 and OpenMetrics), label escaping, the busiest flows, the store's top-K bound, pauses while idle, findings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "render/metrics.h"
#include "records.h"

#define A 0x0a000001u /* 10.0.0.1 */
#define B 0x0a000002u /* 10.0.0.2 */

/* The exposition of s (and nic) as one string the caller frees. */
static char *format(enum rt_metrics_format f, const struct rt_metrics_snapshot *s,
                    const struct rt_metrics_nic *nic, unsigned nnic)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&buf, &size);
	assert_non_null(fp);
	struct rt_outbuf *o = malloc(sizeof(*o));
	assert_non_null(o);
	rt_out_init(o, fp);
	rt_metrics_format(o, f, s, nic, nnic);
	assert_int_equal(rt_out_flush(o), 0);
	free(o);
	assert_int_equal(fclose(fp), 0);
	return buf;
}

/* Does text hold this whole line? */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

static unsigned count_prefix(const char *text, const char *prefix)
{
	unsigned n = 0;
	size_t len = strlen(prefix);
	for (const char *p = text; *p;) {
		if (!strncmp(p, prefix, len))
			n++;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

static struct rt_metrics_snapshot sample_snapshot(struct rt_an_flow_figures *top)
{
	struct rt_metrics_snapshot s = {
	    .running = true, .frames = 1234, .dropped = 7, .flows = 3, .top = top};
	s.t.roce_packets = 1200;
	s.t.roce_bytes = 1200 * 1078;
	s.t.ce = 40;
	s.t.cnp = 9;
	s.t.nak = 2;
	s.t.retransmitted = 5;
	s.t.pfc_xoff[3] = 11;
	s.t.pfc_xon[3] = 10;
	s.t.pfc_xoff[RT_AN_PAUSE_CLASS] = 1;
	s.t.pfc_paused_ns[3] = 1500000123;
	memset(top, 0, sizeof(*top));
	uint8_t a[16], b[16];
	ip4(a, A);
	ip4(b, B);
	an_key_from(&top[0].key, 4, a, b, 0x11);
	top[0].packets = 1000;
	top[0].bytes = 1078000;
	top[0].ce = 40;
	top[0].cnp_received = 9;
	s.ntop = 1;
	return s;
}

static void text_format(void **state)
{
	(void)state;
	struct rt_an_flow_figures top[1];
	struct rt_metrics_snapshot s = sample_snapshot(top);
	char *t = format(RT_METRICS_TEXT, &s, NULL, 0);
	assert_true(has_line(t, "# TYPE rocetrace_frames_total counter"));
	assert_true(has_line(t, "rocetrace_frames_total 1234"));
	assert_true(has_line(t, "rocetrace_roce_bytes_total 1293600"));
	assert_true(has_line(t, "rocetrace_ce_marked_packets_total 40"));
	assert_true(has_line(t, "rocetrace_cnp_total 9"));
	assert_true(has_line(t, "rocetrace_nak_total 2"));
	assert_true(has_line(t, "rocetrace_retransmitted_packets_total 5"));
	assert_true(has_line(t, "rocetrace_capture_dropped_total 7"));
	assert_true(has_line(t, "# TYPE rocetrace_flows gauge"));
	assert_true(has_line(t, "rocetrace_flows 3"));
	assert_true(has_line(t, "rocetrace_capture_running 1"));
	assert_true(has_line(t, "rocetrace_pfc_frames_total{priority=\"3\",kind=\"xoff\"} 11"));
	assert_true(has_line(t, "rocetrace_pfc_frames_total{priority=\"3\",kind=\"xon\"} 10"));
	assert_true(has_line(t, "rocetrace_pfc_frames_total{priority=\"pause\",kind=\"xoff\"} 1"));
	assert_true(has_line(t, "rocetrace_pfc_paused_seconds_total{priority=\"3\"} 1.500000123"));
	assert_true(has_line(t, "rocetrace_pfc_paused_seconds_total{priority=\"0\"} 0.000000000"));
	/* every priority and 802.3x, both kinds: the series exist from the first scrape */
	assert_int_equal(count_prefix(t, "rocetrace_pfc_frames_total{"), 18);
	assert_true(has_line(
	    t, "rocetrace_flow_bytes_total{src=\"10.0.0.1\",dst=\"10.0.0.2\",dest_qp=\"0x000011\"} "
	       "1078000"));
	assert_true(has_line(t,
	                     "rocetrace_flow_cnp_received_total{src=\"10.0.0.1\",dst=\"10.0.0.2\","
	                     "dest_qp=\"0x000011\"} 9"));
	/* each family: HELP and TYPE once, before its samples; no OpenMetrics lines */
	assert_int_equal(count_prefix(t, "# TYPE "), count_prefix(t, "# HELP "));
	assert_int_equal(count_prefix(t, "# TYPE rocetrace_cnp_total "), 1);
	assert_int_equal(count_prefix(t, "# UNIT"), 0);
	assert_null(strstr(t, "# EOF"));
	assert_null(strstr(t, "rocetrace_nic_counter")); /* no --counters */
	assert_int_equal(t[strlen(t) - 1], '\n');
	free(t);
}

static void openmetrics_format(void **state)
{
	(void)state;
	struct rt_an_flow_figures top[1];
	struct rt_metrics_snapshot s = sample_snapshot(top);
	struct rt_metrics_nic nic = {
	    .dev = "mlx5_0", .port = 1, .name = "np_cnp_sent", .value = 77};
	char *t = format(RT_METRICS_OPENMETRICS, &s, &nic, 1);
	/* counter families are named without _total; their samples carry it */
	assert_true(has_line(t, "# TYPE rocetrace_frames counter"));
	assert_true(has_line(t, "rocetrace_frames_total 1234"));
	assert_true(has_line(t, "# UNIT rocetrace_roce_bytes bytes"));
	assert_true(has_line(t, "# UNIT rocetrace_pfc_paused_seconds seconds"));
	assert_true(has_line(t, "# TYPE rocetrace_nic_counter unknown"));
	assert_true(has_line(
	    t, "rocetrace_nic_counter{dev=\"mlx5_0\",port=\"1\",name=\"np_cnp_sent\"} 77"));
	assert_null(strstr(t, "_total counter"));
	assert_null(strstr(t, "untyped"));
	size_t n = strlen(t);
	assert_true(n > 6 && !strcmp(t + n - 6, "# EOF\n"));
	assert_int_equal(count_prefix(t, "# EOF"), 1);
	free(t);
	/* text format: the same NIC counter untyped, an ethtool statistic with an empty port */
	struct rt_metrics_nic eth = {
	    .dev = "eth0", .port = 0, .name = "rx_prio3_pause", .value = 5};
	t = format(RT_METRICS_TEXT, &s, &eth, 1);
	assert_true(has_line(t, "# TYPE rocetrace_nic_counter untyped"));
	assert_true(
	    has_line(t, "rocetrace_nic_counter{dev=\"eth0\",port=\"\",name=\"rx_prio3_pause\"} 5"));
	free(t);
}

static void label_escaping(void **state)
{
	(void)state;
	struct rt_an_flow_figures top[1];
	struct rt_metrics_snapshot s = sample_snapshot(top);
	struct rt_metrics_nic nic = {
	    .dev = "we\"ird\\dev", .port = 2, .name = "a\nb\x01\xc3\xa9", .value = 1};
	for (int f = RT_METRICS_TEXT; f <= RT_METRICS_OPENMETRICS; f++) {
		char *t = format((enum rt_metrics_format)f, &s, &nic, 1);
		assert_true(has_line(t, "rocetrace_nic_counter{dev=\"we\\\"ird\\\\dev\",port=\"2\","
		                        "name=\"a\\nb???\"} 1"));
		free(t);
	}
}

static void negotiation(void **state)
{
	(void)state;
	/* what Prometheus 2 sends, and older scrapers */
	assert_int_equal(
	    rt_metrics_negotiate("application/openmetrics-text;version=1.0.0,application/"
	                         "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
	                         "q=0.5,*/*;q=0.1"),
	    RT_METRICS_OPENMETRICS);
	assert_int_equal(rt_metrics_negotiate("text/plain;version=0.0.4"), RT_METRICS_TEXT);
	assert_int_equal(rt_metrics_negotiate("*/*"), RT_METRICS_TEXT);
	assert_int_equal(rt_metrics_negotiate(NULL), RT_METRICS_TEXT);
	assert_non_null(strstr(rt_metrics_content_type(RT_METRICS_TEXT), "version=0.0.4"));
	assert_non_null(strstr(rt_metrics_content_type(RT_METRICS_OPENMETRICS),
	                       "application/openmetrics-text"));
}

/* Flows to QPs 1..n from A to B; flow q sends sizes[q - 1] packets. */
static struct rt_analyzer *flows_with(const unsigned *sizes, unsigned n)
{
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	uint64_t ts = 1000000;
	for (unsigned q = 1; q <= n; q++)
		for (unsigned i = 0; i < sizes[q - 1]; i++) {
			struct rt_record r = roce(ts += 1000, A, B, RT_OPCODE_RC_SEND_ONLY, q, i);
			if (i == 0 && q == 2)
				r.ecn = 3; /* one CE mark on QP 2 */
			rt_analyzer_feed(an, &r);
		}
	return an;
}

static void top_flows(void **state)
{
	(void)state;
	static const unsigned sizes[] = {3, 9, 1, 9, 5, 7};
	struct rt_analyzer *an = flows_with(sizes, 6);
	struct rt_an_flow_figures top[6];
	/* the busiest first; QPs 2 and 4 tie: the older flow first */
	assert_int_equal(rt_analyzer_top_flows(an, top, 4), 4);
	static const uint32_t want[] = {2, 4, 6, 5};
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(top[i].key.dest_qp, want[i]);
		assert_int_equal(top[i].packets, sizes[want[i] - 1]);
		assert_int_equal(top[i].bytes, 100 * sizes[want[i] - 1]);
	}
	assert_int_equal(top[0].ce, 1);
	assert_int_equal(rt_analyzer_top_flows(an, top, 0), 0);
	assert_int_equal(rt_analyzer_top_flows(an, top, 6), 6);
	assert_int_equal(top[5].key.dest_qp, 3);
	struct rt_an_counts c;
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.roce_bytes, 100 * (3 + 9 + 1 + 9 + 5 + 7));
	rt_analyzer_free(an);
}

/* The store publishes at most top_k flows and renders what was published last. */
static void store_bound(void **state)
{
	(void)state;
	static const unsigned sizes[] = {3, 9, 1, 9, 5, 7};
	struct rt_analyzer *an = flows_with(sizes, 6);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_metrics *m = rt_metrics_new(2, errbuf);
	assert_non_null(m);
	char *t;
	size_t len;
	/* nothing published yet: zeros, running */
	assert_int_equal(rt_metrics_render(m, RT_METRICS_TEXT, &t, &len), 0);
	assert_true(has_line(t, "rocetrace_frames_total 0"));
	assert_int_equal(count_prefix(t, "rocetrace_flow_bytes_total{"), 0);
	free(t);
	assert_true(rt_metrics_publish(m, an, 0, 34, 3, false, true));
	assert_int_equal(rt_metrics_render(m, RT_METRICS_TEXT, &t, &len), 0);
	assert_int_equal(len, strlen(t));
	assert_int_equal(count_prefix(t, "rocetrace_flow_bytes_total{"), 2);
	assert_int_equal(count_prefix(t, "rocetrace_flow_packets_total{"), 2);
	assert_true(has_line(t, "rocetrace_flow_packets_total{src=\"10.0.0.1\",dst=\"10.0.0.2\","
	                        "dest_qp=\"0x000002\"} 9"));
	assert_true(has_line(t, "rocetrace_flow_packets_total{src=\"10.0.0.1\",dst=\"10.0.0.2\","
	                        "dest_qp=\"0x000004\"} 9"));
	assert_true(has_line(t, "rocetrace_frames_total 34"));
	assert_true(has_line(t, "rocetrace_capture_dropped_total 3"));
	assert_true(has_line(t, "rocetrace_flows 6"));
	assert_true(has_line(t, "rocetrace_capture_running 0"));
	free(t);
	/* NIC counters beyond the most kept are left out */
	struct rt_metrics_nic *nic = calloc(RT_METRICS_NIC_MAX + 5, sizeof(*nic));
	assert_non_null(nic);
	for (unsigned i = 0; i < RT_METRICS_NIC_MAX + 5; i++)
		snprintf(nic[i].name, sizeof(nic[i].name), "c%u", i);
	rt_metrics_set_nic(m, nic, RT_METRICS_NIC_MAX + 5);
	free(nic);
	assert_int_equal(rt_metrics_render(m, RT_METRICS_OPENMETRICS, &t, &len), 0);
	assert_int_equal(count_prefix(t, "rocetrace_nic_counter{"), RT_METRICS_NIC_MAX);
	free(t);
	rt_metrics_free(m);
	/* more than the most flows asked: the bound holds */
	assert_non_null(m = rt_metrics_new(RT_METRICS_TOP_MAX + 10, errbuf));
	assert_true(rt_metrics_publish(m, an, 0, 34, 0, true, false));
	assert_int_equal(rt_metrics_render(m, RT_METRICS_TEXT, &t, &len), 0);
	assert_int_equal(count_prefix(t, "rocetrace_flow_bytes_total{"), 6);
	free(t);
	rt_metrics_free(m);
	rt_analyzer_free(an);
}

/* The paused seconds of priority 3 a scrape sees after publishing with idle_ns. */
static void expect_paused(struct rt_metrics *m, const struct rt_analyzer *an, uint64_t idle_ns,
                          const char *line)
{
	char *t;
	size_t len;
	assert_true(rt_metrics_publish(m, an, idle_ns, 2, 0, true, true));
	assert_int_equal(rt_metrics_render(m, RT_METRICS_TEXT, &t, &len), 0);
	if (!has_line(t, line))
		fail_msg("no line \"%s\" in:\n%s", line, t);
	free(t);
}

/*
 * A live source gone idle during a pause (a paused link sends nothing): the
 * paused time grows with the idle time up to the pause's end by quanta,
 * without moving the analyzer, so a frame from before still counts where it
 * belongs and the final figures are those of the file.
 */
static void idle_pause(void **state)
{
	(void)state;
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.link_speed_bps = 1000000000u; /* 0xFFFF quanta: 65535 * 512 ns = 33.553920 ms */
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	struct rt_metrics *m = rt_metrics_new(0, errbuf);
	assert_non_null(an);
	assert_non_null(m);
	const uint64_t t0 = 5000000000u, ms = 1000000u, end = 33553920u;
	const uint16_t xoff[8] = {[3] = 0xffff}, xon[8] = {0};
	struct rt_record r = pfc_rec(t0, 1 << 3, xoff);
	rt_analyzer_feed(an, &r);
	struct rt_an_counts c;
	rt_analyzer_totals_idle(an, 0, &c);
	assert_int_equal(c.pfc_paused_ns[3], 0);
	rt_analyzer_totals_idle(an, 10 * ms, &c);
	assert_int_equal(c.pfc_paused_ns[3], 10 * ms);
	assert_int_equal(c.pfc_paused_ns[2], 0);
	assert_int_equal(c.pfc_xoff[3], 1);
	rt_analyzer_totals_idle(an, 30 * ms, &c);
	assert_int_equal(c.pfc_paused_ns[3], 30 * ms);
	rt_analyzer_totals_idle(an, 40 * ms, &c); /* the pause ended at 33.55 ms */
	assert_int_equal(c.pfc_paused_ns[3], end);
	rt_analyzer_totals_idle(an, UINT64_MAX, &c);
	assert_int_equal(c.pfc_paused_ns[3], end);
	expect_paused(m, an, 0, "rocetrace_pfc_paused_seconds_total{priority=\"3\"} 0.000000000");
	expect_paused(m, an, 20 * ms,
	              "rocetrace_pfc_paused_seconds_total{priority=\"3\"} 0.020000000");
	expect_paused(m, an, 2000 * ms,
	              "rocetrace_pfc_paused_seconds_total{priority=\"3\"} 0.033553920");
	/* nothing moved: an XON from 5 ms after the XOFF ends the pause there */
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.pfc_paused_ns[3], 0);
	r = pfc_rec(t0 + 5 * ms, 1 << 3, xon);
	rt_analyzer_feed(an, &r);
	rt_analyzer_totals_idle(an, 30 * ms, &c);
	assert_int_equal(c.pfc_paused_ns[3], 5 * ms);
	/* a refreshed pause: counted from the first XOFF to the refresh's end */
	r = pfc_rec(t0 + 100 * ms, 1 << 3, xoff);
	rt_analyzer_feed(an, &r);
	r = pfc_rec(t0 + 110 * ms, 1 << 3, xoff);
	rt_analyzer_feed(an, &r);
	rt_analyzer_totals_idle(an, 10 * ms, &c);
	assert_int_equal(c.pfc_paused_ns[3], 5 * ms + 20 * ms);
	rt_analyzer_totals_idle(an, 100 * ms, &c);
	assert_int_equal(c.pfc_paused_ns[3], 5 * ms + 10 * ms + end);
	assert_int_equal(finish(an), 0);
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.pfc_paused_ns[3], 5 * ms + 10 * ms + end);
	expect_paused(m, an, 0, "rocetrace_pfc_paused_seconds_total{priority=\"3\"} 0.048553920");
	rt_metrics_free(m);
	rt_analyzer_free(an);
}

/* rocetrace_finding: a sample per code and severity, counting them; the family alone without one. */
static void findings_format(void **state)
{
	(void)state;
	struct rt_an_flow_figures top[1];
	struct rt_metrics_snapshot s = sample_snapshot(top);
	for (int f = RT_METRICS_TEXT; f <= RT_METRICS_OPENMETRICS; f++) {
		char *t = format((enum rt_metrics_format)f, &s, NULL, 0);
		assert_true(has_line(t, "# TYPE rocetrace_finding gauge"));
		assert_int_equal(count_prefix(t, "rocetrace_finding{"), 0);
		free(t);
	}
	s.nfindings = 4;
	s.findings[0] = (struct rt_finding_tag){"pfc_storm", RT_SEV_ERROR};
	s.findings[1] = (struct rt_finding_tag){"ecn_off", RT_SEV_WARNING};
	s.findings[2] = (struct rt_finding_tag){"pfc_deadlock_suspect", RT_SEV_INFO};
	s.findings[3] = (struct rt_finding_tag){"ecn_off", RT_SEV_WARNING};
	char *t = format(RT_METRICS_OPENMETRICS, &s, NULL, 0);
	assert_true(has_line(t, "rocetrace_finding{code=\"pfc_storm\",severity=\"error\"} 1"));
	assert_true(has_line(t, "rocetrace_finding{code=\"ecn_off\",severity=\"warning\"} 2"));
	assert_true(
	    has_line(t, "rocetrace_finding{code=\"pfc_deadlock_suspect\",severity=\"info\"} 1"));
	assert_int_equal(count_prefix(t, "rocetrace_finding{"), 3);
	free(t);
}

/*
 * A storm under way: a live view judges pauses still running up to the
 * capture clock, so it is a storm before it ends (and not before the
 * threshold); the end of input keeps it.
 */
static void live_storm(void **state)
{
	(void)state;
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	struct rt_metrics *m = rt_metrics_new(0, errbuf);
	assert_non_null(an);
	assert_non_null(m);
	const uint64_t t0 = 5000000000u, us = 1000u;
	const uint16_t xoff[8] = {[3] = 0xffff}; /* 335.5 us at 100 Gb/s: refreshed every 200 us */
	struct rt_finding_tag tags[RT_FINDINGS_MAX];
	uint64_t t = t0;
	for (; t < t0 + 6000 * us; t += 200 * us) {
		struct rt_record r = pfc_rec(t, 1 << 3, xoff);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(rt_analyzer_live_findings(an, 0, tags, RT_FINDINGS_MAX), 0);
	for (; t < t0 + 12000 * us; t += 200 * us) {
		struct rt_record r = pfc_rec(t, 1 << 3, xoff);
		rt_analyzer_feed(an, &r);
	}
	int n = rt_analyzer_live_findings(an, 0, tags, RT_FINDINGS_MAX);
	assert_true(n >= 1);
	assert_string_equal(tags[0].code, "pfc_storm");
	assert_int_equal(tags[0].severity, RT_SEV_ERROR);
	assert_true(rt_metrics_publish(m, an, 0, 60, 0, true, true));
	char *text;
	size_t len;
	assert_int_equal(rt_metrics_render(m, RT_METRICS_TEXT, &text, &len), 0);
	assert_true(has_line(text, "rocetrace_finding{code=\"pfc_storm\",severity=\"error\"} 1"));
	free(text);
	assert_int_equal(finish(an), 0);
	const struct rt_results *r = rt_analyzer_results(an);
	assert_non_null(r);
	assert_true(r->nfindings >= 1);
	assert_string_equal(r->findings[0].code, "pfc_storm");
	rt_metrics_free(m);
	rt_analyzer_free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(text_format),    cmocka_unit_test(openmetrics_format),
	    cmocka_unit_test(label_escaping), cmocka_unit_test(negotiation),
	    cmocka_unit_test(top_flows),      cmocka_unit_test(store_bound),
	    cmocka_unit_test(idle_pause),     cmocka_unit_test(findings_format),
	    cmocka_unit_test(live_storm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
