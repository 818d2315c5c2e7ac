/* Unit tests of dissect/wire.h: every accessor at every boundary of a buffer, overflowing offsets, sticky flags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "dissect/wire.h"

#define BUFLEN 12

/* The buffer is heap-allocated with exactly `len` bytes so ASan sees any overread. */
static uint8_t *make_buf(uint32_t len)
{
	uint8_t *b = malloc(len ? len : 1);

	assert_non_null(b);
	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)(0x10 + i);
	return b;
}

/* Expected big-endian value of `n` bytes at `off` of make_buf()'s pattern. */
static uint64_t pattern_be(uint32_t off, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		v = v << 8 | (uint8_t)(0x10 + off + i);
	return v;
}

static void test_has(void **state)
{
	(void)state;
	assert_true(rt_wire_has(0, 0, 0));
	assert_false(rt_wire_has(0, 0, 1));
	assert_false(rt_wire_has(0, 1, 0));
	assert_true(rt_wire_has(10, 10, 0));
	assert_true(rt_wire_has(10, 6, 4));
	assert_false(rt_wire_has(10, 7, 4));
	assert_false(rt_wire_has(10, UINT32_MAX, 2));
	assert_false(rt_wire_has(10, 2, UINT32_MAX));
	assert_false(rt_wire_has(UINT32_MAX, UINT32_MAX - 1, 2));
	assert_true(rt_wire_has(UINT32_MAX, UINT32_MAX - 2, 2));
}

/* Every accessor at every offset of every buffer length 0..BUFLEN. */
static void test_every_boundary(void **state)
{
	(void)state;
	for (uint32_t len = 0; len <= BUFLEN; len++) {
		uint8_t *b = make_buf(len);

		for (uint32_t off = 0; off <= len + 9; off++) {
			bool ok;
			uint8_t dst[8] = {0};

			ok = true;
			uint8_t v8 = rt_get_u8(b, len, off, &ok);
			assert_int_equal(ok, off + 1 <= len);
			assert_int_equal(v8, ok ? pattern_be(off, 1) : 0);

			ok = true;
			uint16_t v16 = rt_get_be16(b, len, off, &ok);
			assert_int_equal(ok, off + 2 <= len);
			assert_int_equal(v16, ok ? pattern_be(off, 2) : 0);

			ok = true;
			uint32_t v24 = rt_get_be24(b, len, off, &ok);
			assert_int_equal(ok, off + 3 <= len);
			assert_int_equal(v24, ok ? pattern_be(off, 3) : 0);

			ok = true;
			uint32_t v32 = rt_get_be32(b, len, off, &ok);
			assert_int_equal(ok, off + 4 <= len);
			assert_int_equal(v32, ok ? pattern_be(off, 4) : 0);

			ok = true;
			uint32_t le = rt_get_le32(b, len, off, &ok);
			assert_int_equal(ok, off + 4 <= len);
			if (ok)
				assert_int_equal(le,
				                 __builtin_bswap32((uint32_t)pattern_be(off, 4)));
			else
				assert_int_equal(le, 0);

			ok = true;
			uint64_t v64 = rt_get_be64(b, len, off, &ok);
			assert_int_equal(ok, off + 8 <= len);
			assert_true(v64 == (ok ? pattern_be(off, 8) : 0));

			ok = true;
			rt_get_bytes(b, len, off, dst, 5, &ok);
			assert_int_equal(ok, off + 5 <= len);
			for (uint32_t i = 0; i < 5; i++)
				assert_int_equal(dst[i], ok ? pattern_be(off + i, 1) : 0);
		}
		free(b);
	}
}

/* Offsets near UINT32_MAX must not wrap around into the buffer. */
static void test_overflowing_offsets(void **state)
{
	uint8_t *b = make_buf(BUFLEN);
	static const uint32_t offs[] = {UINT32_MAX, UINT32_MAX - 1, UINT32_MAX - 3, UINT32_MAX - 7,
	                                0x80000000u};
	(void)state;

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		bool ok = true;
		uint8_t dst[4];

		assert_int_equal(rt_get_u8(b, BUFLEN, offs[i], &ok), 0);
		assert_false(ok);
		ok = true;
		assert_int_equal(rt_get_be16(b, BUFLEN, offs[i], &ok), 0);
		assert_false(ok);
		ok = true;
		assert_int_equal(rt_get_be24(b, BUFLEN, offs[i], &ok), 0);
		assert_false(ok);
		ok = true;
		assert_int_equal(rt_get_be32(b, BUFLEN, offs[i], &ok), 0);
		assert_false(ok);
		ok = true;
		assert_int_equal(rt_get_le32(b, BUFLEN, offs[i], &ok), 0);
		assert_false(ok);
		ok = true;
		assert_true(rt_get_be64(b, BUFLEN, offs[i], &ok) == 0);
		assert_false(ok);
		ok = true;
		rt_get_bytes(b, BUFLEN, offs[i], dst, 4, &ok);
		assert_false(ok);
	}
	free(b);
}

/* A failed read clears the flag; later good reads never set it again. */
static void test_sticky_flag(void **state)
{
	uint8_t *b = make_buf(4);
	bool ok = true;
	(void)state;

	assert_int_equal(rt_get_be16(b, 4, 0, &ok), 0x1011);
	assert_true(ok);
	assert_int_equal(rt_get_be32(b, 4, 1, &ok), 0);
	assert_false(ok);
	assert_int_equal(rt_get_be16(b, 4, 2, &ok), 0x1213);
	assert_false(ok);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_has),
	    cmocka_unit_test(test_every_boundary),
	    cmocka_unit_test(test_overflowing_offsets),
	    cmocka_unit_test(test_sticky_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
