/* Unit tests of the frame builder (dissect/build.c): what it builds dissects back to the same
 * fields, ICRC ok. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/build.h"
#include "dissect/dissect.h"
#include "dissect/opcodes.h"

static const uint8_t mac_a[6] = {0x02, 0, 0, 0, 0, 1}, mac_b[6] = {0x02, 0, 0, 0, 0, 2};

static struct rt_build_net ipv4(void)
{
	struct rt_build_net n = {.ip_version = 4,
	                         .src_ip = {10, 1, 2, 3},
	                         .dst_ip = {10, 4, 5, 6},
	                         .udp_sport = 49152,
	                         .udp_dport = RT_ROCEV2_PORT,
	                         .dscp = 26,
	                         .ecn = 2,
	                         .ttl = 64,
	                         .df = true};
	memcpy(n.src_mac, mac_a, 6);
	memcpy(n.dst_mac, mac_b, 6);
	return n;
}

static struct rt_build_net ipv6_qinq(void)
{
	struct rt_build_net n = {.ip_version = 6,
	                         .udp_sport = 50000,
	                         .udp_dport = RT_ROCEV2_PORT,
	                         .dscp = 3,
	                         .ecn = 3,
	                         .ttl = 9,
	                         .flow_label = 0xABCDE,
	                         .nvlan = 2,
	                         .vlan = {100, 4001},
	                         .pcp = {3, 5}};
	for (int i = 0; i < 16; i++) {
		n.src_ip[i] = i ? (uint8_t)i : 0xfd;
		n.dst_ip[i] = (uint8_t)(0xA0 + i);
	}
	memcpy(n.src_mac, mac_b, 6);
	memcpy(n.dst_mac, mac_a, 6);
	return n;
}

static void dissect(const uint8_t *frame, int len, struct rt_record *rec)
{
	struct rt_dissect_opts o;

	assert_true(len > 0);
	rt_dissect_opts_init(&o);
	assert_int_equal(
	    rt_dissect_buf(&o, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len, rec), 0);
}

/* Transport fields with a distinct value in every header field, payload_len bytes of payload. */
static struct rt_record fields(uint8_t opcode, uint32_t payload_len)
{
	struct rt_record t = {
	    .opcode = opcode,
	    .se = 1,
	    .migreq = 1,
	    .ackreq = 1,
	    .fecn = 1,
	    .becn = 1,
	    .pkey = 0x8001,
	    .dest_qp = 0xABCDEF,
	    .psn = 0xFEDCBA,
	    .xrc_srq = 0x111111,
	    .rdeth_eecnxt = 0x222222,
	    .deth_qkey = 0x33333333,
	    .deth_src_qp = 0x444444,
	    .reth_va = 0x5555555555555555ull,
	    .reth_rkey = 0x66666666,
	    .reth_len = 0x77777777,
	    .atomic_va = 0x8888888888888888ull,
	    .atomic_rkey = 0x99999999,
	    .atomic_swap_add = 0xAAAAAAAAAAAAAAAAull,
	    .atomic_compare = 0xBBBBBBBBBBBBBBBBull,
	    .aeth_syndrome = 0x6C,
	    .aeth_msn = 0xCCCCCC,
	    .atomic_ack_orig = 0xDDDDDDDDDDDDDDDDull,
	    .immediate = 0xEEEEEEEE,
	    .ieth_rkey = 0x12345678,
	    .feth = 0x9ABCDEF0,
	    .payload_len = payload_len,
	};
	return t;
}

