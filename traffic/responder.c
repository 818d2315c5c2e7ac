/* The udp server's per-QP decisions: accept in order, ACK AckReq packets, NAK gaps once, rate-limited CNPs. */
#include "traffic/responder.h"

#include <string.h>

#include "dissect/dissect.h"

void rt_resp_init(struct rt_resp_state *s, uint32_t start_psn)
{
	memset(s, 0, sizeof(*s));
	s->epsn = start_psn & 0xffffff;
}

void rt_resp_input(struct rt_resp_state *s, const struct rt_resp_in *in, uint64_t cnp_interval_ns,
                   struct rt_resp_out *out)
{
	out->actions = 0;
	out->ack_psn = 0;
	out->msn = s->msn;
	if (in->ce && (!s->cnp_sent || in->now_ns - s->last_cnp_ns >= cnp_interval_ns)) {
		out->actions |= RT_RESP_CNP;
		s->cnp_sent = true;
		s->last_cnp_ns = in->now_ns;
	}
	int32_t d = rt_psn_diff(in->psn, s->epsn);
	if (d == 0) {
		out->actions |= RT_RESP_ACCEPT;
		s->epsn = (s->epsn + 1) & 0xffffff;
		s->nak_pending = false;
		if (in->last)
			s->msn = (s->msn + 1) & 0xffffff;
		if (in->ackreq) {
			out->actions |= RT_RESP_ACK;
			out->ack_psn = in->psn;
		}
	} else if (d < 0) {
		out->actions |= RT_RESP_DUPLICATE;
		if (in->ackreq) {
			out->actions |= RT_RESP_ACK;
			out->ack_psn = (s->epsn - 1) & 0xffffff;
		}
	} else {
		out->actions |= RT_RESP_OUT_OF_ORDER;
		if (!s->nak_pending) {
			out->actions |= RT_RESP_NAK;
			out->ack_psn = s->epsn;
			s->nak_pending = true;
		}
	}
	out->msn = s->msn;
}
