/* Reading a target's facts: the RDMA port and its GIDs, the netdev and its addresses, ECN switches, rdma_cm configfs, counters. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "capture/counters.h"
#include "common/sysfs.h"
#include "doctor/facts.h"

/* hw_counters the checks read (mlx5 names) */
static const char *const hw_names[] = {
    "np_ecn_marked_roce_packets",
    "np_cnp_sent",
    "rp_cnp_handled",
    "rp_cnp_ignored",
    "out_of_buffer",
    "packet_seq_err",
    "out_of_sequence",
    "local_ack_timeout_err",
};

__attribute__((format(printf, 3, 4))) static void set_why(char *why, size_t size, const char *fmt,
                                                          ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

/* Why a sysfs read failed, for humans. */
static const char *read_error(int rc)
{
	switch (-rc) {
	case ENOENT:
		return "absent";
	case EACCES:
	case EPERM:
		return "permission denied (run as root)";
	default:
		return strerror(-rc);
	}
}

void rt_doc_facts_init(struct rt_doc_facts *f, const char *why)
{
	memset(f, 0, sizeof(*f));
	struct rt_doc_str *strs[] = {&f->state, &f->phys_state, &f->link_layer,
	                             &f->rate,  &f->operstate,  &f->roce_mode};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		snprintf(strs[i]->why, sizeof(strs[i]->why), "%s", why);
	struct rt_doc_int *ints[] = {&f->mtu, &f->speed_mbps, &f->cnp_dscp, &f->cnp_prio,
	                             &f->roce_tos};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		snprintf(ints[i]->why, sizeof(ints[i]->why), "%s", why);
	for (int p = 0; p < 8; p++) {
		snprintf(f->ecn_np[p].why, sizeof(f->ecn_np[p].why), "%s", why);
		snprintf(f->ecn_rp[p].why, sizeof(f->ecn_rp[p].why), "%s", why);
	}
	snprintf(f->gids_why, sizeof(f->gids_why), "%s", why);
	snprintf(f->addrs_why, sizeof(f->addrs_why), "%s", why);
	snprintf(f->netdev_why, sizeof(f->netdev_why), "%s", why);
	snprintf(f->qos.why, sizeof(f->qos.why), "%s", why);
	snprintf(f->qos.peer_why, sizeof(f->qos.peer_why), "%s", why);
	memset(f->qos.dscp2prio, -1, sizeof(f->qos.dscp2prio));
	snprintf(f->counters.why, sizeof(f->counters.why), "%s", why);
	snprintf(f->counters.eth_why, sizeof(f->counters.eth_why), "%s", why);
	snprintf(f->traffic.why, sizeof(f->traffic.why), "%s", why);
}

static void read_str(struct rt_doc_str *s, const char *path, bool strip_number)
{
	char buf[256];
	int rc = rt_sysfs_read(path, buf, sizeof(buf));
	if (rc < 0) {
		s->known = false;
		set_why(s->why, sizeof(s->why), "%s: %s", path, read_error(rc));
		return;
	}
	if (strip_number) {
		if (rt_doc_parse_state(buf, s->v, sizeof(s->v)) < 0) {
			set_why(s->why, sizeof(s->why), "%s: unexpected text '%.60s'", path, buf);
			return;
		}
	} else {
		rt_doc_copy(s->v, sizeof(s->v), buf);
	}
	s->known = true;
}

static void read_int(struct rt_doc_int *n, const char *path)
{
	int64_t v;
	int rc = rt_sysfs_read_i64(path, &v);
	n->known = rc == 0;
	if (rc == 0)
		n->v = v;
	else if (rc == -EINVAL)
		set_why(n->why, sizeof(n->why), "%s: not a number", path);
	else
		set_why(n->why, sizeof(n->why), "%s: %s", path, read_error(rc));
}

/* The PCI address a sysfs "device" link points to (its last component). */
static void read_pci(const char *link, char *out, size_t size)
{
	char target[4096];
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	rt_doc_copy(out, size, base ? base + 1 : target);
}

static int gid_cmp(const void *a, const void *b)
{
	const struct rt_doc_gid *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

static void read_gids(const char *root, struct rt_doc_facts *f)
{
	char path[4096], buf[128];
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gids", root, f->dev, f->port);
	DIR *d = opendir(path);
	if (!d) {
		set_why(f->gids_why, sizeof(f->gids_why), "%s: %s", path, read_error(-errno));
		return;
	}
	struct dirent *e;
	static const uint8_t zero[16];
	while ((e = readdir(d)) != NULL && f->ngids < RT_DOC_MAX_GIDS) {
		char *end;
		unsigned long idx = strtoul(e->d_name, &end, 10);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end)
			continue;
		struct rt_doc_gid *g = &f->gids[f->ngids];
		memset(g, 0, sizeof(*g));
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gids/%lu", root,
		         f->dev, f->port, idx);
		if (rt_sysfs_read(path, buf, sizeof(buf)) < 0 ||
		    rt_doc_parse_gid(buf, g->gid) < 0 || !memcmp(g->gid, zero, 16))
			continue;
		g->index = (unsigned)idx;
		/* reading the type or netdev of an unused entry fails: keep what reads */
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gid_attrs/types/%lu",
		         root, f->dev, f->port, idx);
		if (rt_sysfs_read(path, buf, sizeof(buf)) == 0)
			g->type = rt_doc_parse_gid_type(buf);
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%lu",
		         root, f->dev, f->port, idx);
		if (rt_sysfs_read(path, buf, sizeof(buf)) == 0)
			rt_doc_copy(g->ndev, sizeof(g->ndev), buf);
		f->ngids++;
	}
	closedir(d);
	qsort(f->gids, f->ngids, sizeof(f->gids[0]), gid_cmp);
	f->gids_known = true;
}

