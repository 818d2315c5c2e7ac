/* libFuzzer target for the native capture file reader: byte 0 picks the read size, the rest is the file. */
#include <stddef.h>
#include <stdint.h>

#include "capture/pcapfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Byte 0: how many bytes each read may return (0 = as many as asked, else
 * 1..255), so records are cut at every offset. Then the capture file (pcap,
 * pcapng, or either gzip'd). Every byte of every frame is read, so the
 * sanitizers see a frame that points past the data.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	if (rt_pcapfile_open_mem(&f, data + 1, size - 1, data[0], "fuzz", errbuf) < 0)
		return 0;
	struct rt_frame fr[16];
	volatile uint8_t sink = 0;
	int n;
	while ((n = rt_pcapfile_next(f, fr, 16, errbuf)) > 0) {
		for (int i = 0; i < n; i++) {
			for (uint32_t k = 0; k < fr[i].caplen; k++)
				sink ^= fr[i].data[k];
			sink ^= (uint8_t)rt_pcapfile_snaplen(f, fr[i].interface_id);
		}
	}
	struct rt_pcapfile_drops d;
	rt_pcapfile_drops(f, &d);
	sink ^= (uint8_t)(d.if_dropped + d.os_dropped);
	rt_pcapfile_close(f);
	(void)sink;
	return 0;
}
