/* Unit tests of the findings' rules on hand-built results views: each rule's thresholds, both sides of each. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "findings_view.h"

/* A finding names only the flows the selectors select; one about none of them is left out. */
static void test_selected_flows(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *a = flow(&v, 1, 2, 0x11), *b = flow(&v, 1, 3, 0x12);
	for (struct rt_res_flow *f = a; f <= b; f++) {
		struct rt_res_transport *x = xport(&v, f);
		x->timeouts = x->retransmitted = 2;
		x->timeout_idle = (struct rt_res_quantiles){
		    .samples = 2, .min = 67112000, .median = 67112000, .max = 67112000};
	}
	b->selected = false;
	const struct rt_finding *f = judge(&v, "ack_timeout");
	assert_non_null(f);
	assert_int_equal(f->flows.n, 1);
	assert_string_equal(f->flows.v[0], "10.0.0.1>10.0.0.2:0x000011");
	assert_int_equal(f->flows_unselected, 1);
	a->selected = false;
	assert_null(judge(&v, "ack_timeout"));
}

/* ECMP: 4 QPs or more, 4 or more per source port; a QP spreading its ports is a port of its own. */
static void test_ecmp(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	for (uint32_t q = 0; q < 4; q++)
		flow(&v, 1, 2, 0x100 + q)->udp_sport = 4791;
	const struct rt_finding *f = judge(&v, "ecmp_collapse");
	assert_non_null(f);
	assert_int_equal(evidence(f, "worst_pair_ports")->u, 1);
	assert_true(fabs(evidence(f, "uplinks_used_of_4")->d - 1.0) < 1e-9);
	assert_true(fabs(evidence(f, "uplinks_used_of_4_port_each")->d - 4 * (1 - pow(0.75, 4))) <
	            1e-9);
	v.flows[3].udp_sport_varied = true; /* 2 ports for 4 QPs */
	assert_null(judge(&v, "ecmp_collapse"));
	init(&v);
	for (uint32_t q = 0; q < 3; q++)
		flow(&v, 1, 2, 0x100 + q)->udp_sport = 4791;
	assert_null(judge(&v, "ecmp_collapse"));
}

/* A silent NP: marks without CNPs; how sure depends on what else the capture holds. */
static void test_np_silent(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *d = flow(&v, 1, 2, 0x11);
	d->ecn[3] = 8;
	d->np = &v.np[d->id];
	v.np[d->id].first_ce_ns = T0;
	v.np[d->id].last_ce_ns = T0 + 2 * MS;
	/* neither its own packets nor anyone's CNPs: cannot tell */
	const struct rt_finding *f = judge(&v, "np_silent");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_INFO);
	assert_null(f->confidence);
	/* its ACKs are there: its CNPs would be */
	struct rt_res_flow *back = flow(&v, 2, 1, 0x22);
	back->requests = 0;
	f = judge(&v, "np_silent");
	assert_int_equal(f->severity, RT_SEV_ERROR);
	assert_string_equal(f->confidence, "medium");
	assert_string_equal(f->hosts.v[0], "10.0.0.2");
	/* another receiver answers its marks */
	flow(&v, 3, 4, 0x33);
	flow(&v, 4, 3, 0x44)->cnp_sent = 5;
	assert_string_equal(judge(&v, "np_silent")->confidence, "high");
	/* too few marks */
	d->ecn[3] = 7;
	assert_null(judge(&v, "np_silent"));
	/* marks within 1 ms and no other receiver answering: a CNP limiter could explain it */
	d->ecn[3] = 8;
	v.flows[3].cnp_sent = 0;
	v.np[d->id].last_ce_ns = T0 + 500 * US;
	assert_null(judge(&v, "np_silent"));
}

