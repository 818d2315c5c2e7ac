/* Unit tests of the traffic source's PFC listener: which frames pause its priority, and for how
 * long. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "traffic/pfc.h"
#include "dissect/build.h"

static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 1};

static void test_parse(void **state)
{
	(void)state;
	uint8_t frame[RT_MACC_FRAME_LEN + 4];
	uint16_t q8[8] = {0, 0, 0, 0xffff, 0, 0, 0, 0}, q = 1;

	rt_build_pfc(frame, sizeof(frame), mac, 1u << 3, q8);
	assert_true(rt_pfc_parse(frame, RT_MACC_FRAME_LEN, 3, &q));
	assert_int_equal(q, 0xffff);
	assert_false(rt_pfc_parse(frame, RT_MACC_FRAME_LEN, 4, &q)); /* another priority */
	assert_false(rt_pfc_parse(frame, RT_MACC_FRAME_LEN, 9, &q)); /* no such priority */
	assert_false(rt_pfc_parse(frame, 20, 3, &q));                /* cut before the quanta */
	q8[3] = 0;
	rt_build_pfc(frame, sizeof(frame), mac, 1u << 3, q8);
	assert_true(rt_pfc_parse(frame, RT_MACC_FRAME_LEN, 3, &q));
	assert_int_equal(q, 0); /* XON */
	/* a class that is not enabled pauses nothing, whatever its time field says */
	q8[3] = 500;
	rt_build_pfc(frame, sizeof(frame), mac, 1u << 2, q8);
	assert_false(rt_pfc_parse(frame, RT_MACC_FRAME_LEN, 3, &q));
	/* 802.3x PAUSE is not PFC */
	rt_build_pause(frame, sizeof(frame), mac, 0xffff);
	assert_false(rt_pfc_parse(frame, RT_MACC_FRAME_LEN, 3, &q));
	/* nor is an IP frame */
	memset(frame, 0, sizeof(frame));
	frame[12] = 0x08;
	assert_false(rt_pfc_parse(frame, RT_MACC_FRAME_LEN, 3, &q));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