/* The netdev's addresses as the kernel has them (getifaddrs: netlink of this namespace). */
static void read_addrs(struct rt_doc_facts *f)
{
	struct ifaddrs *all = NULL;
	if (getifaddrs(&all) < 0) {
		set_why(f->addrs_why, sizeof(f->addrs_why), "cannot list addresses: %s",
		        strerror(errno));
		return;
	}
	size_t nl = strlen(f->netdev);
	bool seen = false;
	for (struct ifaddrs *a = all; a; a = a->ifa_next) {
		/* IPv4 labels of aliases read "eth0:1" */
		if (strncmp(a->ifa_name, f->netdev, nl) != 0 ||
		    (a->ifa_name[nl] && a->ifa_name[nl] != ':'))
			continue;
		seen = true;
		if (!a->ifa_addr || f->naddrs >= RT_DOC_MAX_ADDRS)
			continue;
		struct rt_doc_addr *x = &f->addrs[f->naddrs];
		memset(x, 0, sizeof(*x));
		if (a->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *s = (const struct sockaddr_in *)a->ifa_addr;
			x->family = AF_INET;
			memcpy(x->addr, &s->sin_addr, 4);
			if (a->ifa_netmask) {
				uint32_t m = ntohl(
				    ((const struct sockaddr_in *)a->ifa_netmask)->sin_addr.s_addr);
				x->prefix = (unsigned)__builtin_popcount(m);
			}
		} else if (a->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)a->ifa_addr;
			x->family = AF_INET6;
			memcpy(x->addr, &s->sin6_addr, 16);
			if (a->ifa_netmask) {
				const uint8_t *m = ((const struct sockaddr_in6 *)a->ifa_netmask)
				                       ->sin6_addr.s6_addr;
				for (int i = 0; i < 16; i++)
					x->prefix += (unsigned)__builtin_popcount(m[i]);
			}
		} else {
			continue;
		}
		f->naddrs++;
	}
	freeifaddrs(all);
	if (!seen) {
		set_why(f->addrs_why, sizeof(f->addrs_why),
		        "no netdev %s in this network namespace: its addresses are unknown",
		        f->netdev);
		return;
	}
	f->addrs_known = true;
}