/* A deaf RP, upstream of the queue; behind it only against senders that do slow down. */
static void test_rp_deaf(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *s = flow(&v, 1, 2, 0x11);
	rp(&v, s, 8, 2.0, 5.0);
	const struct rt_finding *f = judge(&v, "rp_deaf");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_ERROR);
	assert_string_equal(f->hosts.v[0], "10.0.0.1");
	assert_true(evidence(f, "median_drop_pct")->d == 2.0);
	rp(&v, s, 7, 2.0, 5.0); /* too few CNPs measured */
	assert_null(judge(&v, "rp_deaf"));
	rp(&v, s, 8, 2.0, 12.0); /* it did cut, one CNP in four or more */
	assert_null(judge(&v, "rp_deaf"));
	rp(&v, s, 8, 2.0, 5.0)->max_drop_pct = 300; /* one odd window flips nothing */
	assert_non_null(judge(&v, "rp_deaf"));
	rp(&v, s, 8, 2.0, 5.0)->capture_side = "receiver"; /* behind the marking point: alone, */
	assert_null(judge(&v, "rp_deaf"));                 /* it says nothing */
	struct rt_res_flow *other = flow(&v, 3, 2, 0x33);
	rp(&v, other, 8, 30.0, 50.0)->capture_side = "receiver"; /* another sender there slows */
	f = judge(&v, "rp_deaf");
	assert_non_null(f);
	assert_string_equal(f->hosts.v[0], "10.0.0.1");
	assert_int_equal(f->hosts.n, 1);
}

/*
 * CNPs set apart are no "no cut": a sender whose CNPs fell where a full link
 * hid its pacing (after the bottleneck) is not deaf; where other senders are
 * seen to slow down, the capture says it cannot tell.
 */
static void test_rp_cannot_tell(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *s = flow(&v, 1, 2, 0x11);
	struct rt_res_rp *p = rp(&v, s, 8, 2.0, 5.0);
	p->measured = 2;
	p->cnps = 20;
	p->full_link = 18;
	p->median_drop_pct = p->drop_p75_pct = 0;
	p->capture_side = "receiver";
	assert_null(judge(&v, "rp_deaf")); /* alone: nothing sets it apart (its flow says why) */
	struct rt_res_flow *other = flow(&v, 3, 2, 0x33);
	rp(&v, other, 8, 30.0, 50.0)->capture_side =
	    "receiver"; /* another sender is seen to slow */
	const struct rt_finding *f = judge(&v, "rp_deaf");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_INFO);
	assert_int_equal(f->hosts.n, 1);
	assert_null(f->confidence);
	assert_string_equal(f->hosts.v[0], "10.0.0.1");
	assert_int_equal(evidence(f, "cnps")->u, 20);
	assert_non_null(strstr(f->summary, "Cannot tell"));
	p->full_link = 9; /* most CNPs were set apart for other reasons: nothing to say */
	assert_null(judge(&v, "rp_deaf"));
}

/* A slow NP: slow every time, not a median pulled up by marks misread (a minimum of a few us). */
static void test_slow_np(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *d = flow(&v, 1, 2, 0x11);
	d->ecn[3] = 50;
	d->np = &v.np[d->id];
	v.np[d->id].reaction =
	    (struct rt_res_quantiles){.samples = 40, .min = 279, .median = 110000, .max = 264000};
	flow(&v, 2, 1, 0x22)->cnp_sent = 40;
	assert_null(judge(&v, "slow_np"));
	v.np[d->id].reaction.min = 100000;
	const struct rt_finding *f = judge(&v, "slow_np");
	assert_non_null(f);
	assert_string_equal(f->hosts.v[0], "10.0.0.2");
	assert_int_equal(evidence(f, "np_delay_median_ns")->u, 110000);
	v.np[d->id].reaction.samples = 2;
	assert_null(judge(&v, "slow_np"));
}

