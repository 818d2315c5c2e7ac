/* Benchmark (built and run by tools/bench.d/metrics.sh): how long capture --metrics' search for the busiest flows takes over N flows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "common/clock.h"
#include "dissect/opcodes.h"

/* Usage: topflows N K — N flows of one RoCE packet each (lengths spread), then the best of five searches for the K busiest. */
int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000000,
	         k = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 20;
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	struct rt_an_flow_figures *top = calloc(k ? k : 1, sizeof(*top));
	if (!an || !top) {
		fprintf(stderr, "topflows: out of memory\n");
		return 1;
	}
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.kind = RT_KIND_ROCE;
	r.layers = RT_L_ETH | RT_L_IPV4 | RT_L_UDP | RT_L_BTH;
	r.ip_version = 4;
	r.ecn = 2;
	r.opcode = RT_OPCODE_RC_SEND_ONLY;
	r.src_ip[0] = r.dst_ip[0] = 10;
	r.dst_ip[3] = 1;
	for (unsigned i = 0; i < n; i++) { /* flow i: 10.x.y.z > 10.0.0.1, QP i */
		r.ts_ns = 1000000000ull + i;
		r.src_ip[1] = (uint8_t)(i >> 16);
		r.src_ip[2] = (uint8_t)(i >> 8);
		r.src_ip[3] = (uint8_t)i;
		r.dest_qp = i & 0xffffff;
		r.caplen = r.wirelen = 100 + i % 977;
		rt_analyzer_feed(an, &r);
	}
	double best = 0;
	for (int run = 0; run < 5; run++) {
		uint64_t t0 = rt_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		rt_analyzer_top_flows(an, top, k);
		double t = (double)(rt_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t0) / 1e9;
		if (run == 0 || t < best)
			best = t;
	}
	printf("%.3f\n", best * 1e3);
	free(top);
	rt_analyzer_free(an);
	return 0;
}
