/* sysfs lookups: RDMA device names and ports, the netdev behind a port, small number files. */
#include "common/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *rt_sysfs_root(const char *root)
{
	return root && *root ? root : RT_SYSFS_DEFAULT_ROOT;
}

int rt_sysfs_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	int err = n < 0 ? errno : 0;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int rt_sysfs_read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	int rc = rt_sysfs_read(path, buf, sizeof(buf));
	if (rc < 0)
		return rc;
	char *end;
	errno = 0;
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	unsigned long long x = strtoull(buf, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

int rt_sysfs_read_i64(const char *path, int64_t *v)
{
	char buf[64];
	int rc = rt_sysfs_read(path, buf, sizeof(buf));
	if (rc < 0)
		return rc;
	char *end;
	errno = 0;
	long long x = strtoll(buf, &end, 0);
	if (errno || end == buf || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

int rt_rdma_split_name(const char *name, char dev[RT_DEVNAME_MAX], unsigned *port)
{
	const char *colon = strrchr(name, ':');
	size_t len = colon ? (size_t)(colon - name) : strlen(name);
	if (len == 0 || len >= RT_DEVNAME_MAX)
		return -EINVAL;
	memcpy(dev, name, len);
	dev[len] = '\0';
	*port = 1;
	if (colon) {
		char *end;
		errno = 0;
		unsigned long p = strtoul(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || p < 1 || p > 255)
			return -EINVAL;
		*port = (unsigned)p;
	}
	return 0;
}

bool rt_rdma_name_is_device(const char *root, const char *name)
{
	char dev[RT_DEVNAME_MAX], path[4096];
	unsigned port;
	struct stat st;
	if (rt_rdma_split_name(name, dev, &port) < 0 || strchr(dev, '/') || dev[0] == '.')
		return false;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s", rt_sysfs_root(root), dev);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int rt_rdma_port_netdev(const char *root, const char *dev, unsigned port,
                        char netdev[RT_DEVNAME_MAX])
{
	char path[4096];
	root = rt_sysfs_root(root);
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0", root, dev,
	         port);
	if (rt_sysfs_read(path, netdev, RT_DEVNAME_MAX) == 0 && netdev[0])
		return 0;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net", root, dev);
	DIR *d = opendir(path);
	if (!d)
		return -ENOENT;
	struct dirent *e;
	int rc = -ENOENT;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= RT_DEVNAME_MAX)
			continue;
		snprintf(netdev, RT_DEVNAME_MAX, "%s", e->d_name);
		rc = 0;
		break;
	}
	closedir(d);
	return rc;
}

int rt_rdma_find_by_netdev(const char *root, const char *netdev, char dev[RT_DEVNAME_MAX],
                           unsigned *port)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/class/infiniband", rt_sysfs_root(root));
	DIR *d = opendir(path);
	if (!d)
		return -ENOENT;
	struct dirent *e;
	int rc = -ENOENT;
	while (rc < 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= RT_DEVNAME_MAX)
			continue;
		for (unsigned p = 1; p <= 4 && rc < 0; p++) {
			char nd[RT_DEVNAME_MAX];
			struct stat st;
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u",
			         rt_sysfs_root(root), e->d_name, p);
			if (stat(path, &st) < 0)
				break;
			if (rt_rdma_port_netdev(root, e->d_name, p, nd) == 0 &&
			    strcmp(nd, netdev) == 0) {
				snprintf(dev, RT_DEVNAME_MAX, "%s", e->d_name);
				*port = p;
				rc = 0;
			}
		}
	}
	closedir(d);
	return rc;
}

int rt_rdma_list_ports(const char *root, void (*fn)(void *ctx, const struct rt_rdma_port *p),
                       void *ctx)
{
	char path[4096], val[128];
	struct dirent **names = NULL;
	int n, shown = 0;

	snprintf(path, sizeof(path), "%s/class/infiniband", rt_sysfs_root(root));
	n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *dev = names[i]->d_name;
		for (unsigned port = 1;
		     dev[0] != '.' && strlen(dev) < RT_DEVNAME_MAX && port <= 255; port++) {
			struct rt_rdma_port p = {.port = port, .link_layer = "?", .state = "?"};
			const char *s;

			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u",
			         rt_sysfs_root(root), dev, port);
			if (access(path, F_OK) != 0)
				break;
			snprintf(p.dev, sizeof(p.dev), "%s", dev);
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/link_layer",
			         rt_sysfs_root(root), dev, port);
			if (rt_sysfs_read(path, val, sizeof(val)) == 0)
				snprintf(p.link_layer, sizeof(p.link_layer), "%s", val);
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/state",
			         rt_sysfs_root(root), dev, port);
			if (rt_sysfs_read(path, val, sizeof(val)) == 0) {
				/* "4: ACTIVE" */
				s = strchr(val, ':');
				s = s ? s + 1 : val;
				while (*s == ' ')
					s++;
				snprintf(p.state, sizeof(p.state), "%s", s);
			}
			if (rt_rdma_port_netdev(root, dev, port, p.netdev) < 0)
				snprintf(p.netdev, sizeof(p.netdev), "-");
			fn(ctx, &p);
			shown++;
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return shown;
}
