/* Unit tests of doctor's checks: hand-built facts of a correct mlx5 host, each broken in one way, judged. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "dissect/dissect.h"
#include "doctor/facts.h"

static struct rt_doc_facts *f;
static struct rt_doc_target t;
static struct rt_doctor_config cfg;

static void known_int(struct rt_doc_int *n, int64_t v)
{
	n->known = true;
	n->v = v;
}

static void known_str(struct rt_doc_str *s, const char *v)
{
	s->known = true;
	snprintf(s->v, sizeof(s->v), "%s", v);
}

static void add_gid(const char *text, unsigned index, enum rt_doc_gid_type type)
{
	struct rt_doc_gid *g = &f->gids[f->ngids++];
	g->index = index;
	g->type = type;
	snprintf(g->ndev, sizeof(g->ndev), "ens1f0np0");
	assert_int_equal(inet_pton(AF_INET6, text, g->gid), 1);
}

static void add_addr(int family, const char *text, unsigned prefix)
{
	struct rt_doc_addr *a = &f->addrs[f->naddrs++];
	a->family = family;
	a->prefix = prefix;
	assert_int_equal(inet_pton(family, text, a->addr), 1);
}

static void add_counter(const char *name, uint64_t first, uint64_t second)
{
	struct rt_doc_counter *c = &f->counters.c[f->counters.n++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->known = true;
	c->first = first;
	c->second = second;
}

static void add_eth(const char *name, uint64_t first, uint64_t second)
{
	struct rt_doc_counter *c = &f->counters.eth[f->counters.neth++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->known = true;
	c->first = first;
	c->second = second;
}

/* A correct host: mlx5_0 port 1 on ens1f0np0, everything as it should be. */
static int good_host(void **state)
{
	(void)state;
	rt_doctor_config_init(&cfg);
	rt_doc_facts_init(f, "not in this test");
	f->rdma = true;
	snprintf(f->dev, sizeof(f->dev), "mlx5_0");
	f->port = 1;
	snprintf(f->netdev, sizeof(f->netdev), "ens1f0np0");
	snprintf(f->pci, sizeof(f->pci), "0000:3b:00.0");
	f->netdev_exists = true;
	known_str(&f->state, "ACTIVE");
	known_str(&f->phys_state, "LinkUp");
	known_str(&f->link_layer, "Ethernet");
	known_str(&f->rate, "100 Gb/sec (4X EDR)");
	f->gids_known = true;
	add_gid("fe80::e42:a1ff:fe2b:3c4d", 0, RT_GID_ROCE_V1);
	add_gid("fe80::e42:a1ff:fe2b:3c4d", 1, RT_GID_ROCE_V2);
	add_gid("::ffff:192.0.2.10", 2, RT_GID_ROCE_V1);
	add_gid("::ffff:192.0.2.10", 3, RT_GID_ROCE_V2);
	known_str(&f->operstate, "up");
	known_int(&f->mtu, 4200);
	known_int(&f->speed_mbps, 100000);
	f->addrs_known = true;
	add_addr(AF_INET, "192.0.2.10", 24);
	add_addr(AF_INET6, "fe80::e42:a1ff:fe2b:3c4d", 64);
	for (int p = 0; p < 8; p++) {
		known_int(&f->ecn_np[p], 1);
		known_int(&f->ecn_rp[p], 1);
	}
	known_int(&f->cnp_dscp, 48);
	known_int(&f->cnp_prio, 6);
	snprintf(f->cnp_source, sizeof(f->cnp_source), "sysfs ecn/roce_np");
	f->qos.pfc_known = true;
	f->qos.pfc_en = 1u << 3;
	snprintf(f->qos.pfc_source, sizeof(f->qos.pfc_source), "dcb pfc show");
	f->qos.trust_known = true;
	f->qos.trust = RT_TRUST_DSCP;
	f->qos.map_known = true;
	for (int d = 0; d < 64; d++)
		f->qos.dscp2prio[d] = (int8_t)(d >> 3);
	f->qos.peer_known = true;
	f->qos.peer_pfc_en = 1u << 3;
	f->cm_configfs = f->cm_group = true;
	known_int(&f->roce_tos, 106);
	known_str(&f->roce_mode, "RoCE v2");
	f->counters.sampled = true;
	f->counters.interval_ns = 1000000000u;
	f->counters.why[0] = '\0'; /* hw_counters/ reads */
	add_counter("np_ecn_marked_roce_packets", 100, 100);
	add_counter("np_cnp_sent", 90, 90);
	add_counter("rp_cnp_handled", 40, 40);
	add_counter("rp_cnp_ignored", 0, 0);
	add_counter("out_of_buffer", 0, 0);
	add_counter("packet_seq_err", 0, 0);
	add_counter("out_of_sequence", 0, 0);
	for (int p = 0; p < 8; p++) {
		char n[40];
		snprintf(n, sizeof(n), "rx_prio%d_pause", p);
		add_eth(n, 5, 5);
		snprintf(n, sizeof(n), "tx_prio%d_pause", p);
		add_eth(n, 7, 7);
	}
	add_eth("rx_discards_phy", 0, 0);
	return 0;
}

