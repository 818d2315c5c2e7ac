/* Unit tests of the RoCEv2 ICRC: IPv4/IPv6 against a bitwise reference, masked fields, flips, truncation, a real frame. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "dissect/dissect.h"
#include "dissect/opcodes.h"
#include "test_pkt.h"

static const char *capture_path; /* argv[1]: a bundled rxe RoCEv2 capture */

/* CRC-32 (reflected 0x04C11DB7), one bit at a time: independent of zlib. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
	}
	return ~c;
}

/*
 * Reference ICRC: copy 8 bytes of ones and the whole packet from its IP
 * header to just before the ICRC into one buffer, set the variant fields
 * to ones in place, CRC the lot.
 */
static uint32_t ref_icrc(const uint8_t *ip, size_t len)
{
	uint8_t *buf = malloc(8 + len);
	uint8_t *h = buf + 8;
	size_t hl;
	uint32_t c;

	assert_non_null(buf);
	memset(buf, 0xFF, 8);
	memcpy(h, ip, len);
	if (h[0] >> 4 == 4) {
		hl = (size_t)(h[0] & 0x0F) * 4;
		h[1] = h[8] = h[10] = h[11] = 0xFF; /* TOS, TTL, checksum */
	} else {
		hl = 40;
		h[0] |= 0x0F; /* traffic class (low nibble of byte 0 + high of 1) and flow label */
		h[1] = h[2] = h[3] = 0xFF;
		h[7] = 0xFF; /* hop limit */
	}
	h[hl + 6] = h[hl + 7] = 0xFF; /* UDP checksum */
	h[hl + 8 + 4] = 0xFF;         /* BTH FECN/BECN/resv6 */
	c = crc32_bitwise(buf, 8 + len);
	free(buf);
	return c;
}

/* Ethernet + IPv4 (optionally with one option word) or IPv6 + UDP + BTH + RETH + payload + ICRC. */
static uint32_t build(struct pkt *p, int ipv, int ip_options, uint32_t payload)
{
	uint32_t ip_off, udp_off;

	memset(p, 0, sizeof(*p));
	pk_eth(p, ipv == 4 ? 0x0800 : 0x86DD);
	if (ipv == 4) {
		ip_off = pk_ipv4(p, 0x6A, 64, 17);
		if (ip_options) {
			p->b[ip_off] = 0x46;
			pk_be32(p, 0x01010101); /* four NOP options */
		}
	} else {
		ip_off = pk_ipv6(p, 0x6A, 64, 17);
	}
	udp_off = pk_udp(p, 50000, RT_ROCEV2_PORT);
	pk_bth(p, 0x0A, 0, (uint8_t)((4 - payload % 4) % 4), 0xFFFF, 0, 0, 0x11, 1, 77);
	pk_be64(p, 0x7F0012345000ull);
	pk_be32(p, 0x2211);
	pk_be32(p, payload);
	for (uint32_t i = 0; i < payload; i++)
		pk_u8(p, (uint8_t)(i * 7));
	pk_fill(p, 0, (4 - payload % 4) % 4);
	p->len += 4; /* ICRC */
	pk_udp_done(p, udp_off);
	if (ipv == 4)
		pk_ipv4_done(p, ip_off);
	else
		pk_ipv6_done(p, ip_off);
	p->len -= 4;
	pk_le32(p, ref_icrc(p->b + ip_off, p->len - ip_off));
	return ip_off;
}

static void dissect(const struct pkt *p, bool verify, uint32_t caplen, struct rt_record *r)
{
	struct rt_dissect_opts o;
	uint8_t *copy = malloc(caplen);

	assert_non_null(copy);
	memcpy(copy, p->b, caplen);
	rt_dissect_opts_init(&o);
	o.verify_icrc = verify;
	assert_int_equal(rt_dissect_buf(&o, RT_LINK_ETHERNET, copy, caplen, p->len, r), 0);
	free(copy);
}

static void test_reference_crc(void **state)
{
	(void)state;
	assert_int_equal(crc32_bitwise((const uint8_t *)"123456789", 9), 0xCBF43926);
}

