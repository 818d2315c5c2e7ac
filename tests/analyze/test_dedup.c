/* Unit tests of duplicate detection: copies at the same and at another capture point, resends, CE picked up on the way, bounded memory. */
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

#define T0   1700000000000000000ull
#define US   1000ull
#define MS   1000000ull
#define QP_A 0x22 /* requester's QP on host 1 */
#define QP_B 0x11 /* responder's QP on host 2 */

/* The copies counted over every shard. */
static struct an_dup_totals dup_totals(const struct rt_analyzer *an)
{
	struct an_dup_totals t;
	an_dup_totals(&an->dups, &t);
	return t;
}

static struct rt_analyzer *analyzer_of(uint64_t window, bool clocks)
{
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.dup_window_ns = window;
	o.vantage = o.vantage_clocks = clocks;
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	return an;
}

/* The analyzer of one capture (its points share one clock). */
static struct rt_analyzer *analyzer(uint64_t window)
{
	return analyzer_of(window, false);
}

/* An RC SEND only (or another opcode) from host 10.0.0.a to 10.0.0.b, ECT(0), TTL 64, on interface 0. */
static struct rt_record pkt(uint8_t a, uint8_t b, uint8_t opcode, uint32_t qp, uint32_t psn,
                            uint64_t ts)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.caplen = r.wirelen = 300;
	r.kind = opcode == 0x81 ? RT_KIND_CNP : RT_KIND_ROCE;
	r.layers = RT_L_ETH | RT_L_IPV4 | RT_L_UDP | RT_L_BTH;
	r.ip_version = 4;
	r.ttl = 64;
	r.src_mac[5] = a;
	r.dst_mac[5] = b;
	r.src_ip[0] = 10, r.src_ip[3] = a;
	r.dst_ip[0] = 10, r.dst_ip[3] = b;
	r.ecn = 2;
	r.udp_sport = 49152;
	r.opcode = opcode;
	r.dest_qp = qp;
	r.psn = psn;
	r.payload_len = 256;
	return r;
}

static struct rt_an_note feed(struct rt_analyzer *an, const struct rt_record *r)
{
	struct rt_an_note n;
	rt_analyzer_feed_note(an, r, &n);
	return n;
}

static const struct an_flow *flow(const struct rt_analyzer *an, uint32_t id)
{
	assert_true(id < an->ft.next_id);
	return an_flow_by_id(&an->ft, id);
}

/* The same packet again within the window at the same point: one packet, a copy each time it comes. */
static void test_same_point(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(10 * US);
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 100, T0);
	assert_int_equal(feed(an, &r).flags, 0);
	r.ts_ns += 3 * US;
	struct rt_an_note n = feed(an, &r);
	assert_int_equal(n.flags, RT_AN_NOTE_COPY);
	assert_int_equal(n.copy_of_frame, 1);
	assert_int_equal(n.flow_id, 0);
	struct rt_an_counts t;
	rt_analyzer_totals(an, &t);
	assert_int_equal(t.packets, 2);
	assert_int_equal(t.roce_packets, 1);
	assert_int_equal(t.retransmitted, 0);
	assert_int_equal(flow(an, 0)->packets, 1);
	assert_int_equal(flow(an, 0)->x->duplicates, 1);
	assert_int_equal(dup_totals(an).same_interface, 1);
	/* a third and fourth time within the window (a mirror of both directions captured twice) */
	r.ts_ns += 3 * US;
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_COPY);
	r.ts_ns += 2 * US;
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_COPY);
	assert_int_equal(dup_totals(an).same_interface, 3);
	/* beyond the window, a resend */
	r.psn = 101;
	r.ts_ns += US;
	feed(an, &r);
	r.ts_ns += 20 * US;
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_RETRANS);
	rt_analyzer_totals(an, &t);
	assert_int_equal(t.retransmitted, 1);
	rt_analyzer_free(an);
}

