/* Tallies about the capture itself, counted frame by frame for the warnings: time order, snap length, ECN, other ports. */
#include "analyze/tallies.h"

#include <string.h>

/*
 * A UDP datagram to another port: does it carry RoCEv2? The dissector says
 * so of each one (a valid BTH and ICRC, a CRC over the whole packet, is the
 * proof); the first AN_HINT_CHECKS datagrams of each port are taken as its
 * sample. Ports whose samples all failed give their place to new ones.
 */
void an_tally_port(struct an_tallies *fd, uint16_t port, bool rocev2)
{
	struct an_port_hint *h = NULL;
	for (unsigned i = 0; i < fd->nports && !h; i++)
		if (fd->ports[i].port == port)
			h = &fd->ports[i];
	if (!h) {
		if (fd->nports < AN_HINT_PORTS) {
			h = &fd->ports[fd->nports++];
		} else {
			for (unsigned i = 0; i < AN_HINT_PORTS && !h; i++)
				if (fd->ports[i].checked >= AN_HINT_CHECKS && !fd->ports[i].valid)
					h = &fd->ports[i];
			if (!h)
				return;
		}
		memset(h, 0, sizeof(*h));
		h->port = port;
	}
	h->datagrams++;
	if (h->checked >= AN_HINT_CHECKS)
		return;
	h->checked++;
	if (rocev2)
		h->valid++;
}

void an_tally_merge(struct an_tallies *dst, const struct an_tallies *src)
{
	dst->ts_back += src->ts_back;
	if (src->ts_back_max > dst->ts_back_max)
		dst->ts_back_max = src->ts_back_max;
	if (src->prev_ts > dst->prev_ts)
		dst->prev_ts = src->prev_ts;
	for (unsigned i = 0; i < AN_TALLY_POINTS; i++)
		if (src->prev_at[i] > dst->prev_at[i])
			dst->prev_at[i] = src->prev_at[i];
	dst->pfc_back += src->pfc_back;
	dst->ts_back_across += src->ts_back_across;
	dst->flow_back += src->flow_back;
	if (src->flow_back_max > dst->flow_back_max)
		dst->flow_back_max = src->flow_back_max;
	dst->flows_back += src->flows_back;
	dst->late_bucket += src->late_bucket;
	dst->cut += src->cut;
	dst->headers_cut += src->headers_cut;
	dst->wire_short += src->wire_short;
	dst->icrc_cut += src->icrc_cut;
	dst->data_ip += src->data_ip;
	dst->data_not_ect += src->data_not_ect;
	for (unsigned i = 0; i < src->nports; i++) {
		const struct an_port_hint *s = &src->ports[i];
		struct an_port_hint *h = NULL;
		for (unsigned j = 0; j < dst->nports && !h; j++)
			if (dst->ports[j].port == s->port)
				h = &dst->ports[j];
		if (!h && dst->nports < AN_HINT_PORTS) {
			h = &dst->ports[dst->nports++];
			memset(h, 0, sizeof(*h));
			h->port = s->port;
		}
		if (!h)
			continue;
		h->datagrams += s->datagrams;
		h->checked += s->checked;
		h->valid += s->valid;
	}
	dst->drops_known |= src->drops_known;
	dst->if_dropped += src->if_dropped;
	dst->os_dropped += src->os_dropped;
}
