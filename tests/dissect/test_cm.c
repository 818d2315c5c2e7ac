/* Unit tests of the RDMA CM decoder (dissect/cm.c): every message's fields at their offsets, and what is left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/build.h"
#include "dissect/dissect.h"

#define MAD_LEN 256

static uint8_t mad[MAD_LEN], frame[512];

/*
 * A CM MAD of attribute `attr`: class 7, transaction ID 0x0102030405060708,
 * and every field of every message at its offset in the payload (IBA
 * volume 1, chapter 12), with values the tests recognise. Fields of
 * different messages share bytes; each test reads those of its message.
 */
static void make_mad(uint8_t mclass, uint16_t attr)
{
	uint8_t *p = mad + 24;
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;      /* base version */
	mad[1] = mclass; /* management class */
	mad[2] = 2;      /* class version */
	mad[3] = 3;      /* method: send */
	rt_put_be32(mad + 8, 0x01020304);
	rt_put_be32(mad + 12, 0x05060708);
	rt_put_be16(mad + 16, attr);
	rt_put_be32(p, 0x11223344); /* local communication ID (SIDR: request ID) */
	if (attr == RT_CM_ATTR_REQ) {
		rt_put_be32(p + 8, 0x00000000);
		rt_put_be32(p + 12, 0x01064853); /* service ID: RDMA CM, TCP port 18515 */
		rt_put_be32(p + 28, 0x0000CAFE); /* Q_Key */
		rt_put_be24(p + 32, 0x0000CD);   /* local QPN */
		rt_put_be24(p + 44, 0x7CC204);   /* starting PSN */
	} else if (attr == RT_CM_ATTR_REP) {
		rt_put_be32(p + 4, 0x55667788);
		rt_put_be32(p + 8, 0x0000BEEF);
		rt_put_be24(p + 12, 0x0000AB);
		rt_put_be24(p + 20, 0x727D6D);
	} else if (attr == RT_CM_ATTR_REJ) {
		rt_put_be32(p + 4, 0x55667788);
		p[8] = 1 << 6;           /* the REP is rejected */
		rt_put_be16(p + 10, 28); /* consumer reject */
	} else if (attr == RT_CM_ATTR_MRA) {
		rt_put_be32(p + 4, 0x55667788);
		p[8] = 0;       /* the REQ is delayed */
		p[9] = 20 << 3; /* service timeout 20 */
	} else if (attr == RT_CM_ATTR_DREQ || attr == RT_CM_ATTR_LAP) {
		rt_put_be32(p + 4, 0x55667788);
		rt_put_be24(p + (attr == RT_CM_ATTR_DREQ ? 8 : 12), 0x00003C);
	} else if (attr == RT_CM_ATTR_SIDR_REQ) {
		rt_put_be32(p + 12, 0x01114853); /* RDMA CM, UDP port 18515 */
	} else if (attr == RT_CM_ATTR_SIDR_REP) {
		p[4] = 2; /* status */
		rt_put_be24(p + 8, 0x000099);
		rt_put_be32(p + 16, 0x01114853);
		rt_put_be32(p + 20, 0x80010000);
	} else if (attr == RT_CM_ATTR_APR) {
		rt_put_be32(p + 4, 0x55667788);
		p[9] = 5; /* AP status */
	} else {
		rt_put_be32(p + 4, 0x55667788); /* RTU, DREP */
	}
}

/* A UD SEND_ONLY to `qp` carrying `len` bytes of the MAD, dissected from its first `caplen` bytes.
 */
static void dissect(uint32_t qp, uint32_t len, int caplen, struct rt_record *r)
{
	struct rt_build_net net = {.ip_version = 4,
	                           .src_ip = {10, 0, 0, 1},
	                           .dst_ip = {10, 0, 0, 2},
	                           .udp_sport = 50000,
	                           .udp_dport = RT_ROCEV2_PORT};
	struct rt_record t = {.opcode = 0x64,
	                      .pkey = 0xffff,
	                      .dest_qp = qp,
	                      .deth_qkey = 0x80010000,
	                      .deth_src_qp = 1,
	                      .payload_len = len};
	struct rt_dissect_opts o;
	int n = rt_build_frame(&net, &t, mad, frame, sizeof(frame));

	assert_true(n > 0);
	rt_dissect_opts_init(&o);
	assert_int_equal(rt_dissect_buf(&o, RT_LINK_ETHERNET, frame,
	                                (uint32_t)(caplen < 0 ? n : caplen), (uint32_t)n, r),
	                 0);
}

