/* Unit tests of the transport findings' rules on hand-built results views: ACK timeouts, RNR NAKs, NAK storms and losses. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "findings_view.h"

/* The local ACK timeout: t from the waits (67.1 ms is t = 14); a wait no timer runs is left out. */
static void test_ack_timeout(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_transport *x = xport(&v, flow(&v, 1, 2, 0x11));
	x->timeouts = x->retransmitted = 2;
	x->timeout_idle = (struct rt_res_quantiles){
	    .samples = 2, .min = 67112000, .median = 67112000, .max = 67200000, .mean = 67156000};
	const struct rt_finding *f = judge(&v, "ack_timeout");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_ERROR);
	assert_int_equal(evidence(f, "timeout_t")->u, 14);
	assert_int_equal(evidence(f, "timeout_ns")->u, 67108864);
	assert_int_equal(evidence(f, "stall_ns")->u, 134312000);
	assert_string_equal(f->hosts.v[0], "10.0.0.1");
	assert_string_equal(f->flows.v[0], "10.0.0.1>10.0.0.2:0x000011");
	x->timeout_idle.median = x->timeout_idle.min = 40 * US; /* below t = 4 */
	assert_null(judge(&v, "ack_timeout"));
}

/* NAK storm from 10 go-back-N runs resending 1 % of the requests, else a loss; its amplification. */
static void test_losses(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *fl = flow(&v, 1, 2, 0x11);
	fl->requests = 1000;
	struct rt_res_transport *x = xport(&v, fl);
	x->go_back_n = x->naks_received = 10;
	x->gap_psns = 10;
	x->retransmitted = 160;
	x->retransmitted_bytes = 160 * 1086;
	const struct rt_finding *f = judge(&v, "nak_storm");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_ERROR);
	assert_null(f->confidence);
	assert_true(fabs(evidence(f, "amplification")->d - 16.0) < 1e-9);
	assert_string_equal(evidence(f, "lost_from")->text, "gaps");
	assert_null(judge(&v, "loss"));
	x->retransmitted = 9; /* under 1 % of the requests */
	assert_null(judge(&v, "nak_storm"));
	x->retransmitted = 160;
	x->go_back_n = 9;
	f = judge(&v, "loss");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_WARNING);
	/* the capture put frames out of time order: the gaps may be its own */
	v.r.nwarnings = 1;
	v.r.warnings[0] = (struct rt_an_warning){
	    .code = "time_backwards", .message = "back", .nvalues = 1, .values = {{"flows", 0}}};
	assert_null(judge(&v, "loss")->confidence); /* no flow's own packets: no gap made */
	v.r.warnings[0].values[0].value = 1;
	f = judge(&v, "loss");
	assert_string_equal(f->confidence, "low");
	assert_non_null(strstr(f->summary, "out of order"));
}

/* Where the loss was, from the vantage paths its flows were seen on. */
static void test_lost_where(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *fl = flow(&v, 1, 2, 0x11);
	struct rt_res_transport *x = xport(&v, fl);
	x->naks_received = x->go_back_n = 1;
	x->retransmitted = 4;
	assert_int_equal(evidence(judge(&v, "loss"), "lost_where")->kind, RT_EV_NULL);
	v.r.nvantage = 2;
	v.r.npaths = 1;
	v.paths[0] = (struct rt_res_path){.from = "tor", .to = "rx", .matched = 90, .judged = 90};
	v.path_ix[0] = 0;
	fl->npaths = 1;
	fl->paths = v.path_ix;
	assert_string_equal(evidence(judge(&v, "loss"), "lost_where")->text,
	                    "not between the vantage points: before the first or after the last");
	/* none lost of those judged, but some nobody could judge: it cannot tell */
	v.paths[0].not_judged = 5;
	v.paths[0].not_judged_reason = "the other point was not capturing";
	assert_string_equal(
	    evidence(judge(&v, "loss"), "lost_where")->text,
	    "cannot tell: none lost between the vantage points of the 90 packets "
	    "judged, but 5 could not be judged (the other point was not capturing)");
	v.paths[0].judged = v.paths[0].not_judged = 0; /* none judged: nothing to say */
	assert_int_equal(evidence(judge(&v, "loss"), "lost_where")->kind, RT_EV_NULL);
	v.paths[0].judged = 93;
	v.paths[0].lost = 3;
	const struct rt_finding *f = judge(&v, "loss");
	assert_string_equal(evidence(f, "lost_where")->text, "between tor and rx (3 lost)");
	assert_non_null(strstr(f->summary, "place the loss between tor and rx (3 lost)."));
}

