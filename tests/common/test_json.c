/* Unit tests of common/json.h and common/errbuf.c: commas at every depth, keys, values, error
 * messages. */
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
#include "common/json.h"

static struct rt_outbuf out;

/* What `emit` writes through a JSON writer, as a string the caller frees. */
static char *render(void (*emit)(struct rt_json *j))
{
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);
	struct rt_json j;

	assert_non_null(fp);
	rt_out_init(&out, fp);
	rt_json_init(&j, &out);
	emit(&j);
	assert_int_equal(j.depth, 0);
	assert_int_equal(rt_out_flush(&out), 0);
	assert_int_equal(fclose(fp), 0);
	return text;
}

static void assert_renders(void (*emit)(struct rt_json *j), const char *want)
{
	char *got = render(emit);

	assert_string_equal(got, want);
	free(got);
}

static void emit_empty(struct rt_json *j)
{
	rt_json_obj(j);
	rt_json_obj_end(j);
	rt_json_arr(j);
	rt_json_arr_end(j);
}

static void emit_members(struct rt_json *j)
{
	static const uint8_t ip4[16] = {10, 0, 0, 1}, mac[6] = {0x02, 0, 0, 0, 0xab, 0xcd};

	rt_json_obj(j);
	RT_JSON_U64(j, "n", 7);
	RT_JSON_BOOL(j, "yes", true);
	RT_JSON_BOOL(j, "no", false);
	RT_JSON_NAME(j, "kind", "roce");
	RT_JSON_STR(j, "text", "a\"b\\c\n");
	RT_JSON_KEY(j, "none");
	rt_json_null(j);
	RT_JSON_KEY(j, "neg");
	rt_json_i64(j, -5);
	RT_JSON_KEY(j, "x");
	rt_json_double(j, 1.25, 3);
	RT_JSON_KEY(j, "ts");
	rt_json_ts(j, 1700000000000000005ull);
	RT_JSON_TS(j, "t2", 5);
	RT_JSON_KEY(j, "ip");
	rt_json_ip(j, 4, ip4);
	RT_JSON_KEY(j, "mac");
	rt_json_mac(j, mac);
	rt_json_key(j, "we\"ird");
	rt_json_u64(j, 1);
	rt_json_obj_end(j);
}

/* The first member of every container takes no comma, the rest one each, at every depth. */
static void emit_nested(struct rt_json *j)
{
	rt_json_obj(j);
	RT_JSON_KEY(j, "a");
	rt_json_arr(j);
	for (int i = 0; i < 3; i++) {
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_U64(j, "i", (uint64_t)i);
		RT_JSON_KEY(j, "q");
		rt_json_arr(j);
		for (int k = 0; k < i; k++) {
			rt_json_next(j);
			rt_json_u64(j, (uint64_t)k);
		}
		rt_json_arr_end(j);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
	RT_JSON_KEY(j, "e");
	rt_json_obj(j);
	rt_json_obj_end(j);
	RT_JSON_U64(j, "z", 0);
	rt_json_obj_end(j);
}

/* JSON Lines: each top-level object starts fresh. */
static void emit_lines(struct rt_json *j)
{
	for (int line = 0; line < 2; line++) {
		rt_json_obj(j);
		RT_JSON_U64(j, "line", (uint64_t)line);
		RT_JSON_U64(j, "b", 2);
		rt_json_obj_end(j);
		rt_out_char(j->o, '\n');
	}
}

/* 63 levels deep: the deepest and every level above keep their own comma state. */
static void emit_deep(struct rt_json *j)
{
	for (int d = 0; d < 63; d++) {
		rt_json_arr(j);
		rt_json_next(j);
		rt_json_u64(j, (uint64_t)d);
		rt_json_next(j);
	}
	rt_json_null(j);
	for (int d = 0; d < 63; d++)
		rt_json_arr_end(j);
}

static void test_empty(void **state)
{
	(void)state;
	assert_renders(emit_empty, "{}[]");
}

static void test_members(void **state)
{
	(void)state;
	assert_renders(
	    emit_members,
	    "{\"n\":7,\"yes\":true,\"no\":false,\"kind\":\"roce\",\"text\":\"a\\\"b\\\\c\\n\","
	    "\"none\":null,\"neg\":-5,\"x\":1.25,\"ts\":\"1700000000.000000005\","
	    "\"t2\":\"0.000000005\",\"ip\":\"10.0.0.1\",\"mac\":\"02:00:00:00:ab:cd\","
	    "\"we\\\"ird\":1}");
}

static void test_nested(void **state)
{
	(void)state;
	assert_renders(emit_nested, "{\"a\":[{\"i\":0,\"q\":[]},{\"i\":1,\"q\":[0]},"
	                            "{\"i\":2,\"q\":[0,1]}],\"e\":{},\"z\":0}");
}

static void test_lines(void **state)
{
	(void)state;
	assert_renders(emit_lines, "{\"line\":0,\"b\":2}\n{\"line\":1,\"b\":2}\n");
}

static void test_deep(void **state)
{
	(void)state;
	char *got = render(emit_deep);
	char want[63 * 8 + 8] = "";
	size_t len = 0;

	for (int d = 0; d < 63; d++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, "[%d,", d);
	len += (size_t)snprintf(want + len, sizeof(want) - len, "null");
	for (int d = 0; d < 63; d++)
		want[len++] = ']';
	want[len] = '\0';
	assert_string_equal(got, want);
	free(got);
}

static void test_errbuf(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	char long_name[2 * RT_ERRBUF_SIZE];

	assert_int_equal(rt_errorf(errbuf, ENOENT, "%s", "x.pcap"), -ENOENT);
	assert_string_equal(errbuf, "x.pcap: No such file or directory");
	assert_int_equal(rt_errorf(errbuf, 0, "bad filter '%s'", "q"), -EINVAL);
	assert_string_equal(errbuf, "bad filter 'q'");
	assert_int_equal(rt_errmsg(errbuf, ENODEV, "no %s", "interface"), -ENODEV);
	assert_string_equal(errbuf, "no interface");
	/* a message longer than the buffer is cut, still terminated, and drops the errno text */
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(rt_errorf(errbuf, EIO, "%s", long_name), -EIO);
	assert_int_equal(strlen(errbuf), RT_ERRBUF_SIZE - 1);
	assert_null(strchr(errbuf, ':'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),  cmocka_unit_test(test_members),
	    cmocka_unit_test(test_nested), cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_deep),   cmocka_unit_test(test_errbuf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