/* Copies at another capture point count once however late; a repeat at a point that saw it is a resend. */
static void test_other_point(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(10 * US);
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 7, T0);
	feed(an, &r);
	struct rt_record c = r;
	c.interface_id = 1;
	c.ts_ns = T0 + 30 * MS; /* 30 ms in a queue between the two points */
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_COPY);
	assert_int_equal(dup_totals(an).other_interface, 1);
	/* beyond 100 ms: a resend */
	c.ts_ns = T0 + 101 * MS;
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_RETRANS);
	r.psn = 8;
	r.ts_ns = T0 + 102 * MS;
	feed(an, &r);
	c.psn = 8;
	c.ts_ns = T0 + 160 * MS;
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_COPY);
	/* PSN 8 resent at the first point: a new packet, itself copied at the second */
	r.ts_ns = T0 + 161 * MS;
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_RETRANS);
	c.ts_ns = T0 + 162 * MS;
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_COPY);
	/* a router hop is another point: other MACs and TTL on the same interface */
	r.psn = 9;
	r.ts_ns = T0 + 163 * MS;
	feed(an, &r);
	struct rt_record h = r;
	h.ttl = 63;
	h.src_mac[0] = 0xfe;
	h.ts_ns += 2 * MS;
	assert_int_equal(feed(an, &h).flags, RT_AN_NOTE_COPY);
	/* and so is the SLL2 interface index of an "-i any" capture */
	r.psn = 10;
	r.ts_ns = T0 + 166 * MS;
	r.layers = RT_L_SLL2 | RT_L_IPV4 | RT_L_UDP | RT_L_BTH;
	r.sll_ifindex = 2;
	feed(an, &r);
	h = r;
	h.sll_ifindex = 3;
	h.ts_ns += 20 * US;
	assert_int_equal(feed(an, &h).flags, RT_AN_NOTE_COPY);
	struct rt_an_counts t;
	rt_analyzer_totals(an, &t);
	assert_int_equal(t.roce_packets, 6);
	assert_int_equal(t.retransmitted, 2); /* 7 after 100 ms, 8 resent */
	assert_int_equal(dup_totals(an).other_interface, 5);
	rt_analyzer_free(an);
}

/* A copy that was CE-marked between the two points counts as CE, in place of its ECT(0). */
static void test_ce_on_the_way(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(10 * US);
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 1, T0);
	feed(an, &r);
	r.ecn = 3;
	r.interface_id = 1;
	r.ts_ns += 40 * US;
	struct rt_an_note n = feed(an, &r);
	assert_int_equal(n.flags, RT_AN_NOTE_COPY | RT_AN_NOTE_CE);
	/* a third copy, CE again, changes nothing */
	r.interface_id = 2;
	r.ts_ns += 40 * US;
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_COPY);
	struct rt_an_counts t;
	rt_analyzer_totals(an, &t);
	assert_int_equal(t.ce, 1);
	assert_int_equal(flow(an, 0)->ecn[3], 1);
	assert_int_equal(flow(an, 0)->ecn[2], 0);
	assert_int_equal(flow(an, 0)->packets, 1);
	rt_analyzer_free(an);
}

/* After a NAK, the resend of the PSN it asks for and the run after it are no copies, even close. */
static void test_resend_after_nak(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(10 * US);
	for (uint32_t p = 10; p < 14; p++) {
		struct rt_record r = pkt(1, 2, 0x04, QP_B, p, T0 + p * US);
		feed(an, &r);
	}
	struct rt_record nak = pkt(2, 1, 0x11, QP_A, 11, T0 + 14 * US);
	nak.hdrs = RT_H_AETH;
	nak.aeth_syndrome = 0x60; /* NAK, PSN sequence error */
	feed(an, &nak);
	/* a copy of 13 comes before the resend starts: a copy */
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 13, T0 + 15 * US);
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_COPY);
	/* 11 (the NAK's PSN) and 12 (next in the run): resends */
	r = pkt(1, 2, 0x04, QP_B, 11, T0 + 16 * US);
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_RETRANS);
	r = pkt(1, 2, 0x04, QP_B, 12, T0 + 17 * US);
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_RETRANS);
	/* a copy of the resent 11 out of the run's order: a copy */
	r = pkt(1, 2, 0x04, QP_B, 11, T0 + 18 * US);
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_COPY);
	struct rt_an_counts t;
	rt_analyzer_totals(an, &t);
	assert_int_equal(t.retransmitted, 2);
	assert_int_equal(an_flow_by_id(&an->ft, 0)->x->go_back_n, 1);
	rt_analyzer_free(an);
}

