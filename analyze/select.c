/* The flows the report lists and the timeline writes rows of: --flow, --conversation, --kind. */
#include "analyze/select.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/flow.h"
#include "common/errbuf.h"
#include "common/textfmt.h"
#include "dissect/pktkind.h"

/* The options as given, for messages: "--flow 'A' --conversation 'B' --kind nak,cnp". */
static void describe(struct an_select *s, const struct rt_analyzer_opts *o)
{
	char *t = s->text;
	t[0] = '\0';
	if (o->flow)
		rt_text_appendf(t, sizeof(s->text), "--flow '%s'", o->flow);
	if (o->conversation)
		rt_text_appendf(t, sizeof(s->text), "%s--conversation '%s'", t[0] ? " " : "",
		                o->conversation);
	for (unsigned k = 0, first = 1; k < RT_PK_COUNT; k++)
		if (o->kinds & (1u << k)) {
			rt_text_appendf(t, sizeof(s->text), "%s%s",
			                first ? (t[0] ? " --kind " : "--kind ") : ",",
			                rt_pkt_kind_name((enum rt_pkt_kind)k));
			first = 0;
		}
}

int an_select_init(struct an_select *s, const struct rt_analyzer_opts *o, char *errbuf)
{
	memset(s, 0, sizeof(*s));
	const char *bad = rt_flowsel_set_parse(&s->flow, o->flow) < 0 ? o->flow
	                  : rt_flowsel_set_parse(&s->conversation, o->conversation) < 0
	                      ? o->conversation
	                      : NULL;
	if (bad)
		return rt_errmsg(errbuf, EINVAL,
		                 "bad flow selector '%s' (want " RT_FLOWSEL_FORMS ")", bad);
	s->kinds = o->kinds;
	s->ids = o->selected_ids;
	s->nids = o->nselected_ids;
	s->given = o->flow || o->conversation || o->kinds || o->selected_ids;
	describe(s, o);
	return 0;
}

void an_select_flow(const struct an_select *s, struct an_flow *f)
{
	const struct rt_an_flow_key *k = &f->key;
	if (s->ids) {
		if (rt_flow_ids_has(s->ids, s->nids, f->id))
			f->flags |= AN_FLOW_SELECTED;
		return;
	}
	if (!s->flow.n && !s->conversation.n) {
		f->flags |= AN_FLOW_SELECTED;
		return;
	}
	if (rt_flowsel_set_match(&s->flow, f->id, k->ipver, k->src, k->dst, k->dest_qp))
		f->flags |= AN_FLOW_SELECTED;
	if (rt_flowsel_set_match(&s->conversation, f->id, k->ipver, k->src, k->dst, k->dest_qp))
		f->flags |= AN_FLOW_SELECTED | AN_FLOW_CONVERSATION;
}

void an_select_finish(const struct an_select *s, struct an_flowtab *ft)
{
	if (s->ids)
		return;
	for (uint32_t i = 0; i < ft->n; i++) {
		const struct an_flow *f = &ft->flows[i];
		if ((f->flags & AN_FLOW_CONVERSATION) && f->reverse != AN_NONE)
			ft->flows[f->reverse].flags |= AN_FLOW_SELECTED;
	}
	if (!s->kinds)
		return;
	for (uint32_t i = 0; i < ft->n; i++)
		if (!(ft->flows[i].flags & AN_FLOW_KIND))
			ft->flows[i].flags &= (uint16_t)~AN_FLOW_SELECTED;
}
