/* Incast: the receiver that two or more senders feed, named only with evidence of congestion there. */
#ifndef RT_ANALYZE_INCAST_H
#define RT_ANALYZE_INCAST_H

#include "analyze/results.h"

/*
 * The view's incast (rt_results.incast and the fields after it), from its
 * flows (r->flows, r->nflows), its pauses (r->pfc) and its link speed: the
 * hot receiver among those two or more senders feed, with evidence of
 * congestion (CE marks, pauses, losses, a full link): most CE marks, then
 * most senders, then most bytes; without, why none, and the fan-in it would
 * have been. The analyzer's view and a merge of partials both make it here.
 */
void an_incast_view(struct rt_results *r);

#endif
