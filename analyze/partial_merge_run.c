/* Partial results of several vantage points merged into one view: the parts in order, then the incast, the findings and the verdict. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings.h"
#include "analyze/incast.h"
#include "analyze/internal.h"
#include "analyze/partial_merge.h"
#include "analyze/verdict.h"

/* The packets the flows' home points missed, said before the points' own warnings (analyze/README.md, Warnings). */
static int warn_home_missed(struct an_pm *m, char *errbuf)
{
	(void)errbuf;
	struct rt_results *r = &m->out->r;
	if (!r->packets_home_missed || r->nwarnings >= RT_AN_WARNINGS_MAX)
		return 0;
	struct rt_an_warning *w = &r->warnings[r->nwarnings++];
	memset(w, 0, sizeof(*w));
	w->code = "packets_home_missed";
	snprintf(w->message, sizeof(w->message),
	         "%llu packets of %u flows were seen at another vantage point and not at the "
	         "flow's home point (its capture missed them): counted apart, not in those flows' "
	         "packets and bytes",
	         (unsigned long long)r->packets_home_missed, r->flows_home_missed);
	w->nvalues = 2;
	w->values[0].name = "packets";
	w->values[0].value = r->packets_home_missed;
	w->values[1].name = "flows";
	w->values[1].value = r->flows_home_missed;
	return 0;
}

/* What the merged view concludes: the incast, the findings, the verdict. 0 or a negative errno. */
static int conclude(struct an_pm *m, char *errbuf)
{
	struct rt_results *r = &m->out->r;
	an_incast_view(r);
	struct rt_finding *f = an_res_alloc(m->out, RT_FINDINGS_MAX * sizeof(*f));
	int n = f ? an_findings_build(r, f, RT_FINDINGS_MAX) : -ENOMEM;
	if (n < 0)
		return rt_errorf(errbuf, -n, "the findings of the merged partial results");
	r->findings = f;
	r->nfindings = (unsigned)n;
	int rc = rt_verdict_build(r, &r->verdict);
	return rc < 0 ? rt_errorf(errbuf, -rc, "the verdict of the merged partial results") : 0;
}

int rt_partials_merge(struct rt_partial *const *p, unsigned n, uint64_t vantage_window_ns,
                      struct rt_partial **out, char *errbuf)
{
	static int (*const parts[])(struct an_pm * m, char *errbuf) = {
	    an_pm_flows, an_pm_totals, warn_home_missed, an_pm_paths,
	    an_pm_pfc,   an_pm_macs,   an_pm_episodes,   an_pm_capture};
	*out = NULL;
	struct an_pm m;
	int rc = an_pm_start(&m, p, n, errbuf);
	if (rc < 0)
		return rc;
	m.window_ns = vantage_window_ns ? vantage_window_ns : AN_PM_VANTAGE_WINDOW_NS;
	for (size_t i = 0; rc == 0 && i < sizeof(parts) / sizeof(parts[0]); i++)
		rc = parts[i](&m, errbuf);
	if (rc == 0)
		rc = conclude(&m, errbuf);
	an_pm_end(&m);
	struct rt_partial *o = rc == 0 ? calloc(1, sizeof(*o)) : NULL;
	if (!o) {
		an_results_free(m.out);
		return rc < 0 ? rc : rt_errorf(errbuf, ENOMEM, "merging partial results");
	}
	o->sample_k = p[0]->sample_k;
	o->sample_m = p[0]->sample_m;
	o->res = m.out;
	o->r = &m.out->r;
	*out = o;
	return 0;
}
