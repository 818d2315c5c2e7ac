/* Unit tests of the udp backend's escaping of peer text for the operator's terminal and log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "traffic/internal.h"

static const char *esc(char *dst, size_t cap, const char *src, size_t len)
{
	return rt_gen_escape(dst, cap, src, len);
}

static void test_escapes(void **state)
{
	(void)state;
	char out[128];
	assert_string_equal(esc(out, sizeof(out), "HELLO 1 write", 13), "HELLO 1 write");
	assert_string_equal(esc(out, sizeof(out), "\x1b[31mred\x1b]0;t\x07", 14),
	                    "\\x1b[31mred\\x1b]0;t\\x07");
	assert_string_equal(esc(out, sizeof(out), "a\"b\\c", 5), "a\\\"b\\\\c");
	assert_string_equal(esc(out, sizeof(out), "\t\r\n", 3), "\\t\\r\\n");
	/* DEL, a C1 CSI, invalid UTF-8, a NUL inside the text: the length counts, not the NUL */
	assert_string_equal(esc(out, sizeof(out), "\x7f\x9b\xff\0x", 5), "\\x7f\\x9b\\xff\\x00x");
	assert_string_equal(esc(out, sizeof(out), "", 0), "");
}

static void test_cut(void **state)
{
	(void)state;
	char out[10];
	/* nine characters fit a 10-byte buffer as they are */
	assert_string_equal(esc(out, sizeof(out), "abcdefghi", 9), "abcdefghi");
	/* ten do not: six and "..." */
	assert_string_equal(esc(out, sizeof(out), "abcdefghij", 10), "abcdef...");
	/* an escape is never cut in half */
	assert_string_equal(esc(out, sizeof(out), "abcde\x1b", 6), "abcde\\x1b");
	assert_string_equal(esc(out, sizeof(out), "abcd\x1bz", 6), "abcd\\x1bz");
	assert_string_equal(esc(out, sizeof(out), "abcde\x1bz", 7), "abcde...");
	char tiny[5];
	assert_string_equal(esc(tiny, sizeof(tiny), "\x1b\x1b", 2), "...");
	assert_string_equal(esc(tiny, sizeof(tiny), "ab", 2), "ab");
}

/* Every byte value, alone and in a long run: printable ASCII out, within the buffer. */
static void test_all_bytes(void **state)
{
	(void)state;
	char in[600], out[65];
	for (int b = 0; b < 256; b++) {
		memset(in, b, sizeof(in));
		for (size_t len = 1; len <= sizeof(in); len += 599) {
			esc(out, sizeof(out), in, len);
			size_t n = strlen(out);
			assert_true(n < sizeof(out));
			for (size_t i = 0; i < n; i++)
				assert_true(out[i] >= 0x20 && out[i] < 0x7f);
			if (len > 1)
				assert_memory_equal(out + n - 3, "...", 3);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escapes),
	    cmocka_unit_test(test_cut),
	    cmocka_unit_test(test_all_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
