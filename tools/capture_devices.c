/* capture -D and -i N: the devices the capture sources can open, listed and numbered. */
#include <stdint.h>
#include <stdio.h>

#include "capture/source.h"
#include "common/sysfs.h"
#include "tools/capture_devices.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"

#define CMD "capture"

/* The `index`-th device (1-based) capture -D lists: RDMA ports, then network interfaces. */
struct nth_device {
	unsigned want, seen;
	char *name;
	size_t len;
};

static void find_nth(void *ctx, const struct rt_source_device *dev)
{
	struct nth_device *n = ctx;
	if (++n->seen == n->want)
		snprintf(n->name, n->len, "%s", dev->name);
}

/* -i N: the device name; 0 or the exit status. */
int rt_capture_device_by_index(struct rt_capture_args *a)
{
	uint64_t v;
	if (!a->dev || rt_opt_parse_uint(a->dev, 1, 65535, &v) != 0 || a->dev[0] == '0')
		return 0;
	struct rt_source_config cfg = {.sysfs_root = a->sysfs_root};
	struct nth_device n = {
	    .want = (unsigned)v, .name = a->dev_by_index, .len = sizeof(a->dev_by_index)};
	char errbuf[RT_ERRBUF_SIZE];
	static const char *const kinds[] = {"verbs", "pcap"};
	for (size_t k = 0; k < 2 && n.seen < n.want; k++)
		rt_source_list(kinds[k], &cfg, find_nth, &n, errbuf);
	if (n.seen < n.want)
		return rt_cli_usage_error(CMD, "-i %s: 'capture -D' lists %u devices", a->dev,
		                          n.seen);
	a->dev = a->dev_by_index;
	return 0;
}

/* One line of -D, numbered for -i N across both lists. */
static void print_device(void *ctx, const struct rt_source_device *dev)
{
	unsigned *n = ctx;
	printf("  %u. %-16s %s\n", ++*n, dev->name, dev->desc);
}

/* -D: what the verbs and the libpcap sources can capture from. */
int rt_capture_list_devices(const char *sysfs_root)
{
	struct rt_source_config cfg = {.sysfs_root = sysfs_root};
	char errbuf[RT_ERRBUF_SIZE];
	unsigned n = 0;

	printf("RDMA devices (verbs sniffer%s):\n",
	       rt_source_kind_built("verbs") ? "" : ", not built in: no libibverbs");
	if (rt_source_list("verbs", &cfg, print_device, &n, errbuf) <= 0)
		printf("  (none in %s/class/infiniband)\n", rt_sysfs_root(sysfs_root));
	printf("Network interfaces (libpcap):\n");
	if (rt_source_list("pcap", &cfg, print_device, &n, errbuf) < 0) {
		fflush(stdout);
		return rt_cli_fail(CMD, "cannot list network interfaces: %s", errbuf);
	}
	return fflush(stdout) == 0 ? RT_EXIT_OK : RT_EXIT_ERROR;
}
