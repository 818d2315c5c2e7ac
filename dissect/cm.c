/* RDMA CM MADs on QP 1: the REQ and REP that name both sides' QPs, decoded into the record. */
#include <stdbool.h>
#include <stdint.h>

#include "dissect/dissect.h"
#include "dissect/internal.h"
#include "dissect/wire.h"

/*
 * A MAD is a 24-byte common header, then the class payload:
 *  +---------------+---------------+---------------+---------------+
 *  | BaseVersion   | MgmtClass     | ClassVersion  |R|   Method    |
 *  +---------------+---------------+---------------+---------------+
 *  |            Status             |        ClassSpecific          |
 *  +-------------------------------+-------------------------------+
 *  |                 TransactionID (8 bytes)                       |
 *  +-------------------------------+-------------------------------+
 *  |         AttributeID           |           Reserved            |
 *  +-------------------------------+-------------------------------+
 *  |                   AttributeModifier                           |
 *  +---------------------------------------------------------------+
 * Communication management is class 0x07. Its REQ payload starts with the
 * Local Communication ID (4 bytes) and carries the Local QPN (24 bits) at
 * byte 32; its REP payload is Local Communication ID (4), Remote
 * Communication ID (4), Local Q_Key (4), Local QPN (24 bits) at byte 12.
 * Both are decoded when 36 bytes of payload follow the header, captured and
 * on the wire.
 */
#define MAD_HDR_LEN  24
#define MAD_CLASS_CM 0x07
#define CM_BODY_LEN  36

void rt_dissect_cm(struct rt_record *rec, const uint8_t *buf, uint32_t caplen)
{
	uint32_t m = rec->payload_off, p = m + MAD_HDR_LEN;
	bool ok = true;
	uint16_t attr;

	if (rec->payload_len < MAD_HDR_LEN + CM_BODY_LEN ||
	    !rt_wire_has(caplen, m, MAD_HDR_LEN + CM_BODY_LEN) ||
	    rt_get_u8(buf, caplen, m + 1, &ok) != MAD_CLASS_CM)
		return;
	attr = rt_get_be16(buf, caplen, m + 16, &ok);
	if (attr == RT_CM_ATTR_REQ) {
		rec->cm.local_comm_id = rt_get_be32(buf, caplen, p, &ok);
		rec->cm.local_qpn = rt_get_be24(buf, caplen, p + 32, &ok);
	} else if (attr == RT_CM_ATTR_REP) {
		rec->cm.local_comm_id = rt_get_be32(buf, caplen, p, &ok);
		rec->cm.remote_comm_id = rt_get_be32(buf, caplen, p + 4, &ok);
		rec->cm.local_qpn = rt_get_be24(buf, caplen, p + 12, &ok);
	} else {
		return;
	}
	rec->cm.attr = attr;
	rec->layers |= RT_L_CM;
}
