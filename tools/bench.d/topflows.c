/* Benchmark (built and run by tools/bench.d/metrics.sh): capture --metrics' search for the busiest flows, and its findings, over N flows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "analyze/analyze.h"
#include "common/clock.h"
#include "dissect/opcodes.h"

/*
 * Usage: topflows N K — N flows of one RoCE packet each (lengths spread), then the best of five
 * searches for the K busiest; with a third argument "findings", the best of five live findings
 * (rt_analyzer_live_findings: a view of every flow, judged and freed) instead, and the peak
 * memory it added (MB).
 */
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
	bool findings = argc > 3 && !strcmp(argv[3], "findings");
	struct rt_finding_tag tags[RT_FINDINGS_MAX];
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long before_kb = ru.ru_maxrss;
	double best = 0;
	for (int run = 0; run < 5; run++) {
		uint64_t t0 = rt_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		if (findings && rt_analyzer_live_findings(an, 0, tags, RT_FINDINGS_MAX) < 0) {
			fprintf(stderr, "topflows: out of memory\n");
			return 1;
		}
		if (!findings)
			rt_analyzer_top_flows(an, top, k);
		double t = (double)(rt_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t0) / 1e9;
		if (run == 0 || t < best)
			best = t;
	}
	getrusage(RUSAGE_SELF, &ru);
	if (findings)
		printf("%.3f ms, %.1f MB\n", best * 1e3, (double)(ru.ru_maxrss - before_kb) / 1024);
	else
		printf("%.3f\n", best * 1e3);
	free(top);
	rt_analyzer_free(an);
	return 0;
}
