/* The JSON report's "findings": each finding's code, severity, summary, subjects, evidence, fix and confidence. */
#include <math.h>

#include "analyze/results.h"
#include "common/json.h"
#include "render/report_json.h"
#include "render/report_json_values.h"

static void names(struct rt_json *j, const char *key, const struct rt_finding_names *n)
{
	if (!n->n)
		return;
	rt_json_key(j, key);
	rt_json_arr(j);
	for (unsigned i = 0; i < n->n; i++) {
		rt_json_next(j);
		rt_json_str(j, n->v[i]);
	}
	rt_json_arr_end(j);
}

/* {"hosts": [...], "macs": [...], "flows": [...], "priorities": [...]}: those that apply. */
static void subjects(struct rt_json *j, const struct rt_finding *f)
{
	rt_json_obj(j);
	names(j, "hosts", &f->hosts);
	names(j, "macs", &f->macs);
	names(j, "flows", &f->flows);
	if (f->npriorities) {
		char nb[2];
		RT_JSON_KEY(j, "priorities");
		rt_json_arr(j);
		for (unsigned i = 0; i < f->npriorities; i++) {
			rt_json_next(j);
			if (f->priorities[i] == RT_AN_PAUSE_CLASS)
				rt_json_name(j, rt_res_class_name(f->priorities[i], nb));
			else
				rt_json_u64(j, f->priorities[i]);
		}
		rt_json_arr_end(j);
	}
	rt_json_obj_end(j);
}

static void evidence(struct rt_json *j, const struct rt_finding *f)
{
	rt_json_obj(j);
	for (unsigned i = 0; i < f->nevidence; i++) {
		const struct rt_evidence *e = &f->evidence[i];
		rt_json_key(j, e->name);
		switch (e->kind) {
		case RT_EV_U64:
			rt_json_u64(j, e->u);
			break;
		case RT_EV_REAL:
			an_json_num_or_null(j, e->d, 3, true);
			break;
		case RT_EV_TEXT:
			rt_json_str(j, e->text);
			break;
		case RT_EV_BOOL:
			rt_json_bool(j, e->u != 0);
			break;
		case RT_EV_NULL:
			rt_json_null(j);
			break;
		}
	}
	rt_json_obj_end(j);
}

void an_report_json_findings(const struct rt_results *r, struct rt_json *j)
{
	RT_JSON_KEY(j, "findings");
	rt_json_arr(j);
	for (unsigned i = 0; i < r->nfindings; i++) {
		const struct rt_finding *f = &r->findings[i];
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_KEY(j, "code");
		rt_json_name(j, f->code);
		RT_JSON_KEY(j, "severity");
		rt_json_name(j, rt_severity_name(f->severity));
		RT_JSON_STR(j, "summary", f->summary);
		RT_JSON_KEY(j, "subjects");
		subjects(j, f);
		RT_JSON_KEY(j, "evidence");
		evidence(j, f);
		RT_JSON_STR(j, "fix", f->fix);
		RT_JSON_KEY(j, "confidence");
		rt_json_str_or_null(j, f->confidence);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
}