static void check_good(int ipv, int options, uint32_t payload)
{
	struct pkt p;
	struct rt_record r;
	uint32_t ip_off = build(&p, ipv, options, payload), crc = 0;
	uint32_t want = ref_icrc(p.b + ip_off, p.len - 4 - ip_off);

	assert_int_equal(rt_icrc_compute(p.b + ip_off, p.len - 4 - ip_off, &crc), 0);
	assert_int_equal(crc, want);
	dissect(&p, true, p.len, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_int_equal(r.icrc_computed, want);
	assert_int_equal(r.icrc_stored, want);
	assert_int_equal(r.events, 0);
}

static void test_good(void **state)
{
	(void)state;
	/* every length across the 8-byte steps and the short/long split (256 bytes after the BTH) */
	for (uint32_t payload = 0; payload < 300; payload++) {
		check_good(4, 0, payload);
		check_good(4, 1, payload);
		check_good(6, 0, payload);
	}
	check_good(4, 0, 1024);
	check_good(6, 0, 4096);
}

/* Flip every byte from the IP header on: masked fields keep the ICRC, others break it. */
static void check_flips(int ipv)
{
	struct pkt p;
	uint32_t ip_off = build(&p, ipv, 0, 40);
	uint32_t hl = ipv == 4 ? 20 : 40, udp = ip_off + hl, bth = udp + 8;

	for (uint32_t i = ip_off; i < p.len; i++) {
		struct pkt q = p;
		struct rt_record r;
		bool masked, parsed;

		q.b[i] ^= 0x01;
		if (ipv == 4)
			masked = i == ip_off + 1 || i == ip_off + 8 || i == ip_off + 10 ||
			         i == ip_off + 11;
		else
			masked = (i >= ip_off + 1 && i <= ip_off + 3) || i == ip_off + 7;
		masked |= i == udp + 6 || i == udp + 7 || i == bth + 4;
		/* fields the dissector itself depends on: flipping them changes the parse */
		if (ipv == 4)
			parsed = i == ip_off || i == ip_off + 2 || i == ip_off + 3 ||
			         i == ip_off + 6 || i == ip_off + 7 || i == ip_off + 9;
		else
			parsed =
			    i == ip_off || i == ip_off + 4 || i == ip_off + 5 || i == ip_off + 6;
		parsed |= (i >= udp + 2 && i <= udp + 5) || i == bth || i == bth + 1;
		if (parsed)
			continue;
		dissect(&q, true, q.len, &r);
		if (r.icrc != (masked ? RT_ICRC_OK : RT_ICRC_BAD))
			fail_msg("IPv%d byte %u flipped: icrc %s", ipv, i - ip_off,
			         rt_icrc_name(r.icrc));
		assert_int_equal(r.events, masked ? 0 : RT_EV_ICRC_BAD);
		assert_int_equal(r.kind, RT_KIND_ROCE);
	}
}

static void test_flips(void **state)
{
	(void)state;
	check_flips(4);
	check_flips(6);
}

static void test_truncated_and_off(void **state)
{
	struct pkt p;
	struct rt_record r;
	uint32_t ip_off = build(&p, 6, 0, 20);
	(void)state;

	dissect(&p, true, p.len - 1, &r);
	assert_int_equal(r.icrc, RT_ICRC_UNCHECKED);
	assert_int_equal(r.events, RT_EV_ICRC_TRUNCATED);
	assert_false(r.truncated); /* every header whole: only the ICRC is cut */
	assert_int_equal(r.hdrs, RT_H_RETH);

	dissect(&p, false, p.len, &r);
	assert_int_equal(r.icrc, RT_ICRC_UNCHECKED);
	assert_int_equal(r.events, 0);
	assert_int_equal(r.icrc_stored, ref_icrc(p.b + ip_off, p.len - 4 - ip_off));
	assert_int_equal(r.icrc_computed, 0);

	/* a bad ICRC goes unnoticed with verification off */
	p.b[p.len - 1] ^= 0xFF;
	dissect(&p, false, p.len, &r);
	assert_int_equal(r.icrc, RT_ICRC_UNCHECKED);
	dissect(&p, true, p.len, &r);
	assert_int_equal(r.icrc, RT_ICRC_BAD);
	assert_int_equal(r.events, RT_EV_ICRC_BAD);
}

static void test_compute_errors(void **state)
{
	struct pkt p;
	uint32_t crc = 0x12345678;
	uint32_t ip_off = build(&p, 4, 0, 0);
	(void)state;

	assert_int_equal(rt_icrc_compute(p.b + ip_off, 0, &crc), -EINVAL);
	assert_int_equal(rt_icrc_compute(p.b + ip_off, 20 + 8 + 11, &crc), -EINVAL);
	assert_int_equal(rt_icrc_compute(p.b + ip_off, 20 + 8 + 12, &crc), 0);
	p.b[ip_off] = 0x44;
	assert_int_equal(rt_icrc_compute(p.b + ip_off, 60, &crc), -EINVAL);
	p.b[ip_off] = 0x55;
	assert_int_equal(rt_icrc_compute(p.b + ip_off, 60, &crc), -EINVAL);
	p.b[ip_off] = 0x4F; /* 60-byte header: needs 80 bytes */
	assert_int_equal(rt_icrc_compute(p.b + ip_off, 79, &crc), -EINVAL);
	assert_int_equal(rt_icrc_compute(p.b + ip_off, 80, &crc), 0);
}

/* The first RoCE frame of a real capture verifies, and matches the reference. */
static void test_rxe_capture(void **state)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	struct rt_dissect_opts o;
	struct rt_record r;
	pcap_t *pc;
	int found = 0;
	(void)state;

	if (!capture_path)
		skip();
	pc = pcap_open_offline(capture_path, err);
	if (!pc) {
		print_message("skipping: cannot read %s: %s\n", capture_path, err);
		skip();
	}
	rt_dissect_opts_init(&o);
	while (!found && pcap_next_ex(pc, &h, &d) == 1) {
		assert_int_equal(rt_dissect_buf(&o, pcap_datalink(pc), d, h->caplen, h->len, &r),
		                 0);
		if (r.kind != RT_KIND_ROCE)
			continue;
		found = 1;
		assert_int_equal(r.icrc, RT_ICRC_OK);
		assert_int_equal(r.ip_version, 4);
		/* the IP header follows 14 bytes of Ethernet; the ICRC ends the UDP payload */
		uint32_t end = r.payload_off + r.payload_len + r.padcnt;
		assert_int_equal(ref_icrc(d + 14, end - 14), r.icrc_stored);
	}
	pcap_close(pc);
	assert_true(found);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reference_crc),  cmocka_unit_test(test_good),
	    cmocka_unit_test(test_flips),          cmocka_unit_test(test_truncated_and_off),
	    cmocka_unit_test(test_compute_errors), cmocka_unit_test(test_rxe_capture),
	};

	if (argc > 1)
		capture_path = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
