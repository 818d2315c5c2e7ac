/* Prints the RDMA CM REQ/REP fields the dissector decodes from a capture, one frame a line (tshark
 * test). */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>

#include "dissect/dissect.h"

int main(int argc, char **argv)
{
	char perr[PCAP_ERRBUF_SIZE];
	struct rt_dissect_opts opts;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t n = 0;
	pcap_t *pc;

	if (argc != 2) {
		fprintf(stderr, "usage: cm_fields CAPTURE\n");
		return 2;
	}
	if (!(pc = pcap_open_offline(argv[1], perr))) {
		fprintf(stderr, "cm_fields: %s\n", perr);
		return 1;
	}
	rt_dissect_opts_init(&opts);
	/* frame, attribute, local communication ID, remote communication ID, local QPN */
	while (pcap_next_ex(pc, &h, &data) == 1) {
		struct rt_record r;

		n++;
		rt_dissect_buf(&opts, pcap_datalink(pc), data, h->caplen, h->len, &r);
		if (r.layers & RT_L_CM)
			printf("%" PRIu64 "\t0x%04x\t0x%08x\t0x%08x\t0x%06x\n", n, r.cm.attr,
			       r.cm.local_comm_id, r.cm.remote_comm_id, r.cm.local_qpn);
	}
	pcap_close(pc);
	return 0;
}