/*
 * CNPs to one QP are alike and may come microseconds apart: one again at the
 * same point is a copy only once the capture showed it doubles packets.
 */
static void test_cnps(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(10 * US);
	struct rt_record c = pkt(2, 1, 0x81, QP_A, 0, T0);
	c.becn = 1;
	c.payload_len = 16;
	feed(an, &c);
	c.ts_ns += 2 * US; /* an NP without a rate limit: a second CNP */
	assert_int_equal(feed(an, &c).flags, 0);
	/* a data packet seen twice: this capture doubles packets */
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 1, c.ts_ns + 10 * US);
	feed(an, &r);
	r.ts_ns += US;
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_COPY);
	c.ts_ns += 50 * US;
	feed(an, &c);
	c.ts_ns += 2 * US;
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_COPY);
	struct rt_an_counts t;
	rt_analyzer_totals(an, &t);
	assert_int_equal(t.cnp, 3);
	rt_analyzer_free(an);
}

/* --dup-window 0: every frame counts, and the report says detection was off. */
static void test_off(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 5, T0);
	feed(an, &r);
	r.interface_id = 1;
	r.ts_ns += US;
	assert_int_equal(feed(an, &r).flags, RT_AN_NOTE_RETRANS);
	assert_null(an->dups.s);
	rt_analyzer_free(an);
}

/*
 * Memory stays bounded: with one capture point the table holds eight times
 * the packets of the window (100 at 10 M packets/s: 1024); once copies come from
 * two points it grows to AN_DUP_MAX packets at most, those pushed out early
 * counted.
 */
static void test_bounded(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(10 * US);
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 0, T0);
	uint32_t i;
	for (i = 0; i < 200000; i++) {
		r.psn = i & 0xffffff;
		r.ts_ns = T0 + (uint64_t)i * 100; /* 10 M packets/s */
		feed(an, &r);
	}
	const struct an_dup_shard *sh = &an->dups.s[an_pair_shard(&r)];
	assert_int_equal(sh->nsets * AN_DUP_WAYS, 1024);
	assert_true(sh->evicted < 1000); /* chance collisions in a set: under 0.5 % */
	/* the window is covered: a copy of a packet 5 us old */
	struct rt_record c = r;
	c.psn = (i - 50) & 0xffffff;
	c.ts_ns += 10;
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_COPY);
	/* two points: the table grows to its limit, then forgets early */
	c.interface_id = 1;
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_COPY);
	uint64_t t = c.ts_ns;
	for (; i < 200000 + AN_DUP_MAX + 50000; i++) {
		r.psn = i & 0xffffff;
		r.ts_ns = t += 10; /* 100 M packets/s: 100 ms hold 10 M of them */
		feed(an, &r);
	}
	assert_int_equal(sh->nsets * AN_DUP_WAYS, AN_DUP_MAX);
	assert_true(sh->evicted > 0);
	/* recent packets are still found */
	c.psn = (i - 1000) & 0xffffff;
	c.ts_ns = r.ts_ns + 10;
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_COPY);
	rt_analyzer_free(an);
}

/*
 * Packets that share a timestamp (a microsecond capture's bursts: ten in
 * each microsecond, 10 M packets/s) are no rate of one a nanosecond: the
 * table holds eight times the window's 100 packets (1024; before, it grew
 * to its limit from the second packet on).
 */
static void test_bursts_one_timestamp(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(10 * US);
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 0, T0);
	for (uint32_t i = 0; i < 20000; i++) {
		r.psn = i;
		r.ts_ns = T0 + (uint64_t)(i / 10) * US;
		feed(an, &r);
	}
	const struct an_dup_shard *sh = &an->dups.s[an_pair_shard(&r)];
	assert_int_equal(sh->nsets * AN_DUP_WAYS, 1024);
	assert_int_equal(sh->evicted, 0);
	rt_analyzer_free(an);
}