/* The fields of `want` its opcode carries, as dissected into `got`. */
static void assert_transport(const struct rt_record *got, const struct rt_record *want)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(want->opcode);
	uint16_t h = info->hdrs;

	assert_true(rt_record_has_bth(got));
	assert_int_equal(got->opcode, want->opcode);
	assert_int_equal(got->se, want->se);
	assert_int_equal(got->migreq, want->migreq);
	assert_int_equal(got->ackreq, want->ackreq);
	assert_int_equal(got->fecn, want->fecn);
	assert_int_equal(got->becn, want->becn);
	assert_int_equal(got->tver, 0);
	assert_int_equal(got->pkey, want->pkey);
	assert_int_equal(got->dest_qp, want->dest_qp);
	assert_int_equal(got->psn, want->psn);
	assert_int_equal(got->hdrs, h);
	assert_int_equal(got->padcnt, (4 - (want->payload_len & 3)) & 3);
	assert_int_equal(got->payload_len, want->payload_len);
	if (h & RT_H_XRCETH)
		assert_int_equal(got->xrc_srq, want->xrc_srq);
	if (h & RT_H_RDETH)
		assert_int_equal(got->rdeth_eecnxt, want->rdeth_eecnxt);
	if (h & RT_H_DETH) {
		assert_int_equal(got->deth_qkey, want->deth_qkey);
		assert_int_equal(got->deth_src_qp, want->deth_src_qp);
	}
	if (h & RT_H_RETH) {
		assert_true(got->reth_va == want->reth_va);
		assert_int_equal(got->reth_rkey, want->reth_rkey);
		assert_int_equal(got->reth_len, want->reth_len);
	}
	if (h & RT_H_ATOMICETH) {
		assert_true(got->atomic_va == want->atomic_va);
		assert_int_equal(got->atomic_rkey, want->atomic_rkey);
		assert_true(got->atomic_swap_add == want->atomic_swap_add);
		assert_true(got->atomic_compare == want->atomic_compare);
	}
	if (h & RT_H_AETH) {
		assert_int_equal(got->aeth_syndrome, want->aeth_syndrome);
		assert_int_equal(got->aeth_msn, want->aeth_msn);
	}
	if (h & RT_H_ATOMICACKETH)
		assert_true(got->atomic_ack_orig == want->atomic_ack_orig);
	if (h & RT_H_IMMDT)
		assert_int_equal(got->immediate, want->immediate);
	if (h & RT_H_IETH)
		assert_int_equal(got->ieth_rkey, want->ieth_rkey);
	if (h & RT_H_FETH)
		assert_int_equal(got->feth, want->feth);
}

