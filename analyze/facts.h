/* Rare facts about a flow that the findings need: the priority its CNPs carried, its longest stall during a pause. */
#ifndef RT_ANALYZE_FACTS_H
#define RT_ANALYZE_FACTS_H

#include <stdbool.h>
#include <stdint.h>

/* One flow's facts (kept only for flows that carried a CNP or stalled while a pause ran). */
struct an_fact {
	uint32_t fi; /* the flow's index in the flow table */
	/* the CNPs it carried: DSCP and VLAN PCP of the latest, and whether they differed */
	bool cnp_seen, cnp_tagged, cnp_mixed;
	uint8_t cnp_dscp, cnp_pcp;
	/* its longest silence (no packet) that a PFC/PAUSE pause overlapped: from, how long */
	uint64_t stall_from, stall_ns;
};

struct an_facts {
	struct an_fact *e;
	uint32_t n, cap;
	uint32_t *tab; /* open addressing: index into e, or UINT32_MAX */
	uint32_t mask;
};

void an_facts_free(struct an_facts *s);
/* The facts of flow fi, added when absent; NULL when out of memory. */
struct an_fact *an_facts_get(struct an_facts *s, uint32_t fi);
/* The facts of flow fi, or NULL. */
const struct an_fact *an_facts_find(const struct an_facts *s, uint32_t fi);
/* A CNP the flow carried, with its DSCP and (tagged) PCP. */
void an_facts_cnp(struct an_facts *s, uint32_t fi, uint8_t dscp, bool tagged, uint8_t pcp);
/* The flow was silent from `from` for `ns` while a pause ran: kept when the longest. */
void an_facts_stall(struct an_facts *s, uint32_t fi, uint64_t from, uint64_t ns);

#endif
