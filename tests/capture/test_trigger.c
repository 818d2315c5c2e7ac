/* Unit tests of the flight recorder's trigger grammar: good expressions, bad ones and where they go wrong. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "capture/trigger.h"
#include "common/errbuf.h"

struct good {
	const char *expr;
	enum rt_trigger_kind kind;
	int pclass;
	double threshold;
	const char *text, *code;
};

static void test_good(void **state)
{
	(void)state;
	static const struct good cases[] = {
	    {"cnp", RT_TRIG_CNP, RT_TRIGGER_ANY_CLASS, 0, "cnp", "cnp"},
	    {"  cnp  ", RT_TRIG_CNP, RT_TRIGGER_ANY_CLASS, 0, "cnp", "cnp"},
	    {"cnp_rate>1000/s", RT_TRIG_CNP_RATE, RT_TRIGGER_ANY_CLASS, 1000, "cnp_rate>1000/s",
	     "cnp_rate"},
	    {"cnp_rate > 2.5 /s", RT_TRIG_CNP_RATE, RT_TRIGGER_ANY_CLASS, 2.5, "cnp_rate>2.5/s",
	     "cnp_rate"},
	    {"ce_share>5%", RT_TRIG_CE_SHARE, RT_TRIGGER_ANY_CLASS, 5, "ce_share>5%", "ce_share"},
	    {"ce_share>0%", RT_TRIG_CE_SHARE, RT_TRIGGER_ANY_CLASS, 0, "ce_share>0%", "ce_share"},
	    {"ce_share>99.5%", RT_TRIG_CE_SHARE, RT_TRIGGER_ANY_CLASS, 99.5, "ce_share>99.5%",
	     "ce_share"},
	    {"pfc_paused>20%", RT_TRIG_PFC_PAUSED, RT_TRIGGER_ANY_CLASS, 20, "pfc_paused>20%",
	     "pfc_paused"},
	    {"pfc_paused:3>50%", RT_TRIG_PFC_PAUSED, 3, 50, "pfc_paused:3>50%", "pfc_paused-3"},
	    {"pfc_paused:pause>1%", RT_TRIG_PFC_PAUSED, 8, 1, "pfc_paused:pause>1%",
	     "pfc_paused-pause"},
	    {"pfc_storm", RT_TRIG_PFC_STORM, RT_TRIGGER_ANY_CLASS, 0, "pfc_storm", "pfc_storm"},
	    {"pfc_storm:7", RT_TRIG_PFC_STORM, 7, 0, "pfc_storm:7", "pfc_storm-7"},
	    {"nak", RT_TRIG_NAK, RT_TRIGGER_ANY_CLASS, 0, "nak", "nak"},
	    {"rnr", RT_TRIG_RNR, RT_TRIGGER_ANY_CLASS, 0, "rnr", "rnr"},
	    {"timeout", RT_TRIG_TIMEOUT, RT_TRIGGER_ANY_CLASS, 0, "timeout", "timeout"},
	    {"drop", RT_TRIG_DROP, RT_TRIGGER_ANY_CLASS, 0, "drop", "drop"},
	    {"cnp_rate.gt.1000/s", RT_TRIG_CNP_RATE, RT_TRIGGER_ANY_CLASS, 1000, "cnp_rate>1000/s",
	     "cnp_rate"},
	    {"pfc_paused:2.gt.12.5pct", RT_TRIG_PFC_PAUSED, 2, 12.5, "pfc_paused:2>12.5%",
	     "pfc_paused-2"},
	    {"finding:np_silent", RT_TRIG_FINDING, RT_TRIGGER_ANY_CLASS, 0, "finding:np_silent",
	     "finding-np_silent"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rt_trigger t;
		char errbuf[RT_ERRBUF_SIZE] = "";
		size_t at = 99;
		int rc = rt_trigger_parse(cases[i].expr, &t, &at, errbuf);
		if (rc)
			fail_msg("%s: %s", cases[i].expr, errbuf);
		assert_int_equal(t.kind, cases[i].kind);
		assert_int_equal(t.pclass, cases[i].pclass);
		assert_true(t.threshold == cases[i].threshold);
		assert_string_equal(t.text, cases[i].text);
		assert_string_equal(t.code, cases[i].code);
		assert_int_equal(at, 99); /* untouched */
		/* the word form reads back as the same trigger */
		struct rt_trigger w;
		assert_int_equal(rt_trigger_parse(t.word, &w, &at, errbuf), 0);
		assert_string_equal(w.text, t.text);
		assert_null(strpbrk(t.word, "<>%!&|;' "));
	}
	struct rt_trigger t;
	size_t at;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_trigger_parse("finding:np_silent", &t, &at, errbuf), 0);
	assert_string_equal(t.finding, "np_silent");
}