static void read_ecn(const char *root, struct rt_doc_facts *f)
{
	char path[4096];
	for (int p = 0; p < 8; p++) {
		snprintf(path, sizeof(path), "%s/class/net/%s/ecn/roce_np/enable/%d", root,
		         f->netdev, p);
		read_int(&f->ecn_np[p], path);
		snprintf(path, sizeof(path), "%s/class/net/%s/ecn/roce_rp/enable/%d", root,
		         f->netdev, p);
		read_int(&f->ecn_rp[p], path);
	}
	snprintf(path, sizeof(path), "%s/class/net/%s/ecn/roce_np/cnp_dscp", root, f->netdev);
	read_int(&f->cnp_dscp, path);
	snprintf(path, sizeof(path), "%s/class/net/%s/ecn/roce_np/cnp_802p_prio", root, f->netdev);
	read_int(&f->cnp_prio, path);
	if (f->cnp_dscp.known || f->cnp_prio.known) {
		snprintf(f->cnp_source, sizeof(f->cnp_source), "sysfs ecn/roce_np");
		return;
	}
	/* the upstream mlx5 driver: debugfs mlx5/PCI/cc_params (root only) */
	snprintf(path, sizeof(path), "%s/kernel/debug/mlx5", root);
	int denied = f->pci[0] && access(path, F_OK) != 0 && (errno == EACCES || errno == EPERM);
	if (!f->pci[0] || denied || access(path, F_OK) != 0) {
		if (denied) {
			char first[RT_DOC_WHY];
			rt_doc_copy(first, sizeof(first), f->cnp_dscp.why);
			set_why(f->cnp_dscp.why, sizeof(f->cnp_dscp.why),
			        "%.150s; %.40s/kernel/debug: permission denied (run as root)",
			        first, root);
		}
		return;
	}
	struct rt_doc_int dscp = {0}, prio = {0};
	snprintf(path, sizeof(path), "%s/kernel/debug/mlx5/%s/cc_params/np_cnp_dscp", root, f->pci);
	read_int(&dscp, path);
	snprintf(path, sizeof(path), "%s/kernel/debug/mlx5/%s/cc_params/np_cnp_prio", root, f->pci);
	read_int(&prio, path);
	if (dscp.known || prio.known) {
		f->cnp_dscp = dscp;
		f->cnp_prio = prio;
		snprintf(f->cnp_source, sizeof(f->cnp_source), "debugfs mlx5/%s/cc_params", f->pci);
	} else {
		/* keep both reasons: the sysfs one, then the debugfs one */
		char first[RT_DOC_WHY];
		rt_doc_copy(first, sizeof(first), f->cnp_dscp.why);
		set_why(f->cnp_dscp.why, sizeof(f->cnp_dscp.why), "%.110s; %.110s", first,
		        dscp.why);
	}
}

static void read_rdma_cm(const char *root, struct rt_doc_facts *f)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/kernel/config/rdma_cm", root);
	f->cm_configfs = access(path, F_OK) == 0;
	if (!f->cm_configfs) {
		set_why(f->roce_tos.why, sizeof(f->roce_tos.why),
		        "%s is absent (configfs not mounted or rdma_cm not loaded)", path);
		set_why(f->roce_mode.why, sizeof(f->roce_mode.why), "%s", f->roce_tos.why);
		return;
	}
	snprintf(path, sizeof(path), "%s/kernel/config/rdma_cm/%s", root, f->dev);
	f->cm_group = access(path, F_OK) == 0;
	if (!f->cm_group) {
		set_why(f->roce_tos.why, sizeof(f->roce_tos.why), "no configfs group %s", path);
		set_why(f->roce_mode.why, sizeof(f->roce_mode.why), "no configfs group %s", path);
		return;
	}
	snprintf(path, sizeof(path), "%s/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos", root,
	         f->dev, f->port);
	read_int(&f->roce_tos, path);
	snprintf(path, sizeof(path), "%s/kernel/config/rdma_cm/%s/ports/%u/default_roce_mode", root,
	         f->dev, f->port);
	read_str(&f->roce_mode, path, false);
}

void rt_doc_gather(const struct rt_doctor_config *cfg, struct rt_doc_facts *f)
{
	const char *root = rt_sysfs_root(cfg->sysfs_root);
	char path[4096];
	if (f->rdma) {
		const char *ports = "class/infiniband";
		snprintf(path, sizeof(path), "%s/%s/%s/ports/%u/state", root, ports, f->dev,
		         f->port);
		read_str(&f->state, path, true);
		snprintf(path, sizeof(path), "%s/%s/%s/ports/%u/phys_state", root, ports, f->dev,
		         f->port);
		read_str(&f->phys_state, path, true);
		snprintf(path, sizeof(path), "%s/%s/%s/ports/%u/link_layer", root, ports, f->dev,
		         f->port);
		read_str(&f->link_layer, path, false);
		snprintf(path, sizeof(path), "%s/%s/%s/ports/%u/rate", root, ports, f->dev,
		         f->port);
		read_str(&f->rate, path, false);
		snprintf(path, sizeof(path), "%s/%s/%s/device", root, ports, f->dev);
		read_pci(path, f->pci, sizeof(f->pci));
		read_gids(root, f);
		read_rdma_cm(root, f);
	}
	if (!f->netdev[0]) {
		set_why(f->netdev_why, sizeof(f->netdev_why), "%s:%u has no netdev", f->dev,
		        f->port);
		return;
	}
	snprintf(path, sizeof(path), "%s/class/net/%s", root, f->netdev);
	if (access(path, F_OK) != 0) {
		set_why(f->netdev_why, sizeof(f->netdev_why), "%s: %s", path, read_error(-errno));
		return;
	}
	f->netdev_exists = true;
	if (!f->pci[0]) {
		snprintf(path, sizeof(path), "%s/class/net/%s/device", root, f->netdev);
		read_pci(path, f->pci, sizeof(f->pci));
	}
	snprintf(path, sizeof(path), "%s/class/net/%s/operstate", root, f->netdev);
	read_str(&f->operstate, path, false);
	snprintf(path, sizeof(path), "%s/class/net/%s/mtu", root, f->netdev);
	read_int(&f->mtu, path);
	snprintf(path, sizeof(path), "%s/class/net/%s/speed", root, f->netdev);
	read_int(&f->speed_mbps, path);
	read_addrs(f);
	read_ecn(root, f);
	rt_doc_qos_gather(cfg, f->netdev, &f->qos);
}

