/* The traffic source's defaults and names shared by both backends. */
#include "traffic/gen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/sysfs.h"
#include "traffic/internal.h"

void rt_gen_config_default(struct rt_gen_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = RT_GEN_BACKEND_UDP;
	cfg->op = RT_GEN_OP_WRITE;
	cfg->port = RT_ROCEV2_PORT;
	cfg->control_port = 18515;
	cfg->msg_size = 65536;
	cfg->mtu = 1024;
	cfg->qps = 1;
	cfg->qdepth = 16;
	cfg->duration_s = 5.0;
	cfg->line_gbps = 100.0;
	cfg->interval_s = 1.0;
	cfg->dscp = 26;
	cfg->cnp_dscp = 48;
	cfg->cnp_interval_ns = 50000;
	cfg->timeout_ns = 4000000;
	cfg->clients = 1;
	cfg->hello_timeout_ns = 5000000000ull;
	cfg->idle_timeout_ns = 60000000000ull;
	cfg->dcqcn = true;
	cfg->pfc_priority = 3;
	rt_dcqcn_params_default(&cfg->dcqcn_params, cfg->line_gbps * 1000.0);
}

static const char *const op_names[] = {"write", "send", "read"};

const char *rt_gen_op_name(enum rt_gen_op op)
{
	return (unsigned)op < 3 ? op_names[op] : "?";
}

int rt_gen_op_parse(const char *s, enum rt_gen_op *op)
{
	for (unsigned i = 0; i < 3; i++)
		if (!strcmp(s, op_names[i])) {
			*op = (enum rt_gen_op)i;
			return 0;
		}
	return -EINVAL;
}

int rt_gen_gid_addr(const char *sysfs_root, const char *dev, unsigned port, unsigned index,
                    char addr[16], char *errbuf)
{
	char path[512], text[128];
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gids/%u",
	         rt_sysfs_root(sysfs_root), dev, port, index);
	int rc = rt_sysfs_read(path, text, sizeof(text));
	if (rc < 0)
		return rt_errorf(errbuf, -rc, "GID %u of %s port %u (%s)", index, dev, port, path);
	uint8_t gid[16];
	if (inet_pton(AF_INET6, text, gid) != 1)
		return rt_errmsg(errbuf, EINVAL, "GID %u of %s port %u: '%s' is not a GID", index,
		                 dev, port, text);
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (memcmp(gid, v4mapped, sizeof(v4mapped)) != 0)
		return rt_errmsg(
		    errbuf, EADDRNOTAVAIL,
		    "GID %u of %s port %u (%s) holds no IPv4 address: pick the index "
		    "of a RoCE v2 GID of an IPv4 address ('rocetrace doctor' lists them)",
		    index, dev, port, text);
	inet_ntop(AF_INET, gid + 12, addr, 16);
	return 0;
}

void rt_gen_log_start(struct rt_evlog *log, uint64_t now, const struct rt_gen_config *cfg,
                      const char *backend, unsigned nqp)
{
	rt_evlog_begin(log, now, "start");
	rt_evlog_str(log, "role", cfg->latency ? "lat" : "send");
	rt_evlog_str(log, "backend", backend);
	rt_evlog_str(log, "op", rt_gen_op_name(cfg->op));
	rt_evlog_u64(log, "msg_size", cfg->msg_size);
	rt_evlog_u64(log, "qps", nqp);
	if (cfg->sweep)
		rt_evlog_bool(log, "sweep", true);
	rt_evlog_end(log);
}
