/* Unit tests of the udp server's ACK/NAK/CNP decisions over hand-written packet sequences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "traffic/responder.h"

struct step {
	uint32_t psn;
	int ackreq, last, ce;
	uint64_t now;
	unsigned actions;
	uint32_t ack_psn, msn;
};

enum {
	A = RT_RESP_ACCEPT,
	D = RT_RESP_DUPLICATE,
	O = RT_RESP_OUT_OF_ORDER,
	K = RT_RESP_ACK,
	N = RT_RESP_NAK,
	C = RT_RESP_CNP,
};

static void run(uint32_t start, const struct step *steps, size_t n)
{
	struct rt_resp_state s;
	rt_resp_init(&s, start);
	for (size_t i = 0; i < n; i++) {
		struct rt_resp_in in = {.psn = steps[i].psn,
		                        .ackreq = steps[i].ackreq,
		                        .last = steps[i].last,
		                        .ce = steps[i].ce,
		                        .now_ns = steps[i].now};
		struct rt_resp_out out;
		rt_resp_input(&s, &in, 50000, &out);
		print_message("step %zu psn %u\n", i, steps[i].psn);
		assert_int_equal(out.actions, steps[i].actions);
		if (out.actions & (K | N))
			assert_int_equal(out.ack_psn, steps[i].ack_psn);
		assert_int_equal(out.msn, steps[i].msn);
	}
}

static void test_sequence(void **state)
{
	(void)state;
	static const struct step steps[] = {
	    {100, 0, 0, 0, 0, A, 0, 0},
	    {101, 1, 1, 1, 1000, A | K | C, 101, 1},   /* first CE: CNP at once */
	    {102, 0, 0, 1, 20000, A, 0, 1},            /* CE within 50 us: no CNP */
	    {104, 0, 0, 1, 51000, O | N | C, 103, 1},  /* gap: NAK expected PSN; 50 us passed */
	    {105, 1, 1, 0, 52000, O, 0, 1},            /* same gap: quiet */
	    {103, 1, 1, 0, 53000, A | K, 103, 2},      /* resync */
	    {102, 1, 1, 0, 54000, D | K, 103, 2},      /* duplicate: re-ACK last accepted */
	    {101, 0, 0, 1, 100999, D, 0, 2},           /* CE 49.999 us after the last CNP */
	    {106, 0, 0, 1, 101000, O | N | C, 104, 2}, /* a new gap NAKs again */
	    {104, 0, 0, 0, 102000, A, 0, 2},
	};
	run(100, steps, sizeof(steps) / sizeof(steps[0]));
}

static void test_psn_wrap(void **state)
{
	(void)state;
	static const struct step steps[] = {
	    {0xfffffe, 0, 0, 0, 0, A, 0, 0},      {0xffffff, 1, 1, 0, 10, A | K, 0xffffff, 1},
	    {0, 1, 1, 0, 20, A | K, 0, 2},        {2, 0, 0, 0, 30, O | N, 1, 2},
	    {0xffffff, 1, 1, 0, 40, D | K, 0, 2}, {1, 1, 1, 0, 50, A | K, 1, 3},
	};
	run(0xfffffe, steps, sizeof(steps) / sizeof(steps[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sequence),
	    cmocka_unit_test(test_psn_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
