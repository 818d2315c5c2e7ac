/* Unit test of the addresses-only decode and of the addresses read in place (what splits an analysis by host pair): every frame of the bundled captures and frames at each edge get the addresses the whole decode gives them. */
#include <dirent.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/dissect.h"

static const char *const *dirs;
static int ndirs;

/* The addresses read in place (4 bytes each for IPv4, else 16; the destination after the source) are the record's. */
static bool same_addresses(uint8_t ver, const uint8_t *src, const struct rt_record *r)
{
	unsigned len = ver == 4 ? 4 : 16;
	return ver == r->ip_version && !memcmp(src, r->src_ip, len) &&
	       !memcmp(src + len, r->dst_ip, len);
}

/* The frames of one capture: the addresses and IP version agree. Returns how many frames it has. */
static unsigned check_capture(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	if (!pc)
		return 0; /* a capture libpcap does not read (the reader's own tests cover those) */
	struct rt_dissect_opts whole, light;
	rt_dissect_opts_init(&whole);
	light = whole;
	light.addresses_only = true;
	struct pcap_pkthdr *h;
	const u_char *d;
	unsigned n = 0;
	while (pcap_next_ex(pc, &h, &d) == 1) {
		struct rt_frame f = {.data = d,
		                     .caplen = h->caplen,
		                     .wirelen = h->len,
		                     .linktype = pcap_datalink(pc)};
		struct rt_record a, b;
		if (rt_dissect(&whole, &f, &a) < 0)
			break;
		assert_int_equal(rt_dissect(&light, &f, &b), 0);
		if (a.ip_version != b.ip_version || memcmp(a.src_ip, b.src_ip, 16) ||
		    memcmp(a.dst_ip, b.dst_ip, 16))
			fail_msg("%s frame %u: the addresses-only decode differs", path, n + 1);
		uint8_t ver;
		const uint8_t *src = rt_dissect_addresses(&f, &ver);
		if (src && !same_addresses(ver, src, &a))
			fail_msg("%s frame %u: the addresses read in place differ", path, n + 1);
		n++;
	}
	pcap_close(pc);
	return n;
}

static void test_addresses_agree(void **state)
{
	(void)state;
	unsigned frames = 0;
	for (int i = 0; i < ndirs; i++) {
		DIR *dir = opendir(dirs[i]);
		assert_non_null(dir);
		struct dirent *e;
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			if (len < 5 || strcmp(e->d_name + len - 5, ".pcap"))
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", dirs[i], e->d_name);
			frames += check_capture(path);
		}
		closedir(dir);
	}
	assert_true(frames > 1000); /* the captures were there */
}

/* An Ethernet frame of `len` bytes: `tags` VLAN tags of type tag_type, then ethertype `type` and an IP header. */
static uint32_t edge_frame(uint8_t *f, uint32_t len, unsigned tags, uint16_t tag_type,
                           uint16_t type, uint8_t ver_ihl, uint8_t proto)
{
	memset(f, 0, 128);
	memset(f, 0x02, 12);
	uint32_t off = 12;
	for (unsigned t = 0; t < tags; t++, off += 4) {
		f[off] = (uint8_t)(tag_type >> 8);
		f[off + 1] = (uint8_t)tag_type;
		f[off + 3] = 7; /* VLAN 7 */
	}
	f[off] = (uint8_t)(type >> 8);
	f[off + 1] = (uint8_t)type;
	uint8_t *ip = f + off + 2;
	ip[0] = ver_ihl;
	if (ver_ihl >> 4 == 6) {
		ip[4] = 0;
		ip[5] = 40;
		ip[6] = proto;
		for (unsigned i = 0; i < 32; i++)
			ip[8 + i] = (uint8_t)(0x20 + i); /* source, destination */
	} else {
		ip[2] = 0;
		ip[3] = 60;
		ip[6] = proto == 0xff ? 0x20 : 0; /* 0xff: a first fragment, UDP */
		ip[9] = proto == 0xff ? 17 : proto;
		for (unsigned i = 0; i < 8; i++)
			ip[12 + i] = (uint8_t)(10 + i); /* source, destination */
	}
	return len;
}

/* Frames at each edge of the addresses read in place: answered or not, and when answered, as decoded. */
static void test_addresses_in_place(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		uint32_t len;
		unsigned tags;
		uint16_t tag_type, type;
		uint8_t ver_ihl, proto;
		int link;
		bool answered;
	} c[] = {
	    {"IPv4 UDP", 80, 0, 0, 0x0800, 0x45, 17, RT_LINK_ETHERNET, true},
	    {"IPv4, 58 bytes", 58, 0, 0, 0x0800, 0x45, 17, RT_LINK_ETHERNET, true},
	    {"IPv4, 57 bytes", 57, 0, 0, 0x0800, 0x45, 17, RT_LINK_ETHERNET, false},
	    {"IPv4 with options", 80, 0, 0, 0x0800, 0x46, 17, RT_LINK_ETHERNET, true},
	    {"IPv4, IHL 3", 80, 0, 0, 0x0800, 0x43, 17, RT_LINK_ETHERNET, true},
	    {"IPv4 fragment", 80, 0, 0, 0x0800, 0x45, 0xff, RT_LINK_ETHERNET, true},
	    {"IPv4 GRE", 80, 0, 0, 0x0800, 0x45, 47, RT_LINK_ETHERNET, false},
	    {"IPv4 version 6", 80, 0, 0, 0x0800, 0x65, 17, RT_LINK_ETHERNET, false},
	    {"VLAN IPv6 UDP", 80, 1, 0x8100, 0x86dd, 0x60, 17, RT_LINK_ETHERNET, true},
	    {"VLAN IPv6 GRE", 80, 1, 0x8100, 0x86dd, 0x60, 47, RT_LINK_ETHERNET, false},
	    {"two 802.1Q tags", 90, 2, 0x8100, 0x0800, 0x45, 17, RT_LINK_ETHERNET, false},
	    {"QinQ", 90, 1, 0x88a8, 0x0800, 0x45, 17, RT_LINK_ETHERNET, false},
	    {"Linux cooked", 80, 0, 0, 0x0800, 0x45, 17, RT_LINK_LINUX_SLL, false},
	};
	struct rt_dissect_opts light;
	rt_dissect_opts_init(&light);
	light.addresses_only = true;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint8_t buf[128];
		struct rt_frame f = {.data = buf, .linktype = c[i].link};
		f.caplen = f.wirelen = edge_frame(buf, c[i].len, c[i].tags, c[i].tag_type,
		                                  c[i].type, c[i].ver_ihl, c[i].proto);
		uint8_t ver = 0;
		const uint8_t *src = rt_dissect_addresses(&f, &ver);
		bool got = src != NULL;
		if (got != c[i].answered)
			fail_msg("%s: %s", c[i].what, got ? "answered" : "not answered");
		struct rt_record r;
		rt_dissect(&light, &f, &r);
		if (got && !same_addresses(ver, src, &r))
			fail_msg("%s: the addresses differ from the decode's", c[i].what);
		if (got && !ver)
			fail_msg("%s: no IP version", c[i].what);
	}
}

int main(int argc, char **argv)
{
	dirs = (const char *const *)argv + 1;
	ndirs = argc - 1;
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_addresses_agree),
	                                   cmocka_unit_test(test_addresses_in_place)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
