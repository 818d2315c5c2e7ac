/* The flows the report lists and the timeline writes rows of: --flow, --conversation, --kind. */
#ifndef RT_ANALYZE_SELECT_H
#define RT_ANALYZE_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/flows.h"
#include "analyze/flowsel.h"
#include "analyze/types.h"

/*
 * A flow is selected when (no --flow or --conversation is given, or a --flow
 * selector picks it, or a --conversation selector picks it or its peer) and
 * (no --kind is given, or it carried a packet of one of the kinds). Which
 * flows a --conversation or --kind selects is known at the end (a peer
 * pairs late, a NAK comes late); a run that streams per flow (the timeline)
 * takes the ids an earlier run over the same capture found (selected_ids).
 */
struct an_select {
	struct rt_flowsel_set flow, conversation;
	unsigned kinds;      /* enum rt_pkt_kind bits, 0: any */
	const uint32_t *ids; /* selected_ids (ascending), or NULL */
	uint32_t nids;
	bool given;     /* some option narrows the flows */
	char text[512]; /* the options as given: "--flow 'A,B' --kind nak" */
};

/* The options into *s. 0, or -EINVAL (errbuf filled) for a bad selector. */
int an_select_init(struct an_select *s, const struct rt_analyzer_opts *o, char *errbuf);

/* Flow f just got its id: selected by --flow, seeds of --conversation (before the end). */
void an_select_flow(const struct an_select *s, struct an_flow *f);

/* The end: peers of --conversation flows selected, flows without a --kind packet dropped. */
void an_select_finish(const struct an_select *s, struct an_flowtab *ft);

#endif
