/* Unit tests of the dissector on GRE, ERSPAN type I, II and III tunnels: flags and lengths, mirrored frames, invalid and cut tunnels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/dissect.h"
#include "dissect/opcodes.h"
#include "frames.h"

#define GRE_C 0x8000
#define GRE_R 0x4000
#define GRE_K 0x2000
#define GRE_S 0x1000

/* How to wrap an inner frame: outer IP version, GRE flags/version/protocol, ERSPAN header. */
struct tunnel {
	int ip;         /* 4 or 6 */
	uint16_t flags; /* C, R, K, S bits */
	uint8_t ver;    /* GRE version */
	uint16_t proto;
	uint8_t erspan_ver; /* the Ver field written (0x88BE with S: type II; 0x22EB: type III) */
	uint16_t session;
	uint8_t ft, o;       /* type III frame type and O bit */
	uint32_t ip_len_cut; /* bytes taken off the outer IP length (0: exact) */
};

/*
 * Outer Ethernet / IP 192.0.2.1 -> 192.0.2.2 (or 2001:db8::1 -> ::2) / GRE
 * (+ERSPAN), then `inner` from byte `skip` on. Returns the offset of the inner frame.
 */
static uint32_t wrap(struct pkt *p, const struct tunnel *t, const struct pkt *inner, uint32_t skip)
{
	uint32_t ip_off, start;

	memset(p, 0, sizeof(*p));
	pk_eth(p, t->ip == 4 ? 0x0800 : 0x86DD);
	if (t->ip == 4) {
		ip_off = pk_ipv4(p, 0, 63, 47);
		p->b[ip_off + 12] = 192;
		p->b[ip_off + 13] = 0;
		p->b[ip_off + 14] = 2;
		p->b[ip_off + 15] = 1;
		p->b[ip_off + 16] = 192;
		p->b[ip_off + 17] = 0;
		p->b[ip_off + 18] = 2;
		p->b[ip_off + 19] = 2;
	} else {
		ip_off = pk_ipv6(p, 0, 63, 47);
		p->b[ip_off + 8] = 0x20;
		p->b[ip_off + 9] = 0x01;
		p->b[ip_off + 10] = 0x0D;
		p->b[ip_off + 11] = 0xB8;
		p->b[ip_off + 24] = 0x20;
		p->b[ip_off + 25] = 0x01;
		p->b[ip_off + 26] = 0x0D;
		p->b[ip_off + 27] = 0xB8;
	}
	pk_be16(p, (uint16_t)(t->flags | t->ver));
	pk_be16(p, t->proto);
	if (t->flags & GRE_C)
		pk_be32(p, 0xC0DE0000);
	if (t->flags & GRE_K)
		pk_be32(p, 0x0000BEEF);
	if (t->flags & GRE_S)
		pk_be32(p, 77);
	if (t->proto == 0x88BE && (t->flags & GRE_S)) {
		pk_be16(p, (uint16_t)(t->erspan_ver << 12 | 10)); /* VLAN 10 */
		pk_be16(p, (uint16_t)(7u << 13 | 3u << 11 | 1u << 10 |
		                      t->session)); /* COS 7, En 3, T */
		pk_be32(p, 0xFFF12345);             /* reserved bits set, index */
	} else if (t->proto == 0x22EB) {
		pk_be16(p, (uint16_t)(t->erspan_ver << 12 | 20));
		pk_be16(p, (uint16_t)(5u << 13 | 2u << 11 | 1u << 10 |
		                      t->session)); /* COS 5, BSO 2, T */
		pk_be32(p, 0x01020304);             /* timestamp */
		pk_be16(p, 0x5555);                 /* SGT */
		pk_be16(p,
		        (uint16_t)(1u << 15 | t->ft << 10 | 0x3Fu << 4 | 1u << 3 | 2u << 1 | t->o));
		if (t->o) {
			pk_be32(p, 3u << 26 | 0x1234);
			pk_be32(p, 0xCAFEF00D);
		}
	}
	start = p->len;
	memcpy(p->b + p->len, inner->b + skip, inner->len - skip);
	p->len += inner->len - skip;
	if (t->ip == 4) {
		pk_ipv4_done(p, ip_off);
		pk_set_be16(p, ip_off + 2, (uint16_t)(p->len - ip_off - t->ip_len_cut));
	} else {
		pk_ipv6_done(p, ip_off);
		pk_set_be16(p, ip_off + 4, (uint16_t)(p->len - ip_off - 40 - t->ip_len_cut));
	}
	return start;
}

/* A default RoCEv2 IPv4 frame with one VLAN tag, ECN CE, 16 bytes of payload. */
static void inner_roce(struct pkt *p)
{
	struct spec s = spec_default();

	s.ntags = 1;
	s.tpid[0] = 0x8100;
	s.payload = 16;
	s.becn = 1;
	build(p, &s);
	p->b[14 + 4 + 1] |= 3; /* CE: masked by the ICRC */
}

