/* What the Wireshark plugin keeps with each frame: the analyzer's note from the first pass, and the links later frames complete. */
#ifndef RT_PLUGIN_NOTES_H
#define RT_PLUGIN_NOTES_H

#include <stdint.h>

#include <epan/packet.h>

#include "analyze/analyze.h"
#include "dissect/dissect.h"

/* What the plugin keeps of the analyzer's note (struct rt_an_note) for a RoCE frame. */
struct roce_note {
	uint64_t cnp_delay_ns;    /* CNP with cnp_for_frame: from that CE mark to the CNP */
	uint64_t rtt_ns;          /* ACK: request -> ACK round trip */
	uint64_t resend_after_ns; /* retransmission: the time since frame resend_of */
	uint64_t resend_wait_ns;  /* first of a resend run: after its NAK or the last request */
	uint32_t flow_id, peer_flow_id; /* RT_AN_NONE = none */
	uint32_t psn_gap, nak_frame, cnp_for_frame;
	uint32_t copy_of;   /* a copy of this frame's packet, which was counted; 0 = none */
	uint32_t cnp_frame; /* on a CE-marked frame: the CNP that answered it, filled in later */
	uint32_t rtt_frame; /* ACK: the request whose round trip rtt_ns is; 0 = no sample */
	uint32_t resend_of; /* retransmission: the frame that sent its PSN before; 0 = not seen */
	uint8_t flags, nak_code;
};

/* Same for a PFC or PAUSE frame. */
struct pause_note {
	uint16_t classes;
	uint64_t paused_ns[RT_AN_PFC_CLASSES]; /* cut short later by the sender's next frame */
};

/* Once, at registration: the file-scoped maps (emptied with every file). */
void rt_notes_register(void);
/* A file (or a re-dissection) starts: a new analyzer at this link speed (bit/s; 0: 100 Gb/s). */
void rt_notes_start(uint64_t link_bps);
/* The file is closed. */
void rt_notes_stop(void);

/*
 * First pass: feed the frame to the analyzer and keep its note with the
 * frame (proto data of `proto`: key 0 a roce_note, key 1 a pause_note).
 * Frames the postdissector did not see are fed as empty records first, so
 * the analyzer's frame numbers stay Wireshark's.
 */
void rt_notes_first_pass(int proto, packet_info *pinfo, const struct rt_record *rec);

#endif