/*
 * Its partner: one host pair at 10 M packets/s, every packet written again
 * 500 us later at the same point (--dup-window 1ms: 5,000 packets wait for
 * their copy). The table grows with the packets seen until a rate can be
 * told over 1 ms, then with the rate: all but the first few copies are
 * found (all 40,000; with the rate told over each 1024 packets
 * alone, 350 were; before the rate's least time, 33,813).
 */
static void test_window_grows_table(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(1 * MS);
	const uint32_t n = 40000;
	const uint64_t late = 500 * US, gap = 100;
	uint32_t next_copy = 0;
	for (uint32_t i = 0; i < n || next_copy < n; i++) {
		uint64_t t = T0 + (uint64_t)i * gap;
		while (next_copy < n && T0 + (uint64_t)next_copy * gap + late <= t) {
			struct rt_record c =
			    pkt(1, 2, 0x04, QP_B, next_copy, T0 + (uint64_t)next_copy * gap + late);
			feed(an, &c);
			next_copy++;
		}
		if (i < n) {
			struct rt_record r = pkt(1, 2, 0x04, QP_B, i, t);
			feed(an, &r);
		}
	}
	/* the first copies came while the table had its first size: a few of them missed */
	assert_true(dup_totals(an).same_interface >= n - 100);
	rt_analyzer_free(an);
}

/*
 * One busy host pair seen at two points (all its packets in one shard):
 * at 1 M packets/s a copy 80 ms late is still found, 262,144 packets
 * remembered (80,000 are in flight).
 */
static void test_one_pair_remembers(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(10 * US);
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 0, T0), c = r;
	feed(an, &r);
	c.interface_id = 1; /* a copy at a second point: copies may come 100 ms late */
	c.ts_ns += 10;
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_COPY);
	uint32_t i;
	for (i = 1; i < 150000; i++) {
		r.psn = i;
		r.ts_ns = T0 + (uint64_t)i * 1000;
		feed(an, &r);
	}
	const struct an_dup_shard *sh = &an->dups.s[an_pair_shard(&r)];
	assert_int_equal(sh->nsets * AN_DUP_WAYS, 262144);
	c.psn = i - 80000;
	c.ts_ns = r.ts_ns + 10;
	assert_int_equal(feed(an, &c).flags, RT_AN_NOTE_COPY);
	rt_analyzer_free(an);
}

/*
 * Two taps of one busy flow, the second's clock 2 ms ahead: at 5 M packets
 * a second every packet's copy comes 10,000 packets later. Each copy is
 * found (none counted twice): the packets whose copy came make room first,
 * and 10,000 awaiting theirs fit the sets (with two ways a set, 240 were
 * counted twice; with four, 10).
 */
static void test_late_copies_found(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer_of(10 * US, true); /* two files: clocks of their own */
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 0, T0);
	const uint32_t n = 25000, gap = 200, late = 2000000;
	uint32_t copies = 0;
	for (uint32_t i = 0, j = 0; i < n || j < n;) { /* both taps' frames in time order */
		uint64_t ti = T0 + (uint64_t)i * gap, tj = T0 + (uint64_t)j * gap + late;
		struct rt_record f = r;
		if (i < n && (j == n || ti <= tj)) {
			f.psn = i++;
			f.ts_ns = ti;
		} else {
			f.psn = j++;
			f.ts_ns = tj;
			f.interface_id = 1;
			f.ttl = 63;
		}
		copies += (feed(an, &f).flags & RT_AN_NOTE_COPY) != 0;
	}
	assert_int_equal(copies, n);
	assert_int_equal(an->dups.s[an_pair_shard(&r)].evicted, 0);
	rt_analyzer_free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_point),
	    cmocka_unit_test(test_other_point),
	    cmocka_unit_test(test_ce_on_the_way),
	    cmocka_unit_test(test_resend_after_nak),
	    cmocka_unit_test(test_cnps),
	    cmocka_unit_test(test_off),
	    cmocka_unit_test(test_bounded),
	    cmocka_unit_test(test_bursts_one_timestamp),
	    cmocka_unit_test(test_window_grows_table),
	    cmocka_unit_test(test_one_pair_remembers),
	    cmocka_unit_test(test_late_copies_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
