/* Unit tests of the verdict's rules on hand-built results views: each part, each branch, the numbers as people read them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/results.h"
#include "analyze/verdict.h"

#define T0   1700000000000000000ull
#define MAXF 16

/* A view and the arrays it points into. */
struct view {
	struct rt_results r;
	struct rt_res_flow flows[MAXF];
	struct rt_res_transport x[MAXF];
	struct rt_res_np np[MAXF];
	struct rt_res_rp rp[MAXF];
	struct rt_res_source src[MAXF];
	struct rt_res_episode eps[4];
};

/* 100 RoCE frames over 1.5 ms, nothing else. */
static void init(struct view *v)
{
	memset(v, 0, sizeof(*v));
	v->r.c.packets = v->r.c.roce_packets = 100;
	v->r.any_frame = true;
	v->r.start_ns = T0;
	v->r.end_ns = T0 + 1500000;
	v->r.rate_window_gaps = 4;
	v->r.incast_gbps = NAN;
	v->r.flows = v->flows;
	v->r.episodes = v->eps;
}

/* A selected flow 10.0.0.src > 10.0.0.dst, QP qp, with `ce` CE marks. */
static struct rt_res_flow *flow(struct view *v, uint8_t src, uint8_t dst, uint32_t qp, uint64_t ce)
{
	assert_true(v->r.nflows < MAXF);
	struct rt_res_flow *f = &v->flows[v->r.nflows];
	f->id = v->r.nflows++;
	f->key.ipver = 4;
	f->key.src[0] = f->key.dst[0] = 10;
	f->key.src[3] = src;
	f->key.dst[3] = dst;
	f->key.dest_qp = qp;
	f->peer_qp = RT_AN_NONE;
	f->selected = true;
	f->ecn[3] = ce;
	f->requests = 10;
	f->gbps = f->ce_fraction = f->ect_fraction = f->cnp_rate_per_s = NAN;
	v->r.nselected++;
	return f;
}

/* The verdict of the view; its part p. */
static const struct rt_verdict *verdict(struct view *v)
{
	static struct rt_verdict out;
	assert_int_equal(rt_verdict_build(&v->r, &out), 0);
	return &out;
}

static void only(const struct rt_verdict *d, enum rt_verdict_part keep)
{
	for (unsigned p = 0; p < RT_VERDICT_PARTS; p++)
		if (p != RT_VERDICT_HEADLINE && p != keep && d->part[p][0])
			fail_msg("part %s says \"%s\"", rt_verdict_part_name(p), d->part[p]);
}

static void test_empty(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.c.packets = v.r.c.roce_packets = 0;
	v.r.any_frame = false;
	v.r.nwarnings = 1; /* "empty_capture": nothing more is said */
	const struct rt_verdict *d = verdict(&v);
	assert_int_equal(d->state, RT_VERDICT_EMPTY);
	assert_string_equal(rt_verdict_state_name(d->state), "empty");
	assert_string_equal(d->part[RT_VERDICT_HEADLINE],
	                    "The capture holds no frames: nothing to report.");
	only(d, RT_VERDICT_HEADLINE);
}

static void test_no_roce(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.c.packets = 1234;
	v.r.c.roce_packets = 0;
	const struct rt_verdict *d = verdict(&v);
	assert_int_equal(d->state, RT_VERDICT_NO_ROCE);
	assert_string_equal(rt_verdict_state_name(d->state), "no_roce");
	assert_string_equal(d->part[RT_VERDICT_HEADLINE],
	                    "The capture holds 1,234 frames and none of them is RoCE.");
	only(d, RT_VERDICT_HEADLINE);
	/* pauses without RoCE: said, and where */
	v.r.pfc[3].xoff = 2;
	v.r.pfc[3].paused_ns = 250000;
	d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_HEADLINE],
	    "The capture holds 1,234 frames and none of them is RoCE (but PFC/PAUSE frames paused "
	    "the link).");
	assert_string_equal(d->part[RT_VERDICT_PFC], "PFC paused priority 3 (250 us).");
}

static void test_calm(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.c.packets = v.r.c.roce_packets = 1234567;
	const struct rt_verdict *d = verdict(&v);
	assert_int_equal(d->state, RT_VERDICT_CALM);
	assert_string_equal(rt_verdict_state_name(d->state), "calm");
	assert_string_equal(
	    d->part[RT_VERDICT_HEADLINE],
	    "No congestion seen: no CE mark, no CNP, no PFC/PAUSE pause in 1,234,567 "
	    "RoCE packets over 1.5 ms.");
	only(d, RT_VERDICT_HEADLINE);
}