static const struct rt_doc_check *get(const char *name)
{
	for (unsigned i = 0; i < t.nchecks; i++)
		if (!strcmp(t.checks[i].name, name))
			return &t.checks[i];
	fail_msg("no check %s", name);
	return NULL;
}

static unsigned count(enum rt_doc_status s)
{
	unsigned n = 0;
	for (unsigned i = 0; i < t.nchecks; i++)
		n += t.checks[i].status == s;
	return n;
}

static void judge(void)
{
	rt_doc_judge(f, &cfg, &t);
}

/* The status of `name`, and that `text` is in its value (or fix when fix_text). */
static void expect(const char *name, enum rt_doc_status st, const char *value_has,
                   const char *fix_has)
{
	const struct rt_doc_check *c = get(name);
	if (c->status != st)
		fail_msg("%s: status %d, expected %d (%s)", name, c->status, st, c->value);
	if (value_has && !strstr(c->value, value_has))
		fail_msg("%s: value '%s' lacks '%s'", name, c->value, value_has);
	if (fix_has && !strstr(c->fix, fix_has))
		fail_msg("%s: fix '%s' lacks '%s'", name, c->fix, fix_has);
}

static void test_good(void **state)
{
	(void)state;
	judge();
	for (unsigned i = 0; i < t.nchecks; i++)
		if (t.checks[i].status != RT_DOC_PASS)
			fail_msg("%s: %s", t.checks[i].name, t.checks[i].value);
	assert_int_equal(t.gid_index, 3);
	expect("gid.index", RT_DOC_PASS, "3 (RoCE v2, ::ffff:192.0.2.10)", NULL);
	assert_non_null(strstr(get("gid.index")->note, "NCCL_IB_GID_INDEX=3"));
	expect("mtu", RT_DOC_PASS, "netdev MTU 4200 -> RoCE MTU 4096", NULL);
	expect("pfc.enabled", RT_DOC_PASS, "on for priority 3", NULL);
	expect("pfc.dscp_map", RT_DOC_PASS, "DSCP 26 -> priority 3", NULL);
	expect("rdma_cm.tos", RT_DOC_PASS, "ToS 106 (DSCP 26 -> priority 3)", NULL);
	expect("link.speed", RT_DOC_PASS, "100 Gb/s", NULL);
	assert_string_equal(t.dev, "mlx5_0");
	assert_string_equal(t.netdev, "ens1f0np0");
	/* no --traffic: no traffic checks */
	for (unsigned i = 0; i < t.nchecks; i++)
		assert_null(strstr(t.checks[i].name, "traffic."));
}