static void test_write_only(void **state)
{
	(void)state;
	uint8_t payload[1023];
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);
	struct rt_record p = {.opcode = RT_OPCODE_RC_RDMA_WRITE_ONLY,
	                      .ackreq = true,
	                      .pkey = 0xffff,
	                      .dest_qp = 0x123456,
	                      .psn = 0xabcdef,
	                      .reth_va = 0x1122334455667788ull,
	                      .reth_rkey = 0xdeadbeef,
	                      .reth_len = 1023,
	                      .payload_len = sizeof(payload)};
	struct rt_build_net net = ipv4();
	uint8_t frame[2048];
	int len = rt_build_frame(&net, &p, payload, frame, sizeof(frame));
	/* 14 + 20 + 8 + BTH 12 + RETH 16 + 1023 + pad 1 + ICRC 4 */
	assert_int_equal(len, 14 + 20 + 8 + 12 + 16 + 1023 + 1 + 4);
	assert_int_equal(rt_build_transport_len(&p), 12 + 16 + 1024 + 4);
	struct rt_record r;
	dissect(frame, len, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_false(r.truncated);
	assert_int_equal(r.events, 0);
	assert_transport(&r, &p);
	assert_int_equal(r.dscp, 26);
	assert_int_equal(r.ecn, 2);
	assert_int_equal(r.ttl, 64);
	assert_int_equal(r.udp_sport, 49152);
	assert_memory_equal(r.src_ip, net.src_ip, 4);
	assert_memory_equal(r.dst_ip, net.dst_ip, 4);
	assert_memory_equal(r.src_mac, mac_a, 6);
	assert_memory_equal(r.dst_mac, mac_b, 6);
	assert_memory_equal(frame + r.payload_off, payload, sizeof(payload));
	/* the IPv4 header checksum sums to 0xFFFF */
	uint32_t sum = 0;
	for (int i = 14; i < 34; i += 2)
		sum += (uint32_t)(frame[i] << 8 | frame[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	assert_int_equal(sum, 0xFFFF);
	assert_int_equal(frame[20] & 0x40, 0x40); /* DF */
}

/* Every opcode of the table, in IPv4 and in IPv6 behind two VLAN tags, dissects back to its fields.
 */
static void test_every_opcode(void **state)
{
	(void)state;
	static uint8_t payload[300], frame[512];
	struct rt_build_net nets[2] = {ipv4(), ipv6_qinq()};
	unsigned built = 0;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i ^ 0x5A);
	for (unsigned op = 0; op < 256; op++) {
		uint16_t f = rt_opcode_flags((uint8_t)op);
		struct rt_record t, r;

		if (!rt_opcode_lookup((uint8_t)op))
			continue;
		t = fields((uint8_t)op, (f & RT_OPF_PAYLOAD) ? 37 + op % 4 : 0);
		for (int k = 0; k < 2; k++) {
			int len = rt_build_frame(&nets[k], &t, payload, frame, sizeof(frame));

			dissect(frame, len, &r);
			if (r.icrc != RT_ICRC_OK)
				fail_msg("opcode 0x%02x (IPv%u): ICRC not ok", op,
				         nets[k].ip_version);
			assert_int_equal(r.kind, op == RT_OPCODE_CNP ? RT_KIND_CNP : RT_KIND_ROCE);
			assert_int_equal(r.events, 0);
			assert_int_equal((int)r.wirelen, len);
			assert_transport(&r, &t);
			assert_memory_equal(frame + r.payload_off, payload, t.payload_len);
			assert_int_equal(r.ip_version, nets[k].ip_version);
			assert_int_equal(r.dscp, nets[k].dscp);
			assert_int_equal(r.ecn, nets[k].ecn);
			assert_int_equal(r.nvlan, nets[k].nvlan);
			if (nets[k].ip_version == 6) {
				assert_memory_equal(r.src_ip, nets[k].src_ip, 16);
				assert_memory_equal(r.dst_ip, nets[k].dst_ip, 16);
				assert_int_equal(r.vlan[0], 100);
				assert_int_equal(r.vlan[1], 4001);
				assert_int_equal(r.pcp[0], 3);
				assert_int_equal(r.pcp[1], 5);
				assert_int_equal(r.ttl, 9);
			}
			built++;
		}
	}
	assert_int_equal(built, 2 * 85); /* every row of the table */
}

static void test_cnp(void **state)
{
	(void)state;
	struct rt_record p = {
	    .opcode = RT_OPCODE_CNP, .becn = true, .pkey = 0xffff, .dest_qp = 0x10203};
	struct rt_build_net net = ipv4();
	net.dscp = 48;
	net.ecn = 0;
	uint8_t frame[256];
	int len = rt_build_frame(&net, &p, NULL, frame, sizeof(frame));
	assert_int_equal(len, 14 + 20 + 8 + 12 + 16 + 4);
	for (int i = 54; i < 70; i++)
		assert_int_equal(frame[i], 0);
	struct rt_record r;
	dissect(frame, len, &r);
	assert_int_equal(r.kind, RT_KIND_CNP);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_int_equal(r.becn, 1);
	assert_int_equal(r.fecn, 0);
	assert_int_equal(r.dest_qp, 0x10203);
	assert_int_equal(r.psn, 0);
	assert_int_equal(r.dscp, 48);
	assert_int_equal(r.events & RT_EV_CNP_NOT_BECN, 0);
}

static void test_ack_nak(void **state)
{
	(void)state;
	struct rt_build_net net = ipv4();
	uint8_t frame[256];
	static const uint8_t syn[] = {RT_AETH_SYNDROME(RT_AETH_ACK, RT_AETH_CREDITS_INVALID),
	                              RT_AETH_SYNDROME(RT_AETH_NAK, RT_NAK_PSN_SEQ_ERROR)};
	assert_int_equal(syn[0], 0x1f);
	assert_int_equal(syn[1], 0x60);
	for (int i = 0; i < 2; i++) {
		struct rt_record p = {.opcode = RT_OPCODE_RC_ACK,
		                      .pkey = 0xffff,
		                      .dest_qp = 77,
		                      .psn = 5000,
		                      .aeth_syndrome = syn[i],
		                      .aeth_msn = 0x345678};
		int len = rt_build_frame(&net, &p, NULL, frame, sizeof(frame));
		struct rt_record r;
		dissect(frame, len, &r);
		assert_int_equal(r.icrc, RT_ICRC_OK);
		assert_true(r.hdrs & RT_H_AETH);
		assert_int_equal(r.aeth_syndrome, syn[i]);
		assert_int_equal(r.aeth_msn, 0x345678);
		assert_int_equal(rt_aeth_type(r.aeth_syndrome), i ? RT_AETH_NAK : RT_AETH_ACK);
	}
}

/* A UDP payload is the frame's transport packet, ICRC included, and rt_dissect_roce() reads it
 * back. */
static void test_udp_payload(void **state)
{
	(void)state;
	uint8_t frame[256], udp[256], payload[5] = {1, 2, 3, 4, 5};
	struct rt_build_net nets[2] = {ipv4(), ipv6_qinq()};
	struct rt_record t = fields(RT_OPCODE_RC_SEND_ONLY, sizeof(payload)), r;

	for (int k = 0; k < 2; k++) {
		int flen = rt_build_frame(&nets[k], &t, payload, frame, sizeof(frame));
		int ulen = rt_build_udp_payload(&nets[k], &t, payload, udp, sizeof(udp));

		assert_int_equal(ulen, (int)rt_build_transport_len(&t));
		assert_memory_equal(frame + flen - ulen, udp, (size_t)ulen);
		rt_dissect_roce(udp, (uint32_t)ulen, &r);
		assert_int_equal(r.kind, RT_KIND_ROCE);
		assert_int_equal(r.icrc, RT_ICRC_UNCHECKED);
		assert_transport(&r, &t);
		assert_memory_equal(udp + r.payload_off, payload, sizeof(payload));
		assert_int_equal(r.icrc_stored,
		                 (uint32_t)(udp[ulen - 4] | udp[ulen - 3] << 8 |
		                            udp[ulen - 2] << 16 | (uint32_t)udp[ulen - 1] << 24));
	}
	/* too short for its headers and ICRC */
	rt_dissect_roce(udp, 15, &r);
	assert_int_equal(r.kind, RT_KIND_MALFORMED);
	assert_false(rt_record_has_bth(&r));
}

/* The ICRC masks TOS, TTL and FECN/BECN, but covers the IP id, flags and addresses. */
static void test_icrc_coverage(void **state)
{
	(void)state;
	uint8_t buf[128];
	struct rt_record p = {
	    .opcode = RT_OPCODE_RC_SEND_ONLY, .dest_qp = 9, .psn = 1, .payload_len = 8};
	struct rt_build_net a = ipv4(), b = a;
	uint32_t base, crc;
	int n = rt_build_udp_payload(&a, &p, NULL, buf, sizeof(buf));
	assert_int_equal(n, 12 + 8 + 4);
	assert_int_equal(rt_build_udp_icrc(&a, buf, (uint32_t)n, &base), 0);
	assert_int_equal(base, (uint32_t)(buf[n - 4] | buf[n - 3] << 8 | buf[n - 2] << 16 |
	                                  (uint32_t)buf[n - 1] << 24));
	b.dscp = 63;
	b.ecn = 3;
	b.ttl = 1;
	assert_int_equal(rt_build_udp_icrc(&b, buf, (uint32_t)n, &crc), 0);
	assert_int_equal(crc, base);
	b = a;
	b.ip_id = 1;
	assert_int_equal(rt_build_udp_icrc(&b, buf, (uint32_t)n, &crc), 0);
	assert_int_not_equal(crc, base);
	b = a;
	b.df = false;
	assert_int_equal(rt_build_udp_icrc(&b, buf, (uint32_t)n, &crc), 0);
	assert_int_not_equal(crc, base);
	b = a;
	b.src_ip[3] ^= 1;
	assert_int_equal(rt_build_udp_icrc(&b, buf, (uint32_t)n, &crc), 0);
	assert_int_not_equal(crc, base);
	buf[4] = 0xc0; /* FECN and BECN */
	assert_int_equal(rt_build_udp_icrc(&a, buf, (uint32_t)n, &crc), 0);
	assert_int_equal(crc, base);
	buf[9] ^= 1; /* the PSN is covered */
	assert_int_equal(rt_build_udp_icrc(&a, buf, (uint32_t)n, &crc), 0);
	assert_int_not_equal(crc, base);
}

static void test_errors(void **state)
{
	(void)state;
	uint8_t buf[128];
	struct rt_record p = {.opcode = RT_OPCODE_RC_SEND_ONLY, .payload_len = 8};
	struct rt_build_net n = ipv4();
	uint32_t crc;

	assert_int_equal(rt_build_udp_payload(&n, &p, NULL, buf, 10), -ENOSPC);
	assert_int_equal(rt_build_frame(&n, &p, NULL, buf, 60), -ENOSPC);
	assert_int_equal(rt_build_frame(&n, &p, NULL, buf, 20), -ENOSPC);
	p.opcode = 0x15; /* not in the table */
	assert_int_equal(rt_build_transport_len(&p), 0);
	assert_int_equal(rt_build_udp_payload(&n, &p, NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rt_build_frame(&n, &p, NULL, buf, sizeof(buf)), -EINVAL);
	p.opcode = RT_OPCODE_RC_SEND_ONLY;
	n.ip_version = 5;
	assert_int_equal(rt_build_udp_payload(&n, &p, NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rt_build_frame(&n, &p, NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rt_build_udp_icrc(&n, buf, 20, &crc), -EINVAL);
	n.ip_version = 4;
	assert_int_equal(rt_build_udp_icrc(&n, buf, 15, &crc), -EINVAL);
}

/* PFC and PAUSE frames dissect as what they say; rt_pause_ns() turns their quanta into time. */
static void test_pfc_pause(void **state)
{
	(void)state;
	uint8_t frame[RT_MACC_FRAME_LEN];
	uint16_t q[8] = {0, 0, 0, 0xffff, 0, 0, 7, 0};
	struct rt_record r;

	assert_int_equal(rt_build_pfc(frame, sizeof(frame), mac_a, 0x48, q), RT_MACC_FRAME_LEN);
	dissect(frame, RT_MACC_FRAME_LEN, &r);
	assert_int_equal(r.kind, RT_KIND_PFC);
	assert_int_equal(r.pfc_enable, 0x48);
	assert_memory_equal(r.pfc_quanta, q, sizeof(q));
	assert_memory_equal(r.dst_mac, ((uint8_t[]){0x01, 0x80, 0xc2, 0, 0, 1}), 6);
	assert_memory_equal(r.src_mac, mac_a, 6);
	assert_int_equal(rt_build_pause(frame, sizeof(frame), mac_b, 1234), RT_MACC_FRAME_LEN);
	dissect(frame, RT_MACC_FRAME_LEN, &r);
	assert_int_equal(r.kind, RT_KIND_PAUSE);
	assert_int_equal(r.pause_quanta, 1234);
	assert_int_equal(r.events, 0);
	assert_int_equal(rt_build_pfc(frame, 59, mac_a, 1, q), -ENOSPC);
	assert_int_equal(rt_build_pause(frame, 10, mac_a, 1), -ENOSPC);
	/* 0xFFFF quanta of 512 bit times: 335.5 us at 100 Gb/s, 33.55 ms at 1 Gb/s */
	assert_int_equal(rt_pause_ns(0xffff, 100000000000ull), 335539);
	assert_int_equal(rt_pause_ns(0xffff, 1000000000ull), 33553920);
	assert_int_equal(rt_pause_ns(1, 25000000000ull), 20); /* 20.48 ns */
	assert_int_equal(rt_pause_ns(0, 25000000000ull), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_only),  cmocka_unit_test(test_every_opcode),
	    cmocka_unit_test(test_cnp),         cmocka_unit_test(test_ack_nak),
	    cmocka_unit_test(test_udp_payload), cmocka_unit_test(test_icrc_coverage),
	    cmocka_unit_test(test_errors),      cmocka_unit_test(test_pfc_pause),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
