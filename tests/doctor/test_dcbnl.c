/* Unit tests of the DCB netlink reader: a built RTM_GETDCB reply parsed, and the kernel asked about netdevs without DCB. */
#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "doctor/facts.h"

struct msg {
	uint8_t buf[4096] __attribute__((aligned(4)));
	size_t len;
};

/* Append an attribute; returns its offset so a nest can be closed later. */
static size_t attr(struct msg *m, uint16_t type, const void *data, size_t len)
{
	size_t at = m->len;
	struct nlattr a = {.nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type};
	memcpy(m->buf + at, &a, sizeof(a));
	if (len)
		memcpy(m->buf + at + NLA_HDRLEN, data, len);
	m->len = at + NLA_ALIGN(NLA_HDRLEN + len);
	return at;
}

static void close_nest(struct msg *m, size_t at)
{
	struct nlattr a;
	memcpy(&a, m->buf + at, sizeof(a));
	a.nla_len = (uint16_t)(m->len - at);
	memcpy(m->buf + at, &a, sizeof(a));
}

static void app(struct msg *m, uint8_t sel, uint8_t prio, uint16_t proto)
{
	struct dcb_app a = {.selector = sel, .priority = prio, .protocol = proto};
	attr(m, DCB_ATTR_IEEE_APP, &a, sizeof(a));
}

/* An IEEE_GET reply as the kernel sends it for a port with PFC on `pfc`, DSCP entries and a peer. */
static void build(struct msg *m, uint8_t pfc, bool dscp_entries, bool peer)
{
	memset(m, 0, sizeof(*m));
	struct nlmsghdr nh = {.nlmsg_type = RTM_GETDCB, .nlmsg_seq = 1};
	struct dcbmsg dm = {.dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_GET};
	m->len = NLMSG_HDRLEN;
	memcpy(m->buf + m->len, &dm, sizeof(dm));
	m->len += NLMSG_ALIGN(sizeof(dm));
	attr(m, DCB_ATTR_IFNAME, "ens1f0np0", 10);
	size_t ieee = attr(m, DCB_ATTR_IEEE, NULL, 0);
	struct ieee_pfc p = {.pfc_cap = 8, .pfc_en = pfc, .delay = 4096};
	attr(m, DCB_ATTR_IEEE_PFC, &p, sizeof(p));
	size_t table = attr(m, DCB_ATTR_IEEE_APP_TABLE, NULL, 0);
	app(m, IEEE_8021QAZ_APP_SEL_ETHERTYPE, 3, 0x8915);
	if (dscp_entries) {
		for (uint16_t d = 0; d < 64; d++)
			app(m, IEEE_8021QAZ_APP_SEL_DSCP, (uint8_t)(d >> 3), d);
		app(m, IEEE_8021QAZ_APP_SEL_DSCP, 5,
		    26); /* a second entry for 26: the first counts */
	}
	close_nest(m, table);
	if (peer) {
		struct ieee_pfc pp = {.pfc_cap = 8, .pfc_en = 0x08};
		attr(m, DCB_ATTR_IEEE_PEER_PFC, &pp, sizeof(pp));
	}
	close_nest(m, ieee);
	uint8_t dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	attr(m, DCB_ATTR_DCBX, &dcbx, 1);
	nh.nlmsg_len = (uint32_t)m->len;
	memcpy(m->buf, &nh, sizeof(nh));
}

static void test_parse_reply(void **state)
{
	(void)state;
	struct msg m;
	struct rt_doc_qos q;
	build(&m, 0x08, true, true);
	memset(&q, 0, sizeof(q));
	assert_int_equal(rt_doc_dcbnl_parse(m.buf, m.len, &q), 0);
	assert_true(q.pfc_known);
	assert_int_equal(q.pfc_en, 0x08);
	assert_true(q.trust_known);
	assert_int_equal(q.trust, RT_TRUST_DSCP);
	assert_true(q.map_known);
	assert_int_equal(q.dscp2prio[26], 3);
	assert_int_equal(q.dscp2prio[48], 6);
	assert_true(q.peer_known);
	assert_int_equal(q.peer_pfc_en, 0x08);

	/* no DSCP entries: trust pcp (as mlx5 reports it), no peer */
	build(&m, 0x00, false, false);
	memset(&q, 0, sizeof(q));
	assert_int_equal(rt_doc_dcbnl_parse(m.buf, m.len, &q), 0);
	assert_int_equal(q.pfc_en, 0);
	assert_int_equal(q.trust, RT_TRUST_PCP);
	assert_false(q.peer_known);

	/* cut anywhere: never read past the end */
	for (size_t cut = 0; cut < m.len; cut++) {
		struct msg c = m;
		struct nlmsghdr nh;
		memcpy(&nh, c.buf, sizeof(nh));
		nh.nlmsg_len = (uint32_t)cut;
		memcpy(c.buf, &nh, sizeof(nh));
		memset(&q, 0, sizeof(q));
		int rc = rt_doc_dcbnl_parse(c.buf, cut, &q);
		assert_true(rc == 0 || rc == -EINVAL || rc == -EOPNOTSUPP);
	}

	/* the kernel's error answer */
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr e;
	} err = {.nh = {.nlmsg_len = sizeof(err), .nlmsg_type = NLMSG_ERROR},
	         .e = {.error = -EOPNOTSUPP}};
	assert_int_equal(rt_doc_dcbnl_parse(&err, sizeof(err), &q), -EOPNOTSUPP);
}

static void test_kernel(void **state)
{
	(void)state;
	struct rt_doc_qos q;
	memset(&q, 0, sizeof(q));
	/* what `dcb pfc show dev lo` reports as "Operation not supported" */
	int rc = rt_doc_dcbnl_query("lo", &q);
	if (rc == -EPERM || rc == -EACCES || rc == -EPROTONOSUPPORT)
		skip();
	assert_int_equal(rc, -EOPNOTSUPP);
	assert_false(q.pfc_known);
	assert_int_equal(rt_doc_dcbnl_query("rtdoc-nosuch0", &q), -ENODEV);
	assert_int_equal(rt_doc_dcbnl_query("a-name-longer-than-ifnamsiz", &q), -ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_reply),
	    cmocka_unit_test(test_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
