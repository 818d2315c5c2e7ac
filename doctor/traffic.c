/* doctor --traffic: a short capture through rocetrace's capture sources, tallied by ECN, DSCP, PCP, CNPs and PFC priority. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "capture/pump.h"
#include "common/clock.h"
#include "common/outbuf.h"
#include "dissect/dissect.h"
#include "doctor/facts.h"

void rt_doc_traffic_add(struct rt_doc_traffic *t, const struct rt_record *rec, unsigned dscp)
{
	t->frames++;
	switch (rec->kind) {
	case RT_KIND_ROCE:
		/* RoCEv2 data: the IP header carries DSCP and ECN (RoCEv1 has none) */
		if (rec->rocev1 || !(rec->layers & (RT_L_IPV4 | RT_L_IPV6)))
			break;
		/* ACKNOWLEDGE (operation 0x11 of RC, RD and XRC; UD has none) carries no data */
		if ((rec->layers & RT_L_BTH) && (rec->opcode & 0x1f) == 0x11 &&
		    (rec->opcode & 0xe0) != 0x60)
			break;
		t->roce++;
		t->ecn[rec->ecn & 3]++;
		t->dscp[rec->dscp & 63]++;
		if (rec->nvlan) {
			t->tagged++;
			t->pcp[rec->pcp[0] & 7]++; /* the outer tag: what switches classify by */
		}
		if ((rec->ecn & 3) == 0 && !t->not_ect_src[0])
			rt_ip_to_str(rec->ip_version, rec->src_ip, t->not_ect_src,
			             sizeof(t->not_ect_src));
		if (rec->dscp != dscp && !t->off_dscp_src[0])
			rt_ip_to_str(rec->ip_version, rec->src_ip, t->off_dscp_src,
			             sizeof(t->off_dscp_src));
		break;
	case RT_KIND_CNP:
		t->cnp++;
		t->cnp_dscp[rec->dscp & 63]++;
		if (rec->nvlan) {
			t->cnp_tagged++;
			t->cnp_pcp[rec->pcp[0] & 7]++;
		}
		break;
	case RT_KIND_PFC:
		t->pfc++;
		for (int p = 0; p < 8; p++)
			if ((rec->pfc_enable & (1u << p)) && rec->pfc_quanta[p])
				t->pfc_xoff[p]++;
		break;
	case RT_KIND_PAUSE:
		t->pause++;
		break;
	default:
		break;
	}
}

/* The pump's sink and tick: tally each record; end the capture when its time is up. */
struct tally {
	struct rt_doc_traffic *t;
	unsigned dscp;
	uint64_t end_ns; /* CLOCK_MONOTONIC */
};

static int tally_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                       char *errbuf)
{
	struct tally *y = ctx;

	(void)frame;
	(void)errbuf;
	rt_doc_traffic_add(y->t, rec, y->dscp);
	return 0;
}

static int on_tick(void *ctx, uint64_t now_ns, bool idle, char *errbuf)
{
	const struct tally *y = ctx;

	(void)idle;
	(void)errbuf;
	return now_ns >= y->end_ns;
}

void rt_doc_capture(const struct rt_doctor_config *cfg, struct rt_doc_facts *f)
{
	struct rt_doc_traffic *t = &f->traffic;
	char name[160], errbuf[RT_ERRBUF_SIZE];
	memset(t, 0, sizeof(*t));
	if (cfg->capture_from)
		snprintf(name, sizeof(name), "%s", cfg->capture_from);
	else if (f->rdma)
		snprintf(name, sizeof(name), "%s:%u", f->dev, f->port);
	else
		snprintf(name, sizeof(name), "%s", f->netdev);
	struct rt_source_config sc = {
	    .snaplen = 128, /* every RoCE header; the payload is not needed */
	    .timeout_ms = 100,
	    .sysfs_root = cfg->sysfs_root,
	};
	struct rt_source *src = NULL;
	int rc = rt_source_open(&src, name, &sc, errbuf);
	if (rc < 0) {
		snprintf(t->why, sizeof(t->why), "cannot capture from %.60s: %.150s", name, errbuf);
		return;
	}
	snprintf(t->source, sizeof(t->source), "%.120s (%s)", name, src->ops->kind);
	struct rt_dissect_opts dopts;
	rt_dissect_opts_init(&dopts);
	dopts.verify_icrc = false;
	uint64_t start = rt_mono_ns();
	struct tally y = {.t = t, .dscp = cfg->dscp, .end_ns = start + cfg->traffic_ns};
	struct rt_pump_sink tally = {.frame = tally_frame, .ctx = &y};
	struct rt_pump_config pc = {
	    .decode = &dopts, .sinks = &tally, .nsinks = 1, .on_tick = on_tick, .ctx = &y};
	struct rt_pump_result res;
	if (rt_pump_run(src, &pc, &res, errbuf) < 0 && res.read_failed) {
		snprintf(t->why, sizeof(t->why), "capture from %.60s failed: %.150s", name, errbuf);
		rt_source_close(src);
		return;
	}
	/* a saved capture is read whole: its span is not the time spent reading it */
	t->duration_ns = strcmp(src->ops->kind, "file") ? rt_mono_ns() - start : 0;
	if (t->duration_ns > cfg->traffic_ns)
		t->duration_ns = cfg->traffic_ns;
	rt_source_close(src);
	t->ran = true;
}