static void test_mtu(void **state)
{
	(void)state;
	f->mtu.v = 1500;
	judge();
	expect("mtu", RT_DOC_FAIL, "netdev MTU 1500 -> RoCE MTU 1024",
	       "ip link set dev ens1f0np0 mtu 4200");
	assert_int_equal(count(RT_DOC_FAIL), 1);
	/* the kernel's arithmetic: 4096 needs 4096 + 96 */
	assert_int_equal(rt_doc_roce_mtu(4192), 4096);
	assert_int_equal(rt_doc_roce_mtu(4191), 2048);
	assert_int_equal(rt_doc_roce_mtu(9000), 4096);
	assert_int_equal(rt_doc_roce_mtu(1500), 1024);
	assert_int_equal(rt_doc_roce_mtu(300), 0);
	/* 2048 is enough when asked for */
	f->mtu.v = 2200;
	cfg.min_mtu = 2048;
	judge();
	expect("mtu", RT_DOC_PASS, "RoCE MTU 2048", NULL);
	f->mtu.known = false;
	snprintf(f->mtu.why, sizeof(f->mtu.why), "permission denied");
	judge();
	expect("mtu", RT_DOC_UNCHECKED, "could not check: permission denied", NULL);
}

static void test_ecn_np_off(void **state)
{
	(void)state;
	f->ecn_np[3].v = 0;
	judge();
	expect("ecn.np", RT_DOC_FAIL, "disabled on priority 3 (enabled on: 0,1,2,4,5,6,7)",
	       "echo 1 > /sys/class/net/ens1f0np0/ecn/roce_np/enable/3");
	expect("ecn.rp", RT_DOC_PASS, "enabled on priority 3", NULL);
	assert_int_equal(count(RT_DOC_FAIL), 1);
	/* another RoCE priority */
	cfg.priority = 4;
	f->qos.pfc_en = 1u << 4;
	f->qos.peer_pfc_en = 1u << 4;
	f->qos.dscp2prio[26] = 4;
	judge();
	expect("ecn.np", RT_DOC_PASS, "enabled on priority 4", NULL);
}

static void test_ecn_rp_off(void **state)
{
	(void)state;
	f->ecn_rp[3].v = 0;
	judge();
	expect("ecn.rp", RT_DOC_FAIL, "disabled on priority 3",
	       "echo 1 > /sys/class/net/ens1f0np0/ecn/roce_rp/enable/3");
	/* absent switches: could not check, not a failure */
	for (int p = 0; p < 8; p++) {
		f->ecn_rp[p].known = false;
		snprintf(f->ecn_rp[p].why, sizeof(f->ecn_rp[p].why),
		         "/sys/class/net/x/ecn: absent");
	}
	judge();
	expect("ecn.rp", RT_DOC_UNCHECKED, "could not check: /sys/class/net/x/ecn: absent", NULL);
	assert_int_equal(count(RT_DOC_FAIL), 0);
}

static void test_no_v2_gid(void **state)
{
	(void)state;
	/* the IPv4 address has only its RoCE v1 GID */
	f->ngids = 3;
	judge();
	expect("gid.roce_v2", RT_DOC_FAIL, "no RoCE v2 GID for 192.0.2.10 (RoCE v1 only)",
	       "ip address add 192.0.2.10/24 dev ens1f0np0");
	/* the link-local v2 GID is what is left to use, and it cannot be routed */
	expect("gid.index", RT_DOC_WARN, "1 (RoCE v2, fe80::e42:a1ff:fe2b:3c4d)", NULL);
	assert_int_equal(t.gid_index, 1);
	/* an address with no GID at all */
	good_host(NULL);
	add_addr(AF_INET6, "2001:db8::10", 64);
	judge();
	expect("gid.roce_v2", RT_DOC_FAIL, "no RoCE v2 GID for 2001:db8::10", NULL);
	expect("gid.index", RT_DOC_PASS, "3 (RoCE v2", NULL);
	add_gid("2001:db8::10", 5, RT_GID_ROCE_V2);
	judge();
	expect("gid.roce_v2", RT_DOC_PASS, "192.0.2.10 at 3, 2001:db8::10 at 5", NULL);
	/* addresses unknown (the netdev is in another namespace): the index still comes from the GIDs */
	f->addrs_known = false;
	snprintf(f->addrs_why, sizeof(f->addrs_why), "not here");
	judge();
	expect("gid.roce_v2", RT_DOC_UNCHECKED, "could not check: not here", NULL);
	expect("gid.index", RT_DOC_PASS, "3", NULL);
	/* no address at all */
	good_host(NULL);
	f->naddrs = 1;
	f->addrs[0] = f->addrs[1];
	judge();
	expect("gid.roce_v2", RT_DOC_WARN, "has no IPv4 or global IPv6 address", NULL);
}