/* A storm: its origin mapped to a host, victims that stalled in it and sent again, direct ones apart. */
static void test_storm_victims(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	uint8_t origin[6] = {2, 0, 0, 0, 0, 9}, sw[6] = {2, 0, 0, 0, 0, 0xfe};
	v.r.nmacs = 1;
	memcpy(v.macs[0].mac, origin, 6);
	v.macs[0].ipver = 4;
	v.macs[0].ip[0] = 10;
	v.macs[0].ip[3] = 9;
	v.r.nincidents = 1;
	v.inc[0] = (struct rt_res_incident){.cls = 3,
	                                    .start_ns = T0 + 100 * MS,
	                                    .end_ns = T0 + 130 * MS,
	                                    .nmacs = 2,
	                                    .macs_total = 2};
	memcpy(v.inc[0].macs[0].mac, origin, 6);
	v.inc[0].macs[0].longest_ns = 30 * MS;
	memcpy(v.inc[0].macs[1].mac, sw, 6);
	v.inc[0].macs[1].longest_ns = MS;
	struct rt_res_flow *victim = flow(&v, 1, 2, 0x11), *direct = flow(&v, 3, 9, 0x33),
	                   *ended = flow(&v, 4, 5, 0x44), *early = flow(&v, 6, 7, 0x66);
	victim->stall_from_ns = direct->stall_from_ns = T0 + 100 * MS;
	victim->stall_ns = direct->stall_ns = 31 * MS;
	ended->stall_from_ns = T0 + 101 * MS; /* silent to the end, long after the storm */
	ended->stall_ns = 899 * MS;
	early->stall_from_ns = T0 + 80 * MS; /* quiet since well before it */
	early->stall_ns = 60 * MS;
	const struct rt_finding *f = judge(&v, "pfc_storm");
	assert_non_null(f);
	assert_string_equal(f->confidence, "high");
	assert_int_equal(evidence(f, "victim_flows")->u, 1);
	assert_int_equal(evidence(f, "stalled_into_origin")->u, 1);
	assert_string_equal(evidence(f, "origin_ip")->text, "10.0.0.9");
	assert_int_equal(f->flows.n, 1);
	assert_string_equal(f->flows.v[0], "10.0.0.1>10.0.0.2:0x000011");
	assert_int_equal(f->macs.n, 2);
	assert_int_equal(f->priorities[0], 3);
	/* one vantage point: whether it is a deadlock cannot be told */
	f = judge(&v, "pfc_deadlock_suspect");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_INFO);
	/* a switch MAC (RoCE frames of several IPs) names no host */
	v.macs[0].several = true;
	f = judge(&v, "pfc_storm");
	assert_string_equal(f->confidence, "medium");
	assert_int_equal(evidence(f, "origin_ip")->kind, RT_EV_NULL);
	assert_int_equal(evidence(f, "victim_flows")->u, 2);
}

/* A lossy priority: error with losses, warning without, nothing when no pause shows PFC on. */
static void test_lossy_priority(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *f0 = flow(&v, 1, 2, 0x11);
	f0->tagged = true;
	f0->pcp = 0;
	assert_null(judge(&v, "lossy_priority"));
	v.r.pfc[3].xoff = 4;
	const struct rt_finding *f = judge(&v, "lossy_priority");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_WARNING);
	assert_string_equal(f->confidence, "high");
	xport(&v, f0)->retransmitted = 3;
	f = judge(&v, "lossy_priority");
	assert_int_equal(f->severity, RT_SEV_ERROR);
	assert_int_equal(evidence(f, "priority")->u, 0);
	f0->tagged = false; /* DSCP 26: priority 3, which PFC pauses */
	assert_null(judge(&v, "lossy_priority"));
	f0->dscp = 0;
	assert_string_equal(judge(&v, "lossy_priority")->confidence, "medium");
	f0->cnp_carried = true; /* its latest packet may be a CNP: not judged */
	assert_null(judge(&v, "lossy_priority"));
}

/* The capture's warnings as findings, with their severities; most severe first. */
static void test_capture_and_order(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.nwarnings = 2;
	v.r.warnings[0] = (struct rt_an_warning){.code = "snaplen_cut",
	                                         .message = "cut",
	                                         .nvalues = 2,
	                                         .values = {{"frames", 5}, {"headers_cut", 0}}};
	v.r.warnings[1] = (struct rt_an_warning){
	    .code = "duplicates",
	    .message = "copies",
	    .nvalues = 2,
	    .values = {{"other_capture_point", 0}, {"same_capture_point", 4}}};
	struct rt_res_transport *x = xport(&v, flow(&v, 1, 2, 0x11));
	x->timeouts = 1;
	x->timeout_idle = (struct rt_res_quantiles){.samples = 1, .median = MS, .mean = MS};
	assert_non_null(judge(&v, "capture_snaplen"));
	assert_int_equal(v.n, 3);
	assert_string_equal(v.out[0].code, "ack_timeout");
	assert_string_equal(v.out[1].code, "capture_duplicates");
	assert_int_equal(v.out[1].severity, RT_SEV_WARNING);
	assert_string_equal(v.out[2].code, "capture_snaplen");
	assert_int_equal(v.out[2].severity, RT_SEV_INFO);
	assert_int_equal(evidence(&v.out[1], "same_capture_point")->u, 4);
}

/* A MAC 02:00:00:00:00:n. */
static void set_mac(uint8_t m[6], uint8_t n)
{
	static const uint8_t base[6] = {2, 0, 0, 0, 0, 0};
	memcpy(m, base, 6);
	m[5] = n;
}

