/* Writes a pcap of packets from the traffic source's builder and a TSV of the fields it asked for (tshark test). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/gen/packet.h"

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* pcap headers are in the writer's byte order */
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: write_pcap OUT.pcap OUT.tsv\n");
		return 2;
	}
	FILE *pc = fopen(argv[1], "wb"), *tsv = fopen(argv[2], "w");
	if (!pc || !tsv) {
		perror("write_pcap");
		return 1;
	}
	uint8_t gh[24] = {0};
	put32(gh, 0xa1b2c3d4);
	gh[4] = 2;
	gh[6] = 4;
	put32(gh + 16, 65535);
	put32(gh + 20, 1);
	fwrite(gh, 1, sizeof(gh), pc);
	static uint8_t payload[4096];
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i ^ 0x5a);
	const uint8_t ma[6] = {2, 0, 0, 0, 0, 1}, mb[6] = {2, 0, 0, 0, 0, 2};
	struct rt_gen_ipv4 ip = {.src = {192, 168, 7, 1}, .dst = {192, 168, 7, 2}, .sport = 50000,
				 .dport = 4791, .tos = 0x6a, .ttl = 64, .df = true};
	/* opcode, payload, reth, aeth, cnp: a write of 3 packets, sends, ACK, NAK, CNP */
	static const struct {
		uint8_t op;
		uint32_t len;
		int reth, aeth, cnp;
		uint8_t syn;
	} kinds[] = {
		{0x06, 1024, 1, 0, 0, 0}, {0x07, 1024, 0, 0, 0, 0}, {0x08, 999, 0, 0, 0, 0},
		{0x0A, 4096, 1, 0, 0, 0}, {0x04, 17, 0, 0, 0, 0},   {0x00, 256, 0, 0, 0, 0},
		{0x02, 3, 0, 0, 0, 0},	  {0x11, 0, 0, 1, 0, 0x1f}, {0x11, 0, 0, 1, 0, 0x60},
		{0x81, 0, 0, 0, 1, 0},
	};
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct rt_gen_pkt p = {.opcode = kinds[i].op, .pkey = 0xffff,
				       .dest_qp = 0x100 + i * 0x10101, .psn = (0xfffffa + i) & 0xffffff,
				       .ackreq = kinds[i].op == 0x08 || kinds[i].op == 0x0A,
				       .becn = kinds[i].cnp, .payload = payload,
				       .payload_len = kinds[i].len, .has_reth = kinds[i].reth,
				       .reth_va = 0x7f0000001000ull * (i + 1), .reth_rkey = 0xabc0 + i,
				       .reth_len = 3 * 1024 - 25, .has_aeth = kinds[i].aeth,
				       .aeth_syndrome = kinds[i].syn, .aeth_msn = 42 + i,
				       .cnp_body = kinds[i].cnp};
		uint8_t frame[4300];
		int n = rt_gen_build_frame(&p, &ip, ma, mb, frame, sizeof(frame));
		if (n < 0) {
			fprintf(stderr, "write_pcap: build failed\n");
			return 1;
		}
		uint8_t rh[16];
		put32(rh, 1700000000u + i);
		put32(rh + 4, 0);
		put32(rh + 8, (uint32_t)n);
		put32(rh + 12, (uint32_t)n);
		fwrite(rh, 1, sizeof(rh), pc);
		fwrite(frame, 1, (size_t)n, pc);
		fprintf(tsv, "%u\t%u\t%u\t%d\t", p.opcode, p.dest_qp, p.psn, p.ackreq ? 1 : 0);
		if (p.has_reth)
			fprintf(tsv, "%llu\t%u\t%u\t", (unsigned long long)p.reth_va, p.reth_rkey,
				p.reth_len);
		else
			fprintf(tsv, "\t\t\t");
		if (p.has_aeth)
			fprintf(tsv, "%u\t%u\n", p.aeth_syndrome, p.aeth_msn);
		else
			fprintf(tsv, "\t\n");
	}
	if (fclose(pc) || fclose(tsv)) {
		perror("write_pcap");
		return 1;
	}
	return 0;
}
