/* Writes a pcap of frames from the frame builder (dissect/build.c) and a TSV of the fields it was asked for (tshark test). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/build.h"

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* pcap headers are in the writer's byte order */
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: build_pcap OUT.pcap OUT.tsv\n");
		return 2;
	}
	FILE *pc = fopen(argv[1], "wb"), *tsv = fopen(argv[2], "w");
	if (!pc || !tsv) {
		perror("build_pcap");
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
	struct rt_build_net net = {.src_mac = {2, 0, 0, 0, 0, 1},
	                           .dst_mac = {2, 0, 0, 0, 0, 2},
	                           .ip_version = 4,
	                           .src_ip = {192, 168, 7, 1},
	                           .dst_ip = {192, 168, 7, 2},
	                           .udp_sport = 50000,
	                           .udp_dport = 4791,
	                           .dscp = 0x6a >> 2,
	                           .ecn = 2,
	                           .ttl = 64,
	                           .df = true};
	/*
	 * opcode, payload, and the headers tshark should find (the builder takes
	 * them from the opcode table): a write of 3 packets, sends, ACK, NAK, CNP
	 */
	static const struct {
		uint8_t op;
		uint32_t len;
		int reth, aeth, cnp;
		uint8_t syn;
	} kinds[] = {
	    {0x06, 1024, 1, 0, 0, 0}, {0x07, 1024, 0, 0, 0, 0}, {0x08, 999, 0, 0, 0, 0},
	    {0x0A, 4096, 1, 0, 0, 0}, {0x04, 17, 0, 0, 0, 0},   {0x00, 256, 0, 0, 0, 0},
	    {0x02, 3, 0, 0, 0, 0},    {0x11, 0, 0, 1, 0, 0x1f}, {0x11, 0, 0, 1, 0, 0x60},
	    {0x81, 0, 0, 0, 1, 0},
	};
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct rt_record p = {.opcode = kinds[i].op,
		                      .pkey = 0xffff,
		                      .dest_qp = 0x100 + i * 0x10101,
		                      .psn = (0xfffffa + i) & 0xffffff,
		                      .ackreq = kinds[i].op == 0x08 || kinds[i].op == 0x0A,
		                      .becn = kinds[i].cnp,
		                      .payload_len = kinds[i].len,
		                      .reth_va = 0x7f0000001000ull * (i + 1),
		                      .reth_rkey = 0xabc0 + i,
		                      .reth_len = 3 * 1024 - 25,
		                      .aeth_syndrome = kinds[i].syn,
		                      .aeth_msn = 42 + i};
		uint8_t frame[4300];
		int n = rt_build_frame(&net, &p, payload, frame, sizeof(frame));
		if (n < 0) {
			fprintf(stderr, "build_pcap: build failed\n");
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
		if (kinds[i].reth)
			fprintf(tsv, "%llu\t%u\t%u\t", (unsigned long long)p.reth_va, p.reth_rkey,
			        p.reth_len);
		else
			fprintf(tsv, "\t\t\t");
		if (kinds[i].aeth)
			fprintf(tsv, "%u\t%u\n", p.aeth_syndrome, p.aeth_msn);
		else
			fprintf(tsv, "\t\n");
	}
	if (fclose(pc) || fclose(tsv)) {
		perror("build_pcap");
		return 1;
	}
	return 0;
}
