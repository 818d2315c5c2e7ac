/* The BTH opcode table: the single source of names, classes and extended-header layout. */
#ifndef RT_OPCODES_H
#define RT_OPCODES_H

#include <stdint.h>

/* Transport classes: bits 7..5 of the opcode. */
enum rt_transport {
	RT_TR_RC = 0,
	RT_TR_UC = 1,
	RT_TR_RD = 2,
	RT_TR_UD = 3,
	RT_TR_CNP = 4,
	RT_TR_XRC = 5,
};

/* Header sizes in bytes. */
#define RT_BTH_LEN          12
#define RT_RDETH_LEN        4
#define RT_XRCETH_LEN       4
#define RT_DETH_LEN         8
#define RT_FETH_LEN         4
#define RT_RETH_LEN         16
#define RT_ATOMICETH_LEN    28
#define RT_AETH_LEN         4
#define RT_ATOMICACKETH_LEN 8
#define RT_IMMDT_LEN        4
#define RT_IETH_LEN         4
#define RT_CNP_PAD_LEN      16 /* the reserved bytes after a CNP's BTH */
#define RT_ICRC_LEN         4

/* Opcodes called by name (the table holds every one). */
enum rt_opcode {
	RT_OPCODE_RC_SEND_FIRST = 0x00,
	RT_OPCODE_RC_SEND_MIDDLE = 0x01,
	RT_OPCODE_RC_SEND_LAST = 0x02,
	RT_OPCODE_RC_SEND_ONLY = 0x04,
	RT_OPCODE_RC_RDMA_WRITE_FIRST = 0x06,
	RT_OPCODE_RC_RDMA_WRITE_MIDDLE = 0x07,
	RT_OPCODE_RC_RDMA_WRITE_LAST = 0x08,
	RT_OPCODE_RC_RDMA_WRITE_ONLY = 0x0A,
	RT_OPCODE_RC_ACK = 0x11,
	RT_OPCODE_RC_ATOMIC_ACK = 0x12,
	RT_OPCODE_CNP = 0x81,
};

/*
 * What an opcode is, a bit each (rt_opcode_info.flags), so no caller
 * re-derives classes from opcode numbers. The position flags name the
 * packet's place in its message; a one-packet message (READ request, ACK,
 * atomics, FLUSH) is ONLY. A CNP is none of these but RT_OPF_CNP.
 */
enum rt_opcode_flag {
	RT_OPF_REQ = 1u << 0,      /* sent by the requester */
	RT_OPF_RESP = 1u << 1,     /* sent by the responder: read responses, ACK, atomic ACK */
	RT_OPF_ACK = 1u << 2,      /* ACK or atomic ACK */
	RT_OPF_SEND = 1u << 3,     /* SEND (RC, UC, RD, UD, XRC) */
	RT_OPF_WRITE = 1u << 4,    /* RDMA WRITE, ATOMIC WRITE */
	RT_OPF_READ = 1u << 5,     /* RDMA READ request and its responses */
	RT_OPF_ATOMIC = 1u << 6,   /* compare-swap, fetch-add, their ACK, ATOMIC WRITE */
	RT_OPF_FIRST = 1u << 7,    /* first packet of a message */
	RT_OPF_MIDDLE = 1u << 8,   /* middle packet */
	RT_OPF_LAST = 1u << 9,     /* last packet */
	RT_OPF_ONLY = 1u << 10,    /* the one packet of a message */
	RT_OPF_PAYLOAD = 1u << 11, /* carries payload after the headers */
	RT_OPF_IMM = 1u << 12,     /* with immediate data */
	RT_OPF_INV = 1u << 13,     /* with invalidate */
	RT_OPF_CNP = 1u << 14,     /* RoCEv2 congestion notification */
};
/* The packet starts (FIRST or ONLY) or ends (LAST or ONLY) its message. */
#define RT_OPF_START (RT_OPF_FIRST | RT_OPF_ONLY)
#define RT_OPF_END   (RT_OPF_LAST | RT_OPF_ONLY)

struct rt_opcode_info {
	const char *name; /* e.g. "RC_SEND_ONLY", "CNP" */
	uint16_t flags;   /* enum rt_opcode_flag bits */
	uint16_t hdrs;    /* enum rt_ext_header bits */
	uint8_t ext_len;  /* bytes of all extended headers after the BTH */
	/*
	 * Byte offset after the BTH of each present header (0 when absent).
	 * Wire order: RDETH, XRCETH, DETH, FETH, RETH, AtomicETH, AETH,
	 * AtomicAckETH, ImmDt, IETH, CNP reserved bytes.
	 */
	uint8_t off_rdeth, off_deth, off_xrceth, off_reth, off_atomiceth, off_aeth,
	    off_atomicacketh, off_immdt, off_ieth, off_feth, off_cnp;
};

/* Entry for `opcode`, or NULL when the opcode is not defined. */
const struct rt_opcode_info *rt_opcode_lookup(uint8_t opcode);

/* The class flags of `opcode` (enum rt_opcode_flag), 0 when it is not defined. */
uint16_t rt_opcode_flags(uint8_t opcode);

/* "RC", "UC", "RD", "UD", "CNP", "XRC", or "?" for the rest. */
const char *rt_transport_name(uint8_t opcode);

static inline enum rt_transport rt_opcode_transport(uint8_t opcode)
{
	return (enum rt_transport)(opcode >> 5);
}

#endif
