/* Unit tests of the opcode table: every row's name, headers, offsets and length, and the table's consistency. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/dissect.h"
#include "dissect/opcodes.h"

/* Header ids for the expected rows, each with its size and the table's offset field. */
enum { RDETH, XRCETH, DETH, FETH, RETH, ATOM, AETH, ATACK, IMM, IETH, CNPR, NHDR };

static const struct {
	uint16_t bit;
	uint8_t size;
} hdr_def[NHDR] = {
    [RDETH] = {RT_H_RDETH, 4}, [XRCETH] = {RT_H_XRCETH, 4},      [DETH] = {RT_H_DETH, 8},
    [FETH] = {RT_H_FETH, 4},   [RETH] = {RT_H_RETH, 16},         [ATOM] = {RT_H_ATOMICETH, 28},
    [AETH] = {RT_H_AETH, 4},   [ATACK] = {RT_H_ATOMICACKETH, 8}, [IMM] = {RT_H_IMMDT, 4},
    [IETH] = {RT_H_IETH, 4},   [CNPR] = {RT_H_CNP, 16},
};

static uint8_t table_off(const struct rt_opcode_info *info, int h)
{
	switch (h) {
	case RDETH:
		return info->off_rdeth;
	case XRCETH:
		return info->off_xrceth;
	case DETH:
		return info->off_deth;
	case FETH:
		return info->off_feth;
	case RETH:
		return info->off_reth;
	case ATOM:
		return info->off_atomiceth;
	case AETH:
		return info->off_aeth;
	case ATACK:
		return info->off_atomicacketh;
	case IMM:
		return info->off_immdt;
	case IETH:
		return info->off_ieth;
	default:
		return info->off_cnp;
	}
}

/*
 * One expected opcode: its class flags and the headers after the BTH in
 * wire order, -1 terminated. Flags, spelled out per row: Q request, P
 * response, A acknowledgement, S send, W write, R read, T atomic, F first,
 * M middle, L last, O only, D payload, I immediate, V invalidate, C CNP.
 */
enum {
	Q = RT_OPF_REQ,
	P = RT_OPF_RESP,
	A = RT_OPF_ACK,
	S = RT_OPF_SEND,
	W = RT_OPF_WRITE,
	R = RT_OPF_READ,
	T = RT_OPF_ATOMIC,
	F = RT_OPF_FIRST,
	M = RT_OPF_MIDDLE,
	L = RT_OPF_LAST,
	O = RT_OPF_ONLY,
	D = RT_OPF_PAYLOAD,
	I = RT_OPF_IMM,
	V = RT_OPF_INV,
	C = RT_OPF_CNP,
};
struct row {
	uint8_t opcode;
	const char *name;
	uint16_t flags;
	int hdrs[5];
};

