/* verbs backend, both sides: RDMA CM events and errors, addresses, the NIC's hw_counters. */
#include "rt_config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>

#include <rdma/rdma_cma.h>

#include "common/sysfs.h"
#include "traffic/gen.h"
#include "traffic/internal.h"

int rt_gen_cm_err(char *errbuf, const char *what)
{
	int e = errno ? errno : EIO;
	return rt_errorf(errbuf, e, "%s", what);
}

int rt_gen_cm_event(struct rdma_event_channel *ch, int want, int timeout_ms,
                    struct rdma_cm_event **ev, char *errbuf)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	int rc = poll(&pfd, 1, timeout_ms);
	if (rc == 0)
		return rt_errmsg(errbuf, ETIMEDOUT, "RDMA CM: no event within %d ms", timeout_ms);
	if (rc < 0 || rdma_get_cm_event(ch, ev))
		return rt_gen_cm_err(errbuf, "rdma_get_cm_event");
	if (want >= 0 && (int)(*ev)->event != want) {
		rc = rt_errmsg(errbuf, ECONNREFUSED, "RDMA CM: got %s (status %d), expected %s",
		               rdma_event_str((*ev)->event), (*ev)->status,
		               rdma_event_str((enum rdma_cm_event_type)want));
		rdma_ack_cm_event(*ev);
		return rc;
	}
	return 0;
}

void rt_gen_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf,
		          (socklen_t)len);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf,
		          (socklen_t)len);
	else
		snprintf(buf, len, "?");
}

int64_t rt_gen_hw_counter(const struct rt_gen_config *cfg, struct rdma_cm_id *id, const char *name)
{
	const char *dev = cfg->ib_dev ? cfg->ib_dev : ibv_get_device_name(id->verbs->device);
	char path[512];
	uint64_t v;

	if (!dev)
		return -1;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/hw_counters/%s",
	         rt_sysfs_root(cfg->sysfs_root), dev, id->port_num ? id->port_num : 1, name);
	return rt_sysfs_read_u64(path, &v) == 0 && v <= INT64_MAX ? (int64_t)v : -1;
}
