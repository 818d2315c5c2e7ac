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
	[RDETH] = {RT_H_RDETH, 4}, [XRCETH] = {RT_H_XRCETH, 4}, [DETH] = {RT_H_DETH, 8},
	[FETH] = {RT_H_FETH, 4},   [RETH] = {RT_H_RETH, 16},    [ATOM] = {RT_H_ATOMICETH, 28},
	[AETH] = {RT_H_AETH, 4},   [ATACK] = {RT_H_ATOMICACKETH, 8}, [IMM] = {RT_H_IMMDT, 4},
	[IETH] = {RT_H_IETH, 4},   [CNPR] = {RT_H_CNP, 16},
};

static uint8_t table_off(const struct rt_opcode_info *info, int h)
{
	switch (h) {
	case RDETH: return info->off_rdeth;
	case XRCETH: return info->off_xrceth;
	case DETH: return info->off_deth;
	case FETH: return info->off_feth;
	case RETH: return info->off_reth;
	case ATOM: return info->off_atomiceth;
	case AETH: return info->off_aeth;
	case ATACK: return info->off_atomicacketh;
	case IMM: return info->off_immdt;
	case IETH: return info->off_ieth;
	default: return info->off_cnp;
	}
}

/* One expected opcode: the headers after the BTH in wire order, -1 terminated. */
struct row {
	uint8_t opcode;
	const char *name;
	int hdrs[5];
};

