/* doctor --prolog: a short run (counters sampled briefly, the tools on a budget) and its verdict as
 * nothing or one line, for a scheduler's prolog or health check. */
#include "doctor/prolog.h"

#include <string.h>
#include <time.h>

void rt_doctor_prolog_config(struct rt_doctor_config *cfg, bool interval_given)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (!interval_given)
		cfg->interval_ns = RT_DOC_PROLOG_INTERVAL_NS;
	uint64_t left = cfg->interval_ns < RT_DOC_PROLOG_BUDGET_NS
	                    ? RT_DOC_PROLOG_BUDGET_NS - cfg->interval_ns
	                    : 1;
	cfg->tools_deadline_ns = now + left;
}

bool rt_doctor_print_prolog(const struct rt_doc_report *r, FILE *fp)
{
	bool rdma = false, ready = true;
	for (unsigned i = 0; i < r->ntargets; i++)
		rdma = rdma || r->targets[i].dev[0];
	if (!rdma) {
		fprintf(fp, "rocetrace doctor: not ready: no RDMA port\n");
		return false;
	}
	for (unsigned i = 0; i < r->ntargets; i++) {
		const struct rt_doc_target *t = &r->targets[i];
		unsigned failed = 0;
		for (unsigned k = 0; k < t->nchecks; k++) {
			if (t->checks[k].status != RT_DOC_FAIL)
				continue;
			if (ready)
				fprintf(fp, "rocetrace doctor: not ready:");
			if (!failed && t->dev[0])
				fprintf(fp, "%s %s:%u", ready ? "" : ";", t->dev, t->port);
			else if (!failed)
				fprintf(fp, "%s %s", ready ? "" : ";", t->netdev);
			fprintf(fp, "%s %s", failed ? "," : "", t->checks[k].name);
			ready = false;
			failed++;
		}
	}
	if (!ready)
		fputc('\n', fp);
	return ready;
}
