/* Unit tests of the JSON reader doctor uses for the reports of other hosts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "doctor/json.h"

static struct rt_json_value *parse(const char *s, char *err, size_t errlen)
{
	return rt_json_parse(s, strlen(s), err, errlen);
}

static void test_values(void **state)
{
	(void)state;
	char err[128];
	const char *doc = " {\"host\":\"n1\",\"n\":-12.5e1,\"ok\":true,\"no\":false,\"nil\":null,"
	                  "\"list\":[1,\"two\",{\"k\":[]}],\"empty\":{}} \n";
	struct rt_json_value *v = parse(doc, err, sizeof(err));
	assert_non_null(v);
	assert_int_equal(v->type, RT_JSON_OBJECT);
	assert_string_equal(rt_json_get_str(v, "host"), "n1");
	double n;
	assert_true(rt_json_get_num(v, "n", &n));
	assert_true(n == -125.0);
	assert_int_equal(rt_json_get(v, "ok")->type, RT_JSON_TRUE);
	assert_int_equal(rt_json_get(v, "no")->type, RT_JSON_FALSE);
	assert_int_equal(rt_json_get(v, "nil")->type, RT_JSON_NULL);
	assert_null(rt_json_get_str(v, "n"));
	assert_false(rt_json_get_num(v, "host", &n));
	assert_null(rt_json_get(v, "missing"));
	const struct rt_json_value *list = rt_json_get(v, "list");
	assert_int_equal(list->type, RT_JSON_ARRAY);
	assert_int_equal(list->child->type, RT_JSON_NUMBER);
	assert_string_equal(list->child->next->str, "two");
	const struct rt_json_value *k = rt_json_get(list->child->next->next, "k");
	assert_int_equal(k->type, RT_JSON_ARRAY);
	assert_null(k->child);
	assert_null(rt_json_get(v, "empty")->child);
	rt_json_free(v);
}

static void test_strings(void **state)
{
	(void)state;
	char err[128];
	struct rt_json_value *v = parse(
	    "[\"a\\\"b\\\\c\\/d\\n\\t\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\", \"\\u0000x\"]",
	    err, sizeof(err));
	assert_non_null(v);
	const struct rt_json_value *e = v->child;
	assert_string_equal(e->str, "a\"b\\c/d\n\t");
	assert_string_equal(e->next->str, "\xc3\xa9\xe2\x82\xac");
	assert_string_equal(e->next->next->str, "\xf0\x9f\x98\x80");
	/* NUL cannot live in a C string: replaced */
	assert_string_equal(e->next->next->next->str, "\xef\xbf\xbdx");
	rt_json_free(v);
}

static void test_errors(void **state)
{
	(void)state;
	char err[128];
	const char *bad[] = {"",    "{",   "{\"a\"}",     "{\"a\":1,}", "[1 2]",       "\"open",
	                     "tru", "01x", "{\"a\":1} x", "[\"\\q\"]",  "[\"\\u12\"]", "-",
	                     "1.",  "1e",  "[\"a\nb\"]"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		struct rt_json_value *v = parse(bad[i], err, sizeof(err));
		if (v)
			fail_msg("'%s' parsed", bad[i]);
		assert_non_null(strstr(err, "at byte"));
	}
	/* nesting is bounded */
	char deep[200];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	assert_null(rt_json_parse(deep, sizeof(deep), err, sizeof(err)));
	assert_non_null(strstr(err, "nested too deeply"));
	memset(deep, '[', 60);
	memset(deep + 60, ']', 60);
	struct rt_json_value *v = rt_json_parse(deep, 120, err, sizeof(err));
	assert_non_null(v);
	rt_json_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