static void sample_eth(struct rt_doc_facts *f, enum rt_doc_sample_which which)
{
	char(*names)[32] = NULL;
	uint64_t *values = NULL;
	int n = rt_ethtool_stats(f->netdev, &names, &values);
	if (n < 0) {
		set_why(f->counters.eth_why, sizeof(f->counters.eth_why),
		        "ethtool statistics of %s: %s", f->netdev, strerror(-n));
		if (which == RT_DOC_SAMPLE_SECOND)
			f->counters.neth = 0;
		return;
	}
	for (int i = 0; i < n; i++) {
		unsigned p;
		char rest[32];
		bool wanted = !strcmp(names[i], "rx_discards_phy") ||
		              ((sscanf(names[i], "rx_prio%u_%31s", &p, rest) == 2 ||
		                sscanf(names[i], "tx_prio%u_%31s", &p, rest) == 2) &&
		               p < 8 && !strcmp(rest, "pause"));
		if (!wanted)
			continue;
		struct rt_doc_counter *c = NULL;
		for (unsigned k = 0; k < f->counters.neth; k++)
			if (!strcmp(f->counters.eth[k].name, names[i]))
				c = &f->counters.eth[k];
		if (!c && which == RT_DOC_SAMPLE_FIRST && f->counters.neth < RT_DOC_MAX_ETH) {
			c = &f->counters.eth[f->counters.neth++];
			snprintf(c->name, sizeof(c->name), "%s", names[i]);
			c->known = true;
		}
		if (!c)
			continue;
		if (which == RT_DOC_SAMPLE_FIRST)
			c->first = c->second = values[i];
		else
			c->second = values[i];
	}
	if (n == 0 || f->counters.neth == 0)
		set_why(f->counters.eth_why, sizeof(f->counters.eth_why),
		        "%s has no per-priority pause counters in its ethtool statistics",
		        f->netdev);
	free(names);
	free(values);
}

void rt_doc_sample(const struct rt_doctor_config *cfg, struct rt_doc_facts *f,
                   enum rt_doc_sample_which which)
{
	const char *root = rt_sysfs_root(cfg->sysfs_root);
	char path[4096];
	if (f->rdma) {
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/hw_counters", root,
		         f->dev, f->port);
		if (which == RT_DOC_SAMPLE_FIRST && access(path, R_OK | X_OK) != 0)
			set_why(f->counters.why, sizeof(f->counters.why), "%s: %s", path,
			        read_error(-errno));
		else if (which == RT_DOC_SAMPLE_FIRST)
			f->counters.why[0] = '\0';
		for (size_t i = 0; i < sizeof(hw_names) / sizeof(hw_names[0]); i++) {
			struct rt_doc_counter *c = &f->counters.c[i];
			uint64_t v = 0;
			snprintf(path, sizeof(path),
			         "%s/class/infiniband/%s/ports/%u/hw_counters/%s", root, f->dev,
			         f->port, hw_names[i]);
			int rc = rt_sysfs_read_u64(path, &v);
			if (which == RT_DOC_SAMPLE_FIRST) {
				snprintf(c->name, sizeof(c->name), "%s", hw_names[i]);
				c->known = rc == 0;
				c->first = c->second = v;
			} else if (rc == 0 && c->known) {
				c->second = v;
			} else {
				c->known = false;
			}
		}
		f->counters.n = sizeof(hw_names) / sizeof(hw_names[0]);
	}
	if (f->netdev_exists)
		sample_eth(f, which);
	if (which == RT_DOC_SAMPLE_SECOND) {
		f->counters.sampled = true;
		f->counters.interval_ns = cfg->interval_ns;
	}
}
