/* Unit tests of capture --trigger's live evaluation: drops, the findings hook, a rate that rises, falls and rises. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tools/capture_triggers.h"

#define T0 1700000000000000000ull
#define MS 1000000ull

static void parse(const char *expr, struct rt_trigger *t)
{
	size_t at;
	char errbuf[RT_ERRBUF_SIZE];
	if (rt_trigger_parse(expr, t, &at, errbuf) < 0)
		fail_msg("%s: %s", expr, errbuf);
}

/* drop fires when the capture's drops grow, not while they stay. */
static void test_drops(void **state)
{
	(void)state;
	struct rt_trigger t[2];
	struct rt_trigger_hit hit;
	parse("cnp", &t[0]);
	parse("drop", &t[1]);
	struct rt_triggers *tr = rt_triggers_new(t, 2, 100 * MS);
	assert_false(rt_triggers_drops(tr, 0, T0, &hit));
	assert_true(rt_triggers_drops(tr, 3, T0 + 1, &hit));
	assert_ptr_equal(hit.t, &t[1]);
	assert_int_equal(hit.ts_ns, T0 + 1);
	assert_string_equal(hit.figures, "the capture dropped 3 frames (3 so far)");
	assert_false(rt_triggers_drops(tr, 3, T0 + 2, &hit));
	assert_true(rt_triggers_drops(tr, 5, T0 + 3, &hit));
	rt_triggers_free(tr);
}

/* finding:CODE fires when the live analysis first reports CODE, again only after it went away. */
static void test_findings(void **state)
{
	(void)state;
	struct rt_trigger t;
	struct rt_trigger_hit hit;
	parse("finding:np_silent", &t);
	struct rt_triggers *tr = rt_triggers_new(&t, 1, 100 * MS);
	const char *none[] = {"pfc_storm"}, *both[] = {"pfc_storm", "np_silent"};
	assert_false(rt_triggers_findings(tr, none, 1, T0, &hit));
	assert_true(rt_triggers_findings(tr, both, 2, T0 + 5, &hit));
	assert_int_equal(hit.ts_ns, T0 + 5);
	assert_string_equal(hit.figures, "the analysis reports np_silent");
	assert_false(rt_triggers_findings(tr, both, 2, T0 + 6, &hit)); /* still reported */
	assert_false(rt_triggers_findings(tr, NULL, 0, T0 + 7, &hit)); /* gone */
	assert_true(rt_triggers_findings(tr, both, 2, T0 + 8, &hit));  /* back */
	rt_triggers_free(tr);
}

/* cnp_rate>5/s: fires at the 6th CNP of a second; not again until the rate fell back. */
static void test_rate_edges(void **state)
{
	(void)state;
	struct rt_trigger t;
	struct rt_trigger_hit hit;
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	parse("cnp_rate>5/s", &t);
	rt_analyzer_opts_init(&o);
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	struct rt_triggers *tr = rt_triggers_new(&t, 1, o.storm_ns);
	struct rt_record rec = {.kind = RT_KIND_CNP};
	struct rt_an_note note = {0};
	unsigned fired = 0, at[4];
	/* 10 CNPs 10 ms apart, 3 s of nothing, 10 more */
	for (unsigned k = 0; k < 20; k++) {
		rec.ts_ns = T0 + k * 10 * MS + (k >= 10 ? 3000 * MS : 0);
		if (rt_triggers_record(tr, &rec, &note, an, &hit)) {
			assert_true(fired < 4);
			at[fired++] = k;
		}
	}
	assert_int_equal(fired, 2);
	assert_int_equal(at[0], 5);
	assert_int_equal(at[1], 15);
	assert_string_equal(hit.figures, "6 CNPs in the last second");
	rt_triggers_free(tr);
	rt_analyzer_free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_drops),
	    cmocka_unit_test(test_findings),
	    cmocka_unit_test(test_rate_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
