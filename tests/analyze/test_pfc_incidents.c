/* Unit tests of the PFC pause incidents: who paused first and longest, the incident's end, live views, many senders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/records.h"

#define PAUSE_NS 335539ull /* 0xFFFF quanta at 100 Gb/s */

/* An XOFF of 0xFFFF quanta on class c (an XON when !xoff) from the MAC ending in `who` at ts. */
static void pause_frame(struct rt_analyzer *an, uint32_t who, unsigned c, bool xoff, uint64_t ts)
{
	uint16_t q[8] = {0};
	q[c] = xoff ? 0xffff : 0;
	struct rt_record r = pfc_rec(ts, (uint16_t)(1u << c), q);
	memcpy(r.src_mac + 2, &who, 4);
	rt_analyzer_feed(an, &r);
}

static void assert_mac(const uint8_t mac[6], uint32_t who)
{
	uint32_t got;
	memcpy(&got, mac + 2, 4);
	assert_int_equal(got, who);
}

/*
 * MAC 1 pauses class 3 without a break for ~20 ms (a storm at the 10 ms
 * default), MAC 2 once inside it, MAC 3 from 2 ms on: one incident, kept,
 * its MACs in the order they paused. MACs 1 and 3 are still paused at the
 * last frame and end in one pass, MAC 3 (listed later) earlier: the
 * incident ends with the later of them, MAC 1's.
 */
static void test_incident_kept(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(100000000000ull);
	for (uint64_t t = 0; t <= 19900 * US; t += 100 * US) {
		pause_frame(an, 1, 3, true, T0 + t);
		if (t == MS)
			pause_frame(an, 2, 3, true, T0 + t + 10 * US);
		if (t >= 2 * MS && t <= 19800 * US)
			pause_frame(an, 3, 3, true, T0 + t + 50 * US);
	}
	assert_true(an_pfc_paused_since(&an->pfc, T0 + 19 * MS));
	/* a later, short incident of class 3: no storm, not kept */
	pause_frame(an, 2, 3, true, T0 + 50 * MS);
	pause_frame(an, 2, 3, false, T0 + 50 * MS + 10 * US);
	finish(an);
	const struct an_pfc *p = &an->pfc;
	assert_int_equal(p->ninc, 1);
	const struct an_incident *in = &p->inc[0];
	assert_int_equal(in->cls, 3);
	assert_false(in->ongoing);
	assert_int_equal(in->start, T0);
	assert_int_equal(in->end, T0 + 19900 * US + PAUSE_NS);
	assert_int_equal(in->macs_total, 3);
	assert_int_equal(in->nmacs, 3);
	assert_mac(in->macs[0].mac, 1);
	assert_int_equal(in->macs[0].first, T0);
	assert_int_equal(in->macs[0].paused, 19900 * US + PAUSE_NS);
	assert_int_equal(in->macs[0].longest, 19900 * US + PAUSE_NS);
	assert_mac(in->macs[1].mac, 2);
	assert_int_equal(in->macs[1].first, T0 + MS + 10 * US);
	assert_int_equal(in->macs[1].paused, PAUSE_NS);
	assert_mac(in->macs[2].mac, 3);
	assert_int_equal(in->macs[2].first, T0 + 2050 * US);
	assert_int_equal(in->macs[2].longest, 17800 * US + PAUSE_NS);
	/* each sender's class: its first XOFF and longest pause */
	const struct an_pfc_class *c1 = &p->macs[0].cls[3], *c2 = &p->macs[1].cls[3];
	assert_int_equal(c1->first_xoff, T0);
	assert_int_equal(c1->longest_start, T0);
	assert_int_equal(c1->longest_ns, 19900 * US + PAUSE_NS);
	assert_int_equal(c2->first_xoff, T0 + MS + 10 * US);
	assert_int_equal(c2->longest_ns, PAUSE_NS);
	assert_false(an_pfc_paused_since(&an->pfc, T0 + 50 * MS + 10 * US));
	assert_true(an_pfc_paused_since(&an->pfc, T0 + 50 * MS));
	rt_analyzer_free(an);
}

