/* Unit tests of pairing at scale and of the analyzer's bounds: many QPs between two hosts, CNP targets, sole pairs, CM re-pairing, --max-flows, memory per flow, an interrupted end. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "analyze/reaction.h"
#include "dissect/opcodes.h"
#include "tests/analyze/records.h"

#define T0 1700000000000000000ull
#define US 1000ull

static struct rt_analyzer *new_an(uint32_t max_flows)
{
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.max_flows = max_flows;
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	return an;
}

/*
 * Many QPs between two hosts, the way collectives open them: each requester
 * sends 8 WRITEs (AckReq on the 8th), then the ACKs come back. Which
 * requester each ACK pairs with is checked against a plain model of the rule
 * (the unpaired requester whose PSN range [first PSN, highest + 1] holds the
 * ACK's PSN and that sent last, then the one created last), walked over
 * every flow as the rule is written.
 */
static void many_qps(uint32_t n, const uint32_t *first)
{
	struct rt_analyzer *an = new_an(0);
	uint64_t *last_ts = calloc(n, sizeof(*last_ts));
	uint32_t *model =
	    malloc(n * sizeof(*model)); /* requester paired with ACK flow i, or UINT32_MAX */
	bool *taken = calloc(n, sizeof(*taken));
	assert_non_null(last_ts);
	assert_non_null(model);
	assert_non_null(taken);
	uint64_t t = T0;
	for (uint32_t k = 0; k < 8; k++)
		for (uint32_t i = 0; i < n; i++) {
			struct rt_record r = roce(t += 10, 1, 2, 0x0a, 0x200000 + i, first[i] + k);
			r.ackreq = k == 7;
			rt_analyzer_feed(an, &r);
			last_ts[i] = t;
		}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t psn = (first[i] + 7) & 0xffffff, best = UINT32_MAX;
		for (uint32_t j = 0; j < n; j++) {
			if (taken[j] || rt_psn_diff(psn, first[j] & 0xffffff) < 0 ||
			    rt_psn_diff(psn, (first[j] + 7) & 0xffffff) > 1)
				continue;
			if (best == UINT32_MAX || last_ts[j] > last_ts[best] ||
			    (last_ts[j] == last_ts[best] && j > best))
				best = j;
		}
		model[i] = best;
		if (best != UINT32_MAX)
			taken[best] = true;
		struct rt_record a = ack(t += 10, 2, 1, 0x100000 + i, psn, 0x1f);
		rt_analyzer_feed(an, &a);
	}
	uint32_t paired = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct an_flow *f = flow_of(an, 2, 1, 0x100000 + i);
		assert_non_null(f);
		if (model[i] == UINT32_MAX) {
			assert_int_equal(f->peer_qp, AN_NONE);
			continue;
		}
		assert_int_equal(f->peer_qp, 0x200000 + model[i]);
		assert_int_equal(f->pairing, AN_PAIR_ACK);
		paired++;
	}
	assert_true(paired > n / 2);
	free(last_ts);
	free(model);
	free(taken);
	rt_analyzer_free(an);
}

static void test_many_qps_random_psns(void **state)
{
	(void)state;
	enum { N = 3000 };
	static uint32_t first[N];
	uint64_t x = 12345;
	for (uint32_t i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* a tight PSN space, so that ranges overlap and the rule's choice is tested */
		first[i] = (uint32_t)(x >> 40) % 20000;
	}
	many_qps(N, first);
}

static void test_many_qps_same_psns(void **state)
{
	(void)state;
	enum { N = 1000 };
	static uint32_t
	    first[N]; /* every QP starts at PSN 0: the newest requester wins, ACK after ACK */
	many_qps(N, first);
	/* wrapping ranges: PSNs about 2^24 - 4 */
	for (uint32_t i = 0; i < N; i++)
		first[i] = 0xfffffc - (i % 3);
	many_qps(N, first);
}

