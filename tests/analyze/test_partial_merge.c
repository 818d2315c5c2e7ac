/* Unit tests of partial results: the packets an analyzer keeps for a partial (one thread or several), the view taken, and the flows and totals merged across points against one pass. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "analyze/partial.h"
#include "analyze/results_build.h"
#include "analyze/stage.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/pcap_frames.h"
#include "tests/analyze/records.h"

static const char *scenario_dir;

/* A partial of this test, freed (what rt_partial_free does, analyze/partial.c). */
static void partial_free(struct rt_partial *p)
{
	if (!p)
		return;
	free(p->point);
	for (unsigned i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
	free(p->packets);
	an_results_free(p->res);
	free(p);
}

/* Options of an analyzer that keeps a partial's packets, sampling k in m (0: the default). */
static struct rt_analyzer_opts partial_opts(uint32_t k, uint32_t m)
{
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.vantage = true;
	o.partial = true;
	o.vantage_sample_k = k;
	o.vantage_sample_m = m;
	return o;
}

/* The partial of a finished analyzer, named `point`; the analyzer freed. */
static struct rt_partial *take(struct rt_analyzer *an, const char *point)
{
	char errbuf[RT_ERRBUF_SIZE];
	static const char *const files[] = {"cap.pcapng"};
	struct rt_partial *p = NULL;
	assert_int_equal(rt_partial_take(an, point, files, 1, &p, errbuf), 0);
	assert_non_null(p);
	rt_analyzer_free(an);
	return p;
}

/* ---- collecting ---- */

/*
 * 200 packets of one flow, every 7th CE-marked, then a copy of packet 10
 * at the same point that is CE (a mark between two taps of one point):
 * every CE packet is kept, the sample is the one --vantage-sample keeps,
 * the copy is kept as CE; in time order with the flow's id; the view
 * outlives the analyzer.
 */
static void test_collect(void **state)
{
	(void)state;
	struct rt_analyzer_opts o = partial_opts(1, 4);
	struct rt_analyzer *an = new_an_opts(&o);
	/* a flow first, so that the one below has id 1 */
	struct rt_record first = roce(T0, 0x0a000003, 0x0a000004, RT_OPCODE_RC_SEND_ONLY, 9, 0);
	rt_analyzer_feed(an, &first);
	uint64_t ce = 0, sampled = an_vp_fp_sampled(1, 4, an_dup_fingerprint(&first));
	for (uint32_t i = 0; i < 200; i++) {
		struct rt_record r =
		    roce(T0 + (i + 1) * US, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 7, i);
		if (i % 7 == 0) {
			r.ecn = 3;
			ce++;
		}
		sampled += an_vp_fp_sampled(1, 4, an_dup_fingerprint(&r));
		rt_analyzer_feed(an, &r);
	}
	struct rt_record again =
	    roce(T0 + 11 * US + 500, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 7, 10);
	again.ecn = 3;
	rt_analyzer_feed(an, &again);
	assert_int_equal(finish(an), 0);
	uint32_t flow = flow_of(an, 0x0a000001, 0x0a000002, 7)->id;
	assert_int_equal(flow, 1);
	struct rt_partial *p = take(an, "h1");
	assert_string_equal(p->point, "h1");
	assert_int_equal(p->nfiles, 1);
	assert_string_equal(p->files[0], "cap.pcapng");
	assert_int_equal(p->sample_k, 1);
	assert_int_equal(p->sample_m, 4);
	assert_int_equal(p->r->nflows, 2);
	assert_int_equal(p->r->flows[1].ecn[3], ce + 1);
	uint64_t n_ce = 0, n_sampled = 0;
	for (uint64_t i = 0; i < p->npackets; i++) {
		const struct rt_partial_packet *k = &p->packets[i];
		assert_true(k->flags & (RT_PP_CE | RT_PP_SAMPLED));
		assert_int_equal(k->ipver, 4);
		assert_int_equal(k->ttl, 0);
		if (i)
			assert_true(p->packets[i - 1].ts_ns <= k->ts_ns);
		n_ce += (k->flags & RT_PP_CE) != 0;
		n_sampled += (k->flags & RT_PP_SAMPLED) != 0;
		assert_int_equal(!!(k->flags & RT_PP_CE), k->ecn == 3);
		if (k->flow == 1)
			assert_int_equal(k->dst[3], 2);
		else
			assert_int_equal(k->flow, 0);
	}
	/* the sample: the packets whose fingerprint hashes below 1 in 4 (about 50 of 201) */
	assert_int_equal(n_ce, ce + 1);
	assert_int_equal(n_sampled, sampled);
	assert_true(n_sampled > 25 && n_sampled < 80);
	partial_free(p);
}

/* Without o.partial nothing is kept, and there is no partial to take. */
static void test_collect_off(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 7, 0);
	r.ecn = 3;
	rt_analyzer_feed(an, &r);
	assert_int_equal(finish(an), 0);
	assert_int_equal(an->pk.n, 0);
	assert_null(an->pk.v);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_partial *p = NULL;
	assert_int_equal(rt_partial_take(an, "h", NULL, 0, &p, errbuf), -EINVAL);
	assert_null(p);
	rt_analyzer_free(an);
}

/* A scenario's frames through one analyzer, or a stage of `parts` threads: its partial. */
static struct rt_partial *partial_of(const struct frames *fr, unsigned parts)
{
	struct rt_analyzer_opts o = partial_opts(1, 3);
	struct rt_analyzer *an = new_an_opts(&o);
	rt_analyzer_one_point(an);
	feed_frames(an, fr, parts);
	return take(an, "h");
}

/* Every scenario: the packets kept with --threads 2 and 3 are those of one thread, flow ids and order alike. */
static void test_threads(void **state)
{
	(void)state;
	DIR *d = opendir(scenario_dir);
	assert_non_null(d);
	unsigned scenarios = 0;
	uint64_t kept = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".pcap"))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", scenario_dir, e->d_name);
		struct frames fr;
		read_frames(path, &fr);
		struct rt_partial *one = partial_of(&fr, 1);
		for (unsigned parts = 2; parts <= 3; parts++) {
			struct rt_partial *more = partial_of(&fr, parts);
			assert_int_equal(more->npackets, one->npackets);
			for (uint64_t i = 0; i < one->npackets; i++) {
				const struct rt_partial_packet *a = &one->packets[i],
				                               *b = &more->packets[i];
				assert_int_equal(a->fp, b->fp);
				assert_int_equal(a->ts_ns, b->ts_ns);
				assert_int_equal(a->flow, b->flow);
				assert_int_equal(a->flags, b->flags);
				assert_int_equal(a->ecn, b->ecn);
				assert_memory_equal(a->src, b->src, 16);
				assert_memory_equal(a->dst, b->dst, 16);
			}
			assert_int_equal(more->r->nflows, one->r->nflows);
			partial_free(more);
		}
		kept += one->npackets;
		partial_free(one);
		free(fr.f);
		free(fr.bytes);
		scenarios++;
	}
	closedir(d);
	assert_true(scenarios >= 10);
	assert_true(kept > 100);
}

int main(int argc, char **argv)
{
	if (!(scenario_dir = scenario_dir_arg(argc, argv)))
		return 2;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_collect),
	    cmocka_unit_test(test_collect_off),
	    cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
