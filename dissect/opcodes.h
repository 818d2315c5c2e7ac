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

#define RT_OPCODE_CNP 0x81
#define RT_OPCODE_RC_ACK 0x11
#define RT_OPCODE_RC_ATOMIC_ACK 0x12

struct rt_opcode_info {
	const char *name;  /* e.g. "RC_SEND_ONLY", "CNP" */
	uint16_t hdrs;	   /* enum rt_ext_header bits, in wire order by layout */
	uint8_t ext_len;   /* bytes of all extended headers after the BTH */
	/* byte offset after the BTH of each present header; valid when its bit is set */
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