static void test_port_down(void **state)
{
	(void)state;
	known_str(&f->state, "DOWN");
	known_str(&f->phys_state, "Disabled");
	known_str(&f->operstate, "down");
	f->speed_mbps.v = -1;
	judge();
	expect("link.state", RT_DOC_FAIL, "DOWN (phys_state Disabled)",
	       "ip link set dev ens1f0np0 up");
	expect("link.netdev", RT_DOC_FAIL, "ens1f0np0 down", "ip link set dev ens1f0np0 up");
	known_str(&f->link_layer, "InfiniBand");
	judge();
	expect("link.layer", RT_DOC_FAIL, "InfiniBand",
	       "mlxconfig -d 0000:3b:00.0 set LINK_TYPE_P1=2");
	/* a slow link when a speed is required */
	good_host(NULL);
	known_str(&f->rate, "25 Gb/sec (1X EDR)");
	cfg.speed_bps = 100000000000ull;
	judge();
	expect("link.speed", RT_DOC_FAIL, "25 Gb/s", "ethtool ens1f0np0");
}

static void test_pfc(void **state)
{
	(void)state;
	f->qos.pfc_en = 1u << 5;
	judge();
	expect("pfc.enabled", RT_DOC_FAIL, "off for priority 3 (enabled on: 5; dcb pfc show)",
	       "dcb pfc set dev ens1f0np0 prio-pfc 3:on (or: mlnx_qos -i ens1f0np0 --pfc "
	       "0,0,0,1,0,1,0,0)");
	/* DSCP 26 on priority 2 */
	good_host(NULL);
	f->qos.dscp2prio[26] = 2;
	judge();
	expect("pfc.dscp_map", RT_DOC_FAIL, "DSCP 26 -> priority 2",
	       "dcb app replace dev ens1f0np0 dscp-prio 26:3");
	f->qos.dscp2prio[26] = -1;
	judge();
	expect("pfc.dscp_map", RT_DOC_WARN, "no entry for DSCP 26", NULL);
	/* trust pcp on an untagged port; the DSCP map is then not checked */
	good_host(NULL);
	f->qos.trust = RT_TRUST_PCP;
	judge();
	expect("pfc.trust", RT_DOC_WARN, "pcp", "mlnx_qos -i ens1f0np0 --trust dscp");
	for (unsigned i = 0; i < t.nchecks; i++)
		assert_string_not_equal(t.checks[i].name, "pfc.dscp_map");
	/* ... fine when RoCE runs over a VLAN netdev */
	snprintf(f->gids[3].ndev, sizeof(f->gids[3].ndev), "ens1f0np0.100");
	judge();
	expect("pfc.trust", RT_DOC_PASS, "pcp", NULL);
	/* the switch does not pause priority 3 */
	good_host(NULL);
	f->qos.peer_pfc_en = 0;
	judge();
	expect("pfc.peer", RT_DOC_FAIL, "PFC on: none", "switch port facing ens1f0np0");
	/* nothing answered: could not check, never a failure */
	good_host(NULL);
	memset(&f->qos, 0, sizeof(f->qos));
	snprintf(f->qos.why, sizeof(f->qos.why), "dcb: not installed; mlnx_qos: not installed");
	snprintf(f->qos.peer_why, sizeof(f->qos.peer_why), "lldptool: not installed");
	judge();
	expect("pfc.enabled", RT_DOC_UNCHECKED, "could not check: dcb: not installed", NULL);
	expect("pfc.trust", RT_DOC_UNCHECKED, "see pfc.enabled", NULL);
	expect("pfc.peer", RT_DOC_UNCHECKED, "lldptool: not installed", NULL);
	assert_int_equal(count(RT_DOC_FAIL), 0);
}