/* A live view: the incident under way is a storm once one of its pauses has lasted the threshold by then. */
static void test_incident_ongoing(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(100000000000ull);
	for (uint64_t t = 0; t <= 15 * MS; t += 100 * US)
		pause_frame(an, 7, 5, true, T0 + t);
	pause_frame(an, 8, 5, true, T0 + 15 * MS);
	struct an_incident live[RT_AN_PFC_CLASSES];
	assert_int_equal(an_pfc_ongoing(&an->pfc, T0 + 5 * MS, live, RT_AN_PFC_CLASSES), 0);
	assert_int_equal(an_pfc_ongoing(&an->pfc, T0 + 15 * MS, live, RT_AN_PFC_CLASSES), 1);
	assert_true(live[0].ongoing);
	assert_int_equal(live[0].cls, 5);
	assert_int_equal(live[0].start, T0);
	assert_int_equal(live[0].end, T0 + 15 * MS);
	assert_int_equal(live[0].nmacs, 2);
	assert_mac(live[0].macs[0].mac, 7);
	assert_int_equal(live[0].macs[0].paused, 15 * MS);
	assert_mac(live[0].macs[1].mac, 8);
	assert_int_equal(live[0].macs[1].paused, 0);
	assert_int_equal(an->pfc.ninc, 0); /* none ended yet */
	rt_analyzer_free(an);
}

/*
 * 40 MACs pause class 1 one after another in one incident and MAC 31 holds
 * it 12 ms: the first 16 by their first XOFF are named, the last place
 * going to the one that paused longest; all 40 are counted.
 */
static void test_incident_names_first_and_longest(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(100000000000ull);
	for (uint32_t m = 1; m <= 40; m++)
		pause_frame(an, m, 1, true, T0 + m * 10 * US);
	for (uint64_t t = 400 * US; t <= 12 * MS; t += 100 * US)
		pause_frame(an, 31, 1, true, T0 + t);
	finish(an);
	assert_int_equal(an->pfc.ninc, 1);
	const struct an_incident *in = &an->pfc.inc[0];
	assert_int_equal(in->macs_total, 40);
	assert_int_equal(in->nmacs, AN_INC_MACS);
	for (uint32_t k = 0; k + 1 < AN_INC_MACS; k++)
		assert_mac(in->macs[k].mac, k + 1);
	assert_mac(in->macs[AN_INC_MACS - 1].mac, 31);
	assert_int_equal(in->macs[AN_INC_MACS - 1].longest, 12 * MS - 310 * US + PAUSE_NS);
	rt_analyzer_free(an);
}

/*
 * 4096 senders pausing class 2 in turn, all in one storm incident, 50 times
 * over: joining it and ending it cost no pass over the senders (a pass per
 * frame made this take minutes of CPU).
 */
static void test_incident_many_senders(void **state)
{
	(void)state;
	enum { SENDERS = 4096, ROUNDS = 50 };
	struct rt_analyzer *an = new_an(100000000000ull);
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	uint64_t ts = T0;
	for (uint32_t i = 0; i < SENDERS * ROUNDS; i++, ts += 50) /* each sender every 205 us */
		pause_frame(an, i % SENDERS, 2, true, ts);
	finish(an);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	double cpu = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (cpu > 20)
		fail_msg("%u PFC frames from %u senders took %.1f s of CPU", SENDERS * ROUNDS,
		         SENDERS, cpu);
	assert_int_equal(an->pfc.ninc, 1);
	assert_int_equal(an->pfc.inc[0].macs_total, SENDERS);
	assert_int_equal(an->pfc.inc[0].start, T0);
	assert_int_equal(an->pfc.inc[0].end, ts - 50 + PAUSE_NS);
	assert_mac(an->pfc.inc[0].macs[0].mac, 0);
	rt_analyzer_free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_incident_kept),
	    cmocka_unit_test(test_incident_ongoing),
	    cmocka_unit_test(test_incident_names_first_and_longest),
	    cmocka_unit_test(test_incident_many_senders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
