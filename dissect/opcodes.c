/* The BTH opcode table: names, class flags and extended-header layout of every opcode, indexed by opcode. */
#include "dissect/opcodes.h"

#include <stddef.h>

#include "dissect/dissect.h"

/*
 * Extended headers follow the BTH in one fixed order:
 *
 *   RDETH | XRCETH | DETH | FETH | RETH | AtomicETH | AETH | AtomicAckETH | ImmDt | IETH | CNP pad
 *
 * so each row only names its set of headers; offsets and the total length
 * are derived from that set at compile time. FETH precedes RETH: FLUSH is
 * the one opcode with both.
 */
#define SZ(h, bit, n)     (((h) & (bit)) ? (n) : 0)
#define O_XRCETH(h)       (SZ(h, RT_H_RDETH, RT_RDETH_LEN))
#define O_DETH(h)         (O_XRCETH(h) + SZ(h, RT_H_XRCETH, RT_XRCETH_LEN))
#define O_FETH(h)         (O_DETH(h) + SZ(h, RT_H_DETH, RT_DETH_LEN))
#define O_RETH(h)         (O_FETH(h) + SZ(h, RT_H_FETH, RT_FETH_LEN))
#define O_ATOMICETH(h)    (O_RETH(h) + SZ(h, RT_H_RETH, RT_RETH_LEN))
#define O_AETH(h)         (O_ATOMICETH(h) + SZ(h, RT_H_ATOMICETH, RT_ATOMICETH_LEN))
#define O_ATOMICACKETH(h) (O_AETH(h) + SZ(h, RT_H_AETH, RT_AETH_LEN))
#define O_IMMDT(h)        (O_ATOMICACKETH(h) + SZ(h, RT_H_ATOMICACKETH, RT_ATOMICACKETH_LEN))
#define O_IETH(h)         (O_IMMDT(h) + SZ(h, RT_H_IMMDT, RT_IMMDT_LEN))
#define O_CNP(h)          (O_IETH(h) + SZ(h, RT_H_IETH, RT_IETH_LEN))
#define EXT_LEN(h)        (O_CNP(h) + SZ(h, RT_H_CNP, RT_CNP_PAD_LEN))
#define AT(h, bit, o)     (((h) & (bit)) ? (o) : 0)

#define OP(code, nm, fl, h)                                                                        \
	[code] = {.name = nm,                                                                      \
	          .flags = (fl),                                                                   \
	          .hdrs = (h),                                                                     \
	          .ext_len = EXT_LEN(h),                                                           \
	          .off_rdeth = 0,                                                                  \
	          .off_xrceth = AT(h, RT_H_XRCETH, O_XRCETH(h)),                                   \
	          .off_deth = AT(h, RT_H_DETH, O_DETH(h)),                                         \
	          .off_feth = AT(h, RT_H_FETH, O_FETH(h)),                                         \
	          .off_reth = AT(h, RT_H_RETH, O_RETH(h)),                                         \
	          .off_atomiceth = AT(h, RT_H_ATOMICETH, O_ATOMICETH(h)),                          \
	          .off_aeth = AT(h, RT_H_AETH, O_AETH(h)),                                         \
	          .off_atomicacketh = AT(h, RT_H_ATOMICACKETH, O_ATOMICACKETH(h)),                 \
	          .off_immdt = AT(h, RT_H_IMMDT, O_IMMDT(h)),                                      \
	          .off_ieth = AT(h, RT_H_IETH, O_IETH(h)),                                         \
	          .off_cnp = AT(h, RT_H_CNP, O_CNP(h))}

/* Operations shared by RC, UC, RD and XRC (low 5 bits of the opcode) and their headers. */
#define NONE  0u
#define IMM   RT_H_IMMDT
#define RETH  RT_H_RETH
#define AETH  RT_H_AETH
#define ATOM  RT_H_ATOMICETH
#define ATACK (RT_H_AETH | RT_H_ATOMICACKETH)
#define IETH  RT_H_IETH

/* Class flags shared by many rows. */
#define REQ    RT_OPF_REQ
#define RSP    RT_OPF_RESP
#define SND    (RT_OPF_REQ | RT_OPF_SEND | RT_OPF_PAYLOAD)
#define WRT    (RT_OPF_REQ | RT_OPF_WRITE | RT_OPF_PAYLOAD)
#define RRS    (RT_OPF_RESP | RT_OPF_READ | RT_OPF_PAYLOAD)
#define FIRST  RT_OPF_FIRST
#define MIDDLE RT_OPF_MIDDLE
#define LAST   RT_OPF_LAST
#define ONLY   RT_OPF_ONLY

/* Requests of one transport: `pre` is the headers each request carries first. */
#define SEND_OPS(base, tr, pre)                                                                    \
	OP((base) + 0x00, tr "_SEND_FIRST", SND | FIRST, (pre)),                                   \
	    OP((base) + 0x01, tr "_SEND_MIDDLE", SND | MIDDLE, (pre)),                             \
	    OP((base) + 0x02, tr "_SEND_LAST", SND | LAST, (pre)),                                 \
	    OP((base) + 0x03, tr "_SEND_LAST_IMM", SND | LAST | RT_OPF_IMM, (pre) | IMM),          \
	    OP((base) + 0x04, tr "_SEND_ONLY", SND | ONLY, (pre)),                                 \
	    OP((base) + 0x05, tr "_SEND_ONLY_IMM", SND | ONLY | RT_OPF_IMM, (pre) | IMM)