static void test_rdma_cm(void **state)
{
	(void)state;
	f->cm_group = false;
	judge();
	expect("rdma_cm.tos", RT_DOC_WARN, "ToS 0 (DSCP 0 -> priority 0), the default",
	       "mkdir -p /sys/kernel/config/rdma_cm/mlx5_0 && echo 106 > "
	       "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos");
	good_host(NULL);
	f->roce_tos.v = 0;
	judge();
	expect("rdma_cm.tos", RT_DOC_FAIL, "ToS 0 (DSCP 0 -> priority 0)", NULL);
	/* DSCP 24 is not 26 but lands on priority 3 as well */
	f->roce_tos.v = 96;
	judge();
	expect("rdma_cm.tos", RT_DOC_WARN, "DSCP 24 -> priority 3", NULL);
	known_str(&f->roce_mode, "IB/RoCE v1");
	judge();
	expect("rdma_cm.mode", RT_DOC_FAIL, "IB/RoCE v1", "echo 'RoCE v2' >");
	f->cm_configfs = false;
	snprintf(f->roce_tos.why, sizeof(f->roce_tos.why), "configfs not mounted");
	judge();
	expect("rdma_cm.tos", RT_DOC_UNCHECKED, "configfs not mounted", NULL);
}

static void test_counters(void **state)
{
	(void)state;
	/* CE marks arrive, no CNP leaves: the NP is off for the traffic's priority */
	f->counters.c[0].second = 600;
	judge();
	expect("counters.ecn_marked", RT_DOC_PASS,
	       "np_ecn_marked_roce_packets +500 in 1 s (total 600)", NULL);
	expect("counters.cnp_sent", RT_DOC_FAIL, "np_cnp_sent +0",
	       "echo 1 > /sys/class/net/ens1f0np0/ecn/roce_np/enable/3");
	f->counters.c[1].second = 200;
	judge();
	expect("counters.cnp_sent", RT_DOC_PASS, "+110", NULL);
	/* ignored CNPs, an empty receive queue, losses */
	f->counters.c[3].second = 12;
	f->counters.c[4].second = 3;
	f->counters.c[5].second = 2;
	judge();
	expect("counters.cnp_handled", RT_DOC_WARN, "rp_cnp_handled +0", "roce_rp/enable/3");
	expect("counters.out_of_buffer", RT_DOC_WARN, "out_of_buffer +3", NULL);
	expect("counters.seq_err", RT_DOC_WARN, "packet_seq_err +2", NULL);
	/* PFC pause frames on priority 3 are fine, on 5 they are not */
	f->counters.eth[6].second = 55; /* rx_prio3_pause */
	judge();
	expect("counters.pfc_pause", RT_DOC_PASS, "priority 3: received +50, sent +0", NULL);
	f->counters.eth[10].second = 9; /* rx_prio5_pause */
	judge();
	expect("counters.pfc_pause", RT_DOC_WARN, "other priorities: 5", NULL);
	f->counters.eth[16].second = 4; /* rx_discards_phy */
	judge();
	expect("counters.discards", RT_DOC_WARN, "rx_discards_phy +4", NULL);
	/* one sample: movement unchecked */
	good_host(NULL);
	f->counters.sampled = false;
	judge();
	expect("counters.cnp_sent", RT_DOC_UNCHECKED, "total 90 (sampled once", NULL);
	/* a counter the driver lacks */
	good_host(NULL);
	f->counters.c[5].known = false;
	judge();
	expect("counters.seq_err", RT_DOC_UNCHECKED, "hw_counters/packet_seq_err", NULL);
}