/* A CNP with no pair finds its data flow by counts: the only CE-marked unpaired flow, else the only one. */
static void test_cnp_target(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	for (uint32_t qp = 0x10; qp < 0x13; qp++) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, qp, 100);
		r.ecn = qp == 0x11 ? 3 : 2;
		rt_analyzer_feed(an, &r);
	}
	struct rt_record c = roce(t += US, 2, 1, RT_OPCODE_CNP, 0x99, 0);
	rt_analyzer_feed(an, &c);
	assert_int_equal(flow_of(an, 1, 2, 0x11)->cnp_received, 1);
	assert_int_equal(flow_of(an, 1, 2, 0x11)->pairing, AN_PAIR_CNP);
	/* two CE-marked unpaired flows left: no way to tell */
	for (uint32_t qp = 0x10; qp < 0x13; qp += 2) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, qp, 101);
		r.ecn = 3;
		rt_analyzer_feed(an, &r);
	}
	c = roce(t += US, 2, 1, RT_OPCODE_CNP, 0x98, 0);
	rt_analyzer_feed(an, &c);
	assert_int_equal(an->tot.cnp_unattributed, 1);
	/* a UD flow whose DETH names QP 0x97 is the one a CNP to 0x97 throttles */
	struct rt_record u = roce(t += US, 1, 2, 0x64, 0x20, 1);
	u.hdrs = RT_H_DETH;
	u.deth_src_qp = 0x97;
	rt_analyzer_feed(an, &u);
	c = roce(t += US, 2, 1, RT_OPCODE_CNP, 0x97, 0);
	rt_analyzer_feed(an, &c);
	assert_int_equal(flow_of(an, 1, 2, 0x20)->cnp_received, 1);
	rt_analyzer_free(an);
}

/* At the end, the only unpaired flow each way between two hosts pair, host pair by host pair. */
static void test_sole_pairs(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	enum { PAIRS = 500 };
	for (uint32_t h = 0; h < PAIRS; h++) {
		struct rt_record r =
		    roce(t += US, 0x0a000000 + h, 0x0b000000 + h, 0x24, 0x30, 1); /* UC SEND only */
		rt_analyzer_feed(an, &r);
		r = roce(t += US, 0x0b000000 + h, 0x0a000000 + h, 0x24, 0x40, 1);
		rt_analyzer_feed(an, &r);
	}
	/* and one host pair with two flows one way: nothing to tell them apart */
	struct rt_record r = roce(t += US, 7, 8, 0x24, 0x30, 1);
	rt_analyzer_feed(an, &r);
	r = roce(t += US, 7, 8, 0x24, 0x31, 1);
	rt_analyzer_feed(an, &r);
	r = roce(t += US, 8, 7, 0x24, 0x40, 1);
	rt_analyzer_feed(an, &r);
	assert_int_equal(finish(an), 0);
	for (uint32_t h = 0; h < PAIRS; h++) {
		assert_int_equal(flow_of(an, 0x0a000000 + h, 0x0b000000 + h, 0x30)->peer_qp, 0x40);
		assert_int_equal(flow_of(an, 0x0b000000 + h, 0x0a000000 + h, 0x40)->pairing,
		                 AN_PAIR_SOLE);
	}
	assert_int_equal(flow_of(an, 8, 7, 0x40)->peer_qp, AN_NONE);
	rt_analyzer_free(an);
}

/* An RDMA CM exchange re-pairs flows an ACK paired: the flows they leave are unpaired again, and counted so. */
static void test_cm_repair(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	struct rt_record r = roce(t += US, 1, 2, 0x04, 0x50, 10);
	rt_analyzer_feed(an, &r);
	r = ack(t += US, 2, 1, 0x60, 10, 0x1f);
	rt_analyzer_feed(an, &r);
	assert_int_equal(flow_of(an, 1, 2, 0x50)->peer_qp, 0x60);
	/* REQ from host 1 (QP 0x61) and REP from host 2 (QP 0x50): flows 1>2:0x50 and 2>1:0x61 */
	struct rt_record req = roce(t += US, 1, 2, 0x64, 1, 0);
	req.layers |= RT_L_CM;
	req.cm.attr = RT_CM_ATTR_REQ;
	req.cm.local_comm_id = 77;
	req.cm.local_qpn = 0x61;
	rt_analyzer_feed(an, &req);
	struct rt_record rep = roce(t += US, 2, 1, 0x64, 1, 0);
	rep.layers |= RT_L_CM;
	rep.cm.attr = RT_CM_ATTR_REP;
	rep.cm.remote_comm_id = 77;
	rep.cm.local_qpn = 0x50;
	rt_analyzer_feed(an, &rep);
	assert_int_equal(flow_of(an, 1, 2, 0x50)->peer_qp, 0x61);
	assert_int_equal(flow_of(an, 1, 2, 0x50)->pairing, AN_PAIR_CM);
	const struct an_flow *left = flow_of(an, 2, 1, 0x60);
	assert_int_equal(left->peer_qp, AN_NONE);
	/* host 2 to host 1 has two unpaired flows with packets now: the one left, and the REP's (QP 1) */
	uint32_t fi = (uint32_t)(left - an->ft.flows);
	assert_int_equal(an->pair.hp[an->pair.pf[fi].hosts].open, 2);
	/* a CE mark on the one left makes it the only CE-marked one: a CNP to host 2 throttles it */
	r = roce(t += US, 2, 1, 0x04, 0x60, 20);
	r.ecn = 3;
	rt_analyzer_feed(an, &r);
	struct rt_record c = roce(t += US, 1, 2, RT_OPCODE_CNP, 0x99, 0);
	rt_analyzer_feed(an, &c);
	assert_int_equal(flow_of(an, 2, 1, 0x60)->cnp_received, 1);
	rt_analyzer_free(an);
}

