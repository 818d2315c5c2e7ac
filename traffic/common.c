/* The traffic source's defaults and names shared by both backends. */
#include "traffic/gen.h"

#include <errno.h>
#include <string.h>

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
