/* Tallies about the capture itself, counted frame by frame for the warnings: time order, snap length, ECN, other ports. */
#include "analyze/tallies.h"

#include <string.h>

/*
 * A UDP datagram to another port: does it carry RoCEv2? The dissector says
 * so of each one (a valid BTH and ICRC, a CRC over the whole packet, is the
 * proof); the first AN_HINT_CHECKS datagrams of each port are taken as its
 * sample. Ports whose samples all failed give their place to new ones.
 */
void an_tally_port(struct an_tallies *fd, const struct rt_record *rec)
{
	struct an_port_hint *h = NULL;
	for (unsigned i = 0; i < fd->nports && !h; i++)
		if (fd->ports[i].port == rec->udp_dport)
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
		h->port = rec->udp_dport;
	}
	h->datagrams++;
	if (h->checked >= AN_HINT_CHECKS)
		return;
	h->checked++;
	if (rec->other_port_rocev2)
		h->valid++;
}
