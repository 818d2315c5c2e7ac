/* RDMA CM MADs on QP 1: REQ, REP, RTU, REJ, MRA, DREQ, DREP, SIDR, LAP, APR, decoded into the record. */
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
 * Communication management is class 0x07. Its messages (InfiniBand
 * Architecture Specification volume 1, chapter 12) start with the Local
 * Communication ID (4 bytes; SIDR: the Request ID) and, but for REQ and
 * SIDR, the Remote Communication ID (4). Offsets in the payload:
 *  REQ  ServiceID (8) at 8, Local Q_Key (4) at 28, Local QPN (24 bits) at
 *       32, Starting PSN (24 bits) at 44
 *  REP  Local Q_Key at 8, Local QPN at 12, Starting PSN at 20
 *  REJ  MessageREJected (top 2 bits) at 8, Reason (2) at 10
 *  MRA  MessageMRAed (top 2 bits) at 8, ServiceTimeout (top 5 bits) at 9
 *  DREQ Remote QPN/EECN (24 bits) at 8
 *  LAP  Remote QPN/EECN (24 bits) at 12
 *  APR  AP status (1) at 9
 *  SIDR_REQ  ServiceID at 8;  SIDR_REP  Status (1) at 4, QPN (24 bits) at
 *       8, ServiceID at 12, Q_Key at 20
 * A message is decoded when the header and the bytes of its fields are
 * captured and on the wire.
 */
#define MAD_HDR_LEN  24
#define MAD_CLASS_CM 0x07

/* The payload bytes a message's fields take (0: not a message the dissector knows). */
static uint32_t fields_len(uint16_t attr)
{
	switch (attr) {
	case RT_CM_ATTR_CLASS_PORT_INFO:
		return 0;
	case RT_CM_ATTR_REQ:
		return 47;
	case RT_CM_ATTR_REP:
	case RT_CM_ATTR_SIDR_REP:
		return 24;
	case RT_CM_ATTR_REJ:
	case RT_CM_ATTR_DREQ:
		return 12;
	case RT_CM_ATTR_MRA:
	case RT_CM_ATTR_APR:
		return 10;
	case RT_CM_ATTR_LAP:
	case RT_CM_ATTR_SIDR_REQ:
		return 16;
	default:
		return 8; /* RTU, DREP: the two communication IDs */
	}
}

unsigned rt_cm_fields(uint16_t attr)
{
	switch (attr) {
	case RT_CM_ATTR_REQ:
		return RT_CMF_LOCAL_QPN | RT_CMF_START_PSN | RT_CMF_QKEY | RT_CMF_SERVICE_ID;
	case RT_CM_ATTR_REP:
		return RT_CMF_REMOTE_COMM_ID | RT_CMF_LOCAL_QPN | RT_CMF_START_PSN | RT_CMF_QKEY;
	case RT_CM_ATTR_REJ:
		return RT_CMF_REMOTE_COMM_ID | RT_CMF_REJECT;
	case RT_CM_ATTR_MRA:
		return RT_CMF_REMOTE_COMM_ID | RT_CMF_MRA;
	case RT_CM_ATTR_DREQ:
	case RT_CM_ATTR_LAP:
		return RT_CMF_REMOTE_COMM_ID | RT_CMF_REMOTE_QPN;
	case RT_CM_ATTR_APR:
		return RT_CMF_REMOTE_COMM_ID | RT_CMF_STATUS;
	case RT_CM_ATTR_SIDR_REQ:
		return RT_CMF_REQUEST_ID | RT_CMF_SERVICE_ID;
	case RT_CM_ATTR_SIDR_REP:
		return RT_CMF_REQUEST_ID | RT_CMF_STATUS | RT_CMF_LOCAL_QPN | RT_CMF_SERVICE_ID |
		       RT_CMF_QKEY;
	case RT_CM_ATTR_RTU:
	case RT_CM_ATTR_DREP:
		return RT_CMF_REMOTE_COMM_ID;
	default:
		return 0; /* ClassPortInfo: no connection in it */
	}
}

void rt_dissect_cm(struct rt_record *rec, const uint8_t *buf, uint32_t caplen)
{
	uint32_t m = rec->payload_off, p = m + MAD_HDR_LEN;
	bool ok = true;
	struct rt_cm *cm = &rec->cm;

	if (rec->payload_len < MAD_HDR_LEN || !rt_wire_has(caplen, m, MAD_HDR_LEN) ||
	    rt_get_u8(buf, caplen, m + 1, &ok) != MAD_CLASS_CM)
		return;
	uint16_t attr = rt_get_be16(buf, caplen, m + 16, &ok);
	uint32_t need = fields_len(attr);
	if (!rt_cm_message_name(attr) || rec->payload_len - MAD_HDR_LEN < need ||
	    !rt_wire_has(caplen, p, need))
		return;
	unsigned has = rt_cm_fields(attr);
	cm->attr = attr;
	cm->method = rt_get_u8(buf, caplen, m + 3, &ok) & 0x7F;
	cm->tid = rt_get_be64(buf, caplen, m + 8, &ok);
	if (attr != RT_CM_ATTR_CLASS_PORT_INFO)
		cm->local_comm_id = rt_get_be32(buf, caplen, p, &ok);
	if (has & RT_CMF_REMOTE_COMM_ID)
		cm->remote_comm_id = rt_get_be32(buf, caplen, p + 4, &ok);
	switch (attr) {
	case RT_CM_ATTR_REQ:
		cm->service_id = rt_get_be64(buf, caplen, p + 8, &ok);
		cm->qkey = rt_get_be32(buf, caplen, p + 28, &ok);
		cm->local_qpn = rt_get_be24(buf, caplen, p + 32, &ok);
		cm->start_psn = rt_get_be24(buf, caplen, p + 44, &ok);
		break;
	case RT_CM_ATTR_REP:
		cm->qkey = rt_get_be32(buf, caplen, p + 8, &ok);
		cm->local_qpn = rt_get_be24(buf, caplen, p + 12, &ok);
		cm->start_psn = rt_get_be24(buf, caplen, p + 20, &ok);
		break;
	case RT_CM_ATTR_REJ:
		cm->msg = rt_get_u8(buf, caplen, p + 8, &ok) >> 6;
		cm->reason = rt_get_be16(buf, caplen, p + 10, &ok);
		break;
	case RT_CM_ATTR_MRA:
		cm->msg = rt_get_u8(buf, caplen, p + 8, &ok) >> 6;
		cm->timeout = rt_get_u8(buf, caplen, p + 9, &ok) >> 3;
		break;
	case RT_CM_ATTR_DREQ:
		cm->remote_qpn = rt_get_be24(buf, caplen, p + 8, &ok);
		break;
	case RT_CM_ATTR_LAP:
		cm->remote_qpn = rt_get_be24(buf, caplen, p + 12, &ok);
		break;
	case RT_CM_ATTR_APR:
		cm->status = rt_get_u8(buf, caplen, p + 9, &ok);
		break;
	case RT_CM_ATTR_SIDR_REQ:
		cm->service_id = rt_get_be64(buf, caplen, p + 8, &ok);
		break;
	case RT_CM_ATTR_SIDR_REP:
		cm->status = rt_get_u8(buf, caplen, p + 4, &ok);
		cm->local_qpn = rt_get_be24(buf, caplen, p + 8, &ok);
		cm->service_id = rt_get_be64(buf, caplen, p + 12, &ok);
		cm->qkey = rt_get_be32(buf, caplen, p + 20, &ok);
		break;
	default:
		break;
	}
	rec->layers |= RT_L_CM;
}