/* What a decapsulated default inner frame must hold. */
static void check_inner(const struct rt_record *r, uint32_t inner_off, int outer_ip)
{
	static const uint8_t ip1[4] = {10, 0, 0, 1}, out1[4] = {192, 0, 2, 1},
	                     out2[4] = {192, 0, 2, 2};
	static const uint8_t out6[4] = {0x20, 0x01, 0x0D, 0xB8};

	check_common_roce(r);
	assert_int_equal(r->layers & ~(uint32_t)RT_L_ERSPAN,
	                 RT_L_GRE | RT_L_ETH | RT_L_VLAN | RT_L_IPV4 | RT_L_UDP | RT_L_BTH);
	assert_int_equal(r->events, 0);
	assert_int_equal(r->ip_version, 4);
	assert_memory_equal(r->src_ip, ip1, 4);
	assert_int_equal(r->ecn, 3);
	assert_int_equal(r->dscp, 26);
	assert_int_equal(r->ttl, 64);
	assert_int_equal(r->nvlan, 1);
	assert_int_equal(r->vlan[0], 100);
	assert_int_equal(r->pcp[0], 3);
	assert_int_equal(r->becn, 1);
	assert_int_equal(r->icrc, RT_ICRC_OK);
	assert_int_equal(r->payload_off, inner_off + 14 + 4 + 20 + 8 + 12);
	assert_int_equal(r->payload_len, 16);
	assert_int_equal(r->encap.outer_ip_version, outer_ip);
	if (outer_ip == 4) {
		assert_memory_equal(r->encap.outer_src_ip, out1, 4);
		assert_memory_equal(r->encap.outer_dst_ip, out2, 4);
	} else {
		assert_memory_equal(r->encap.outer_src_ip, out6, 4);
		assert_int_equal(r->encap.outer_dst_ip[15], 2);
	}
}

static void test_gre_flags_lengths(void **state)
{
	static const uint16_t protos[] = {0x6558, 0x88BE};
	struct pkt in, p;
	struct rt_record r;
	(void)state;

	inner_roce(&in);
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		for (unsigned f = 0; f < 8; f++) {
			struct tunnel t = {
			    .ip = 4, .proto = protos[i], .erspan_ver = 1, .session = 5};
			uint32_t off, hlen = 4;

			t.flags = (uint16_t)((f & 1 ? GRE_C : 0) | (f & 2 ? GRE_K : 0) |
			                     (f & 4 ? GRE_S : 0));
			hlen += 4 * (uint32_t)__builtin_popcount(f);
			off = wrap(&p, &t, &in, 0);
			if (t.proto == 0x88BE && (t.flags & GRE_S))
				hlen += 8;
			assert_int_equal(off, 14 + 20 + hlen);
			dissect_full(&p, RT_LINK_ETHERNET, &r);
			check_inner(&r, off, 4);
			assert_int_equal(r.encap.gre_proto, t.proto);
			assert_int_equal(r.caplen, p.len);
			if (t.proto == 0x6558) {
				assert_false(r.layers & RT_L_ERSPAN);
			} else {
				assert_true(r.layers & RT_L_ERSPAN);
				/* no S bit: type I, the frame right after the GRE header */
				assert_int_equal(r.encap.erspan_version, (t.flags & GRE_S) ? 1 : 0);
				assert_int_equal(r.encap.erspan_session, (t.flags & GRE_S) ? 5 : 0);
			}
		}
	}
}

static void test_erspan2(void **state)
{
	struct tunnel t = {
	    .ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1, .session = 0x3FF};
	struct pkt in, p;
	struct rt_record r;
	uint32_t off;
	(void)state;

	inner_roce(&in);
	off = wrap(&p, &t, &in, 0);
	assert_int_equal(off, 14 + 20 + 8 + 8);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_inner(&r, off, 4);
	assert_int_equal(r.encap.erspan_version, 1);
	assert_int_equal(r.encap.erspan_session, 0x3FF); /* COS, En and T bits not taken in */
	assert_int_equal(r.encap.gre_proto, 0x88BE);

	/* a PFC frame mirrored: kind pfc, the inner MACs */
	struct pkt pf;
	static const uint8_t pfc_dst[6] = {0x01, 0x80, 0xC2, 0, 0, 1};
	memset(&pf, 0, sizeof(pf));
	pk_eth(&pf, 0x8808);
	memcpy(pf.b, pfc_dst, 6);
	pk_be16(&pf, 0x0101);
	pk_be16(&pf, 0x0008);
	for (int i = 0; i < 8; i++)
		pk_be16(&pf, i == 3 ? 0xFFFF : 0);
	pk_fill(&pf, 0, 60 - pf.len);
	off = wrap(&p, &t, &pf, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_PFC);
	assert_int_equal(r.layers, RT_L_GRE | RT_L_ERSPAN | RT_L_ETH | RT_L_MACC);
	assert_memory_equal(r.dst_mac, pfc_dst, 6);
	assert_int_equal(r.ip_version, 0);
	assert_int_equal(r.pfc_enable, 0x08);
	assert_int_equal(r.pfc_quanta[3], 0xFFFF);
	assert_int_equal(r.events, 0);
}