/* ECN off: no CE mark says nothing; with congestion, the marks cannot say where. */
static void test_ecn_off(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.ecn_off = true;
	v.r.ecn_not_ect = 90;
	v.r.ecn_data_packets = 95;
	v.r.c.retransmitted = 3;
	v.r.gaps = 2;
	const struct rt_verdict *d = verdict(&v);
	assert_int_equal(d->state, RT_VERDICT_ECN_OFF);
	assert_string_equal(rt_verdict_state_name(d->state), "ecn_off");
	assert_string_equal(
	    d->part[RT_VERDICT_HEADLINE],
	    "Congestion cannot be told from CE marks: ECN is off (90 of 95 RoCE data packets are "
	    "Not-ECT, so no switch could mark them). What the capture shows: no PFC/PAUSE pause, 3 "
	    "resent packets, 2 PSN gaps in 100 RoCE packets over 1.5 ms.");
	only(d, RT_VERDICT_HEADLINE);
	v.r.pfc[3].xoff = 4;
	d = verdict(&v);
	assert_int_equal(d->state, RT_VERDICT_CONGESTED);
	assert_string_equal(
	    d->part[RT_VERDICT_HEADLINE],
	    "Congestion: 0 episodes, 0 CE marks, 0 CNPs, 4 PFC/PAUSE XOFF frames. ECN "
	    "is off: most RoCE data packets are Not-ECT, so CE marks cannot show "
	    "where the congestion is; the pauses and losses do.");
}

/* Congestion: any CE mark, CNP, XOFF (PFC or PAUSE) or episode. */
static void test_congested(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.nepisodes = 1;
	v.eps[0] = (struct rt_res_episode){.start_ns = T0, .end_ns = T0 + 1000};
	const struct rt_verdict *d = verdict(&v);
	assert_int_equal(d->state, RT_VERDICT_CONGESTED);
	assert_string_equal(rt_verdict_state_name(d->state), "congested");
	assert_string_equal(d->part[RT_VERDICT_HEADLINE],
	                    "Congestion: 1 episode, 0 CE marks, 0 CNPs, 0 PFC/PAUSE XOFF frames.");
	init(&v);
	v.r.c.cnp = 10;
	v.r.pfc[3].xoff = 4;
	v.r.pfc[RT_AN_PAUSE_CLASS].xoff = 3;
	v.r.c.ce = 1000;
	d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_HEADLINE],
	    "Congestion: 0 episodes, 1,000 CE marks, 10 CNPs, 7 PFC/PAUSE XOFF frames.");
}

/* Where: the hot receiver; the paused priorities (one, several, storms); PAUSE. */
static void test_where(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.incast = true;
	v.r.incast_ipver = 4;
	memcpy(v.r.incast_receiver, (uint8_t[4]){10, 0, 0, 100}, 4);
	v.r.incast_senders = 3;
	v.r.incast_flows = 4;
	v.r.incast_ce = 12;
	v.r.incast_gbps = 12345.678;
	const struct rt_verdict *d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_WHERE],
	                    "Where: hot receiver 10.0.0.100, fed by 3 senders over 4 flows (12 CE "
	                    "marks, 12.3 Tb/s).");
	v.r.incast_gbps = NAN; /* its flows span no time */
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_WHERE],
	                    "Where: hot receiver 10.0.0.100, fed by 3 senders over 4 flows (12 CE "
	                    "marks).");
	v.r.incast_gbps = 0.00123; /* a slow one in its own unit, not 0.001 Gb/s */
	d = verdict(&v);
	assert_non_null(strstr(d->part[RT_VERDICT_WHERE], "(12 CE marks, 1.23 Mb/s)."));
	v.r.incast_gbps = 0.00999;
	d = verdict(&v);
	assert_non_null(strstr(d->part[RT_VERDICT_WHERE], "(12 CE marks, 9.99 Mb/s)."));
	v.r.incast_gbps = 1.5e-7;
	d = verdict(&v);
	assert_non_null(strstr(d->part[RT_VERDICT_WHERE], "(12 CE marks, 150 b/s)."));

	init(&v);
	v.r.pfc[3] = (struct rt_res_pfc_class){.xoff = 2, .paused_ns = 1250000};
	v.r.pfc[5] = (struct rt_res_pfc_class){.xon = 1, .paused_ns = 850};
	v.r.nstorms = 2;
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_PFC],
	                    "PFC paused priorities 3 (1.25 ms), 5 (850 ns); 2 PFC storm(s).");
	assert_string_equal(d->part[RT_VERDICT_PAUSE], "");
	init(&v);
	v.r.pause_frames = 4;
	v.r.pfc[RT_AN_PAUSE_CLASS] = (struct rt_res_pfc_class){.xoff = 3, .paused_ns = 2000000000};
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_PAUSE], "802.3x PAUSE: 3 XOFF, paused 2 s.");
	assert_string_equal(d->part[RT_VERDICT_PFC], "");
}

