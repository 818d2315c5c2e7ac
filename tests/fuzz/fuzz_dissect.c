/* libFuzzer target for rt_dissect_buf(): byte 0 picks the link type and capture shape, the rest is the frame (ICRC on); rt_dissect_addresses() agrees with the addresses-only decode. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "dissect/opcodes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort (a crash for the fuzzer) when a record breaks the dissector's contract. */
static void check_record(const struct rt_record *r, uint32_t caplen, uint32_t wirelen)
{
	uint32_t wire = wirelen > caplen ? wirelen : caplen;

	/* truncated: a header the dissector needed was cut (a cut ICRC alone is its own event) */
	if (r->truncated != ((r->events & RT_EV_TRUNCATION_MASK & ~RT_EV_ICRC_TRUNCATED) != 0))
		abort();
	if (r->kind == RT_KIND_MALFORMED && !(r->events & ~RT_EV_TRUNCATION_MASK))
		abort();
	if (r->icrc != RT_ICRC_UNCHECKED &&
	    (!(r->layers & RT_L_BTH) || r->truncated || (r->events & RT_EV_ICRC_TRUNCATED)))
		abort();
	if (r->nvlan > 2 || r->caplen != caplen || r->wirelen != wire ||
	    ((r->events & RT_EV_WIRE_SHORT) != 0) != (wirelen < caplen))
		abort();
	if ((r->layers & RT_L_BTH) && r->payload_off &&
	    (r->payload_off > wire || r->payload_len > wire - r->payload_off))
		abort();
	if ((r->kind == RT_KIND_CNP) != ((r->layers & RT_L_BTH) && r->opcode == RT_OPCODE_CNP) &&
	    r->kind != RT_KIND_MALFORMED)
		abort();
	for (uint64_t bit = 1; bit; bit <<= 1)
		if ((r->events & bit) && !rt_event_name(bit))
			abort();
	if (r->hdrs && !rt_opcode_lookup(r->opcode))
		abort();
}

/*
 * Byte 0: bits 0-1 link type (Ethernet, SLL, SLL2, raw IP); bit 2 set
 * makes the wire length 100 bytes more than captured (a snapped capture),
 * bit 3 half of it (a record short of its own bytes).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int links[4] = {RT_LINK_ETHERNET, RT_LINK_LINUX_SLL, RT_LINK_LINUX_SLL2,
	                             RT_LINK_RAW};
	struct rt_dissect_opts opts;
	struct rt_record rec = {0};
	uint32_t caplen, wirelen;

	if (size < 1 || size - 1 > UINT32_MAX - 100)
		return 0;
	caplen = (uint32_t)(size - 1);
	wirelen = (data[0] & 8) ? caplen / 2 : caplen + ((data[0] & 4) ? 100 : 0);
	rt_dissect_opts_init(&opts);
	if (rt_dissect_buf(&opts, links[data[0] & 3], data + 1, caplen, wirelen, &rec) != 0)
		abort();
	check_record(&rec, caplen, wirelen);
	/* the addresses read in place, where they are, are the addresses-only decode's */
	struct rt_frame fr = {
	    .data = data + 1, .caplen = caplen, .wirelen = wirelen, .linktype = links[data[0] & 3]};
	uint8_t ver;
	const uint8_t *src = rt_dissect_addresses(&fr, &ver);
	if (src) {
		struct rt_record light = {0};
		opts.addresses_only = true;
		rt_dissect(&opts, &fr, &light);
		unsigned len = ver == 4 ? 4 : 16;
		if (ver != light.ip_version || memcmp(src, light.src_ip, len) ||
		    memcmp(src + len, light.dst_ip, len))
			abort();
	}
	return 0;
}
