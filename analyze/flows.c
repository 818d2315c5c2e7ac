/* Flow table: open addressing by key (load at most 1/2, grows by doubling), ids in first-seen order, rare state. */
#include "analyze/flows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/reaction.h"

#define AN_INITIAL_FLOWS 1024u

int an_flows_init(struct an_flowtab *ft, uint32_t max_flows)
{
	memset(ft, 0, sizeof(*ft));
	ft->max = max_flows;
	ft->cap = AN_INITIAL_FLOWS;
	ft->flows = aligned_alloc(_Alignof(struct an_flow), ft->cap * sizeof(*ft->flows));
	ft->tab_mask = 2 * AN_INITIAL_FLOWS - 1;
	ft->tab = malloc((size_t)(ft->tab_mask + 1) * sizeof(*ft->tab));
	ft->order_cap = AN_INITIAL_FLOWS;
	ft->order = malloc(ft->order_cap * sizeof(*ft->order));
	if (!ft->flows || !ft->tab || !ft->order)
		return -ENOMEM;
	memset(ft->tab, 0xff, (size_t)(ft->tab_mask + 1) * sizeof(*ft->tab));
	return 0;
}

static void flow_free(struct an_flow *f)
{
	if (f->x) {
		free(f->x->rtt);
		free(f->x->gbn_delay);
		free(f->x->timeout_gap);
		free(f->x->rnr_wait);
		free(f->x->nak_codes);
		free(f->x->ar_frame);
		free(f->x);
	}
	an_np_free(f->np);
	an_rp_free(f->rp);
	free(f->src);
}

void an_flows_free(struct an_flowtab *ft)
{
	for (uint32_t i = 0; ft->flows && i < ft->n; i++)
		flow_free(&ft->flows[i]);
	free(ft->flows);
	free(ft->tab);
	free(ft->order);
	ft->flows = NULL;
	ft->tab = ft->order = NULL;
}

static int grow_table(struct an_flowtab *ft)
{
	uint32_t nmask = ft->tab_mask * 2 + 1;
	uint32_t *nt = malloc((size_t)(nmask + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	memset(nt, 0xff, (size_t)(nmask + 1) * sizeof(*nt));
	for (uint32_t fi = 0; fi < ft->n; fi++) {
		uint32_t i = ft->flows[fi].hash & nmask;
		while (nt[i] != AN_NONE)
			i = (i + 1) & nmask;
		nt[i] = fi;
	}
	free(ft->tab);
	ft->tab = nt;
	ft->tab_mask = nmask;
	return 0;
}

uint32_t an_flow_create(struct an_flowtab *ft, const struct rt_an_flow_key *key, uint32_t h)
{
	uint32_t i = h & ft->tab_mask;
	while (ft->tab[i] != AN_NONE)
		i = (i + 1) & ft->tab_mask;
	if (ft->n == AN_NONE - 1 || (ft->max && ft->n >= ft->max)) {
		ft->full = ft->max != 0;
		return AN_NONE;
	}
	if (ft->n == ft->cap) {
		uint32_t ncap = ft->cap * 2;
		struct an_flow *nf =
		    aligned_alloc(_Alignof(struct an_flow), (size_t)ncap * sizeof(*nf));
		if (!nf)
			return AN_NONE;
		memcpy(nf, ft->flows, (size_t)ft->cap * sizeof(*nf));
		free(ft->flows);
		ft->flows = nf;
		ft->cap = ncap;
	}
	/* keep the load factor at most 1/2 */
	if ((ft->n + 1) * 2 > ft->tab_mask + 1) {
		if (grow_table(ft) < 0)
			return AN_NONE;
		i = h & ft->tab_mask;
		while (ft->tab[i] != AN_NONE)
			i = (i + 1) & ft->tab_mask;
	}
	uint32_t fi = ft->n++;
	struct an_flow *f = &ft->flows[fi];
	memset(f, 0, sizeof(*f));
	f->key = *key;
	f->hash = h;
	f->id = AN_NONE;
	f->reverse = AN_NONE;
	f->peer_qp = AN_NONE;
	f->transport = AN_TRANSPORT_NONE;
	ft->tab[i] = fi;
	return fi;
}

void an_flow_assign_id(struct an_flowtab *ft, uint32_t fi)
{
	struct an_flow *f = &ft->flows[fi];
	if (f->id != AN_NONE)
		return;
	if (ft->next_id == ft->order_cap) {
		uint32_t *no = realloc(ft->order, (size_t)ft->order_cap * 2 * sizeof(*no));
		if (!no)
			return; /* stays without an id: counted, not listed */
		ft->order = no;
		ft->order_cap *= 2;
	}
	f->id = ft->next_id++;
	ft->order[f->id] = fi;
}

struct an_xport *an_xport(struct an_flow *f)
{
	if (!f->x)
		f->x = calloc(1, sizeof(*f->x));
	return f->x;
}

void an_flows_xport_sum(const struct an_flowtab *ft, struct an_xport_sum *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (uint32_t i = 0; i < ft->n; i++) {
		const struct an_xport *x = ft->flows[i].x;
		if (!x)
			continue;
		sum->gaps += x->gaps;
		sum->gap_psns += x->gap_psns;
		sum->go_back_n += x->go_back_n;
		sum->timeouts += x->timeouts;
		sum->psn_jumps += x->psn_jumps;
	}
}

const char *an_pairing_name(enum an_pair_how p)
{
	static const char *const names[] = {"none", "ack", "response", "deth", "cm", "cnp", "sole"};
	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "none";
}
