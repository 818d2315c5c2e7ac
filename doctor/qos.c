/* A netdev's PFC, trust mode and DSCP map: sysfs qos/, then DCB netlink, then dcb, mlnx_qos, lldptool when installed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/sysfs.h"
#include "doctor/facts.h"
#include "common/launch.h"
#include "common/textfmt.h"

#define TOOL_OUTPUT_MAX (1u << 20)

/* Add one more reason to a "; "-separated list. */
#define add_why(why, size, ...)                                                                    \
	do {                                                                                       \
		if ((why)[0])                                                                      \
			rt_text_appendf(why, size, "; ");                                          \
		rt_text_appendf(why, size, __VA_ARGS__);                                           \
	} while (0)

/* The tool's path: in tools_dir when given, else in $PATH and the sbin folders. */
static bool find_tool(const struct rt_doctor_config *cfg, const char *name, char *path, size_t size)
{
	if (cfg->tools_dir) {
		snprintf(path, size, "%s/%s", cfg->tools_dir, name);
		return access(path, X_OK) == 0;
	}
	const char *env = getenv("PATH");
	char dirs[4096];
	snprintf(dirs, sizeof(dirs), "%s:/usr/local/sbin:/usr/sbin:/sbin",
	         env ? env : "/usr/bin:/bin");
	char *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		struct stat st;
		snprintf(path, size, "%s/%s", *d ? d : ".", name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return true;
	}
	return false;
}

/* The last non-empty line of s, into buf. */
static const char *last_line(const char *s, char *buf, size_t size)
{
	const char *best = NULL;
	size_t best_len = 0;
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, "\n");
		size_t l = len;
		while (l && (p[l - 1] == ' ' || p[l - 1] == '\t' || p[l - 1] == '\r'))
			l--;
		if (l) {
			best = p;
			best_len = l;
		}
		p += len;
		if (*p)
			p++;
	}
	if (!best)
		return NULL;
	if (best_len >= size)
		best_len = size - 1;
	memcpy(buf, best, best_len);
	buf[best_len] = '\0';
	return buf;
}

/*
 * Run tool `argv` (argv[0] a bare name). Returns its standard output
 * (caller frees) when it ran and exited 0; else NULL with the reason added
 * to why.
 */
static char *run_tool(const struct rt_doctor_config *cfg, const char *const *argv, char *why,
                      size_t why_size)
{
	char path[4096], errbuf[RT_ERRBUF_SIZE];
	if (!find_tool(cfg, argv[0], path, sizeof(path))) {
		add_why(why, why_size, "%s: not installed", argv[0]);
		return NULL;
	}
	char *av[16];
	size_t n = 0;
	av[n++] = path;
	for (size_t i = 1; argv[i] && n < 15; i++)
		av[n++] = (char *)argv[i];
	av[n] = NULL;
	struct rt_launch_result r;
	uint64_t timeout = cfg->tool_timeout_ns ? cfg->tool_timeout_ns : 10000000000ull;
	if (cfg->tools_deadline_ns) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		if (now >= cfg->tools_deadline_ns) {
			add_why(why, why_size, "%s: not run, no time left", argv[0]);
			return NULL;
		}
		if (cfg->tools_deadline_ns - now < timeout)
			timeout = cfg->tools_deadline_ns - now;
	}
	if (rt_launch_local(av, timeout, TOOL_OUTPUT_MAX, &r, errbuf) < 0) {
		add_why(why, why_size, "%s: %s", argv[0], errbuf);
		rt_launch_result_free(&r);
		return NULL;
	}
	char line[200];
	if (r.timed_out) {
		add_why(why, why_size, "%s: no answer in %.3g s", argv[0], (double)timeout / 1e9);
	} else if (r.status != 0) {
		const char *l = last_line(r.err, line, sizeof(line));
		if (!l)
			l = last_line(r.out, line, sizeof(line));
		add_why(why, why_size, "%s: %s (exit %d)", argv[0], l ? l : "failed", r.status);
	} else {
		char *out = r.out;
		r.out = NULL;
		rt_launch_result_free(&r);
		return out;
	}
	rt_launch_result_free(&r);
	return NULL;
}

/* MLNX_OFED's mlx5 driver: class/net/NETDEV/qos/trust and qos/dscp2prio. */
static void from_sysfs(const struct rt_doctor_config *cfg, const char *netdev, struct rt_doc_qos *q)
{
	char path[4096], buf[8192];
	const char *root = rt_sysfs_root(cfg->sysfs_root);
	snprintf(path, sizeof(path), "%s/class/net/%s/qos/trust", root, netdev);
	if (rt_sysfs_read(path, buf, sizeof(buf)) == 0 &&
	    (!strcmp(buf, "dscp") || !strcmp(buf, "pcp"))) {
		q->trust = buf[0] == 'd' ? RT_TRUST_DSCP : RT_TRUST_PCP;
		q->trust_known = true;
		snprintf(q->trust_source, sizeof(q->trust_source), "sysfs qos/trust");
	}
	snprintf(path, sizeof(path), "%s/class/net/%s/qos/dscp2prio", root, netdev);
	if (rt_sysfs_read(path, buf, sizeof(buf)) == 0 &&
	    rt_doc_parse_dscp2prio_file(buf, q->dscp2prio) > 0) {
		q->map_known = true;
		snprintf(q->map_source, sizeof(q->map_source), "sysfs qos/dscp2prio");
	}
}

