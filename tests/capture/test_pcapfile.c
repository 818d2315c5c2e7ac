/* The native capture file reader against libpcap on every capture file of the directories given, plain and gzip'd. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "capture/pcapfile.h"
#include "pcapfile_build.h"

static char **dirs;
static int ndirs;

/* Every frame of `path` as libpcap reads it (nanosecond precision) against the native reader, plain and gzip'd. */
static void cross_check(const char *path)
{
	char perr[PCAP_ERRBUF_SIZE], errbuf[RT_ERRBUF_SIZE];
	pcap_t *pc =
	    pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	assert_non_null(pc);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	struct buf raw = {0};
	uint8_t tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof(tmp), fp)) > 0)
		put(&raw, tmp, n);
	fclose(fp);
	struct buf gz = gzip(&raw, false);
	struct rt_pcapfile *f[2];
	assert_int_equal(rt_pcapfile_open_mem(&f[0], raw.p, raw.len, 0, path, errbuf), 0);
	assert_int_equal(rt_pcapfile_open_mem(&f[1], gz.p, gz.len, 4096, path, errbuf), 0);
	int dlt = pcap_datalink(pc);
	int want_lt = dlt == DLT_RAW ? 101 : dlt;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t frames = 0;
	while (pcap_next_ex(pc, &h, &data) == 1) {
		frames++;
		for (int k = 0; k < 2; k++) {
			struct rt_frame fr;
			assert_int_equal(rt_pcapfile_next(f[k], &fr, 1, errbuf), 1);
			/* libpcap sign-extends the 32-bit seconds of classic pcap: read them unsigned */
			uint64_t sec = rt_pcapfile_info(f[k])->format == RT_PCAPFILE_PCAP
			                   ? (uint32_t)h->ts.tv_sec
			                   : (uint64_t)h->ts.tv_sec;
			assert_int_equal(fr.ts_ns, sec * 1000000000u + (uint64_t)h->ts.tv_usec);
			assert_int_equal(fr.caplen, h->caplen);
			assert_int_equal(fr.wirelen, h->len);
			assert_int_equal(fr.linktype, want_lt);
			assert_int_equal(fr.seq, frames);
			assert_memory_equal(fr.data, data, h->caplen);
		}
	}
	for (int k = 0; k < 2; k++) {
		struct rt_frame fr;
		assert_int_equal(rt_pcapfile_next(f[k], &fr, 1, errbuf), 0);
		rt_pcapfile_close(f[k]);
	}
	assert_true(frames > 0);
	pcap_close(pc);
	free(raw.p);
	free(gz.p);
}

static void test_libpcap_cross_check(void **state)
{
	(void)state;
	unsigned files = 0;
	for (int d = 0; d < ndirs; d++) {
		DIR *dir = opendir(dirs[d]);
		assert_non_null(dir);
		struct dirent *de;
		while ((de = readdir(dir)) != NULL) {
			size_t l = strlen(de->d_name);
			if (!(l > 5 && !strcmp(de->d_name + l - 5, ".pcap")) &&
			    !(l > 7 && !strcmp(de->d_name + l - 7, ".pcapng")))
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", dirs[d], de->d_name);
			cross_check(path);
			files++;
		}
		closedir(dir);
	}
	if (ndirs && !files)
		fail_msg("no capture files in the directories given");
	print_message("%u files read alike\n", files);
}

int main(int argc, char **argv)
{
	dirs = argv + 1;
	ndirs = argc - 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_libpcap_cross_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
