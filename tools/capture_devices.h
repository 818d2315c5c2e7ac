/* capture -D and -i N: the devices the capture sources can open, listed and numbered. */
#ifndef RT_TOOLS_CAPTURE_DEVICES_H
#define RT_TOOLS_CAPTURE_DEVICES_H

#include "tools/capture_options.h"

/* -i N: the N-th device 'capture -D' lists becomes a->dev; 0 or the usage exit status. */
int rt_capture_device_by_index(struct rt_capture_args *a);
/* -D: the RDMA ports and network interfaces, numbered; the exit status. */
int rt_capture_list_devices(const char *sysfs_root);

#endif