#define END -1
static const struct row rows[] = {
	/* RC */
	{0x00, "RC_SEND_FIRST", {END}},
	{0x01, "RC_SEND_MIDDLE", {END}},
	{0x02, "RC_SEND_LAST", {END}},
	{0x03, "RC_SEND_LAST_IMM", {IMM, END}},
	{0x04, "RC_SEND_ONLY", {END}},
	{0x05, "RC_SEND_ONLY_IMM", {IMM, END}},
	{0x06, "RC_RDMA_WRITE_FIRST", {RETH, END}},
	{0x07, "RC_RDMA_WRITE_MIDDLE", {END}},
	{0x08, "RC_RDMA_WRITE_LAST", {END}},
	{0x09, "RC_RDMA_WRITE_LAST_IMM", {IMM, END}},
	{0x0A, "RC_RDMA_WRITE_ONLY", {RETH, END}},
	{0x0B, "RC_RDMA_WRITE_ONLY_IMM", {RETH, IMM, END}},
	{0x0C, "RC_RDMA_READ_REQUEST", {RETH, END}},
	{0x0D, "RC_RDMA_READ_RESPONSE_FIRST", {AETH, END}},
	{0x0E, "RC_RDMA_READ_RESPONSE_MIDDLE", {END}},
	{0x0F, "RC_RDMA_READ_RESPONSE_LAST", {AETH, END}},
	{0x10, "RC_RDMA_READ_RESPONSE_ONLY", {AETH, END}},
	{0x11, "RC_ACK", {AETH, END}},
	{0x12, "RC_ATOMIC_ACK", {AETH, ATACK, END}},
	{0x13, "RC_COMPARE_SWAP", {ATOM, END}},
	{0x14, "RC_FETCH_ADD", {ATOM, END}},
	{0x16, "RC_SEND_LAST_INV", {IETH, END}},
	{0x17, "RC_SEND_ONLY_INV", {IETH, END}},
	{0x1C, "RC_FLUSH", {FETH, RETH, END}},
	{0x1D, "RC_ATOMIC_WRITE", {RETH, END}},
	/* UC */
	{0x20, "UC_SEND_FIRST", {END}},
	{0x21, "UC_SEND_MIDDLE", {END}},
	{0x22, "UC_SEND_LAST", {END}},
	{0x23, "UC_SEND_LAST_IMM", {IMM, END}},
	{0x24, "UC_SEND_ONLY", {END}},
	{0x25, "UC_SEND_ONLY_IMM", {IMM, END}},
	{0x26, "UC_RDMA_WRITE_FIRST", {RETH, END}},
	{0x27, "UC_RDMA_WRITE_MIDDLE", {END}},
	{0x28, "UC_RDMA_WRITE_LAST", {END}},
	{0x29, "UC_RDMA_WRITE_LAST_IMM", {IMM, END}},
	{0x2A, "UC_RDMA_WRITE_ONLY", {RETH, END}},
	{0x2B, "UC_RDMA_WRITE_ONLY_IMM", {RETH, IMM, END}},
	/* RD */
	{0x40, "RD_SEND_FIRST", {RDETH, DETH, END}},
	{0x41, "RD_SEND_MIDDLE", {RDETH, DETH, END}},
	{0x42, "RD_SEND_LAST", {RDETH, DETH, END}},
	{0x43, "RD_SEND_LAST_IMM", {RDETH, DETH, IMM, END}},
	{0x44, "RD_SEND_ONLY", {RDETH, DETH, END}},
	{0x45, "RD_SEND_ONLY_IMM", {RDETH, DETH, IMM, END}},
	{0x46, "RD_RDMA_WRITE_FIRST", {RDETH, DETH, RETH, END}},
	{0x47, "RD_RDMA_WRITE_MIDDLE", {RDETH, DETH, END}},
	{0x48, "RD_RDMA_WRITE_LAST", {RDETH, DETH, END}},
	{0x49, "RD_RDMA_WRITE_LAST_IMM", {RDETH, DETH, IMM, END}},
	{0x4A, "RD_RDMA_WRITE_ONLY", {RDETH, DETH, RETH, END}},
	{0x4B, "RD_RDMA_WRITE_ONLY_IMM", {RDETH, DETH, RETH, IMM, END}},
	{0x4C, "RD_RDMA_READ_REQUEST", {RDETH, DETH, RETH, END}},
	{0x4D, "RD_RDMA_READ_RESPONSE_FIRST", {RDETH, AETH, END}},
	{0x4E, "RD_RDMA_READ_RESPONSE_MIDDLE", {RDETH, END}},
	{0x4F, "RD_RDMA_READ_RESPONSE_LAST", {RDETH, AETH, END}},
	{0x50, "RD_RDMA_READ_RESPONSE_ONLY", {RDETH, AETH, END}},
	{0x51, "RD_ACK", {RDETH, AETH, END}},
	{0x52, "RD_ATOMIC_ACK", {RDETH, AETH, ATACK, END}},
	{0x53, "RD_COMPARE_SWAP", {RDETH, DETH, ATOM, END}},
	{0x54, "RD_FETCH_ADD", {RDETH, DETH, ATOM, END}},
	{0x55, "RD_RESYNC", {RDETH, DETH, END}},
	/* UD */
	{0x64, "UD_SEND_ONLY", {DETH, END}},
	{0x65, "UD_SEND_ONLY_IMM", {DETH, IMM, END}},
	/* CNP */
	{0x81, "CNP", {CNPR, END}},
	/* XRC */
	{0xA0, "XRC_SEND_FIRST", {XRCETH, END}},
	{0xA1, "XRC_SEND_MIDDLE", {XRCETH, END}},
	{0xA2, "XRC_SEND_LAST", {XRCETH, END}},
	{0xA3, "XRC_SEND_LAST_IMM", {XRCETH, IMM, END}},
	{0xA4, "XRC_SEND_ONLY", {XRCETH, END}},
	{0xA5, "XRC_SEND_ONLY_IMM", {XRCETH, IMM, END}},
	{0xA6, "XRC_RDMA_WRITE_FIRST", {XRCETH, RETH, END}},
	{0xA7, "XRC_RDMA_WRITE_MIDDLE", {XRCETH, END}},
	{0xA8, "XRC_RDMA_WRITE_LAST", {XRCETH, END}},
	{0xA9, "XRC_RDMA_WRITE_LAST_IMM", {XRCETH, IMM, END}},
	{0xAA, "XRC_RDMA_WRITE_ONLY", {XRCETH, RETH, END}},
	{0xAB, "XRC_RDMA_WRITE_ONLY_IMM", {XRCETH, RETH, IMM, END}},
	{0xAC, "XRC_RDMA_READ_REQUEST", {XRCETH, RETH, END}},
	{0xAD, "XRC_RDMA_READ_RESPONSE_FIRST", {AETH, END}},
	{0xAE, "XRC_RDMA_READ_RESPONSE_MIDDLE", {END}},
	{0xAF, "XRC_RDMA_READ_RESPONSE_LAST", {AETH, END}},
	{0xB0, "XRC_RDMA_READ_RESPONSE_ONLY", {AETH, END}},
	{0xB1, "XRC_ACK", {AETH, END}},
	{0xB2, "XRC_ATOMIC_ACK", {AETH, ATACK, END}},
	{0xB3, "XRC_COMPARE_SWAP", {XRCETH, ATOM, END}},
	{0xB4, "XRC_FETCH_ADD", {XRCETH, ATOM, END}},
	{0xB6, "XRC_SEND_LAST_INV", {XRCETH, IETH, END}},
	{0xB7, "XRC_SEND_ONLY_INV", {XRCETH, IETH, END}},
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
	}
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
			fail_msg("opcode 0x%02x: expected %s", op, expected ? "defined" : "undefined");
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
		cmocka_unit_test(test_every_row),
		cmocka_unit_test(test_literal_rows),
		cmocka_unit_test(test_undefined),
		cmocka_unit_test(test_consistency),
		cmocka_unit_test(test_transport_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
