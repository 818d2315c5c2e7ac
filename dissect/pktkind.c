/* Packet kinds (--kind): what a frame is to someone reading a trace: data, ack, nak, cnp, pfc, ... */
#include "dissect/pktkind.h"

#include <stdio.h>
#include <string.h>

#include "dissect/opcodes.h"

static const char *const names[RT_PK_COUNT] = {
    [RT_PK_DATA] = "data", [RT_PK_ACK] = "ack",     [RT_PK_NAK] = "nak",       [RT_PK_RNR] = "rnr",
    [RT_PK_CNP] = "cnp",   [RT_PK_READ] = "read",   [RT_PK_ATOMIC] = "atomic", [RT_PK_CM] = "cm",
    [RT_PK_PFC] = "pfc",   [RT_PK_PAUSE] = "pause", [RT_PK_OTHER] = "other",
};

/* A packet with a BTH: by its AETH, then its opcode's class. */
static enum rt_pkt_kind transport_kind(const struct rt_record *rec)
{
	if (rec->layers & RT_L_CM)
		return RT_PK_CM;
	if (rec->kind == RT_KIND_CNP)
		return RT_PK_CNP;
	if (rec->hdrs & RT_H_AETH) {
		enum rt_aeth_type t = rt_aeth_type(rec->aeth_syndrome);
		if (t == RT_AETH_RNR_NAK)
			return RT_PK_RNR;
		if (t == RT_AETH_NAK)
			return RT_PK_NAK;
	}
	unsigned flags = rt_opcode_flags(rec->opcode);
	if (flags & RT_OPF_READ)
		return RT_PK_READ;
	if (flags & RT_OPF_ATOMIC)
		return RT_PK_ATOMIC;
	if (flags & RT_OPF_ACK)
		return RT_PK_ACK;
	return RT_PK_DATA;
}

enum rt_pkt_kind rt_pkt_kind(const struct rt_record *rec)
{
	if (rt_record_has_bth(rec))
		return transport_kind(rec);
	if (rec->kind == RT_KIND_PFC)
		return RT_PK_PFC;
	if (rec->kind == RT_KIND_PAUSE)
		return RT_PK_PAUSE;
	return RT_PK_OTHER;
}

const char *rt_pkt_kind_name(enum rt_pkt_kind kind)
{
	return (unsigned)kind < RT_PK_COUNT ? names[kind] : "?";
}

int rt_pkt_kinds_parse(const char *text, unsigned *mask, char *bad, size_t badsize)
{
	for (const char *w = text;; w++) {
		size_t len = strcspn(w, ",");
		unsigned k = 0;
		while (k < RT_PK_COUNT && (strlen(names[k]) != len || strncmp(names[k], w, len)))
			k++;
		if (k == RT_PK_COUNT) {
			snprintf(bad, badsize, "%.*s", (int)len, w);
			return -1;
		}
		*mask |= 1u << k;
		w += len;
		if (!*w)
			return 0;
	}
}
