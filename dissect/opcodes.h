/* The BTH opcode table: the single source of names and extended-header layout. */
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
#define RT_BTH_LEN 12
#define RT_RDETH_LEN 4
#define RT_XRCETH_LEN 4
#define RT_DETH_LEN 8
#define RT_FETH_LEN 4
#define RT_RETH_LEN 16
#define RT_ATOMICETH_LEN 28
#define RT_AETH_LEN 4
#define RT_ATOMICACKETH_LEN 8
#define RT_IMMDT_LEN 4
#define RT_IETH_LEN 4
#define RT_CNP_PAD_LEN 16 /* the reserved bytes after a CNP's BTH */
#define RT_ICRC_LEN 4

#define RT_OPCODE_CNP 0x81
#define RT_OPCODE_RC_ACK 0x11
#define RT_OPCODE_RC_ATOMIC_ACK 0x12

struct rt_opcode_info {
	const char *name;  /* e.g. "RC_SEND_ONLY", "CNP" */
	uint16_t hdrs;	   /* enum rt_ext_header bits */
	uint8_t ext_len;   /* bytes of all extended headers after the BTH */
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

/* "RC", "UC", "RD", "UD", "CNP", "XRC", or "?" for the rest. */
const char *rt_transport_name(uint8_t opcode);

static inline enum rt_transport rt_opcode_transport(uint8_t opcode)
{
	return (enum rt_transport)(opcode >> 5);
}

#endif