#define END -1
static const struct row rows[] = {
    /* RC */
    {0x00, "RC_SEND_FIRST", Q | S | D | F, {END}},
    {0x01, "RC_SEND_MIDDLE", Q | S | D | M, {END}},
    {0x02, "RC_SEND_LAST", Q | S | D | L, {END}},
    {0x03, "RC_SEND_LAST_IMM", Q | S | D | L | I, {IMM, END}},
    {0x04, "RC_SEND_ONLY", Q | S | D | O, {END}},
    {0x05, "RC_SEND_ONLY_IMM", Q | S | D | O | I, {IMM, END}},
    {0x06, "RC_RDMA_WRITE_FIRST", Q | W | D | F, {RETH, END}},
    {0x07, "RC_RDMA_WRITE_MIDDLE", Q | W | D | M, {END}},
    {0x08, "RC_RDMA_WRITE_LAST", Q | W | D | L, {END}},
    {0x09, "RC_RDMA_WRITE_LAST_IMM", Q | W | D | L | I, {IMM, END}},
    {0x0A, "RC_RDMA_WRITE_ONLY", Q | W | D | O, {RETH, END}},
    {0x0B, "RC_RDMA_WRITE_ONLY_IMM", Q | W | D | O | I, {RETH, IMM, END}},
    {0x0C, "RC_RDMA_READ_REQUEST", Q | R | O, {RETH, END}},
    {0x0D, "RC_RDMA_READ_RESPONSE_FIRST", P | R | D | F, {AETH, END}},
    {0x0E, "RC_RDMA_READ_RESPONSE_MIDDLE", P | R | D | M, {END}},
    {0x0F, "RC_RDMA_READ_RESPONSE_LAST", P | R | D | L, {AETH, END}},
    {0x10, "RC_RDMA_READ_RESPONSE_ONLY", P | R | D | O, {AETH, END}},
    {0x11, "RC_ACK", P | A | O, {AETH, END}},
    {0x12, "RC_ATOMIC_ACK", P | A | T | O, {AETH, ATACK, END}},
    {0x13, "RC_COMPARE_SWAP", Q | T | O, {ATOM, END}},
    {0x14, "RC_FETCH_ADD", Q | T | O, {ATOM, END}},
    {0x16, "RC_SEND_LAST_INV", Q | S | D | L | V, {IETH, END}},
    {0x17, "RC_SEND_ONLY_INV", Q | S | D | O | V, {IETH, END}},
    {0x1C, "RC_FLUSH", Q | O, {FETH, RETH, END}},
    {0x1D, "RC_ATOMIC_WRITE", Q | W | D | T | O, {RETH, END}},
    /* UC */
    {0x20, "UC_SEND_FIRST", Q | S | D | F, {END}},
    {0x21, "UC_SEND_MIDDLE", Q | S | D | M, {END}},
    {0x22, "UC_SEND_LAST", Q | S | D | L, {END}},
    {0x23, "UC_SEND_LAST_IMM", Q | S | D | L | I, {IMM, END}},
    {0x24, "UC_SEND_ONLY", Q | S | D | O, {END}},
    {0x25, "UC_SEND_ONLY_IMM", Q | S | D | O | I, {IMM, END}},
    {0x26, "UC_RDMA_WRITE_FIRST", Q | W | D | F, {RETH, END}},
    {0x27, "UC_RDMA_WRITE_MIDDLE", Q | W | D | M, {END}},
    {0x28, "UC_RDMA_WRITE_LAST", Q | W | D | L, {END}},
    {0x29, "UC_RDMA_WRITE_LAST_IMM", Q | W | D | L | I, {IMM, END}},
    {0x2A, "UC_RDMA_WRITE_ONLY", Q | W | D | O, {RETH, END}},
    {0x2B, "UC_RDMA_WRITE_ONLY_IMM", Q | W | D | O | I, {RETH, IMM, END}},
    /* RD */
    {0x40, "RD_SEND_FIRST", Q | S | D | F, {RDETH, DETH, END}},
    {0x41, "RD_SEND_MIDDLE", Q | S | D | M, {RDETH, DETH, END}},
    {0x42, "RD_SEND_LAST", Q | S | D | L, {RDETH, DETH, END}},
    {0x43, "RD_SEND_LAST_IMM", Q | S | D | L | I, {RDETH, DETH, IMM, END}},
    {0x44, "RD_SEND_ONLY", Q | S | D | O, {RDETH, DETH, END}},
    {0x45, "RD_SEND_ONLY_IMM", Q | S | D | O | I, {RDETH, DETH, IMM, END}},
    {0x46, "RD_RDMA_WRITE_FIRST", Q | W | D | F, {RDETH, DETH, RETH, END}},
    {0x47, "RD_RDMA_WRITE_MIDDLE", Q | W | D | M, {RDETH, DETH, END}},
    {0x48, "RD_RDMA_WRITE_LAST", Q | W | D | L, {RDETH, DETH, END}},
    {0x49, "RD_RDMA_WRITE_LAST_IMM", Q | W | D | L | I, {RDETH, DETH, IMM, END}},
    {0x4A, "RD_RDMA_WRITE_ONLY", Q | W | D | O, {RDETH, DETH, RETH, END}},
    {0x4B, "RD_RDMA_WRITE_ONLY_IMM", Q | W | D | O | I, {RDETH, DETH, RETH, IMM, END}},
    {0x4C, "RD_RDMA_READ_REQUEST", Q | R | O, {RDETH, DETH, RETH, END}},
    {0x4D, "RD_RDMA_READ_RESPONSE_FIRST", P | R | D | F, {RDETH, AETH, END}},
    {0x4E, "RD_RDMA_READ_RESPONSE_MIDDLE", P | R | D | M, {RDETH, END}},
    {0x4F, "RD_RDMA_READ_RESPONSE_LAST", P | R | D | L, {RDETH, AETH, END}},
    {0x50, "RD_RDMA_READ_RESPONSE_ONLY", P | R | D | O, {RDETH, AETH, END}},
    {0x51, "RD_ACK", P | A | O, {RDETH, AETH, END}},
    {0x52, "RD_ATOMIC_ACK", P | A | T | O, {RDETH, AETH, ATACK, END}},
    {0x53, "RD_COMPARE_SWAP", Q | T | O, {RDETH, DETH, ATOM, END}},
    {0x54, "RD_FETCH_ADD", Q | T | O, {RDETH, DETH, ATOM, END}},
    {0x55, "RD_RESYNC", Q | O, {RDETH, DETH, END}},
    /* UD */
    {0x64, "UD_SEND_ONLY", Q | S | D | O, {DETH, END}},
    {0x65, "UD_SEND_ONLY_IMM", Q | S | D | O | I, {DETH, IMM, END}},
    /* CNP */
    {0x81, "CNP", C, {CNPR, END}},
    /* XRC */
    {0xA0, "XRC_SEND_FIRST", Q | S | D | F, {XRCETH, END}},
    {0xA1, "XRC_SEND_MIDDLE", Q | S | D | M, {XRCETH, END}},
    {0xA2, "XRC_SEND_LAST", Q | S | D | L, {XRCETH, END}},
    {0xA3, "XRC_SEND_LAST_IMM", Q | S | D | L | I, {XRCETH, IMM, END}},
    {0xA4, "XRC_SEND_ONLY", Q | S | D | O, {XRCETH, END}},
    {0xA5, "XRC_SEND_ONLY_IMM", Q | S | D | O | I, {XRCETH, IMM, END}},
    {0xA6, "XRC_RDMA_WRITE_FIRST", Q | W | D | F, {XRCETH, RETH, END}},
    {0xA7, "XRC_RDMA_WRITE_MIDDLE", Q | W | D | M, {XRCETH, END}},
    {0xA8, "XRC_RDMA_WRITE_LAST", Q | W | D | L, {XRCETH, END}},
    {0xA9, "XRC_RDMA_WRITE_LAST_IMM", Q | W | D | L | I, {XRCETH, IMM, END}},
    {0xAA, "XRC_RDMA_WRITE_ONLY", Q | W | D | O, {XRCETH, RETH, END}},
    {0xAB, "XRC_RDMA_WRITE_ONLY_IMM", Q | W | D | O | I, {XRCETH, RETH, IMM, END}},
    {0xAC, "XRC_RDMA_READ_REQUEST", Q | R | O, {XRCETH, RETH, END}},
    {0xAD, "XRC_RDMA_READ_RESPONSE_FIRST", P | R | D | F, {AETH, END}},
    {0xAE, "XRC_RDMA_READ_RESPONSE_MIDDLE", P | R | D | M, {END}},
    {0xAF, "XRC_RDMA_READ_RESPONSE_LAST", P | R | D | L, {AETH, END}},
    {0xB0, "XRC_RDMA_READ_RESPONSE_ONLY", P | R | D | O, {AETH, END}},
    {0xB1, "XRC_ACK", P | A | O, {AETH, END}},
    {0xB2, "XRC_ATOMIC_ACK", P | A | T | O, {AETH, ATACK, END}},
    {0xB3, "XRC_COMPARE_SWAP", Q | T | O, {XRCETH, ATOM, END}},
    {0xB4, "XRC_FETCH_ADD", Q | T | O, {XRCETH, ATOM, END}},
    {0xB6, "XRC_SEND_LAST_INV", Q | S | D | L | V, {XRCETH, IETH, END}},
    {0xB7, "XRC_SEND_ONLY_INV", Q | S | D | O | V, {XRCETH, IETH, END}},
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* Each expected row: name, header set, offsets as running sums, total length. */
static void test_every_row(void **state)
{
	(void)state;
	for (size_t i = 0; i < NROWS; i++) {
		const struct rt_opcode_info *info = rt_opcode_lookup(rows[i].opcode);
		uint16_t bits = 0;
		unsigned off = 0;

		assert_non_null(info);
		assert_string_equal(info->name, rows[i].name);
		for (const int *h = rows[i].hdrs; *h != END; h++) {
			if (table_off(info, *h) != off)
				fail_msg("%s: header %d at %u, expected %u", rows[i].name, *h,
				         table_off(info, *h), off);
			bits |= hdr_def[*h].bit;
			off += hdr_def[*h].size;
		}
		assert_int_equal(info->hdrs, bits);
		assert_int_equal(info->ext_len, off);
		if (info->flags != rows[i].flags ||
		    rt_opcode_flags(rows[i].opcode) != rows[i].flags)
			fail_msg("%s: flags 0x%04x, expected 0x%04x", rows[i].name, info->flags,
			         rows[i].flags);
	}
}

/*
 * Flags against what the name says, for every defined opcode, and the
 * rules every row keeps: a request or a response (a CNP neither), one
 * position, payload only where data travels.
 */
static void test_flags_follow_names(void **state)
{
	(void)state;
	for (unsigned op = 0; op < 256; op++) {
		const struct rt_opcode_info *info = rt_opcode_lookup((uint8_t)op);
		uint16_t f = rt_opcode_flags((uint8_t)op);
		const char *n;
		int positions;

		if (!info) {
			assert_int_equal(f, 0);
			continue;
		}
		n = info->name;
		positions = !!(f & F) + !!(f & M) + !!(f & L) + !!(f & O);
		if (op == RT_OPCODE_CNP) {
			assert_int_equal(f, C);
			continue;
		}
		assert_int_equal(positions, 1);
		assert_int_equal(!!(f & Q) + !!(f & P), 1);
		assert_int_equal(!!(f & F), strstr(n, "_FIRST") != NULL);
		assert_int_equal(!!(f & M), strstr(n, "_MIDDLE") != NULL);
		assert_int_equal(!!(f & L), strstr(n, "_LAST") != NULL);
		assert_int_equal(!!(f & I), strstr(n, "_IMM") != NULL);
		assert_int_equal(!!(f & V), strstr(n, "_INV") != NULL);
		assert_int_equal(!!(f & S), strstr(n, "_SEND") != NULL);
		assert_int_equal(!!(f & R), strstr(n, "_READ") != NULL);
		assert_int_equal(!!(f & A), strstr(n, "ACK") != NULL);
		assert_int_equal(!!(f & P),
		                 strstr(n, "RESPONSE") != NULL || strstr(n, "ACK") != NULL);
		/* the AETH travels with every response but READ_RESPONSE_MIDDLE */
		if (f & P)
			assert_int_equal(!!(info->hdrs & RT_H_AETH), !(f & M));
		/* data headers go with requests only */
		if (info->hdrs & (RT_H_RETH | RT_H_ATOMICETH | RT_H_DETH))
			assert_true(f & Q);
		/* an atomic request carries AtomicETH, its ACK AtomicAckETH (ATOMIC WRITE: payload) */
		if ((f & T) && (f & Q) && !(f & W))
			assert_true(info->hdrs & RT_H_ATOMICETH);
		if ((f & T) && (f & P))
			assert_true(info->hdrs & RT_H_ATOMICACKETH);
		/* payload: sends, writes and read responses */
		assert_int_equal(!!(f & D), !!(f & (S | W)) || ((f & R) && (f & P)));
	}
	assert_int_equal(rt_opcode_flags(0x15), 0);
	assert_true((rt_opcode_flags(0x04) & RT_OPF_START) && (rt_opcode_flags(0x04) & RT_OPF_END));
	assert_false(rt_opcode_flags(0x07) & (RT_OPF_START | RT_OPF_END));
}

/* A few rows spelled out as literal numbers. */
static void test_literal_rows(void **state)
{
	const struct rt_opcode_info *i;
	(void)state;

	i = rt_opcode_lookup(0x1C); /* FLUSH: FETH then RETH */
	assert_int_equal(i->off_feth, 0);
	assert_int_equal(i->off_reth, 4);
	assert_int_equal(i->ext_len, 20);
	i = rt_opcode_lookup(0x53); /* RD compare&swap */
	assert_int_equal(i->off_rdeth, 0);
	assert_int_equal(i->off_deth, 4);
	assert_int_equal(i->off_atomiceth, 12);
	assert_int_equal(i->ext_len, 40);
	i = rt_opcode_lookup(0xAB); /* XRC write only with immediate */
	assert_int_equal(i->off_xrceth, 0);
	assert_int_equal(i->off_reth, 4);
	assert_int_equal(i->off_immdt, 20);
	assert_int_equal(i->ext_len, 24);
	i = rt_opcode_lookup(0x12);
	assert_int_equal(i->off_aeth, 0);
	assert_int_equal(i->off_atomicacketh, 4);
	assert_int_equal(i->ext_len, 12);
	i = rt_opcode_lookup(0x65);
	assert_int_equal(i->off_deth, 0);
	assert_int_equal(i->off_immdt, 8);
	assert_int_equal(i->ext_len, 12);
	i = rt_opcode_lookup(RT_OPCODE_CNP);
	assert_int_equal(i->off_cnp, 0);
	assert_int_equal(i->ext_len, 16);
	i = rt_opcode_lookup(0x0B);
	assert_int_equal(i->off_reth, 0);
	assert_int_equal(i->off_immdt, 16);
	assert_int_equal(i->ext_len, 20);
}

/* Opcodes not in the expected list are not in the table. */
static void test_undefined(void **state)
{
	unsigned defined = 0;
	(void)state;

	for (unsigned op = 0; op < 256; op++) {
		bool expected = false;

		for (size_t i = 0; i < NROWS; i++)
			expected |= rows[i].opcode == op;
		if (expected != (rt_opcode_lookup((uint8_t)op) != NULL))
			fail_msg("opcode 0x%02x: expected %s", op,
			         expected ? "defined" : "undefined");
		defined += expected;
	}
	assert_int_equal(defined, NROWS);
	assert_null(rt_opcode_lookup(0x15));
	assert_null(rt_opcode_lookup(0x2C));
	assert_null(rt_opcode_lookup(0x80));
	assert_null(rt_opcode_lookup(0xFF));
}

/*
 * Every defined entry: present headers in wire order at ascending offsets,
 * packed without gaps (sizes sum to ext_len), absent headers at offset 0,
 * the name starting with its transport class.
 */
static void test_consistency(void **state)
{
	static const int wire_order[NHDR] = {RDETH, XRCETH, DETH, FETH, RETH, ATOM,
	                                     AETH,  ATACK,  IMM,  IETH, CNPR};
	(void)state;

	for (unsigned op = 0; op < 256; op++) {
		const struct rt_opcode_info *info = rt_opcode_lookup((uint8_t)op);
		unsigned sum = 0;
		int last = -1;
		const char *prefix = rt_transport_name((uint8_t)op);

		if (!info)
			continue;
		for (int k = 0; k < NHDR; k++) {
			int h = wire_order[k];

			if (!(info->hdrs & hdr_def[h].bit)) {
				assert_int_equal(table_off(info, h), 0);
				continue;
			}
			assert_true((int)table_off(info, h) > last);
			assert_int_equal(table_off(info, h), sum);
			last = table_off(info, h);
			sum += hdr_def[h].size;
		}
		assert_int_equal(sum, info->ext_len);
		assert_memory_equal(info->name, prefix, strlen(prefix));
		assert_int_equal(info->name[strlen(prefix)] == '_' || op == RT_OPCODE_CNP, 1);
	}
}

static void test_transport_names(void **state)
{
	(void)state;
	assert_string_equal(rt_transport_name(0x04), "RC");
	assert_string_equal(rt_transport_name(0x24), "UC");
	assert_string_equal(rt_transport_name(0x44), "RD");
	assert_string_equal(rt_transport_name(0x64), "UD");
	assert_string_equal(rt_transport_name(0x81), "CNP");
	assert_string_equal(rt_transport_name(0xA4), "XRC");
	assert_string_equal(rt_transport_name(0xC0), "?");
	assert_string_equal(rt_transport_name(0xFF), "?");
	assert_int_equal(rt_opcode_transport(0x64), RT_TR_UD);
	assert_int_equal(rt_opcode_transport(0xB1), RT_TR_XRC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_row),    cmocka_unit_test(test_flags_follow_names),
	    cmocka_unit_test(test_literal_rows), cmocka_unit_test(test_undefined),
	    cmocka_unit_test(test_consistency),  cmocka_unit_test(test_transport_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