struct bad {
	const char *expr;
	size_t at;        /* 0-based */
	const char *what; /* a part of the message */
};

static void test_bad(void **state)
{
	(void)state;
	static const struct bad cases[] = {
	    {"", 0, "empty expression"},
	    {"   ", 3, "empty expression"},
	    {"cpn", 0, "unknown trigger"},
	    {">5", 0, "expected a trigger name"},
	    {"cnp_rate", 8, "expected '>N/s'"},
	    {"cnp_rate>", 9, "expected a number"},
	    {"cnp_rate>x/s", 9, "expected a number"},
	    {"cnp_rate>5", 10, "expected '/s'"},
	    {"cnp_rate>5/m", 10, "expected '/s'"},
	    {"cnp_rate<5/s", 8, "expected '>N/s'"},
	    {"ce_share>5", 10, "expected '%'"},
	    {"ce_share>100%", 9, "below 100%"},
	    {"ce_share>250%", 9, "below 100%"},
	    {"ce_share", 8, "expected '>P%'"},
	    {"pfc_paused:8>5%", 11, "priority 0 to 7"},
	    {"pfc_paused:>5%", 11, "priority 0 to 7"},
	    {"pfc_paused:3", 12, "expected '>P%'"},
	    {"pfc_storm:9", 10, "priority 0 to 7"},
	    {"pfc_storm>5%", 9, "takes no threshold"},
	    {"cnp:3", 3, "takes no ':'"},
	    {"cnp>5", 3, "takes no threshold"},
	    {"cnp nak", 4, "one trigger per --trigger"},
	    {"cnp,nak", 3, "one trigger per --trigger"},
	    {"finding", 7, "expected ':CODE'"},
	    {"finding:", 8, "expected a finding code"},
	    {"finding:np-silent", 10, "unexpected text"},
	    {"finding:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 8, "too long"},
	    {"cnp_rate>99999999999999999/s", 9, "too large"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rt_trigger t;
		char errbuf[RT_ERRBUF_SIZE] = "";
		size_t at = 999;
		int rc = rt_trigger_parse(cases[i].expr, &t, &at, errbuf);
		if (rc != -EINVAL)
			fail_msg("'%s' was taken", cases[i].expr);
		if (at != cases[i].at || !strstr(errbuf, cases[i].what))
			fail_msg("'%s': at %zu '%s', expected at %zu '%s'", cases[i].expr, at,
			         errbuf, cases[i].at, cases[i].what);
	}
}

static void test_error_line(void **state)
{
	(void)state;
	char buf[300];
	rt_trigger_error_line("cnp_rate>5", 10, "expected '/s' after the rate", buf, sizeof(buf));
	assert_string_equal(buf, "--trigger 'cnp_rate>5': at character 11 (the end): expected "
	                         "'/s' after the rate");
	rt_trigger_error_line("ce_share>150%", 9, "a share is below 100%", buf, sizeof(buf));
	assert_string_equal(
	    buf, "--trigger 'ce_share>150%': at character 10 ('150%'): a share is below 100%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_error_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