/*
 * Packets the paths place between two points make a loss, whichever point the
 * flow is followed at: upstream (no gap there), their count on top of its
 * gaps (lost before it); downstream (its gaps hold them), not twice. With the
 * capture's own drops, they may be those: confidence low, and said.
 */
static void test_lost_between_points(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *fl = flow(&v, 1, 2, 0x11), *f2 = flow(&v, 1, 2, 0x12);
	static const uint64_t lost[1] = {20};
	v.r.nvantage = 2;
	v.r.npaths = 1;
	v.paths[0] = (struct rt_res_path){
	    .from = "t1", .to = "t2", .matched = 1980, .judged = 2000, .lost = 20};
	fl->npaths = f2->npaths = 1;
	fl->paths = f2->paths = v.path_ix;
	fl->path_lost = f2->path_lost = lost;
	fl->followed_at = f2->followed_at = "t1";
	const struct rt_finding *f = judge(&v, "loss");
	assert_non_null(f);
	/* two QPs of one host pair: its 20 lost once */
	assert_int_equal(evidence(f, "flows")->u, 2);
	assert_int_equal(evidence(f, "lost_packets")->u, 20);
	assert_int_equal(evidence(f, "lost_between_points")->u, 20);
	assert_string_equal(evidence(f, "lost_from")->text, "paths");
	assert_non_null(strstr(f->summary, "lost 20 packets (seen at one vantage point, never at "
	                                   "the next)"));
	assert_null(f->confidence);
	/* followed downstream: its gaps are the same packets */
	fl->followed_at = f2->followed_at = "t2";
	xport(&v, fl)->gap_psns = 12;
	xport(&v, f2)->gap_psns = 8;
	f = judge(&v, "loss");
	assert_int_equal(evidence(f, "lost_packets")->u, 20);
	assert_string_equal(evidence(f, "lost_from")->text, "paths");
	/* upstream with 5 gaps of its own: lost before the first point, 25 in all */
	fl->followed_at = f2->followed_at = "t1";
	v.x[fl->id].gap_psns = 5;
	v.x[f2->id].gap_psns = 0;
	f = judge(&v, "loss");
	assert_int_equal(evidence(f, "lost_packets")->u, 25);
	assert_string_equal(evidence(f, "lost_from")->text, "gaps and paths");
	/* the capture dropped frames: the paths' losses may be those */
	v.r.drops_source = "pcapng";
	v.r.if_dropped = 20;
	f = judge(&v, "loss");
	assert_string_equal(f->confidence, "low");
	assert_non_null(strstr(f->summary, "not lost in the network"));
	/* no path lost any, no gap: no loss */
	v.r.drops_source = NULL;
	v.r.if_dropped = 0;
	v.x[fl->id].gap_psns = 0;
	static const uint64_t none[1] = {0};
	fl->path_lost = f2->path_lost = none;
	assert_null(judge(&v, "loss"));
}

/* RNR NAKs: the receiver is named, the timer field read as InfiniBand's table. */
static void test_rnr(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_transport *x = xport(&v, flow(&v, 1, 2, 0x11));
	x->rnr_naks_received = x->rnr_retries = 5;
	x->rnr_timer = 14;
	x->rnr_wait = (struct rt_res_quantiles){.samples = 5,
	                                        .min = 1290 * US,
	                                        .median = 1300 * US,
	                                        .max = 1310 * US,
	                                        .mean = 1300 * US};
	const struct rt_finding *f = judge(&v, "rnr");
	assert_non_null(f);
	assert_string_equal(f->hosts.v[0], "10.0.0.2");
	assert_int_equal(evidence(f, "rnr_timer_ns")->u, 1280 * US);
	assert_int_equal(evidence(f, "stall_ns")->u, 6500 * US);
	x->rnr_timer = 0; /* 655.36 ms */
	assert_int_equal(evidence(judge(&v, "rnr"), "rnr_timer_ns")->u, 655360 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ack_timeout), cmocka_unit_test(test_losses),
	    cmocka_unit_test(test_lost_where),  cmocka_unit_test(test_lost_between_points),
	    cmocka_unit_test(test_rnr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
