/* Unit tests of doctor's parsers: sysfs texts, and dcb, mlnx_qos and lldptool output recorded in tests/doctor/recordings. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "doctor/facts.h"

static const char *recordings; /* argv[1] */

static char *slurp(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", recordings, name);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void test_state_rate_gid(void **state)
{
	(void)state;
	char s[32];
	assert_int_equal(rt_doc_parse_state("4: ACTIVE", s, sizeof(s)), 0);
	assert_string_equal(s, "ACTIVE");
	assert_int_equal(rt_doc_parse_state("5: LinkUp\n", s, sizeof(s)), 0);
	assert_string_equal(s, "LinkUp");
	assert_int_equal(rt_doc_parse_state("2: Polling", s, sizeof(s)), 0);
	assert_string_equal(s, "Polling");
	assert_int_equal(rt_doc_parse_state("4:", s, sizeof(s)), -EINVAL);

	uint64_t bps;
	assert_int_equal(rt_doc_parse_rate("100 Gb/sec (4X EDR)", &bps), 0);
	assert_true(bps == 100000000000ull);
	assert_int_equal(rt_doc_parse_rate("2.5 Gb/sec (1X SDR)", &bps), 0);
	assert_true(bps == 2500000000ull);
	assert_int_equal(rt_doc_parse_rate("fast", &bps), -EINVAL);
	assert_int_equal(rt_doc_parse_rate("100 Mb/sec", &bps), -EINVAL);

	uint8_t g[16];
	assert_int_equal(rt_doc_parse_gid("0000:0000:0000:0000:0000:ffff:c000:020a", g), 0);
	assert_int_equal(g[10], 0xff);
	assert_int_equal(g[12], 192);
	assert_int_equal(g[15], 10);
	assert_int_equal(rt_doc_parse_gid("fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4d\n", g), 0);
	assert_int_equal(g[0], 0xfe);
	assert_int_equal(g[15], 0x4d);
	assert_int_equal(rt_doc_parse_gid("fe80::1", g), -EINVAL);
	assert_int_equal(rt_doc_parse_gid("fe80:0:0:0:0:0:0:1:2", g), -EINVAL);

	assert_int_equal(rt_doc_parse_gid_type("RoCE v2"), RT_GID_ROCE_V2);
	assert_int_equal(rt_doc_parse_gid_type("IB/RoCE v1"), RT_GID_ROCE_V1);
	assert_int_equal(rt_doc_parse_gid_type("IB"), RT_GID_UNKNOWN);
}

static void test_dscp_names(void **state)
{
	(void)state;
	assert_int_equal(rt_doc_parse_dscp("26"), 26);
	assert_int_equal(rt_doc_parse_dscp("0x1a"), 26);
	assert_int_equal(rt_doc_parse_dscp("AF31"), 26);
	assert_int_equal(rt_doc_parse_dscp("CS3"), 24);
	assert_int_equal(rt_doc_parse_dscp("cs6"), 48);
	assert_int_equal(rt_doc_parse_dscp("EF"), 46);
	assert_int_equal(rt_doc_parse_dscp("64"), -EINVAL);
	assert_int_equal(rt_doc_parse_dscp("AF44"), -EINVAL);
	assert_int_equal(rt_doc_parse_dscp("CS8"), -EINVAL);
}

static void test_dcb(void **state)
{
	(void)state;
	uint8_t en = 0xaa;
	assert_int_equal(rt_doc_parse_dcb_pfc(slurp("dcb_pfc_on3.txt"), &en), 0);
	assert_int_equal(en, 1u << 3);
	assert_int_equal(rt_doc_parse_dcb_pfc(slurp("dcb_pfc_off.txt"), &en), 0);
	assert_int_equal(en, 0);
	/* the dcb-pfc(8) example after "prio-pfc all:off 6:on 7:on" */
	assert_int_equal(rt_doc_parse_dcb_pfc("prio-pfc all:off 6:on 7:on\n", &en), 0);
	assert_int_equal(en, 0xc0);
	/* the error dcb prints when the driver has no DCB: no map */
	assert_int_equal(rt_doc_parse_dcb_pfc(slurp("dcb_unsupported.err"), &en), -EINVAL);
	assert_int_equal(rt_doc_parse_dcb_pfc("prio-pfc 3:maybe\n", &en), -EINVAL);
	assert_int_equal(rt_doc_parse_dcb_pfc("prio-pfc 8:on\n", &en), -EINVAL);

	int8_t map[64];
	assert_int_equal(rt_doc_parse_dcb_app(slurp("dcb_app_default.txt"), map), 64);
	for (int d = 0; d < 64; d++)
		assert_int_equal(map[d], d >> 3);
	/* symbolic names, and two entries for CS3: the first one counts */
	assert_int_equal(rt_doc_parse_dcb_app(slurp("dcb_app_symbolic.txt"), map), 4);
	assert_int_equal(map[0], 0);
	assert_int_equal(map[24], 2);
	assert_int_equal(map[48], 6);
	assert_int_equal(map[26], -1);
	assert_int_equal(rt_doc_parse_dcb_app(slurp("dcb_app_empty.txt"), map), 0);
	assert_int_equal(map[26], -1);
	/* other selectors are not DSCP entries */
	assert_int_equal(rt_doc_parse_dcb_app("default-prio 3\nethtype-prio 0x8906:3\n", map), 0);
	assert_int_equal(rt_doc_parse_dcb_app("dscp-prio 26\n", map), -EINVAL);
	assert_int_equal(rt_doc_parse_dcb_app("dscp-prio 26:9\n", map), -EINVAL);
}

static void test_mlnx_qos(void **state)
{
	(void)state;
	struct rt_doc_qos q;
	memset(&q, 0, sizeof(q));
	assert_int_equal(rt_doc_parse_mlnx_qos(slurp("mlnx_qos_dscp_pfc3.txt"), &q), 0);
	assert_true(q.pfc_known && q.trust_known && q.map_known);
	assert_int_equal(q.pfc_en, 1u << 3);
	assert_int_equal(q.trust, RT_TRUST_DSCP);
	for (int d = 0; d < 64; d++)
		assert_int_equal(q.dscp2prio[d], d >> 3);

	memset(&q, 0, sizeof(q));
	assert_int_equal(rt_doc_parse_mlnx_qos(slurp("mlnx_qos_pcp_old.txt"), &q), 0);
	assert_true(q.pfc_known && q.trust_known);
	assert_false(q.map_known);
	assert_int_equal(q.trust, RT_TRUST_PCP);
	assert_int_equal(q.pfc_en, 0xc5); /* enabled 1 0 1 0 0 0 1 1 */

	/* a priority whose DSCPs wrap onto a second line */
	memset(&q, 0, sizeof(q));
	assert_int_equal(
	    rt_doc_parse_mlnx_qos("Priority trust state: dscp\ndscp2prio mapping:\n"
	                          "\tprio:3 dscp:26,27,28,29,30,31,32,33,\n"
	                          "\tprio:3 dscp:34,35,\ndefault priority:\n\tprio:0\n",
	                          &q),
	    0);
	assert_int_equal(q.dscp2prio[26], 3);
	assert_int_equal(q.dscp2prio[35], 3);
	assert_int_equal(q.dscp2prio[0], -1);
	assert_false(q.pfc_known);

	memset(&q, 0, sizeof(q));
	assert_int_equal(rt_doc_parse_mlnx_qos("Interface name is required\n", &q), -EINVAL);
	assert_int_equal(
	    rt_doc_parse_mlnx_qos("PFC configuration:\n\tpriority 0 1 2\n\tenabled 0 1 0\n", &q),
	    -EINVAL);
}

static void test_lldptool(void **state)
{
	(void)state;
	uint8_t en = 0xff;
	assert_int_equal(rt_doc_parse_lldptool_pfc(slurp("lldptool_pfc_on3.txt"), &en), 0);
	assert_int_equal(en, 1u << 3);
	assert_int_equal(rt_doc_parse_lldptool_pfc(slurp("lldptool_pfc_none.txt"), &en), 0);
	assert_int_equal(en, 0);
	assert_int_equal(rt_doc_parse_lldptool_pfc(slurp("lldptool_pfc_137.txt"), &en), 0);
	assert_int_equal(en, (1u << 1) | (1u << 3) | (1u << 7));
	assert_int_equal(rt_doc_parse_lldptool_pfc("IEEE 8021QAZ PFC TLV\n\t Willing: yes\n", &en),
	                 -EINVAL);
	assert_int_equal(rt_doc_parse_lldptool_pfc("\t PFC enabled: 9\n", &en), -EINVAL);
}

static void test_dscp2prio_file(void **state)
{
	(void)state;
	int8_t map[64];
	assert_int_equal(rt_doc_parse_dscp2prio_file("dscp2prio:\n26 3\n48 6\n", map), 2);
	assert_int_equal(map[26], 3);
	assert_int_equal(map[48], 6);
	assert_int_equal(map[0], -1);
	assert_int_equal(rt_doc_parse_dscp2prio_file("nothing here\n", map), -EINVAL);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s RECORDINGS_DIR\n", argv[0]);
		return 2;
	}
	recordings = argv[1];
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_state_rate_gid),
	    cmocka_unit_test(test_dscp_names),
	    cmocka_unit_test(test_dcb),
	    cmocka_unit_test(test_mlnx_qos),
	    cmocka_unit_test(test_lldptool),
	    cmocka_unit_test(test_dscp2prio_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