/*
 * A deadlock: A pauses B (at the link A-B), B pauses C, C pauses A, all at
 * once for the threshold; staggered, or a link with a third MAC on it, it
 * is no cycle.
 */
static void test_deadlock(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.nvantage = 3;
	v.r.nmacs = v.r.npfc_sources = 3;
	for (unsigned k = 0; k < 3; k++) {
		set_mac(v.macs[k].mac, (uint8_t)(0xa0 + k));
		/* the link k (A-B, B-C, C-A) sees its two ends send */
		v.macs[k].src_points = point_set(&v.mac_bits[k], 1u << k | 1u << ((k + 2) % 3));
		set_mac(v.src[k].mac, (uint8_t)(0xa0 + k));
		v.src[k].cls = 3;
		v.src[k].points = point_set(&v.src_bits[k], 1u << k);
		v.src[k].longest_start_ns = T0 + 100 * MS + k * MS;
		v.src[k].longest_ns = 20 * MS;
	}
	const struct rt_finding *f = judge(&v, "pfc_deadlock_suspect");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_ERROR);
	assert_int_equal(f->macs.n, 3);
	assert_int_equal(evidence(f, "macs")->u, 3);
	assert_int_equal(evidence(f, "together_ns")->u, 18 * MS);
	assert_string_equal(evidence(f, "cycle")->text,
	                    "02:00:00:00:00:a0 -> 02:00:00:00:00:a1 -> 02:00:00:00:00:a2 -> "
	                    "02:00:00:00:00:a0");
	v.src[2].longest_start_ns = T0 + 111 * MS; /* together 9 ms: less than the threshold */
	assert_null(judge(&v, "pfc_deadlock_suspect"));
	v.src[2].longest_start_ns = T0 + 102 * MS;
	v.r.nmacs = 4; /* a fourth MAC sends on the link C-A: C's partner there is unknown */
	set_mac(v.macs[3].mac, 0xa9);
	v.macs[3].src_points = point_set(&v.mac_bits[3], 1u << 2);
	assert_null(judge(&v, "pfc_deadlock_suspect"));
}

/* CNPs on the data's priority, below it, or on another DSCP than most CNPs. */
static void test_cnp_priority(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	flow(&v, 1, 2, 0x11);
	struct rt_res_flow *cnps = flow(&v, 2, 1, 0x22);
	cnps->requests = 0;
	cnps->cnp_carried = true;
	cnps->cnp_sent = 10;
	cnps->cnp_dscp = 26; /* priority 3, the data's */
	const struct rt_finding *f = judge(&v, "cnp_priority");
	assert_non_null(f);
	assert_int_equal(evidence(f, "cnp_priority")->u, 3);
	assert_int_equal(evidence(f, "data_priority")->u, 3);
	assert_string_equal(f->confidence, "medium");
	assert_string_equal(f->hosts.v[0], "10.0.0.2");
	cnps->cnp_dscp = 8; /* priority 1: below the data's */
	f = judge(&v, "cnp_priority");
	assert_non_null(f);
	assert_int_equal(evidence(f, "cnp_priority")->u, 1);
	cnps->cnp_tagged = true; /* PCP 6 */
	cnps->cnp_pcp = 6;
	cnps->cnp_dscp = 48;
	assert_null(judge(&v, "cnp_priority"));
	flow(&v, 3, 4, 0x33);
	struct rt_res_flow *odd = flow(&v, 4, 3, 0x44);
	odd->requests = 0;
	odd->cnp_carried = true;
	odd->cnp_sent = 3;
	odd->cnp_dscp = 46;
	f = judge(&v, "cnp_priority");
	assert_non_null(f);
	assert_int_equal(f->hosts.n, 1);
	assert_string_equal(f->hosts.v[0], "10.0.0.4");
	assert_int_equal(evidence(f, "common_cnp_dscp")->u, 48);
	assert_string_equal(evidence(f, "other_cnp_dscps")->text, "46");
}