static void from_dcb_tool(const struct rt_doctor_config *cfg, const char *netdev,
                          struct rt_doc_qos *q)
{
	const char *pfc_argv[] = {"dcb", "pfc", "show", "dev", netdev, NULL};
	char *out = run_tool(cfg, pfc_argv, q->why, sizeof(q->why));
	if (!out)
		return;
	if (rt_doc_parse_dcb_pfc(out, &q->pfc_en) == 0) {
		q->pfc_known = true;
		snprintf(q->pfc_source, sizeof(q->pfc_source), "dcb pfc show");
	} else {
		add_why(q->why, sizeof(q->why), "dcb: no prio-pfc in its output");
	}
	free(out);
	const char *app_argv[] = {"dcb", "-N", "app", "show", "dev", netdev, "dscp-prio", NULL};
	out = run_tool(cfg, app_argv, q->why, sizeof(q->why));
	if (!out)
		return;
	int8_t map[64];
	int n = rt_doc_parse_dcb_app(out, map);
	if (n >= 0 && !q->map_known) {
		memcpy(q->dscp2prio, map, sizeof(map));
		q->map_known = true;
		snprintf(q->map_source, sizeof(q->map_source), "dcb app show");
	}
	if (n >= 0 && !q->trust_known) {
		q->trust = n ? RT_TRUST_DSCP : RT_TRUST_PCP;
		q->trust_known = true;
		snprintf(q->trust_source, sizeof(q->trust_source),
		         "dcb app show: APP table %s DSCP entries", n ? "has" : "without");
	}
	free(out);
}

static void from_mlnx_qos(const struct rt_doctor_config *cfg, const char *netdev,
                          struct rt_doc_qos *q)
{
	const char *argv[] = {"mlnx_qos", "-i", netdev, NULL};
	char *out = run_tool(cfg, argv, q->why, sizeof(q->why));
	if (!out)
		return;
	struct rt_doc_qos t;
	memset(&t, 0, sizeof(t));
	if (rt_doc_parse_mlnx_qos(out, &t) < 0) {
		add_why(q->why, sizeof(q->why), "mlnx_qos: output not understood");
	} else {
		if (t.pfc_known && !q->pfc_known) {
			q->pfc_known = true;
			q->pfc_en = t.pfc_en;
			snprintf(q->pfc_source, sizeof(q->pfc_source), "mlnx_qos");
		}
		if (t.trust_known && !q->trust_known) {
			q->trust_known = true;
			q->trust = t.trust;
			snprintf(q->trust_source, sizeof(q->trust_source), "mlnx_qos");
		}
		if (t.map_known && !q->map_known) {
			q->map_known = true;
			memcpy(q->dscp2prio, t.dscp2prio, sizeof(t.dscp2prio));
			snprintf(q->map_source, sizeof(q->map_source), "mlnx_qos");
		}
	}
	free(out);
}

/* lldptool -t [-n] -i NETDEV -V PFC: lldpad's view, this host's (local) or the link partner's. */
static void from_lldptool(const struct rt_doctor_config *cfg, const char *netdev, bool peer,
                          struct rt_doc_qos *q)
{
	const char *local_argv[] = {"lldptool", "-t", "-i", netdev, "-V", "PFC", NULL};
	const char *peer_argv[] = {"lldptool", "-t", "-n", "-i", netdev, "-V", "PFC", NULL};
	char *why = peer ? q->peer_why : q->why;
	size_t why_size = peer ? sizeof(q->peer_why) : sizeof(q->why);
	char *out = run_tool(cfg, peer ? peer_argv : local_argv, why, why_size);
	if (!out)
		return;
	uint8_t en;
	if (rt_doc_parse_lldptool_pfc(out, &en) < 0) {
		add_why(why, why_size, "lldptool: no \"PFC enabled\" in its output");
	} else if (peer) {
		q->peer_known = true;
		q->peer_pfc_en = en;
		snprintf(q->peer_source, sizeof(q->peer_source),
		         "lldptool -n (LLDP from the peer)");
	} else {
		q->pfc_known = true;
		q->pfc_en = en;
		snprintf(q->pfc_source, sizeof(q->pfc_source), "lldptool");
	}
	free(out);
}

void rt_doc_qos_gather(const struct rt_doctor_config *cfg, const char *netdev, struct rt_doc_qos *q)
{
	memset(q, 0, sizeof(*q));
	memset(q->dscp2prio, -1, sizeof(q->dscp2prio));
	from_sysfs(cfg, netdev, q);
	if (cfg->dcb_netlink) {
		int rc = rt_doc_dcbnl_query(netdev, q);
		if (rc == -EOPNOTSUPP)
			add_why(q->why, sizeof(q->why), "DCB netlink: %s has no DCB support",
			        netdev);
		else if (rc == -ENODEV)
			add_why(q->why, sizeof(q->why), "DCB netlink: no netdev %s here", netdev);
		else if (rc < 0)
			add_why(q->why, sizeof(q->why), "DCB netlink: %s", strerror(-rc));
		else if (!q->pfc_known)
			add_why(q->why, sizeof(q->why),
			        "DCB netlink: no PFC attribute in the answer");
		if (rc == 0 && !q->peer_known)
			add_why(q->peer_why, sizeof(q->peer_why),
			        "DCB netlink: the driver reports no peer PFC (no DCBX exchange)");
	}
	if (!q->pfc_known || !q->trust_known)
		from_dcb_tool(cfg, netdev, q);
	if (!q->pfc_known || !q->trust_known)
		from_mlnx_qos(cfg, netdev, q);
	if (!q->pfc_known)
		from_lldptool(cfg, netdev, false, q);
	if (!q->peer_known)
		from_lldptool(cfg, netdev, true, q);
}