#define WRITE_OPS(base, tr, pre)                                                                   \
	OP((base) + 0x06, tr "_RDMA_WRITE_FIRST", WRT | FIRST, (pre) | RETH),                      \
	    OP((base) + 0x07, tr "_RDMA_WRITE_MIDDLE", WRT | MIDDLE, (pre)),                       \
	    OP((base) + 0x08, tr "_RDMA_WRITE_LAST", WRT | LAST, (pre)),                           \
	    OP((base) + 0x09, tr "_RDMA_WRITE_LAST_IMM", WRT | LAST | RT_OPF_IMM, (pre) | IMM),    \
	    OP((base) + 0x0A, tr "_RDMA_WRITE_ONLY", WRT | ONLY, (pre) | RETH),                    \
	    OP((base) + 0x0B, tr "_RDMA_WRITE_ONLY_IMM", WRT | ONLY | RT_OPF_IMM,                  \
	       (pre) | RETH | IMM)
/* READ, responses and atomics: `req` prefixes requests, `rsp` prefixes responses. */
#define RELIABLE_OPS(base, tr, req, rsp)                                                           \
	OP((base) + 0x0C, tr "_RDMA_READ_REQUEST", REQ | RT_OPF_READ | ONLY, (req) | RETH),        \
	    OP((base) + 0x0D, tr "_RDMA_READ_RESPONSE_FIRST", RRS | FIRST, (rsp) | AETH),          \
	    OP((base) + 0x0E, tr "_RDMA_READ_RESPONSE_MIDDLE", RRS | MIDDLE, (rsp)),               \
	    OP((base) + 0x0F, tr "_RDMA_READ_RESPONSE_LAST", RRS | LAST, (rsp) | AETH),            \
	    OP((base) + 0x10, tr "_RDMA_READ_RESPONSE_ONLY", RRS | ONLY, (rsp) | AETH),            \
	    OP((base) + 0x11, tr "_ACK", RSP | RT_OPF_ACK | ONLY, (rsp) | AETH),                   \
	    OP((base) + 0x12, tr "_ATOMIC_ACK", RSP | RT_OPF_ACK | RT_OPF_ATOMIC | ONLY,           \
	       (rsp) | ATACK),                                                                     \
	    OP((base) + 0x13, tr "_COMPARE_SWAP", REQ | RT_OPF_ATOMIC | ONLY, (req) | ATOM),       \
	    OP((base) + 0x14, tr "_FETCH_ADD", REQ | RT_OPF_ATOMIC | ONLY, (req) | ATOM)
#define INV_OPS(base, tr, pre)                                                                     \
	OP((base) + 0x16, tr "_SEND_LAST_INV", SND | LAST | RT_OPF_INV, (pre) | IETH),             \
	    OP((base) + 0x17, tr "_SEND_ONLY_INV", SND | ONLY | RT_OPF_INV, (pre) | IETH)

#define RD_PRE (RT_H_RDETH | RT_H_DETH)

static const struct rt_opcode_info opcode_table[256] = {
    /* RC: 0x00 + op */
    SEND_OPS(0x00, "RC", NONE),
    WRITE_OPS(0x00, "RC", NONE),
    RELIABLE_OPS(0x00, "RC", NONE, NONE),
    INV_OPS(0x00, "RC", NONE),
    OP(0x1C, "RC_FLUSH", REQ | ONLY, RT_H_FETH | RETH),
    /* 8 payload bytes: the value written */
    OP(0x1D, "RC_ATOMIC_WRITE", WRT | RT_OPF_ATOMIC | ONLY, RETH),

    /* UC: 0x20 + op, sends and writes only */
    SEND_OPS(0x20, "UC", NONE),
    WRITE_OPS(0x20, "UC", NONE),

    /* RD: 0x40 + op; requests carry RDETH + DETH, responses RDETH only */
    SEND_OPS(0x40, "RD", RD_PRE),
    WRITE_OPS(0x40, "RD", RD_PRE),
    RELIABLE_OPS(0x40, "RD", RD_PRE, RT_H_RDETH),
    OP(0x55, "RD_RESYNC", REQ | ONLY, RD_PRE),

    /* UD: 0x60 + op */
    OP(0x64, "UD_SEND_ONLY", SND | ONLY, RT_H_DETH),
    OP(0x65, "UD_SEND_ONLY_IMM", SND | ONLY | RT_OPF_IMM, RT_H_DETH | IMM),

    /* RoCEv2 congestion notification */
    OP(RT_OPCODE_CNP, "CNP", RT_OPF_CNP, RT_H_CNP),

    /* XRC: 0xA0 + op; requests carry XRCETH first, responses nothing extra */
    SEND_OPS(0xA0, "XRC", RT_H_XRCETH),
    WRITE_OPS(0xA0, "XRC", RT_H_XRCETH),
    RELIABLE_OPS(0xA0, "XRC", RT_H_XRCETH, NONE),
    INV_OPS(0xA0, "XRC", RT_H_XRCETH),
};

const struct rt_opcode_info *rt_opcode_lookup(uint8_t opcode)
{
	const struct rt_opcode_info *info = &opcode_table[opcode];

	return info->name ? info : NULL;
}

uint16_t rt_opcode_flags(uint8_t opcode)
{
	return opcode_table[opcode].flags;
}

const char *rt_transport_name(uint8_t opcode)
{
	static const char *const names[8] = {"RC", "UC", "RD", "UD", "CNP", "XRC", "?", "?"};

	return names[opcode >> 5];
}