/* --max-flows: flows beyond it count in the totals only; the warning and the report say how many. */
static void test_max_flows(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(4);
	for (uint32_t qp = 0; qp < 10; qp++)
		for (uint32_t psn = 1; psn <= 2; psn++) {
			struct rt_record r = roce(T0 + (2 * qp + psn) * US, 1, 2, 0x04, qp, psn);
			rt_analyzer_feed(an, &r);
		}
	assert_int_equal(finish(an), 0);
	assert_int_equal(rt_analyzer_flow_count(an), 4);
	struct rt_an_counts c;
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.roce_packets, 20);
	struct rt_an_warning w[RT_AN_WARNINGS_MAX];
	unsigned n = rt_analyzer_warnings(an, w, RT_AN_WARNINGS_MAX);
	const struct rt_an_warning *mf = NULL;
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(w[i].code, "max_flows"))
			mf = &w[i];
	assert_non_null(mf);
	assert_string_equal(mf->values[0].name, "max_flows");
	assert_int_equal(mf->values[0].value, 4);
	assert_string_equal(mf->values[1].name, "packets");
	assert_int_equal(mf->values[1].value, 12);
	rt_analyzer_free(an);
}

/* What a flow's NP state costs grows with what it shows: a few marks take a few slots. */
static void test_np_memory_grows(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	struct rt_record r = roce(t += US, 1, 2, 0x04, 0x10, 1);
	r.ecn = 3;
	rt_analyzer_feed(an, &r);
	const struct an_flow *f = flow_of(an, 1, 2, 0x10);
	assert_non_null(f->np);
	assert_null(f->np->h);                  /* unpaired: a log, no history */
	assert_int_equal(f->np->ce_log.cap, 4); /* not AN_PENDING_LOG at once */
	for (uint32_t i = 0; i < 4; i++) {
		r = roce(t += US, 1, 2, 0x04, 0x10, 2 + i);
		r.ecn = 3;
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(f->np->ce_log.n, 5);
	assert_int_equal(f->np->ce_log.cap, 8);
	/* paired by an ACK: the log becomes the history, whose ring grows up to AN_NP_RING */
	struct rt_record a = ack(t += US, 2, 1, 0x20, 5, 0x1f);
	rt_analyzer_feed(an, &a);
	f = flow_of(an, 1, 2, 0x10);
	assert_non_null(f->np->h);
	assert_int_equal(f->np->ce_log.cap, 0);
	assert_int_equal(f->np->h->ce_ts.cap, 8);
	for (uint32_t i = 0; i < 100; i++) {
		r = roce(t += US, 1, 2, 0x04, 0x10, 7 + i);
		r.ecn = 3;
		rt_analyzer_feed(an, &r);
	}
	f = flow_of(an, 1, 2, 0x10);
	assert_int_equal(f->np->h->ce_ts.cap, AN_NP_RING);
	assert_null(f->np->h->votes); /* no CNP: no vote table */
	struct rt_record c = roce(t += US, 2, 1, RT_OPCODE_CNP, 0x20, 0);
	rt_analyzer_feed(an, &c);
	f = flow_of(an, 1, 2, 0x10);
	assert_non_null(f->np->h->votes);
	assert_true(f->np->h->nbins < AN_NP_BINS); /* the lags seen, not every bin */
	rt_analyzer_free(an);
}

/* An interrupted end phase says so and keeps what it did: the report still comes. */
static void test_interrupted_finish(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 1, 2, 0x24, 0x30, 1);
	rt_analyzer_feed(an, &r);
	r = roce(T0 + US, 2, 1, 0x24, 0x40, 1);
	rt_analyzer_feed(an, &r);
	rt_analyzer_interrupt(an);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_finish(an, errbuf), -EINTR);
	assert_non_null(strstr(errbuf, "interrupted"));
	/* the sole pairing was cut short */
	assert_int_equal(flow_of(an, 1, 2, 0x30)->peer_qp, AN_NONE);
	assert_int_equal(rt_analyzer_flow_count(an), 2);
	assert_int_equal(rt_analyzer_report(an, errbuf), 0);
	rt_analyzer_free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_many_qps_random_psns),
	    cmocka_unit_test(test_many_qps_same_psns),
	    cmocka_unit_test(test_cnp_target),
	    cmocka_unit_test(test_sole_pairs),
	    cmocka_unit_test(test_cm_repair),
	    cmocka_unit_test(test_max_flows),
	    cmocka_unit_test(test_np_memory_grows),
	    cmocka_unit_test(test_interrupted_finish),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
