/* Unit tests of the one JSON reader: values, strings, numbers read exactly, errors with line and column, arena reuse. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/errbuf.h"
#include "common/json_read.h"

static struct rt_jdoc doc;
static char err[RT_ERRBUF_SIZE];

static int setup(void **state)
{
	(void)state;
	rt_jdoc_init(&doc);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rt_jdoc_free(&doc);
	return 0;
}

/* The root of s parsed, or NULL with err set. */
static const struct rt_jval *parse(const char *s)
{
	err[0] = '\0';
	int rc = rt_jdoc_parse(&doc, s, strlen(s), err);
	if (rc < 0) {
		assert_int_equal(rc, -EINVAL);
		assert_null(doc.root);
		return NULL;
	}
	assert_non_null(doc.root);
	return doc.root;
}

static void test_values(void **state)
{
	(void)state;
	const struct rt_jval *v =
	    parse(" {\"host\":\"n1\",\"n\":-12.5e1,\"ok\":true,\"no\":false,\"nil\":null,"
	          "\"list\":[1,\"two\",{\"k\":[]}],\"empty\":{},\"host\":\"second\"} \n");
	assert_non_null(v);
	assert_int_equal(v->type, RT_JOBJECT);
	assert_int_equal(v->len, 8);
	assert_string_equal(rt_jget_str(v, "host"), "n1"); /* the first of a name */
	double n;
	assert_true(rt_jget_num(v, "n", &n));
	assert_true(n == -125.0);
	assert_string_equal(rt_jget(v, "n")->str, "-12.5e1");
	assert_int_equal(rt_jget(v, "ok")->type, RT_JTRUE);
	assert_int_equal(rt_jget(v, "no")->type, RT_JFALSE);
	assert_int_equal(rt_jget(v, "nil")->type, RT_JNULL);
	assert_null(rt_jget_str(v, "n"));
	assert_false(rt_jget_num(v, "host", &n));
	assert_null(rt_jget(v, "missing"));
	assert_null(rt_jget(NULL, "host"));
	const struct rt_jval *list = rt_jget(v, "list");
	assert_int_equal(list->type, RT_JARRAY);
	assert_int_equal(list->len, 3);
	assert_null(rt_jget(list, "k")); /* an array has no members by name */
	assert_int_equal(list->child->type, RT_JNUMBER);
	assert_null(list->child->key);
	assert_string_equal(list->child->next->str, "two");
	const struct rt_jval *k = rt_jget(list->child->next->next, "k");
	assert_int_equal(k->type, RT_JARRAY);
	assert_null(k->child);
	assert_null(rt_jget(v, "empty")->child);
	/* scalars alone are documents too */
	assert_int_equal(parse(" 7 ")->type, RT_JNUMBER);
	assert_int_equal(parse("\"s\"")->type, RT_JSTRING);
}

static void test_strings(void **state)
{
	(void)state;
	const struct rt_jval *v =
	    parse("[\"a\\\"b\\\\c\\/d\\n\\t\\b\\f\\r\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\", "
	          "\"\\u0000x\", \"\\ud83dx\", \"plain\"]");
	assert_non_null(v);
	const struct rt_jval *e = v->child;
	assert_string_equal(e->str, "a\"b\\c/d\n\t\b\f\r");
	assert_int_equal(e->len, 12);
	assert_string_equal(e->next->str, "\xc3\xa9\xe2\x82\xac");
	assert_string_equal(e->next->next->str, "\xf0\x9f\x98\x80");
	/* NUL cannot live in a C string, nor a lone surrogate in UTF-8: replaced */
	assert_string_equal(e->next->next->next->str, "\xef\xbf\xbdx");
	assert_string_equal(e->next->next->next->next->str, "\xef\xbf\xbdx");
	assert_string_equal(e->next->next->next->next->next->str, "plain");
}

static void test_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *where;
	} bad[] = {
	    {"", "line 1, column 1: unexpected end"},
	    {"{", "line 1, column 2: expected a member name"},
	    {"{\"a\"}", "line 1, column 5: expected ':'"},
	    {"{\"a\":1,}", "line 1, column 8: expected a member name"},
	    {"[1 2]", "line 1, column 4: expected ',' or ']'"},
	    {"\"open", "line 1, column 6: unterminated string"},
	    {"tru", "line 1, column 1: unexpected character"},
	    {"01", "line 1, column 1: number with a leading zero"},
	    {"-01", "line 1, column 2: number with a leading zero"},
	    {"{\"a\":1} x", "line 1, column 9: text after the value"},
	    {"[\"\\q\"]", "line 1, column 4: bad escape '\\q'"},
	    {"[\"\\u12\"]", "line 1, column 7: bad \\u escape"},
	    {"-", "line 1, column 2: unexpected character"},
	    {"1.", "line 1, column 3: bad number"},
	    {"1e", "line 1, column 3: bad number"},
	    {"[\"a\nb\"]", "line 1, column 4: control character in string"},
	    {"{\n  \"a\": 1,\n  \"b\" 2\n}", "line 3, column 7: expected ':'"},
	    {"[nan]", "line 1, column 2: unexpected character"},
	    {"[+1]", "line 1, column 2: unexpected character"},
	    {"[.5]", "line 1, column 2: unexpected character"},
	    {"[0x10]", "line 1, column 3: expected ',' or ']'"},
	    {"[inf]", "line 1, column 2: unexpected character"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i].text))
			fail_msg("'%s' parsed", bad[i].text);
		if (strcmp(err, bad[i].where))
			fail_msg("'%s': \"%s\", not \"%s\"", bad[i].text, err, bad[i].where);
	}
	/* a NUL inside the text is no JSON */
	assert_int_equal(rt_jdoc_parse(&doc, "[1]\0", 4, err), -EINVAL);
	/* nesting is bounded */
	char deep[2 * (RT_JSON_DEPTH_MAX + 1)];
	memset(deep, '[', RT_JSON_DEPTH_MAX + 1);
	memset(deep + RT_JSON_DEPTH_MAX + 1, ']', RT_JSON_DEPTH_MAX + 1);
	assert_int_equal(rt_jdoc_parse(&doc, deep, sizeof(deep), err), -EINVAL);
	assert_non_null(strstr(err, "nested deeper than 64"));
	assert_int_equal(rt_jdoc_parse(&doc, deep + 1, sizeof(deep) - 2, err), 0);
}

