/* The text report's "Findings:" block: each finding, most severe first, with its subjects and fix. */
#include <stdio.h>

#include "analyze/results.h"
#include "common/outbuf.h"
#include "render/report_text.h"

/* The names a finding lists, on a line of their own ("    flows: a, b"). */
static void finding_names(struct rt_outbuf *o, const char *what, const struct rt_finding_names *n)
{
	if (!n->n)
		return;
	rt_out_printf(o, "      %s: ", what);
	for (unsigned i = 0; i < n->n; i++)
		rt_out_printf(o, "%s%s", i ? ", " : "", n->v[i]);
	rt_out_str(o, n->more ? ", ...\n" : "\n");
}

/* The "Findings:" block that opens the report: each finding, most severe first, with its fix. */
void an_text_findings(const struct rt_results *r, struct rt_outbuf *o)
{
	if (!r->nfindings) {
		rt_out_str(o, "Findings: none (docs/FINDINGS.md lists what is looked for)\n\n");
		return;
	}
	rt_out_printf(o, "Findings (%u, most severe first):\n", r->nfindings);
	for (unsigned i = 0; i < r->nfindings; i++) {
		const struct rt_finding *f = &r->findings[i];
		rt_out_printf(o, "  %-7s %s: %s\n", rt_severity_name(f->severity), f->code,
		              f->summary);
		finding_names(o, "hosts", &f->hosts);
		finding_names(o, "MACs", &f->macs);
		finding_names(o, "flows", &f->flows);
		rt_out_printf(o, "      fix: %s\n", f->fix);
	}
	rt_out_char(o, '\n');
}
