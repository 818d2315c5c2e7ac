/* Per-QP analysis for per-frame notes: PSN gaps, resends, NAKs, CE->CNP links, PFC time. */
#ifndef RT_QPSTATE_H
#define RT_QPSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/dissect.h"

/*
 * The analyzer (analyze/) reports per flow and per file; Wireshark needs a
 * verdict per frame and a link between two frames (the CE-marked frame and
 * the CNP that answered it). This engine keeps just the per-QP state for that
 * and writes into small notes the caller owns, one per frame. Feed every
 * frame once, in capture order; a note must live as long as the engine,
 * because a later frame may complete an earlier note (cnp_frame on a
 * CE-marked frame, paused time of a PFC frame ended early).
 */

#define RT_QP_NONE UINT32_MAX
/* Number of pause classes: priorities 0..7 (PFC), then 8 for 802.3x PAUSE. */
#define RT_QP_CLASSES     9
#define RT_QP_PAUSE_CLASS 8

/* rt_qp_note.flags */
enum rt_qp_flag {
	RT_QP_CE = 1u << 0,        /* IP ECN field is CE (11) */
	RT_QP_RETRANS = 1u << 1,   /* RC/XRC request at or behind the highest PSN sent */
	RT_QP_DUPLICATE = 1u << 2, /* UC request at or behind the highest PSN (no resend in UC) */
	RT_QP_PSN_JUMP = 1u << 3,  /* PSN moved by more than RT_QP_PSN_WINDOW: resynchronised */
	RT_QP_NAK = 1u << 4,       /* AETH NAK (code in nak_code) */
	RT_QP_RNR_NAK = 1u << 5,   /* AETH RNR NAK (timer in nak_code) */
};

/* A PSN step larger than this is a resynchronisation (QP reuse), not loss or a resend. */
#define RT_QP_PSN_WINDOW (1u << 16)

/* What the analysis says about one RoCE frame (a frame with a BTH). Frame numbers are 1-based; 0 =
 * none. */
struct rt_qp_note {
	uint32_t flow_id;       /* 0-based, in order of first packet (as `rocetrace analyze`) */
	uint32_t psn_gap;       /* PSNs missing before this request, 0 = none */
	uint32_t nak_frame;     /* retransmission: the NAK of this go-back-N, 0 = none seen */
	uint32_t cnp_for_frame; /* CNP: the CE-marked frame that triggered it */
	uint32_t cnp_frame;     /* CE-marked frame: the CNP that answered it (set later) */
	uint32_t peer_flow_id;  /* response/NAK: the requester's flow; CNP: the flow it throttles */
	uint8_t flags;          /* enum rt_qp_flag bits */
	uint8_t nak_code;       /* NAK code or RNR timer (low 5 bits of the syndrome) */
};

/* What the analysis says about one PFC or PAUSE frame. */
struct rt_qp_pause_note {
	uint16_t classes;                  /* bit n: this frame sets class n (8 = PAUSE) */
	uint64_t paused_ns[RT_QP_CLASSES]; /* pause time asked for, cut short by the sender's next
	                                      frame */
};

struct rt_qp;

/* New engine for a link of `link_speed_bps` (PFC quanta to time; 0 = 100 Gb/s), NULL when out of
 * memory. */
struct rt_qp *rt_qp_new(uint64_t link_speed_bps);
void rt_qp_free(struct rt_qp *qp);

/*
 * Analyse a RoCE or CNP record that has a BTH (rt_record_has_bth), frame
 * number `frame` (1-based), filling `note`. Returns 0, or -ENOMEM (the note
 * then holds flow_id RT_QP_NONE and no verdict).
 */
int rt_qp_roce(struct rt_qp *qp, const struct rt_record *rec, uint32_t frame,
               struct rt_qp_note *note);

/* Same for a PFC or PAUSE record (kind RT_KIND_PFC / RT_KIND_PAUSE). */
int rt_qp_pause(struct rt_qp *qp, const struct rt_record *rec, struct rt_qp_pause_note *note);

/* Flows seen so far. */
uint32_t rt_qp_flow_count(const struct rt_qp *qp);

#endif