/* ECN off: more than half a sender's data Not-ECT, once 4 data packets are in the capture. */
static void test_ecn_off(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *fl = flow(&v, 1, 2, 0x11);
	fl->ecn[2] = 49;
	fl->ecn[0] = 51;
	const struct rt_finding *f = judge(&v, "ecn_off");
	assert_non_null(f);
	assert_string_equal(f->hosts.v[0], "10.0.0.1");
	assert_int_equal(evidence(f, "not_ect")->u, 51);
	fl->ecn[0] = 49; /* half: not more */
	assert_null(judge(&v, "ecn_off"));
	fl->ecn[2] = 0;
	fl->ecn[0] = 3; /* too few packets to tell */
	assert_null(judge(&v, "ecn_off"));
}

/* A slow cut: slow every time (its minimum too), and slower than 4 of the flow's packet gaps. */
static void test_slow_rp(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	struct rt_res_flow *s = flow(&v, 1, 2, 0x11);
	s->packets = 100000; /* 10 us apart */
	struct rt_res_rp *p = rp(&v, s, 8, 30.0, 50.0);
	p->cut_delay = (struct rt_res_quantiles){
	    .samples = 8, .min = 60 * US, .median = 70 * US, .max = 90 * US};
	const struct rt_finding *f = judge(&v, "slow_rp");
	assert_non_null(f);
	assert_int_equal(evidence(f, "cut_delay_median_ns")->u, 70 * US);
	p->cut_delay.min = 20 * US; /* some cuts come in time: a misread, not a slow RP */
	assert_null(judge(&v, "slow_rp"));
	p->cut_delay.min = 60 * US;
	s->packets = 10000; /* 100 us apart: 70 us is less than a gap */
	assert_null(judge(&v, "slow_rp"));
}

/* MTUs: two between one pair; a host whose QPs all run below the MTU most QPs use. */
static void test_mtu(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	flow(&v, 1, 2, 0x11)->pmtu = 4096;
	flow(&v, 2, 1, 0x22)->pmtu = 4096;
	assert_null(judge(&v, "mtu_mismatch"));
	flow(&v, 1, 2, 0x33)->pmtu = 1024;
	const struct rt_finding *f = judge(&v, "mtu_mismatch");
	assert_non_null(f);
	assert_string_equal(evidence(f, "mtus")->text, "1024 (1 QP), 4096 (2 QPs)");
	init(&v);
	flow(&v, 1, 2, 0x11)->pmtu = 4096;
	flow(&v, 2, 3, 0x22)->pmtu = 4096;
	flow(&v, 4, 1, 0x33)->pmtu = 1024;
	f = judge(&v, "mtu_mismatch");
	assert_non_null(f);
	assert_int_equal(f->hosts.n, 1);
	assert_string_equal(f->hosts.v[0], "10.0.0.4");
	assert_int_equal(evidence(f, "host_mtu")->u, 1024);
	assert_int_equal(evidence(f, "common_mtu")->u, 4096);
}

/* Copies from other vantage points are what vantage points are for: no finding. */
static void test_duplicates_vantage(void **state)
{
	(void)state;
	struct view v;
	init(&v);
	v.r.nwarnings = 1;
	v.r.warnings[0] = (struct rt_an_warning){
	    .code = "duplicates",
	    .message = "copies",
	    .nvalues = 2,
	    .values = {{"other_capture_point", 40}, {"same_capture_point", 0}}};
	const struct rt_finding *f = judge(&v, "capture_duplicates");
	assert_non_null(f);
	assert_int_equal(f->severity, RT_SEV_INFO);
	v.r.nvantage = 2;
	assert_null(judge(&v, "capture_duplicates"));
	v.r.warnings[0].values[1].value = 2; /* one point saw a packet twice */
	assert_int_equal(judge(&v, "capture_duplicates")->severity, RT_SEV_WARNING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_selected_flows),
	    cmocka_unit_test(test_ecmp),
	    cmocka_unit_test(test_np_silent),
	    cmocka_unit_test(test_rp_deaf),
	    cmocka_unit_test(test_rp_cannot_tell),
	    cmocka_unit_test(test_storm_victims),
	    cmocka_unit_test(test_lossy_priority),
	    cmocka_unit_test(test_capture_and_order),
	    cmocka_unit_test(test_slow_np),
	    cmocka_unit_test(test_deadlock),
	    cmocka_unit_test(test_cnp_priority),
	    cmocka_unit_test(test_ecn_off),
	    cmocka_unit_test(test_slow_rp),
	    cmocka_unit_test(test_mtu),
	    cmocka_unit_test(test_duplicates_vantage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
