/* sysfs reading: small files, RDMA devices, their ports and netdevs (root configurable). */
#ifndef RT_SYSFS_H
#define RT_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_SYSFS_DEFAULT_ROOT "/sys"
#define RT_DEVNAME_MAX        64

/* root or the default when root is NULL/empty */
const char *rt_sysfs_root(const char *root);
/* Read a small text file into buf (trailing newline removed). Returns 0 or -errno. */
int rt_sysfs_read(const char *path, char *buf, size_t size);
/* Read a file holding one unsigned decimal number. Returns 0 or -errno (-EINVAL: not a number). */
int rt_sysfs_read_u64(const char *path, uint64_t *v);
/* Read a file holding one signed number, decimal or 0x hex ("-1", "0x1003"). Returns 0 or -errno (-EINVAL: not a number). */
int rt_sysfs_read_i64(const char *path, int64_t *v);

/*
 * Split "DEV" or "DEV:PORT" into the device name and port (1 when absent).
 * Returns 0, or -EINVAL when the name is too long or the port is not 1..255.
 */
int rt_rdma_split_name(const char *name, char dev[RT_DEVNAME_MAX], unsigned *port);
/* True when ROOT/class/infiniband/DEV exists (DEV as split from name). */
bool rt_rdma_name_is_device(const char *root, const char *name);
/*
 * The netdev of an RDMA port: ports/N/gid_attrs/ndevs/0, else the first
 * entry of device/net/. Returns 0 or -ENOENT.
 */
int rt_rdma_port_netdev(const char *root, const char *dev, unsigned port,
                        char netdev[RT_DEVNAME_MAX]);
/* The RDMA device and port whose netdev is `netdev` (first found). Returns 0 or -ENOENT. */
int rt_rdma_find_by_netdev(const char *root, const char *netdev, char dev[RT_DEVNAME_MAX],
                           unsigned *port);

/* One port of an RDMA device as sysfs describes it ("?" or "-" where it says nothing). */
struct rt_rdma_port {
	char dev[RT_DEVNAME_MAX];
	unsigned port;
	char link_layer[128]; /* "Ethernet", "InfiniBand" */
	char state[128];      /* "ACTIVE", "DOWN" */
	char netdev[RT_DEVNAME_MAX];
};

/*
 * Every port of every device under ROOT/class/infiniband, devices in name
 * order: one call of fn each. Returns how many (0 when there is no such
 * directory).
 */
int rt_rdma_list_ports(const char *root, void (*fn)(void *ctx, const struct rt_rdma_port *p),
                       void *ctx);

#endif
