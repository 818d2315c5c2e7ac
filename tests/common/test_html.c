/* Unit tests of common/html.c: HTML text escaping, JSON that cannot end its script element, base64. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/html.h"

static struct rt_outbuf out;

enum how { HTML, SCRIPT_JSON, BASE64 };

/* What one writer makes of `len` bytes of `in`, as a string the caller frees. */
static char *render(enum how how, const char *in, size_t len)
{
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);
	assert_non_null(fp);
	rt_out_init(&out, fp);
	if (how == HTML)
		rt_out_html(&out, in);
	else if (how == SCRIPT_JSON)
		rt_out_script_json(&out, in, len);
	else
		rt_out_base64(&out, in, len);
	assert_int_equal(rt_out_flush(&out), 0);
	assert_int_equal(fclose(fp), 0);
	return text;
}

static void assert_writes(enum how how, const char *in, size_t len, const char *want)
{
	char *got = render(how, in, len);
	assert_string_equal(got, want);
	free(got);
}

static void test_html_markup_escaped(void **state)
{
	(void)state;
	assert_writes(HTML, "plain text", 0, "plain text");
	assert_writes(HTML, "<script>alert(\"x\")</script>", 0,
	              "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
	assert_writes(HTML, "a&b 'q' <img src=x onerror=1>", 0,
	              "a&amp;b &#39;q&#39; &lt;img src=x onerror=1&gt;");
	/* an entity in the input is text, not markup: its & is escaped too */
	assert_writes(HTML, "&lt;", 0, "&amp;lt;");
}

static void test_html_utf8_and_controls(void **state)
{
	(void)state;
	/* valid UTF-8 passes whole; a tab and a newline stay; other controls become spaces */
	assert_writes(HTML, "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x93\x88", 0,
	              "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x93\x88");
	assert_writes(HTML,
	              "a\tb\nc\x01"
	              "d\x7f"
	              "e",
	              0, "a\tb\nc d e");
	/* a stray continuation byte, an overlong '<' (C0 BC) and a surrogate become U+FFFD */
	assert_writes(HTML, "x\x80y", 0, "x\xef\xbf\xbdy");
	assert_writes(HTML, "\xc0\xbc", 0, "\xef\xbf\xbd\xef\xbf\xbd");
	assert_writes(HTML, "\xed\xa0\x80", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* a sequence cut by the end of the string */
	assert_writes(HTML, "z\xe2\x86", 0, "z\xef\xbf\xbd\xef\xbf\xbd");
}

static void test_script_json(void **state)
{
	(void)state;
	const char *in = "{\"title\":\"</script><script>alert(1)</script><!--\"}";
	assert_writes(
	    SCRIPT_JSON, in, strlen(in),
	    "{\"title\":\"\\u003c/script>\\u003cscript>alert(1)\\u003c/script>\\u003c!--\"}");
	assert_writes(SCRIPT_JSON, "{}", 2, "{}");
	/* only len bytes are written */
	assert_writes(SCRIPT_JSON, "<<x", 2, "\\u003c\\u003c");
}

static void test_base64(void **state)
{
	(void)state;
	/* RFC 4648, section 10 */
	assert_writes(BASE64, "", 0, "");
	assert_writes(BASE64, "f", 1, "Zg==");
	assert_writes(BASE64, "fo", 2, "Zm8=");
	assert_writes(BASE64, "foo", 3, "Zm9v");
	assert_writes(BASE64, "foob", 4, "Zm9vYg==");
	assert_writes(BASE64, "fooba", 5, "Zm9vYmE=");
	assert_writes(BASE64, "foobar", 6, "Zm9vYmFy");
	assert_writes(BASE64, "\xff\xfe\x00", 3, "//4A");
	/* a line break after every 76 characters (57 bytes), none at the end */
	char in[114];
	memset(in, 0, sizeof(in));
	char *got = render(BASE64, in, sizeof(in));
	assert_int_equal(strlen(got), 76 + 1 + 76);
	assert_int_equal(got[76], '\n');
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_html_markup_escaped),
	    cmocka_unit_test(test_html_utf8_and_controls),
	    cmocka_unit_test(test_script_json),
	    cmocka_unit_test(test_base64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