/* When: first to last episode, the longest (the first of equals), the highest marking rate. */
static void test_when(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.nepisodes = 3;
	v.eps[0] = (struct rt_res_episode){
	    .start_ns = T0 + 100000, .end_ns = T0 + 200000, .peak_ce_per_s = 500000};
	v.eps[1] = (struct rt_res_episode){
	    .start_ns = T0 + 1000000, .end_ns = T0 + 1400000, .peak_ce_per_s = 1000000};
	v.eps[2] = (struct rt_res_episode){
	    .start_ns = T0 + 1401000, .end_ns = T0 + 1801000, .peak_ce_per_s = 1000000};
	const struct rt_verdict *d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_WHEN],
	    "When: from 0.1 ms to 1.801 ms of the capture; the longest episode lasted "
	    "400 us (at 1 ms), the highest marking rate was 1,000,000 CE/s (at 1 ms).");
	for (int i = 0; i < 3; i++)
		v.eps[i].peak_ce_per_s = 0; /* pauses only */
	d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_WHEN],
	    "When: from 0.1 ms to 1.801 ms of the capture; the longest episode lasted "
	    "400 us (at 1 ms).");
}

/* Who: the five most CE-marked flows --flow selects, most first, equals in the order seen. */
static void test_who(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	static const uint64_t ce[] = {5, 9, 9, 1, 0, 9, 3, 7};
	for (unsigned i = 0; i < 8; i++)
		flow(&v, (uint8_t)(i + 1), 100, 0x100 + i, ce[i]);
	flow(&v, 50, 100, 0x500, 100)->selected = false; /* not selected: not named */
	v.r.nselected--;
	const struct rt_verdict *d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_WHO],
	                    "Who: 7 flows were CE-marked; most: 10.0.0.2>10.0.0.100:0x000101 (9), "
	                    "10.0.0.3>10.0.0.100:0x000102 (9), 10.0.0.6>10.0.0.100:0x000105 (9), "
	                    "10.0.0.8>10.0.0.100:0x000107 (7), 10.0.0.1>10.0.0.100:0x000100 (5).");
	init(&v);
	flow(&v, 1, 2, 0x11, 3);
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_WHO],
	                    "Who: 1 flow was CE-marked; most: 10.0.0.1>10.0.0.2:0x000011 (3).");
}

/* Victims: in an episode, no CE mark of their own, sending requests; five named, then "...". */
static void test_victims(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	for (unsigned i = 0; i < 6; i++)
		flow(&v, (uint8_t)(i + 1), 100, 0x100 + i, 0)->in_episodes = true;
	flow(&v, 20, 100, 0x200, 4)->in_episodes = true; /* marked: not a victim */
	flow(&v, 21, 100, 0x201, 0)->in_episodes = false;
	struct rt_res_flow *resp = flow(&v, 22, 100, 0x202, 0);
	resp->in_episodes = true;
	resp->requests = 0; /* responses only: not a victim */
	const struct rt_verdict *d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_VICTIMS],
	    "Victims: 6 flows with no CE mark of their own sent during the episodes: "
	    "10.0.0.1>10.0.0.100:0x000100, 10.0.0.2>10.0.0.100:0x000101, "
	    "10.0.0.3>10.0.0.100:0x000102, 10.0.0.4>10.0.0.100:0x000103, "
	    "10.0.0.5>10.0.0.100:0x000104, ....");
	init(&v);
	flow(&v, 1, 2, 0x11, 0)->in_episodes = true;
	d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_VICTIMS],
	    "Victims: 1 flow with no CE mark of their own sent during the episodes: "
	    "10.0.0.1>10.0.0.2:0x000011.");
}

