/* Unit tests of the findings' rules on hand-built results views: each rule's thresholds, both sides of each. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/findings.h"

#define T0   1700000000000000000ull
#define US   1000ull
#define MS   1000000ull
#define MAXF 16

/* A view and the arrays it points into. */
struct view {
	struct rt_results r;
	struct rt_res_flow flows[MAXF];
	struct rt_res_transport x[MAXF];
	struct rt_res_np np[MAXF];
	struct rt_res_rp rp[MAXF];
	struct rt_res_incident inc[2];
	struct rt_res_mac macs[4];
	struct rt_res_pfc_source src[4];
	struct rt_res_path paths[2];
	unsigned path_ix[MAXF];
	struct rt_finding out[RT_FINDINGS_MAX];
	int n;
};

/* One second of RoCE, nothing else. */
static void init(struct view *v)
{
	memset(v, 0, sizeof(*v));
	v->r.c.packets = v->r.c.roce_packets = 1000;
	v->r.any_frame = true;
	v->r.start_ns = T0;
	v->r.end_ns = T0 + 1000 * MS;
	v->r.storm_ns = 10 * MS;
	v->r.flows = v->flows;
	v->r.incidents = v->inc;
	v->r.macs = v->macs;
	v->r.pfc_sources = v->src;
	v->r.paths = v->paths;
}

/* A data flow 10.0.0.src > 10.0.0.dst, QP qp: 100 ECT(0) requests over the second. */
static struct rt_res_flow *flow(struct view *v, uint8_t src, uint8_t dst, uint32_t qp)
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
	f->requests = f->packets = f->ecn[2] = 100;
	f->first_ns = T0;
	f->last_ns = T0 + 999 * MS;
	f->dscp = 26;
	f->udp_sport_known = true;
	f->udp_sport = (uint16_t)(49152 + qp);
	f->selected = true;
	return f;
}

/* Its transport, NP and RP parts. */
static struct rt_res_transport *xport(struct view *v, struct rt_res_flow *f)
{
	f->xport = &v->x[f->id];
	return &v->x[f->id];
}

/* Its RP reaction, seen from the senders' side: `measured` CNPs, their median drop and upper quartile. */
static struct rt_res_rp *rp(struct view *v, struct rt_res_flow *f, uint64_t measured, double median,
                            double p75)
{
	struct rt_res_rp *p = &v->rp[f->id];
	*p = (struct rt_res_rp){.cnps = measured,
	                        .measured = measured,
	                        .median_drop_pct = median,
	                        .drop_p75_pct = p75,
	                        .max_drop_pct = p75,
	                        .capture_side = "sender"};
	f->rp = p;
	return p;
}

/* The findings of the view; the one of `code` (NULL: none). */
static const struct rt_finding *judge(struct view *v, const char *code)
{
	v->n = an_findings_build(&v->r, v->out, RT_FINDINGS_MAX);
	assert_true(v->n >= 0);
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->out[i].code, code))
			return &v->out[i];
	return NULL;
}

static const struct rt_evidence *evidence(const struct rt_finding *f, const char *name)
{
	for (unsigned i = 0; i < f->nevidence; i++)
		if (!strcmp(f->evidence[i].name, name))
			return &f->evidence[i];
	fail_msg("%s has no evidence %s", f->code, name);
	return NULL;
}

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
		v.macs[k].src_points = (uint8_t)(1u << k | 1u << ((k + 2) % 3));
		set_mac(v.src[k].mac, (uint8_t)(0xa0 + k));
		v.src[k].cls = 3;
		v.src[k].points = (uint8_t)(1u << k);
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
	v.macs[3].src_points = 1u << 2;
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
	    cmocka_unit_test(test_ack_timeout),
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
	    cmocka_unit_test(test_losses),
	    cmocka_unit_test(test_lost_where),
	    cmocka_unit_test(test_lost_between_points),
	    cmocka_unit_test(test_ecn_off),
	    cmocka_unit_test(test_rnr),
	    cmocka_unit_test(test_slow_rp),
	    cmocka_unit_test(test_mtu),
	    cmocka_unit_test(test_duplicates_vantage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
