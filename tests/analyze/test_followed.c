/* Unit tests of the point a flow is followed at with two vantage points whose clocks disagree, either sign. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer.h"

#define N     100      /* packets the sender sends, one a microsecond */
#define DELAY (5 * US) /* from point 0 to point 1 */

/* An RC SEND only from 10.0.0.1 to 10.0.0.2's QP 0x11, PSN psn, seen at `point` (its MACs). */
static struct rt_record send_at(unsigned point, uint32_t psn, uint64_t ts)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.caplen = r.wirelen = 1000;
	r.kind = RT_KIND_ROCE;
	r.layers = RT_L_ETH | RT_L_IPV4 | RT_L_UDP | RT_L_BTH;
	r.ip_version = 4;
	r.ttl = (uint8_t)(64 - point);
	r.interface_id = point;
	r.point = (uint16_t)point;
	r.src_mac[5] = (uint8_t)(1 + 2 * point);
	r.dst_mac[5] = (uint8_t)(2 + 2 * point);
	r.src_ip[0] = r.dst_ip[0] = 10;
	r.src_ip[3] = 1;
	r.dst_ip[3] = 2;
	r.ecn = 2;
	r.udp_sport = 49152;
	r.opcode = 0x04;
	r.dest_qp = 0x11;
	r.psn = psn;
	r.payload_len = 944;
	return r;
}

static int by_time(const void *a, const void *b)
{
	const struct rt_record *x = a, *y = b;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/*
 * The flow at two points, point 1's clock `offset` ns off (either sign), the
 * packets of PSN in `lost` (or from `lost_from` on) never reaching point 1, in
 * the stream's time order; its results view.
 */
static const struct rt_res_flow *two_points(struct rt_analyzer *an, int64_t offset, uint32_t lost,
                                            uint32_t lost_from)
{
	struct rt_record *v = calloc(2 * N, sizeof(*v));
	assert_non_null(v);
	unsigned n = 0;
	for (uint32_t psn = 0; psn < N; psn++) {
		uint64_t t = T0 + 30 * MS + psn * US;
		v[n++] = send_at(0, psn, t);
		if (psn != lost && psn < lost_from)
			v[n++] = send_at(1, psn, (uint64_t)((int64_t)(t + DELAY) + offset));
	}
	qsort(v, n, sizeof(*v), by_time);
	for (unsigned i = 0; i < n; i++)
		rt_analyzer_feed(an, &v[i]);
	free(v);
	char errbuf[RT_ERRBUF_SIZE];
	static const struct rt_an_vantage points[2] = {{.name = "t1"}, {.name = "t2"}};
	assert_int_equal(rt_analyzer_finish(an, errbuf), 0);
	assert_int_equal(rt_analyzer_vantage_points(an, points, 2, errbuf), 0);
	const struct rt_results *r = rt_analyzer_results(an);
	assert_non_null(r);
	assert_int_equal(r->nflows, 1);
	return &r->flows[0];
}

static struct rt_analyzer *two_clocks(void)
{
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.vantage = o.vantage_clocks = true; /* two files: two clocks (--vantage-window 10 ms) */
	return new_an_opts(&o);
}

/*
 * Clocks 20 ms apart, either sign (beyond the window: nothing matches): the
 * copies at the other point, counted once, are no resends or timeouts, and
 * the packet lost between the points is no resend either where the point
 * that missed it is home: the flow is followed at one point.
 */
static void test_clocks_apart(void **state)
{
	(void)state;
	static const int64_t offsets[] = {20 * (int64_t)MS, -20 * (int64_t)MS};
	for (unsigned k = 0; k < 2; k++) {
		struct rt_analyzer *an = two_clocks();
		const struct rt_res_flow *f = two_points(an, offsets[k], 50, N);
		assert_int_equal(f->packets, N);
		const struct rt_res_transport *x = f->xport;
		assert_non_null(x);
		assert_int_equal(x->retransmitted, 0);
		assert_int_equal(x->timeouts, 0);
		/* t1 first (t2's clock ahead): no gap there; t2 first: its one gap, PSN 50 */
		assert_string_equal(f->followed_at, offsets[k] > 0 ? "t1" : "t2");
		assert_int_equal(x->gap_psns, offsets[k] > 0 ? 0 : 1);
		rt_analyzer_free(an);
	}
}

/*
 * Clocks 3 ms apart, point 1 behind (its frames come first) and missing the
 * last 10 packets (seen at point 0 only, counted there, 3 ms later in the
 * stream): the flow is followed at point 1, and its first and last frame,
 * so its rate, come from point 1's clock only.
 */
static void test_span_one_clock(void **state)
{
	(void)state;
	struct rt_analyzer *an = two_clocks();
	const struct rt_res_flow *f = two_points(an, -3 * (int64_t)MS, N, N - 10);
	assert_string_equal(f->followed_at, "t2");
	assert_int_equal(f->packets, N);
	assert_int_equal(f->first_ns, T0 + 30 * MS + DELAY - 3 * MS);
	assert_int_equal(f->last_ns - f->first_ns, (N - 11) * US);
	assert_true(fabs(f->gbps - 8.0 * N * 1000 / (double)((N - 11) * US)) < 1e-9);
	rt_analyzer_free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clocks_apart),
	    cmocka_unit_test(test_span_one_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