static void test_erspan3(void **state)
{
	struct pkt in, p;
	struct rt_record r;
	(void)state;

	inner_roce(&in);
	for (uint8_t o = 0; o < 2; o++) {
		struct tunnel t = {
		    .ip = 4, .proto = 0x22EB, .erspan_ver = 2, .session = 0x201, .o = o};
		uint32_t off = wrap(&p, &t, &in, 0);

		assert_int_equal(off, 14 + 20 + 4 + 12 + 8 * o);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		check_inner(&r, off, 4);
		assert_true(r.layers & RT_L_ERSPAN);
		assert_int_equal(r.encap.erspan_version, 2);
		assert_int_equal(r.encap.erspan_session, 0x201);
		/* GRE options before a type III header are skipped too */
		t.flags = GRE_K | GRE_S;
		off = wrap(&p, &t, &in, 0);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		check_inner(&r, off, 4);
	}
	/* frame type 2: an IP packet, no Ethernet header */
	struct tunnel t = {
	    .ip = 4, .proto = 0x22EB, .erspan_ver = 2, .session = 1, .ft = 2, .o = 1};
	uint32_t off = wrap(&p, &t, &in, 18);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.layers, RT_L_GRE | RT_L_ERSPAN | RT_L_IPV4 | RT_L_UDP | RT_L_BTH);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_int_equal(r.payload_off, off + 20 + 8 + 12);
	assert_int_equal(r.nvlan, 0);
	/* another frame type: nothing known follows, the record stays the outer packet */
	t.ft = 1;
	wrap(&p, &t, &in, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);
	assert_int_equal(r.src_ip[0], 192);
	assert_int_equal(r.events, 0);
}

static void test_gre_ipv6_outer_and_ip_payload(void **state)
{
	struct pkt in, p;
	struct rt_record r;
	uint32_t off;
	(void)state;

	inner_roce(&in);
	struct tunnel t = {.ip = 6, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1, .session = 9};
	off = wrap(&p, &t, &in, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_inner(&r, off, 6);
	assert_int_equal(r.encap.erspan_session, 9);

	/* IP-in-GRE: the IPv4 packet right after the GRE header */
	struct tunnel ipt = {.ip = 6, .proto = 0x0800};
	off = wrap(&p, &ipt, &in, 18);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.layers, RT_L_GRE | RT_L_IPV4 | RT_L_UDP | RT_L_BTH);
	assert_int_equal(r.ecn, 3);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_int_equal(r.encap.outer_ip_version, 6);
	assert_int_equal(r.ethertype, 0x0800);
}

static void test_gre_invalid(void **state)
{
	static const struct {
		struct tunnel t;
		uint32_t event;
	} cases[] = {
	    {{.ip = 4, .flags = GRE_S, .ver = 1, .proto = 0x88BE, .erspan_ver = 1}, RT_EV_GRE_BAD},
	    {{.ip = 4, .ver = 7, .proto = 0x6558}, RT_EV_GRE_BAD},
	    {{.ip = 6, .flags = GRE_R, .proto = 0x6558}, RT_EV_GRE_BAD},
	    {{.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 2}, RT_EV_ERSPAN_BAD_VERSION},
	    {{.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 0}, RT_EV_ERSPAN_BAD_VERSION},
	    {{.ip = 6, .proto = 0x22EB, .erspan_ver = 1}, RT_EV_ERSPAN_BAD_VERSION},
	    {{.ip = 4, .proto = 0x22EB, .erspan_ver = 3}, RT_EV_ERSPAN_BAD_VERSION},
	};
	struct pkt in, p;
	struct rt_record r;
	(void)state;

	inner_roce(&in);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		wrap(&p, &cases[i].t, &in, 0);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		assert_int_equal(r.kind, RT_KIND_MALFORMED);
		assert_int_equal(r.events, cases[i].event);
		assert_false(r.truncated);
		assert_false(r.layers & (RT_L_GRE | RT_L_ERSPAN));
		assert_int_equal(r.ip_version, cases[i].t.ip); /* the outer packet */
	}
	/* the GRE + ERSPAN header (or the type III subheader) beyond the outer IP packet */
	memset(&in, 0, sizeof(in));
	for (int o = 0; o < 2; o++) {
		struct tunnel t = {.ip = 4, .proto = 0x22EB, .erspan_ver = 2, .o = (uint8_t)o};

		t.ip_len_cut = o ? 4 : 10;
		in.len = 0;
		wrap(&p, &t, &in, 0);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		assert_int_equal(r.kind, RT_KIND_MALFORMED);
		assert_int_equal(r.events, RT_EV_GRE_BAD);
	}
	/* an inner frame longer than the wholly captured tunnel packet: invalid, not cut */
	inner_roce(&in);
	for (uint32_t cut = 1; cut < in.len; cut += 7) {
		struct tunnel t = {.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1};

		t.ip_len_cut = cut;
		wrap(&p, &t, &in, 0);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		assert_false(r.truncated);
		if (r.kind != RT_KIND_MALFORMED ||
		    !(r.events & (RT_EV_GRE_BAD | RT_EV_IP_BAD_LENGTH | RT_EV_UDP_BAD_LENGTH)))
			fail_msg("cut %u: kind %d events 0x%llx", cut, r.kind,
			         (unsigned long long)r.events);
	}
}

