/* Unit tests of the RDMA CM decoder (dissect/cm.c): REQ and REP fields, and what is left alone. */
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

/* A CM MAD of attribute `attr`: class 7, then a payload whose words the tests recognise. */
static void make_mad(uint8_t mclass, uint16_t attr)
{
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;      /* base version */
	mad[1] = mclass; /* management class */
	mad[2] = 2;      /* class version */
	mad[3] = 3;      /* method: send */
	rt_put_be16(mad + 16, attr);
	rt_put_be32(mad + 24, 0x11223344);     /* local communication ID */
	rt_put_be32(mad + 24 + 4, 0x55667788); /* REP: remote communication ID; REQ: service ID */
	rt_put_be24(mad + 24 + 12, 0x0000AB);  /* REP: local QPN */
	rt_put_be24(mad + 24 + 32, 0x0000CD);  /* REQ: local QPN */
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

static void test_req_rep(void **state)
{
	struct rt_record r;
	(void)state;

	make_mad(7, RT_CM_ATTR_REQ);
	dissect(1, MAD_LEN, -1, &r);
	assert_true(r.layers & RT_L_CM);
	assert_int_equal(r.cm.attr, RT_CM_ATTR_REQ);
	assert_int_equal(r.cm.local_comm_id, 0x11223344);
	assert_int_equal(r.cm.remote_comm_id, 0);
	assert_int_equal(r.cm.local_qpn, 0xCD);
	assert_int_equal(r.icrc, RT_ICRC_OK);

	make_mad(7, RT_CM_ATTR_REP);
	dissect(1, MAD_LEN, -1, &r);
	assert_true(r.layers & RT_L_CM);
	assert_int_equal(r.cm.attr, RT_CM_ATTR_REP);
	assert_int_equal(r.cm.local_comm_id, 0x11223344);
	assert_int_equal(r.cm.remote_comm_id, 0x55667788);
	assert_int_equal(r.cm.local_qpn, 0xAB);

	/* the smallest payload that holds the fields: the MAD header and 36 bytes */
	dissect(1, 24 + 36, -1, &r);
	assert_true(r.layers & RT_L_CM);
}

static void test_left_alone(void **state)
{
	struct rt_record r;
	(void)state;

	make_mad(7, 0x0014); /* RTU */
	dissect(1, MAD_LEN, -1, &r);
	assert_false(r.layers & RT_L_CM);
	assert_int_equal(r.cm.attr, 0);
	make_mad(4, RT_CM_ATTR_REQ); /* not communication management */
	dissect(1, MAD_LEN, -1, &r);
	assert_false(r.layers & RT_L_CM);
	make_mad(7, RT_CM_ATTR_REQ);
	dissect(2, MAD_LEN, -1, &r); /* not QP 1 */
	assert_false(r.layers & RT_L_CM);
	dissect(1, 24 + 35, -1, &r); /* one byte short on the wire */
	assert_false(r.layers & RT_L_CM);
	/* cut by the snap length inside the REQ's QPN: not decoded, the frame truncated */
	dissect(1, MAD_LEN, 14 + 20 + 8 + 12 + 8 + 24 + 34, &r);
	assert_false(r.layers & RT_L_CM);
	assert_true(r.truncated);
	/* cut after it: decoded, though the ICRC cannot be checked */
	dissect(1, MAD_LEN, 14 + 20 + 8 + 12 + 8 + 24 + 36, &r);
	assert_true(r.layers & RT_L_CM);
	assert_int_equal(r.cm.local_qpn, 0xCD);
	assert_int_equal(r.icrc, RT_ICRC_UNCHECKED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_req_rep),
	    cmocka_unit_test(test_left_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