static void test_u64(void **state)
{
	(void)state;
	const struct rt_jval *v =
	    parse("[0,18446744073709551615,18446744073709551616,9007199254740993,"
	          "99999999999999999999999,-1,1.0,1e3,-0,\"5\",null]");
	assert_non_null(v);
	const struct rt_jval *e = v->child;
	uint64_t n = 42;
	assert_int_equal(rt_jval_u64(e, &n), 0);
	assert_true(n == 0);
	assert_int_equal(rt_jval_u64(e = e->next, &n), 0);
	assert_true(n == UINT64_MAX);
	assert_int_equal(rt_jval_u64(e = e->next, &n), -ERANGE);
	/* 2^53 + 1: no double holds it */
	assert_int_equal(rt_jval_u64(e = e->next, &n), 0);
	assert_true(n == 9007199254740993ull);
	assert_int_equal(rt_jval_u64(e = e->next, &n), -ERANGE);
	for (int i = 0; i < 6; i++)
		assert_int_equal(rt_jval_u64(e = e->next, &n), -EINVAL);
	assert_null(e->next);
	assert_int_equal(rt_jval_u64(NULL, &n), -EINVAL);
	assert_true(n == 9007199254740993ull); /* untouched on failure */
	/* doubles: rounded; past the range, HUGE_VAL */
	double d;
	assert_true(rt_jval_num(v->child->next->next->next, &d) && d == 9007199254740992.0);
	assert_true(parse("[1e999]") && rt_jval_num(doc.root->child, &d) && d > 1e308);
	assert_false(rt_jval_num(NULL, &d));
}

static void test_timestamps(void **state)
{
	(void)state;
	const struct rt_jval *v = parse(
	    "[\"12.000000005\",\"7\",\"7.5\",\"18446744072.999999999\",\"-1.5\",\" 5\",\"+5\","
	    "\"99999999999999999999.0\",\"18446744073.0\",\"1.0000000001\",\"1x\",\"1.2x\",5]");
	assert_non_null(v);
	const struct rt_jval *e = v->child;
	uint64_t ts;
	assert_true(rt_jval_ts(e, &ts));
	assert_true(ts == 12000000005ull);
	assert_true(rt_jval_ts(e = e->next, &ts));
	assert_true(ts == 7000000000ull);
	assert_true(rt_jval_ts(e = e->next, &ts));
	assert_true(ts == 7500000000ull);
	assert_true(rt_jval_ts(e = e->next, &ts));
	assert_true(ts == 18446744072999999999ull);
	while ((e = e->next))
		if (rt_jval_ts(e, &ts))
			fail_msg("'%s' read as a time", e->str);
}

/* One document after another in the same arena, one larger than a block, and strings as long as the text. */
static void test_reuse(void **state)
{
	(void)state;
	size_t n = 5000, cap = n * 32 + 64, len = 0;
	char *big = malloc(cap);
	assert_non_null(big);
	len += (size_t)snprintf(big + len, cap - len, "{\"counters\":{");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(big + len, cap - len, "%s\"rx_q%zu_packets\":%zu",
		                        i ? "," : "", i, i * 1000);
	len += (size_t)snprintf(big + len, cap - len, "}}");
	for (int round = 0; round < 3; round++) {
		assert_int_equal(rt_jdoc_parse(&doc, big, len, err), 0);
		const struct rt_jval *c = rt_jget(doc.root, "counters");
		assert_int_equal(c->len, n);
		uint64_t v = 0;
		const struct rt_jval *last = c->child;
		while (last->next)
			last = last->next;
		assert_string_equal(last->key, "rx_q4999_packets");
		assert_int_equal(rt_jval_u64(last, &v), 0);
		assert_true(v == 4999000);
		/* a failed parse leaves no root, and the next one works */
		assert_null(parse("{\"a\":"));
		assert_string_equal(parse("{\"a\":\"b\"}")->child->str, "b");
	}
	free(big);
	/* a string of 100000 bytes, escapes and all */
	size_t slen = 100000;
	char *s = malloc(slen + 3);
	assert_non_null(s);
	s[0] = '"';
	for (size_t i = 1; i <= slen; i += 2)
		memcpy(s + i, "\\n", 2);
	memcpy(s + slen + 1, "\"", 2);
	assert_int_equal(rt_jdoc_parse(&doc, s, slen + 2, err), 0);
	assert_int_equal(doc.root->len, slen / 2);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_values, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_strings, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_u64, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_timestamps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reuse, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
