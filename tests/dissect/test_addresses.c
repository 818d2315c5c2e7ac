/* Unit test of the addresses-only decode (what splits an analysis by host pair): every frame of the bundled captures gets the addresses the whole decode gives it. */
#include <dirent.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/dissect.h"

static const char *const *dirs;
static int ndirs;

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

int main(int argc, char **argv)
{
	dirs = (const char *const *)argv + 1;
	ndirs = argc - 1;
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_addresses_agree)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
