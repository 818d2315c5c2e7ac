/* Unit tests of analyze/flowsel.c: every selector form, what each matches, and printed flows read back. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/flowsel.h"

struct key {
	uint32_t id;
	uint8_t ipver;
	uint8_t src[16], dst[16];
	uint32_t qp;
};

static struct key key4(uint32_t id, const char *src, const char *dst, uint32_t qp)
{
	struct key k = {.id = id, .ipver = 4, .qp = qp};
	assert_int_equal(inet_pton(AF_INET, src, k.src), 1);
	assert_int_equal(inet_pton(AF_INET, dst, k.dst), 1);
	return k;
}

static struct key key6(uint32_t id, const char *src, const char *dst, uint32_t qp)
{
	struct key k = {.id = id, .ipver = 6, .qp = qp};
	assert_int_equal(inet_pton(AF_INET6, src, k.src), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, k.dst), 1);
	return k;
}

static bool sel_match(const char *text, const struct key *k)
{
	struct rt_flowsel s;
	assert_int_equal(rt_flowsel_parse(&s, text), 0);
	return rt_flowsel_match(&s, k->id, k->ipver, k->src, k->dst, k->qp);
}

static void test_kinds(void **state)
{
	(void)state;
	struct rt_flowsel s;
	static const struct {
		const char *text;
		enum rt_flowsel_kind kind;
	} forms[] = {
	    {"", RT_FLOWSEL_ALL},
	    {"all", RT_FLOWSEL_ALL},
	    {"  all ", RT_FLOWSEL_ALL},
	    {"3", RT_FLOWSEL_ID},
	    {"0x11", RT_FLOWSEL_ID},
	    {"10.0.0.1", RT_FLOWSEL_HOST},
	    {"fe80::1", RT_FLOWSEL_HOST},
	    {"[fe80::1]", RT_FLOWSEL_HOST},
	    {"10.0.0.1>10.0.0.2", RT_FLOWSEL_PAIR},
	    {"10.0.0.1 > 10.0.0.2", RT_FLOWSEL_PAIR},
	    {"fe80::1>fe80::2", RT_FLOWSEL_PAIR},
	    {"10.0.0.1>10.0.0.2:0x11", RT_FLOWSEL_PAIR_QP},
	    {"[fe80::1]>[fe80::2]:17", RT_FLOWSEL_PAIR_QP},
	    {"10.0.0.1 > 10.0.0.2 qp 0x11", RT_FLOWSEL_PAIR_QP},
	    {"10.0.0.1 > 10.0.0.2 qp=0x000011", RT_FLOWSEL_PAIR_QP},
	    {"fe80::1 > fe80::2 qp 17", RT_FLOWSEL_PAIR_QP},
	    {"10.0.0.1 > 10.0.0.2 QP 0x000011", RT_FLOWSEL_PAIR_QP}, /* the Wireshark plugin's */
	    {"qp:17", RT_FLOWSEL_QP},
	    {"qp 0x11", RT_FLOWSEL_QP},
	    {"qp=17", RT_FLOWSEL_QP},
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		assert_int_equal(rt_flowsel_parse(&s, forms[i].text), 0);
		assert_int_equal(s.kind, forms[i].kind);
	}
	assert_int_equal(rt_flowsel_parse(&s, NULL), 0);
	assert_int_equal(s.kind, RT_FLOWSEL_ALL);
	/* numbers: decimal or 0x hex; a leading zero is decimal, never octal */
	assert_int_equal(rt_flowsel_parse(&s, "qp:010"), 0);
	assert_int_equal(s.qp, 10);
	assert_int_equal(rt_flowsel_parse(&s, "010"), 0);
	assert_int_equal(s.id, 10);
	assert_int_equal(rt_flowsel_parse(&s, "10.0.0.1>10.0.0.2:0x1A"), 0);
	assert_int_equal(s.qp, 26);
	assert_int_equal(rt_flowsel_parse(&s, "qp:0xffffff"), 0);
	assert_int_equal(s.qp, 0xffffff);
}

static void test_bad(void **state)
{
	(void)state;
	struct rt_flowsel s;
	static const char *const bad[] = {"qp:-1",
	                                  "qp:",
	                                  "qp:0x1000000",
	                                  "qp:x",
	                                  "-3",
	                                  "10.0.0",
	                                  "10.0.0.1>",
	                                  ">10.0.0.2",
	                                  "10.0.0.1>fe80::2",
	                                  "10.0.0.1>10.0.0.2:",
	                                  "host",
	                                  "10.0.0.1>10.0.0.2:0x",
	                                  "[fe80::1]>[fe80::2]x",
	                                  "[fe80::1>[fe80::2]:1",
	                                  "10.0.0.1>10.0.0.2 qp",
	                                  "qp:1 2",
	                                  "4294967295",
	                                  "99999999999999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rt_flowsel_parse(&s, bad[i]), -EINVAL);
	}
}