static void test_losses(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *f = flow(&v, 1, 2, 0x11, 0);
	f->xport = &v.x[0];
	v.x[0].naks_received = 2; /* no resend: nothing said */
	const struct rt_verdict *d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_LOSSES], "");
	v.x[0].retransmitted = 5;
	v.r.c.retransmitted = 5;
	v.r.c.nak = 2;
	v.r.timeouts = 1;
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_LOSSES],
	                    "Losses: 5 packets resent by 1 flow(s), 2 NAKs, 1 implied timeouts.");
}

/* Did the NPs answer: no CNP; CNPs with the median of the flows' medians, the limiter, unmatched CNPs. */
static void test_nps(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.c.ce = 10;
	const struct rt_verdict *d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_NPS],
	    "Notification points: no CNP answered the 10 CE marks: the receivers' NP "
	    "(ECN on the RoCE priority) may be off, or the CNPs were not captured.");
	v.r.c.cnp = 8;
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_NPS],
	                    "Notification points answered: 8 CNPs for 10 CE marks.");
	static const uint64_t med[] = {3000, 1000, 2000, 4000};
	for (unsigned i = 0; i < 4; i++) {
		struct rt_res_flow *f = flow(&v, (uint8_t)(i + 1), 100, 0x100 + i, 2);
		f->np = &v.np[i];
		v.np[i].reaction = (struct rt_res_quantiles){.samples = 2, .median = med[i]};
		v.np[i].rate_limited = i;
	}
	struct rt_res_flow *f = flow(&v, 9, 100, 0x109, 1); /* a mark no CNP answered: no delay */
	f->np = &v.np[4];
	v.r.cnp_unattributed = 1;
	d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_NPS],
	    "Notification points answered: 8 CNPs for 10 CE marks; NP delay (median "
	    "of 4 flows' medians) 2 us; the CNP limiter held back 6 marks; 1 CNPs "
	    "matched no flow.");
	v.r.c.ce = 0; /* no mark: nothing to answer */
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_NPS], "");
}

/*
 * Did the senders slow: the lower median of the flows' median drops (one odd
 * flow does not move it, a mean would); why not (the reason of most CNPs);
 * the source's own log.
 */
static void test_senders(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *a = flow(&v, 1, 100, 0x100, 0), *b = flow(&v, 2, 100, 0x101, 0),
	                   *c = flow(&v, 3, 100, 0x102, 0);
	a->rp = &v.rp[0];
	b->rp = &v.rp[1];
	c->rp = &v.rp[2];
	v.rp[0] = (struct rt_res_rp){
	    .cnps = 4, .measured = 3, .median_drop_pct = 30, .too_few_packets = 1};
	v.rp[1] = (struct rt_res_rp){
	    .cnps = 2, .measured = 1, .median_drop_pct = -966, .cnp_in_window = 1};
	v.rp[2] = (struct rt_res_rp){.cnps = 3, .measured = 3, .median_drop_pct = 52.25};
	const struct rt_verdict *d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_SENDERS],
	    "Senders: after 7 of 9 CNPs the sender's rate fell by 30 % (median of 3 "
	    "flows' median drops; wire view, 4 packet gaps before and after each "
	    "CNP).");
	c->rp = NULL;
	d = verdict(&v); /* two flows: the lower median */
	assert_string_equal(
	    d->part[RT_VERDICT_SENDERS],
	    "Senders: after 4 of 6 CNPs the sender's rate fell by -966 % (median of "
	    "2 flows' median drops; wire view, 4 packet gaps before and after each "
	    "CNP).");
	static const char few[] = "too few packets around the CNP",
	                  gap[] = "a PSN gap in the window (a loss is not a cut)";
	v.rp[0] = (struct rt_res_rp){.cnps = 4, .too_few_packets = 4, .drop_null_reason = few};
	v.rp[1] = (struct rt_res_rp){.cnps = 3, .psn_gap_in_window = 3, .drop_null_reason = gap};
	d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_SENDERS],
	    "Senders: the rate drop after the 7 CNPs could not be measured (too few "
	    "packets around the CNP).");
	c->rp = &v.rp[2]; /* its CNPs tip the balance */
	v.rp[2] = (struct rt_res_rp){.cnps = 2, .psn_gap_in_window = 2, .drop_null_reason = gap};
	d = verdict(&v);
	assert_string_equal(
	    d->part[RT_VERDICT_SENDERS],
	    "Senders: the rate drop after the 9 CNPs could not be measured (a PSN gap "
	    "in the window (a loss is not a cut)).");
	a->rp = b->rp = c->rp = NULL;
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_SENDERS], "");

	a->source = &v.src[0];
	b->source = &v.src[1];
	v.src[0] = (struct rt_res_source){.cuts = 2, .cut_sum_pct = 77.5};
	v.src[1] = (struct rt_res_source){.cuts = 1, .cut_sum_pct = 50};
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_SOURCE], ""); /* no --source-log */
	v.r.source_log_loaded = true;
	d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_SOURCE],
	                    "The traffic source logged 3 rate cuts for CNPs, 42.5 % on average.");
}

