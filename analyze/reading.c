/* The figures read while the analyzer runs: totals, live figures, intervals, the flows' ids and keys. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"

int rt_analyzer_selected_ids(const struct rt_analyzer *an, uint32_t **ids, uint32_t *n)
{
	*n = 0;
	if (!(*ids = malloc((an->ft.next_id ? an->ft.next_id : 1) * sizeof(**ids))))
		return -ENOMEM;
	for (uint32_t id = 0; id < an->ft.next_id; id++)
		if (an_flow_by_id(&an->ft, id)->flags & AN_FLOW_SELECTED)
			(*ids)[(*n)++] = id;
	return 0;
}

uint64_t rt_analyzer_flow_count(const struct rt_analyzer *an)
{
	return an->ft.next_id;
}

void rt_analyzer_bucket_columns(const struct rt_analyzer *an, bool *source_log, bool *counters)
{
	*source_log = an->bk.srclog;
	*counters = an->bk.counters;
}

const struct rt_an_flow_key *rt_analyzer_flow_key(const struct rt_analyzer *an, uint32_t id)
{
	if (id < an->ft.next_id)
		return &an_flow_by_id(&an->ft, id)->key;
	if (id >= atomic_load_explicit(&an->nstage_keys, memory_order_acquire))
		return NULL;
	return &an->stage_keys[id / AN_KEY_CHUNK][id % AN_KEY_CHUNK];
}

void rt_analyzer_totals(const struct rt_analyzer *an, struct rt_an_counts *out)
{
	*out = an->tot.c;
	memcpy(out->pfc_xoff, an->pfc.xoff, sizeof(out->pfc_xoff));
	memcpy(out->pfc_xon, an->pfc.xon, sizeof(out->pfc_xon));
	memcpy(out->pfc_paused_ns, an->pfc.paused_ns, sizeof(out->pfc_paused_ns));
}

void rt_analyzer_totals_idle(const struct rt_analyzer *an, uint64_t idle_ns,
                             struct rt_an_counts *out)
{
	rt_analyzer_totals(an, out);
	uint64_t at = an->now + idle_ns < an->now ? UINT64_MAX : an->now + idle_ns;
	an_pfc_paused_at(&an->pfc, at, out->pfc_paused_ns);
}

void rt_analyzer_live(const struct rt_analyzer *an, uint64_t idle_ns, struct rt_an_live *out)
{
	out->flows = an->ft.next_id;
	rt_analyzer_totals_idle(an, idle_ns, &out->t);
}

void rt_analyzer_interval(struct rt_analyzer *an, struct rt_an_counts *out, bool reset)
{
	struct rt_an_counts now;
	rt_analyzer_totals(an, &now);
	const uint64_t *a = (const uint64_t *)&now, *b = (const uint64_t *)&an->iv_start;
	uint64_t *o = (uint64_t *)out;
	_Static_assert(sizeof(struct rt_an_counts) % sizeof(uint64_t) == 0, "counters only");
	for (size_t i = 0; i < sizeof(now) / sizeof(uint64_t); i++)
		o[i] = a[i] - b[i];
	if (reset)
		an->iv_start = now;
}