static void test_connect(void **state)
{
	struct rt_record r;
	(void)state;

	make_mad(7, RT_CM_ATTR_REQ);
	dissect(1, MAD_LEN, -1, &r);
	assert_true(r.layers & RT_L_CM);
	assert_int_equal(r.cm.attr, RT_CM_ATTR_REQ);
	assert_int_equal(r.cm.method, 3);
	assert_int_equal(r.cm.tid, 0x0102030405060708ull);
	assert_int_equal(r.cm.local_comm_id, 0x11223344);
	assert_int_equal(r.cm.remote_comm_id, 0);
	assert_int_equal(r.cm.local_qpn, 0xCD);
	assert_int_equal(r.cm.start_psn, 0x7CC204);
	assert_int_equal(r.cm.qkey, 0xCAFE);
	assert_int_equal(r.cm.service_id, 0x01064853);
	assert_string_equal(rt_cm_port_space(r.cm.service_id), "tcp");
	assert_int_equal(r.icrc, RT_ICRC_OK);

	make_mad(7, RT_CM_ATTR_REP);
	dissect(1, MAD_LEN, -1, &r);
	assert_int_equal(r.cm.attr, RT_CM_ATTR_REP);
	assert_int_equal(r.cm.local_comm_id, 0x11223344);
	assert_int_equal(r.cm.remote_comm_id, 0x55667788);
	assert_int_equal(r.cm.local_qpn, 0xAB);
	assert_int_equal(r.cm.start_psn, 0x727D6D);
	assert_int_equal(r.cm.qkey, 0xBEEF);

	make_mad(7, RT_CM_ATTR_RTU);
	dissect(1, MAD_LEN, -1, &r);
	assert_string_equal(rt_cm_message_name(r.cm.attr), "RTU");
	assert_int_equal(r.cm.remote_comm_id, 0x55667788);
	assert_int_equal(rt_cm_fields(r.cm.attr), RT_CMF_REMOTE_COMM_ID);

	/* the smallest payload that holds the REQ's fields: the MAD header and 47 bytes */
	make_mad(7, RT_CM_ATTR_REQ);
	dissect(1, 24 + 47, -1, &r);
	assert_true(r.layers & RT_L_CM);
}

static void test_reject_and_others(void **state)
{
	struct rt_record r;
	(void)state;

	make_mad(7, RT_CM_ATTR_REJ);
	dissect(1, MAD_LEN, -1, &r);
	assert_int_equal(r.cm.attr, RT_CM_ATTR_REJ);
	assert_int_equal(r.cm.msg, 1);
	assert_string_equal(rt_cm_msg_name(r.cm.msg), "REP");
	assert_int_equal(r.cm.reason, 28);
	assert_string_equal(rt_cm_reject_name(r.cm.reason), "consumer_reject");
	assert_null(rt_cm_reject_name(34));
	assert_null(rt_cm_reject_name(0));

	make_mad(7, RT_CM_ATTR_MRA);
	dissect(1, MAD_LEN, -1, &r);
	assert_string_equal(rt_cm_message_name(r.cm.attr), "MRA");
	assert_int_equal(r.cm.msg, 0);
	assert_int_equal(r.cm.timeout, 20);

	make_mad(7, RT_CM_ATTR_DREQ);
	dissect(1, MAD_LEN, -1, &r);
	assert_int_equal(r.cm.remote_qpn, 0x3C);
	make_mad(7, RT_CM_ATTR_LAP);
	dissect(1, MAD_LEN, -1, &r);
	assert_int_equal(r.cm.remote_qpn, 0x3C);
	make_mad(7, RT_CM_ATTR_DREP);
	dissect(1, MAD_LEN, -1, &r);
	assert_string_equal(rt_cm_message_name(r.cm.attr), "DREP");
	make_mad(7, RT_CM_ATTR_APR);
	dissect(1, MAD_LEN, -1, &r);
	assert_int_equal(r.cm.status, 5);

	make_mad(7, RT_CM_ATTR_SIDR_REQ);
	dissect(1, MAD_LEN, -1, &r);
	assert_int_equal(r.cm.local_comm_id, 0x11223344);
	assert_int_equal(r.cm.service_id, 0x01114853);
	assert_string_equal(rt_cm_port_space(r.cm.service_id), "udp");
	make_mad(7, RT_CM_ATTR_SIDR_REP);
	dissect(1, MAD_LEN, -1, &r);
	assert_int_equal(r.cm.status, 2);
	assert_int_equal(r.cm.local_qpn, 0x99);
	assert_int_equal(r.cm.service_id, 0x01114853);
	assert_int_equal(r.cm.qkey, 0x80010000);
	assert_null(rt_cm_port_space(0x1000000000000001ull));

	make_mad(7, RT_CM_ATTR_CLASS_PORT_INFO);
	dissect(1, MAD_LEN, -1, &r);
	assert_true(r.layers & RT_L_CM);
	assert_string_equal(rt_cm_message_name(r.cm.attr), "ClassPortInfo");
}

static void test_left_alone(void **state)
{
	struct rt_record r;
	(void)state;

	make_mad(7, 0x0020); /* no CM message */
	dissect(1, MAD_LEN, -1, &r);
	assert_false(r.layers & RT_L_CM);
	assert_int_equal(r.cm.attr, 0);
	make_mad(4, RT_CM_ATTR_REQ); /* not communication management */
	dissect(1, MAD_LEN, -1, &r);
	assert_false(r.layers & RT_L_CM);
	make_mad(7, RT_CM_ATTR_REQ);
	dissect(2, MAD_LEN, -1, &r); /* not QP 1 */
	assert_false(r.layers & RT_L_CM);
	dissect(1, 24 + 46, -1, &r); /* one byte short on the wire */
	assert_false(r.layers & RT_L_CM);
	/* cut by the snap length inside the REQ's starting PSN: not decoded, the ICRC cut */
	dissect(1, MAD_LEN, 14 + 20 + 8 + 12 + 8 + 24 + 46, &r);
	assert_false(r.layers & RT_L_CM);
	assert_int_equal(r.events, RT_EV_ICRC_TRUNCATED);
	/* cut after it: decoded, though the ICRC cannot be checked */
	dissect(1, MAD_LEN, 14 + 20 + 8 + 12 + 8 + 24 + 47, &r);
	assert_true(r.layers & RT_L_CM);
	assert_int_equal(r.cm.local_qpn, 0xCD);
	assert_int_equal(r.cm.start_psn, 0x7CC204);
	assert_int_equal(r.icrc, RT_ICRC_UNCHECKED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_connect),
	    cmocka_unit_test(test_reject_and_others),
	    cmocka_unit_test(test_left_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
