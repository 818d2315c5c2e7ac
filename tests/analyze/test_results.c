/* Unit tests of the results view: built from a scenario it holds the model's truth and every figure the JSON report shows; built once; live figures. */
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
#include "analyze/results.h"
#include "common/outbuf.h"
#include "render/sinks.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/records.h"

static const char *scenario_dir;

static void feed_one(void *ctx, struct rt_record *rec)
{
	rt_analyzer_feed(ctx, rec);
}

/* An analyzer fed every frame of a scenario's classic pcap, finished. */
static struct rt_analyzer *analyze_scenario(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", scenario_dir, name);
	struct rt_analyzer *an = new_an(0);
	each_pcap_record(path, feed_one, an);
	assert_int_equal(finish(an), 0);
	return an;
}

/* The JSON document holds `fmt` (formatted) within [from, to). */
__attribute__((format(printf, 3, 4))) static void holds(const char *from, const char *to,
                                                        const char *fmt, ...)
{
	char want[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	const char *at = strstr(from, want);
	if (!at || at >= to)
		fail_msg("the JSON report lacks %s", want);
}

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

/* A quantile summary as the JSON writes it (without p99, mean and stddev), or null. */
static const char *quantiles(char *buf, size_t size, const struct rt_res_quantiles *q)
{
	if (!q || !q->samples)
		return "null";
	snprintf(buf, size, "{\"min\":%llu,\"median\":%llu,\"max\":%llu,\"samples\":%llu}",
	         ull(q->min), ull(q->median), ull(q->max), ull(q->samples));
	return buf;
}

/* Every figure of one flow in the view is the one its line of the JSON report shows. */
static void flow_as_json(const char *js, const struct rt_res_flow *f)
{
	char head[64], src[64], dst[64], sel[RT_FLOWSEL_TEXT_MAX], q[160];
	snprintf(head, sizeof(head), "{\"id\":%u,", f->id);
	const char *line = strstr(js, head), *end = line ? strchr(line, '\n') : NULL;
	assert_non_null(line);
	assert_non_null(end);
	holds(line, end,
	      "{\"id\":%u,\"src\":\"%s\",\"dst\":\"%s\",\"dest_qp\":%u,\"dest_qp_hex\":\"0x%06x\","
	      "\"selector\":\"%s\"",
	      f->id, rt_ip_to_str(f->key.ipver, f->key.src, src, sizeof(src)),
	      rt_ip_to_str(f->key.ipver, f->key.dst, dst, sizeof(dst)), f->key.dest_qp,
	      f->key.dest_qp,
	      rt_flowsel_format(sel, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp));
	if (f->peer_qp != RT_AN_NONE)
		holds(line, end, "\"peer_qp\":%u,\"peer_qp_hex\":\"0x%06x\",\"pairing\":\"%s\"",
		      f->peer_qp, f->peer_qp, f->pairing);
	else
		holds(line, end, "\"peer_qp\":null,\"peer_qp_hex\":null,\"pairing\":null");
	holds(line, end, "\"packets\":%llu,\"bytes\":%llu,", ull(f->packets), ull(f->bytes));
	holds(line, end, "\"requests\":%llu,\"responses\":%llu,\"dscp\":%u,", ull(f->requests),
	      ull(f->responses), f->dscp);
	holds(line, end, "\"ecn\":{\"not_ect\":%llu,\"ect0\":%llu,\"ect1\":%llu,\"ce\":%llu}",
	      ull(f->ecn[0]), ull(f->ecn[2]), ull(f->ecn[1]), ull(f->ecn[3]));
	holds(line, end, "\"cnp_received\":%llu,\"cnp_sent\":%llu,\"in_episodes\":%s",
	      ull(f->cnp_received), ull(f->cnp_sent), f->in_episodes ? "true" : "false");
	const struct rt_res_transport *x = f->xport;
	holds(line, end, "\"naks_received\":%llu,", ull(x ? x->naks_received : 0));
	holds(line, end, "\"retransmitted\":%llu,", ull(x ? x->retransmitted : 0));
	holds(line, end, "\"np_reaction_ns\":%s,",
	      quantiles(q, sizeof(q), f->np ? &f->np->reaction : NULL));
	holds(line, end, "\"ce_rate_limited\":%llu,\"ce_unanswered\":%llu,",
	      ull(f->np ? f->np->rate_limited : 0), ull(f->np ? f->np->unanswered : 0));
	if (f->np && f->np->interval_known)
		holds(line, end, "\"cnp_interval_ns\":%llu,", ull(f->np->interval_ns));
	else
		holds(line, end, "\"cnp_interval_ns\":null,");
	if (f->rp)
		holds(line, end, "\"rp_reaction\":{\"cnps\":%llu,\"measured\":%llu,",
		      ull(f->rp->cnps), ull(f->rp->measured));
	else
		holds(line, end, "\"rp_reaction\":null,");
	if (x && x->rtt.samples)
		holds(line, end,
		      "\"rtt_ns\":{\"min\":%llu,\"median\":%llu,\"p99\":%llu,\"mean\":%llu,",
		      ull(x->rtt.min), ull(x->rtt.median), ull(x->rtt.p99), ull(x->rtt.mean));
	else
		holds(line, end, "\"rtt_ns\":null,");
}

/* The flow of the view from src to dst (IPv4, host order), QP qp. */
static const struct rt_res_flow *view_flow(const struct rt_results *r, uint32_t src, uint32_t dst,
                                           uint32_t qp)
{
	uint8_t a[16], b[16];
	ip4(a, src);
	ip4(b, dst);
	for (uint32_t id = 0; id < r->nflows; id++)
		if (r->flows[id].key.dest_qp == qp && !memcmp(r->flows[id].key.src, a, 4) &&
		    !memcmp(r->flows[id].key.dst, b, 4))
			return &r->flows[id];
	fail_msg("no flow 0x%x > 0x%x qp 0x%x in the view", src, dst, qp);
	return NULL;
}

/*
 * The incast scenario (tests/analyze/scenarios/incast.truth.json, the
 * model's own record): the view holds the model's figures, and the JSON
 * report shows the view's, flow by flow.
 */
static void test_incast_view(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyze_scenario("incast.pcap");
	const struct rt_results *r = rt_analyzer_results(an);
	assert_non_null(r);
	/* the model's truth */
	assert_int_equal(r->c.packets, 1732);
	assert_int_equal(r->c.ce, 415);
	assert_int_equal(r->c.cnp, 32);
	assert_int_equal(r->c.nak, 0);
	assert_int_equal(r->c.retransmitted, 0);
	assert_int_equal(r->nepisodes, 1);
	assert_int_equal(r->episodes[0].start_ns, 1700000000000071780ull);
	assert_int_equal(r->episodes[0].end_ns, 1700000000000487436ull);
	const struct rt_res_flow *f = view_flow(r, 0x0a000001, 0x0a000064, 0x200);
	assert_int_equal(f->packets, 400);
	assert_int_equal(f->bytes, 125600);
	assert_int_equal(f->ecn[3], 98);
	assert_int_equal(f->cnp_received, 8);
	assert_int_equal(f->peer_qp, 256);
	assert_non_null(f->np);
	assert_int_equal(f->np->reaction.samples, 8);
	assert_int_equal(f->np->reaction.median, 2000);
	assert_int_equal(f->np->rate_limited, 90);
	assert_true(f->np->interval_known);
	/* the limiter's interval or a little above (the wait for the next mark), as check_truth.py allows */
	assert_in_range(f->np->interval_ns, 50000, 55000);
	assert_true(r->incast);
	assert_int_equal(r->incast_senders, 4);
	assert_int_equal(r->verdict.state, RT_VERDICT_CONGESTED);
	assert_string_equal(
	    r->verdict.part[RT_VERDICT_HEADLINE],
	    "Congestion: 1 episode, 415 CE marks, 32 CNPs, 0 PFC/PAUSE XOFF frames.");

	/* the JSON report shows the view */
	char *js = report_json(an);
	const char *end = js + strlen(js);
	holds(js, end, "{\"schema\":1,\"packets\":%llu,\"roce_packets\":%llu,\"roce_bytes\":%llu,",
	      ull(r->c.packets), ull(r->c.roce_packets), ull(r->c.roce_bytes));
	holds(js, end, "\"flow_count\":%u,\"totals\":{\"ce\":%llu,\"cnp\":%llu,\"nak\":%llu,",
	      r->nflows, ull(r->c.ce), ull(r->c.cnp), ull(r->c.nak));
	holds(js, end, "\"episodes\":[{\"start\":");
	holds(js, end,
	      "\"start_ns\":%llu,\"end_ns\":%llu,\"duration_ns\":%llu,\"flow_count\":%llu,",
	      ull(r->episodes[0].start_ns), ull(r->episodes[0].end_ns),
	      ull(r->episodes[0].end_ns - r->episodes[0].start_ns), ull(r->episodes[0].flow_count));
	holds(js, end,
	      "\"incast\":{\"receiver\":\"10.0.0.100\",\"senders\":%u,\"flows\":%u,\"bytes\":%llu,",
	      r->incast_senders, r->incast_flows, ull(r->incast_bytes));
	holds(js, end, "\"verdict\":{\"state\":\"congested\",\"headline\":\"%s\"",
	      r->verdict.part[RT_VERDICT_HEADLINE]);
	for (unsigned p = 0; p < RT_VERDICT_PARTS; p++)
		if (r->verdict.part[p][0])
			holds(js, end, "\"%s\":\"%s\"", rt_verdict_part_name(p),
			      r->verdict.part[p]);
		else
			holds(js, end, "\"%s\":null", rt_verdict_part_name(p));
	for (uint32_t id = 0; id < r->nflows; id++)
		flow_as_json(js, &r->flows[id]);
	free(js);
	rt_analyzer_free(an);
}

/* PFC scenario: the view's per-class figures and sources are the JSON's. */
static void test_pfc_view(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyze_scenario("pfc.pcap");
	const struct rt_results *r = rt_analyzer_results(an);
	assert_non_null(r);
	assert_true(r->pfc_frames > 0);
	char *js = report_json(an), nb[2];
	const char *end = js + strlen(js);
	uint64_t xoff = 0;
	for (unsigned c = 0; c < 8; c++) {
		xoff += r->pfc[c].xoff;
		if (r->pfc[c].xoff || r->pfc[c].xon)
			holds(js, end,
			      "\"%s\":{\"xoff\":%llu,\"xon\":%llu,\"paused_ns\":%llu,\"storms\":%"
			      "llu}",
			      rt_res_class_name(c, nb), ull(r->pfc[c].xoff), ull(r->pfc[c].xon),
			      ull(r->pfc[c].paused_ns), ull(r->pfc[c].storms));
	}
	holds(js, end, "\"pfc\":{\"frames\":%llu,\"xoff\":%llu,", ull(r->pfc_frames), ull(xoff));
	assert_true(r->npfc_sources > 0);
	for (uint32_t i = 0; i < r->npfc_sources; i++)
		holds(js, end, "\"priority\":\"%s\",\"xoff\":%llu,\"xon\":%llu,\"paused_ns\":%llu}",
		      rt_res_class_name(r->pfc_sources[i].cls, nb), ull(r->pfc_sources[i].xoff),
		      ull(r->pfc_sources[i].xon), ull(r->pfc_sources[i].paused_ns));
	free(js);
	rt_analyzer_free(an);
}

/* The view is built once; a record fed since, or a side file, builds it anew. */
static void test_built_once(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	struct rt_record rec = roce(T0, 1, 2, 0x04, 0x10, 1);
	rt_analyzer_feed(an, &rec);
	assert_int_equal(finish(an), 0);
	const struct rt_results *r = rt_analyzer_results(an);
	assert_non_null(r);
	assert_ptr_equal(rt_analyzer_results(an), r);
	assert_int_equal(r->c.packets, 1);
	assert_int_equal(r->nflows, 1);
	rec = roce(T0 + US, 2, 1, 0x04, 0x20, 1);
	rt_analyzer_feed(an, &rec);
	assert_int_equal(finish(an), 0);
	r = rt_analyzer_results(an);
	assert_non_null(r);
	assert_int_equal(r->c.packets, 2);
	assert_int_equal(r->nflows, 2);
	assert_false(r->source_log_loaded);
	char errbuf[RT_ERRBUF_SIZE];
	char path[] = "/tmp/rt-results-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rt_analyzer_load_source_log(an, path, errbuf), 0);
	r = rt_analyzer_results(an);
	assert_non_null(r);
	assert_true(r->source_log_loaded);
	unlink(path);
	rt_analyzer_free(an);
}

/* The live snapshot: the running totals and flows, as the totals say. */
static void test_live(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	for (uint32_t q = 1; q <= 3; q++) {
		struct rt_record rec = roce(T0 + q * US, 1, 2, 0x04, q, 0);
		rec.ecn = 3;
		rt_analyzer_feed(an, &rec);
	}
	struct rt_an_live live;
	struct rt_an_counts c;
	rt_analyzer_live(an, 0, &live);
	rt_analyzer_totals(an, &c);
	assert_int_equal(live.flows, 3);
	assert_int_equal(live.t.packets, 3);
	assert_int_equal(live.t.ce, 3);
	assert_memory_equal(&live.t, &c, sizeof(c));
	rt_analyzer_free(an);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_results SCENARIO_DIR\n");
		return 2;
	}
	scenario_dir = argv[1];
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_incast_view),
	    cmocka_unit_test(test_pfc_view),
	    cmocka_unit_test(test_built_once),
	    cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