static struct rt_record roce_rec(uint8_t dscp, uint8_t ecn, int pcp)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.kind = RT_KIND_ROCE;
	r.layers = RT_L_ETH | RT_L_IPV4 | RT_L_UDP | RT_L_BTH;
	r.ip_version = 4;
	r.dscp = dscp;
	r.ecn = ecn;
	r.src_ip[0] = 10;
	r.src_ip[3] = 2;
	if (pcp >= 0) {
		r.nvlan = 1;
		r.pcp[0] = (uint8_t)pcp;
	}
	return r;
}

static void test_traffic(void **state)
{
	(void)state;
	cfg.traffic_ns = 2000000000u;
	snprintf(f->traffic.why, sizeof(f->traffic.why), "cannot capture from mlx5_0:1: EPERM");
	judge();
	expect("traffic.ecn", RT_DOC_UNCHECKED, "cannot capture from mlx5_0:1", NULL);
	expect("traffic.pfc", RT_DOC_UNCHECKED, NULL, NULL);

	struct rt_doc_traffic *tr = &f->traffic;
	memset(tr, 0, sizeof(*tr));
	tr->ran = true;
	tr->duration_ns = 2000000000u;
	snprintf(tr->source, sizeof(tr->source), "mlx5_0:1 (verbs)");
	judge();
	expect("traffic.ecn", RT_DOC_UNCHECKED, "no RoCEv2 data packet in 2 s", NULL);
	expect("traffic.pfc", RT_DOC_PASS, "no PFC frame", NULL);

	struct rt_record r = roce_rec(26, 2, -1);
	for (int i = 0; i < 10; i++)
		rt_doc_traffic_add(tr, &r, 26);
	r = roce_rec(26, 3, -1);
	rt_doc_traffic_add(tr, &r, 26);
	judge();
	expect("traffic.ecn", RT_DOC_PASS,
	       "11 RoCEv2 data packets: Not-ECT 0, ECT(0) 10, ECT(1) 0, CE 1", NULL);
	expect("traffic.dscp", RT_DOC_PASS, "DSCP 26: 11 (untagged)", NULL);
	/* ACKs carry no data: not counted */
	r = roce_rec(0, 0, -1);
	r.opcode = 0x11;
	rt_doc_traffic_add(tr, &r, 26);
	judge();
	expect("traffic.ecn", RT_DOC_PASS, "11 RoCEv2 data packets", NULL);
	/* Not-ECT traffic at DSCP 0 from 10.0.0.2 */
	r = roce_rec(0, 0, -1);
	rt_doc_traffic_add(tr, &r, 26);
	judge();
	expect("traffic.ecn", RT_DOC_FAIL, "Not-ECT 1", "(10.0.0.2)");
	expect("traffic.dscp", RT_DOC_FAIL, "DSCP 0: 1, DSCP 26: 11", "(10.0.0.2)");
	/* PFC on priority 3 only, then on 5 */
	struct rt_record p;
	memset(&p, 0, sizeof(p));
	p.kind = RT_KIND_PFC;
	p.pfc_enable = 1u << 3;
	p.pfc_quanta[3] = 0xffff;
	rt_doc_traffic_add(tr, &p, 26);
	judge();
	expect("traffic.pfc", RT_DOC_PASS, "1 PFC frames: 1 pausing priority 3", NULL);
	p.pfc_enable = 1u << 5;
	p.pfc_quanta[5] = 100;
	rt_doc_traffic_add(tr, &p, 26);
	judge();
	expect("traffic.pfc", RT_DOC_WARN, "others pausing 5", NULL);
	/* CNPs with the DSCP this host sends them with, then another */
	struct rt_record c = roce_rec(48, 1, -1);
	c.kind = RT_KIND_CNP;
	rt_doc_traffic_add(tr, &c, 26);
	judge();
	expect("traffic.cnp", RT_DOC_PASS, "1 CNPs, mostly DSCP 48", NULL);
	c.dscp = 46;
	rt_doc_traffic_add(tr, &c, 26);
	rt_doc_traffic_add(tr, &c, 26);
	judge();
	expect("traffic.cnp", RT_DOC_WARN, "mostly DSCP 46", NULL);
	/* VLAN-tagged data with the wrong PCP */
	good_host(NULL);
	cfg.traffic_ns = 1000000000u;
	tr->ran = true;
	tr->duration_ns = 1000000000u;
	r = roce_rec(26, 2, 0);
	rt_doc_traffic_add(tr, &r, 26);
	judge();
	expect("traffic.dscp", RT_DOC_FAIL, "PCP 0: 1", NULL);
}

