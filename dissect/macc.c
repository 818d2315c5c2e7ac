/* MAC control frames (Ethertype 0x8808): 802.1Qbb PFC and 802.3x PAUSE, and their pause time. */
#include <stdbool.h>
#include <stdint.h>

#include "dissect/dissect.h"
#include "dissect/internal.h"
#include "dissect/wire.h"

#define MACC_OPCODE_LEN 2
#define PAUSE_BODY_LEN  2        /* pause time */
#define PFC_BODY_LEN    (2 + 16) /* class-enable vector, 8 pause times */

uint64_t rt_pause_ns(uint16_t quanta, uint64_t link_bps)
{
	uint64_t quantum_ps = (uint64_t)(512.0 * 1e12 / (double)link_bps + 0.5);

	return ((uint64_t)quanta * quantum_ps + 500) / 1000;
}

/*
 *  PAUSE: | opcode 0x0001 (2) | pause time in quanta (2) |
 *  PFC:   | opcode 0x0101 (2) | class-enable vector (2) | time[0] (2) ... time[7] (2) |
 * Class-enable bit n (of the low byte) enables priority n.
 */
void rt_dissect_macc(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off)
{
	bool ok = true;
	uint16_t op = rt_get_be16(buf, caplen, off, &ok);

	if (!ok) {
		rt_rec_truncated(rec, RT_EV_MACC_TRUNCATED);
		return;
	}
	rec->layers |= RT_L_MACC;
	rec->macc_opcode = op;
	off += MACC_OPCODE_LEN;
	switch (op) {
	case RT_MACC_PFC:
		rec->kind = RT_KIND_PFC;
		if (!rt_wire_has(caplen, off, PFC_BODY_LEN)) {
			rt_rec_truncated(rec, RT_EV_MACC_TRUNCATED);
			return;
		}
		rec->pfc_enable = rt_get_be16(buf, caplen, off, &ok);
		for (uint32_t i = 0; i < 8; i++)
			rec->pfc_quanta[i] = rt_get_be16(buf, caplen, off + 2 + 2 * i, &ok);
		break;
	case RT_MACC_PAUSE:
		rec->kind = RT_KIND_PAUSE;
		if (!rt_wire_has(caplen, off, PAUSE_BODY_LEN)) {
			rt_rec_truncated(rec, RT_EV_MACC_TRUNCATED);
			return;
		}
		rec->pause_quanta = rt_get_be16(buf, caplen, off, &ok);
		break;
	default:
		rec->events |= RT_EV_MACC_UNKNOWN_OPCODE;
		break;
	}
}