static void test_capture(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.nwarnings = 2;
	const struct rt_verdict *d = verdict(&v);
	assert_string_equal(d->part[RT_VERDICT_CAPTURE],
	                    "The capture itself: 2 warning(s), listed below.");
	only(d, RT_VERDICT_CAPTURE);
}

/* Durations as people read them, through the PFC sentence. */
static void test_durations(void **state)
{
	(void)state;
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {{0, "0 ns"},           {999, "999 ns"},       {1000, "1 us"},
	             {1006, "1.01 us"},     {999994, "999.99 us"}, {1000000, "1 ms"},
	             {1234567, "1.235 ms"}, {1500000000, "1.5 s"}, {1234000000000, "1,234 s"}};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct view v;
		char want[96];
		init(&v);
		v.r.pfc[0] = (struct rt_res_pfc_class){.xoff = 1, .paused_ns = cases[i].ns};
		snprintf(want, sizeof(want), "PFC paused priority 0 (%s).", cases[i].text);
		assert_string_equal(verdict(&v)->part[RT_VERDICT_PFC], want);
	}
}

/* The findings part: how many of each severity, then the sentences of the most severe (notes not said). */
static void test_findings(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	static struct rt_finding f[5];
	const char *said[] = {"A storm.", "A silent NP.", "Data Not-ECT.", "Ports collapse.",
	                      "A note."};
	enum rt_severity sev[] = {RT_SEV_ERROR, RT_SEV_ERROR, RT_SEV_WARNING, RT_SEV_WARNING,
	                          RT_SEV_INFO};
	for (unsigned i = 0; i < 5; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].severity = sev[i];
		snprintf(f[i].summary, sizeof(f[i].summary), "%s", said[i]);
	}
	v.r.findings = f;
	assert_string_equal(verdict(&v)->part[RT_VERDICT_FINDINGS], "");
	v.r.nfindings = 5;
	assert_string_equal(verdict(&v)->part[RT_VERDICT_FINDINGS],
	                    "Findings: 2 errors, 2 warnings, 1 note: A storm; A silent NP; Data "
	                    "Not-ECT.");
	v.r.findings = &f[4];
	v.r.nfindings = 1;
	assert_string_equal(verdict(&v)->part[RT_VERDICT_FINDINGS], "Findings: 1 note.");
}

static void test_names(void **state)
{
	(void)state;
	static const char *const want[RT_VERDICT_PARTS] = {
	    "headline", "findings",   "where",   "pfc",    "pause",
	    "when",     "who",        "victims", "losses", "notification_points",
	    "senders",  "source_log", "capture"};
	for (unsigned p = 0; p < RT_VERDICT_PARTS; p++)
		assert_string_equal(rt_verdict_part_name(p), want[p]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),     cmocka_unit_test(test_no_roce),
	    cmocka_unit_test(test_calm),      cmocka_unit_test(test_ecn_off),
	    cmocka_unit_test(test_congested), cmocka_unit_test(test_where),
	    cmocka_unit_test(test_when),      cmocka_unit_test(test_who),
	    cmocka_unit_test(test_victims),   cmocka_unit_test(test_losses),
	    cmocka_unit_test(test_nps),       cmocka_unit_test(test_senders),
	    cmocka_unit_test(test_capture),   cmocka_unit_test(test_durations),
	    cmocka_unit_test(test_names),     cmocka_unit_test(test_findings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