static void test_netdev_only(void **state)
{
	(void)state;
	/* a netdev without an RDMA port: no port, GID or rdma_cm checks */
	f->rdma = false;
	f->dev[0] = '\0';
	f->counters.n = 0;
	judge();
	assert_string_equal(t.dev, "");
	for (unsigned i = 0; i < t.nchecks; i++) {
		assert_null(strstr(t.checks[i].name, "gid."));
		assert_null(strstr(t.checks[i].name, "rdma_cm."));
		assert_string_not_equal(t.checks[i].name, "link.state");
	}
	expect("link.speed", RT_DOC_PASS, "100 Gb/s", NULL);
	expect("mtu", RT_DOC_PASS, NULL, NULL);
	assert_int_equal(t.gid_index, -1);
}

/* The settings doctor --hosts compares come from the same facts. */
static void test_settings(void **state)
{
	(void)state;
	f->qos.dscp2prio[48] = -1;
	known_int(&f->ecn_np[5], 0);
	f->ecn_rp[2].known = false;
	judge();
	const struct rt_doc_settings *s = &t.settings;
	assert_int_equal(s->mtu, 4200);
	assert_string_equal(s->trust, "dscp");
	assert_int_equal(s->pfc, 1 << 3);
	assert_true(s->dscp2prio_known);
	assert_int_equal(s->dscp2prio[26], 3);
	assert_int_equal(s->dscp2prio[48], -1);
	assert_int_equal(s->cnp_dscp, 48);
	assert_int_equal(s->cnp_prio, 6);
	assert_int_equal(s->ecn_np[5], 0);
	assert_int_equal(s->ecn_np[3], 1);
	assert_int_equal(s->ecn_rp[2], -1);
	/* unknown: what was not read, and what belongs to a netdev not here */
	f->qos.trust_known = f->qos.pfc_known = f->qos.map_known = false;
	f->netdev_exists = false;
	judge();
	assert_int_equal(s->mtu, -1);
	assert_null(s->trust);
	assert_int_equal(s->pfc, -1);
	assert_false(s->dscp2prio_known);
	assert_int_equal(s->cnp_dscp, -1);
	assert_int_equal(s->ecn_np[3], -1);
}

int main(void)
{
	f = calloc(1, sizeof(*f));
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_good, good_host),
	    cmocka_unit_test_setup(test_mtu, good_host),
	    cmocka_unit_test_setup(test_ecn_np_off, good_host),
	    cmocka_unit_test_setup(test_ecn_rp_off, good_host),
	    cmocka_unit_test_setup(test_no_v2_gid, good_host),
	    cmocka_unit_test_setup(test_port_down, good_host),
	    cmocka_unit_test_setup(test_pfc, good_host),
	    cmocka_unit_test_setup(test_rdma_cm, good_host),
	    cmocka_unit_test_setup(test_counters, good_host),
	    cmocka_unit_test_setup(test_traffic, good_host),
	    cmocka_unit_test_setup(test_netdev_only, good_host),
	    cmocka_unit_test_setup(test_settings, good_host),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(f);
	return rc;
}