static void test_gre_not_followed(void **state)
{
	struct pkt in, p, p2;
	struct rt_record r;
	uint32_t off;
	(void)state;

	/* PPTP's enhanced GRE (version 1, PPP): not ours, not invalid */
	inner_roce(&in);
	struct tunnel pptp = {.ip = 4, .flags = GRE_K, .ver = 1, .proto = 0x880B};
	wrap(&p, &pptp, &in, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.events, 0);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);

	/* an IP packet too short for a GRE header */
	struct tunnel shortgre = {.ip = 4, .proto = 0x6558, .ip_len_cut = 2};
	in.len = 0;
	wrap(&p, &shortgre, &in, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.events, 0);

	/* one level only: ERSPAN inside ERSPAN leaves the inner GRE packet undecoded */
	inner_roce(&in);
	struct tunnel t = {.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1, .session = 3};
	wrap(&p2, &t, &in, 0);
	t.session = 4;
	off = wrap(&p, &t, &p2, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.layers, RT_L_GRE | RT_L_ERSPAN | RT_L_ETH | RT_L_IPV4);
	assert_int_equal(r.encap.erspan_session, 4);
	assert_int_equal(r.src_ip[0], 192);
	assert_int_equal(r.events, 0);
	assert_int_equal(off, 14 + 20 + 8 + 8);
}

/* Every prefix of a mirrored RoCE frame: each cut names the header it falls in. */
static void test_truncation_erspan(void **state)
{
	static const struct tunnel tunnels[] = {
	    {.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1, .session = 1},
	    {.ip = 6, .flags = GRE_K, .proto = 0x22EB, .erspan_ver = 2, .session = 2, .o = 1},
	    {.ip = 4, .flags = GRE_C, .proto = 0x6558},
	};
	struct pkt in, p;
	(void)state;

	inner_roce(&in);
	for (size_t i = 0; i < sizeof(tunnels) / sizeof(tunnels[0]); i++) {
		uint32_t off = wrap(&p, &tunnels[i], &in, 0);
		uint32_t ip_end = 14 + (tunnels[i].ip == 4 ? 20 : 40);
		const struct cut cuts[] = {
		    {14, RT_EV_LINK_TRUNCATED},      {ip_end, RT_EV_IP_TRUNCATED},
		    {off, RT_EV_GRE_TRUNCATED},      {off + 18, RT_EV_LINK_TRUNCATED},
		    {off + 38, RT_EV_IP_TRUNCATED},  {off + 46, RT_EV_UDP_TRUNCATED},
		    {off + 58, RT_EV_BTH_TRUNCATED}, {p.len, RT_EV_ICRC_TRUNCATED},
		};
		struct rt_dissect_opts o = opts_default();

		check_cuts(&p, RT_LINK_ETHERNET, cuts, sizeof(cuts) / sizeof(cuts[0]), 0);
		for (uint32_t caplen = 0; caplen < p.len; caplen++) {
			struct rt_record r;

			dissect_n(&o, RT_LINK_ETHERNET, &p, caplen, p.len, &r);
			/* decapsulated exactly when the whole tunnel header was captured */
			assert_int_equal((r.layers & RT_L_GRE) != 0, caplen >= off);
			if (caplen >= off + 58)
				assert_int_equal(r.psn, 0xABCDEF);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gre_flags_lengths),
	    cmocka_unit_test(test_erspan2),
	    cmocka_unit_test(test_erspan3),
	    cmocka_unit_test(test_gre_ipv6_outer_and_ip_payload),
	    cmocka_unit_test(test_gre_invalid),
	    cmocka_unit_test(test_gre_not_followed),
	    cmocka_unit_test(test_truncation_erspan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