static void test_match(void **state)
{
	(void)state;
	struct key ab = key4(0, "10.0.0.1", "10.0.0.2", 0x11);
	struct key ba = key4(1, "10.0.0.2", "10.0.0.1", 0x22);
	struct key cb = key4(2, "10.0.0.3", "10.0.0.2", 0x11);
	struct key v6 = key6(3, "fe80::1", "fe80::2", 0x11);
	assert_true(sel_match("all", &ab) && sel_match("all", &v6));
	assert_true(sel_match("1", &ba) && !sel_match("1", &ab));
	/* an address: either end */
	assert_true(sel_match("10.0.0.1", &ab) && sel_match("10.0.0.1", &ba));
	assert_false(sel_match("10.0.0.1", &cb));
	/* a pair: one direction */
	assert_true(sel_match("10.0.0.1>10.0.0.2", &ab));
	assert_false(sel_match("10.0.0.1>10.0.0.2", &ba));
	assert_true(sel_match("10.0.0.1>10.0.0.2:0x11", &ab));
	assert_false(sel_match("10.0.0.1>10.0.0.2:0x12", &ab));
	/* a QP: any hosts */
	assert_true(sel_match("qp:17", &ab) && sel_match("qp:17", &cb) && sel_match("qp:17", &v6));
	assert_false(sel_match("qp:17", &ba));
	/* IPv4 never matches IPv6 bytes, even where the first four agree */
	struct key v6m = key6(4, "a00:1::", "a00:2::", 0x11);
	assert_false(sel_match("10.0.0.1", &v6m));
	assert_true(sel_match("[fe80::1]>[fe80::2]:0x11", &v6));
	assert_true(sel_match("fe80::1 > fe80::2 qp 0x11", &v6));
}

/* Every flow as printed (analyze's report) is a selector that picks exactly that flow. */
static void test_format_round_trip(void **state)
{
	(void)state;
	struct key keys[] = {
	    key4(0, "10.0.0.1", "10.0.0.100", 0x200),     key4(1, "10.0.0.100", "10.0.0.1", 0x200),
	    key4(2, "10.0.0.1", "10.0.0.100", 0x201),     key6(3, "fe80::1", "fe80::2", 0xffffff),
	    key6(4, "2001:db8::1", "::ffff:10.0.0.1", 0),
	};
	char buf[RT_FLOWSEL_TEXT_MAX];
	struct key *k = &keys[0];
	assert_string_equal(rt_flowsel_format(buf, k->ipver, k->src, k->dst, k->qp),
	                    "10.0.0.1>10.0.0.100:0x000200");
	k = &keys[3];
	assert_string_equal(rt_flowsel_format(buf, k->ipver, k->src, k->dst, k->qp),
	                    "[fe80::1]>[fe80::2]:0xffffff");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		k = &keys[i];
		rt_flowsel_format(buf, k->ipver, k->src, k->dst, k->qp);
		for (size_t j = 0; j < sizeof(keys) / sizeof(keys[0]); j++)
			assert_int_equal(sel_match(buf, &keys[j]), i == j);
	}
}

static bool set_match(const struct rt_flowsel_set *set, const struct key *k)
{
	return rt_flowsel_set_match(set, k->id, k->ipver, k->src, k->dst, k->qp);
}

/* "A,B" (--flow A --flow B): a flow either one picks; a missing or bad one refuses the whole. */
static void test_set(void **state)
{
	(void)state;
	struct rt_flowsel_set set;
	struct key ab = key4(0, "10.0.0.1", "10.0.0.2", 0x11);
	struct key ba = key4(1, "10.0.0.2", "10.0.0.1", 0x22);
	struct key cd = key6(2, "fe80::3", "fe80::4", 0x11);
	assert_int_equal(rt_flowsel_set_parse(&set, NULL), 0);
	assert_int_equal(set.n, 0);
	assert_false(set_match(&set, &ab));
	assert_int_equal(
	    rt_flowsel_set_parse(&set, "10.0.0.1>10.0.0.2:0x11,[fe80::3]>[fe80::4]:17"), 0);
	assert_int_equal(set.n, 2);
	assert_true(set_match(&set, &ab));
	assert_false(set_match(&set, &ba));
	assert_true(set_match(&set, &cd));
	assert_false(rt_flowsel_set_has_id(&set));
	assert_int_equal(rt_flowsel_set_parse(&set, "qp:0x22, 2"), 0);
	assert_true(rt_flowsel_set_has_id(&set));
	assert_false(set_match(&set, &ab));
	assert_true(set_match(&set, &ba));
	assert_true(set_match(&set, &cd));
	assert_int_equal(rt_flowsel_set_parse(&set, ""), 0); /* --flow '': every flow, as before */
	assert_true(set_match(&set, &cd));
	assert_int_equal(rt_flowsel_set_parse(&set, "10.0.0.1,,10.0.0.2"), -EINVAL);
	assert_int_equal(rt_flowsel_set_parse(&set, "10.0.0.1,"), -EINVAL);
	assert_int_equal(rt_flowsel_set_parse(&set, "10.0.0.1,10.0.0.300"), -EINVAL);
	char many[RT_FLOWSEL_SET_MAX * 3 + 8] = "";
	for (int i = 0; i <= RT_FLOWSEL_SET_MAX; i++)
		strcat(many, i ? ",1" : "1");
	assert_int_equal(rt_flowsel_set_parse(&set, many), -EINVAL);
	many[strlen(many) - 2] = '\0';
	assert_int_equal(rt_flowsel_set_parse(&set, many), 0);
	assert_int_equal(set.n, RT_FLOWSEL_SET_MAX);
}

/* The flow ids of a --conversation, found by a first run, looked up. */
static void test_ids(void **state)
{
	(void)state;
	const uint32_t ids[] = {0, 3, 4, 9, 100};
	for (uint32_t id = 0; id < 120; id++)
		assert_int_equal(rt_flow_ids_has(ids, 5, id),
		                 id == 0 || id == 3 || id == 4 || id == 9 || id == 100);
	assert_false(rt_flow_ids_has(ids, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kinds), cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_match), cmocka_unit_test(test_format_round_trip),
	    cmocka_unit_test(test_set),   cmocka_unit_test(test_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
