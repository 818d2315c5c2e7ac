/* doctor's run: which ports and netdevs to check, their facts read, counters sampled twice, an optional capture, then the verdicts. */
#include <dirent.h>
#include <net/if.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/sysfs.h"
#include "common/textfmt.h"
#include "doctor/facts.h"

#define ARPHRD_ETHER_TYPE 1 /* class/net/X/type of an Ethernet netdev */

void rt_doctor_config_init(struct rt_doctor_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->priority = RT_DOC_DEFAULT_PRIORITY;
	cfg->dscp = RT_DOC_DEFAULT_DSCP;
	cfg->min_mtu = RT_DOC_DEFAULT_MTU;
	cfg->interval_ns = 1000000000u;
	cfg->dcb_netlink = true;
}

struct targets {
	struct rt_doc_facts *v;
	unsigned n, cap;
};

static struct rt_doc_facts *new_target(struct targets *ts)
{
	if (ts->n == ts->cap) {
		unsigned ncap = ts->cap ? ts->cap * 2 : 4;
		struct rt_doc_facts *nv = realloc(ts->v, ncap * sizeof(*nv));
		if (!nv)
			return NULL;
		ts->v = nv;
		ts->cap = ncap;
	}
	struct rt_doc_facts *f = &ts->v[ts->n++];
	rt_doc_facts_init(f, "not read");
	return f;
}

static int name_sort(const struct dirent **a, const struct dirent **b)
{
	/* numbers by value (ports 1, 2, 10), names by strverscmp */
	return strverscmp((*a)->d_name, (*b)->d_name);
}

static int visible(const struct dirent *e)
{
	return e->d_name[0] != '.' && strlen(e->d_name) < RT_DEVNAME_MAX;
}

/* Add every port of `dev` (or only `port` when it is not 0). */
static int add_ports(const char *root, const char *dev, unsigned port, struct targets *ts,
                     char *errbuf)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", root, dev);
	struct dirent **names = NULL;
	int n = scandir(path, &names, visible, name_sort);
	if (n < 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "cannot list %.160s: %s", path, strerror(errno));
		return -errno;
	}
	int rc = 0, added = 0;
	for (int i = 0; i < n; i++) {
		char *end;
		unsigned long p = strtoul(names[i]->d_name, &end, 10);
		if (*end || p == 0 || p > 255 || (port && p != port))
			continue;
		struct rt_doc_facts *f = new_target(ts);
		if (!f) {
			rc = -ENOMEM;
			snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
			break;
		}
		f->rdma = true;
		snprintf(f->dev, sizeof(f->dev), "%s", dev);
		f->port = (unsigned)p;
		if (rt_rdma_port_netdev(root, dev, f->port, f->netdev) < 0)
			f->netdev[0] = '\0';
		added++;
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == 0 && port && !added) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s has no port %u (%.160s)", dev, port, path);
		rc = -ENODEV;
	}
	return rc;
}

static bool netdev_exists(const char *root, const char *name)
{
	char path[4096];
	struct stat st;
	if (!*name || strchr(name, '/') || name[0] == '.')
		return false;
	snprintf(path, sizeof(path), "%s/class/net/%s", root, name);
	return stat(path, &st) == 0;
}

static int add_netdev(const char *root, const char *name, struct targets *ts, char *errbuf)
{
	struct rt_doc_facts *f = new_target(ts);
	if (!f) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		return -ENOMEM;
	}
	size_t n = strnlen(name, sizeof(f->netdev) - 1); /* a netdev name is 15 bytes at most */
	memcpy(f->netdev, name, n);
	f->netdev[n] = '\0';
	if (rt_rdma_find_by_netdev(root, name, f->dev, &f->port) == 0)
		f->rdma = true;
	return 0;
}

static void add_note(struct rt_doc_report *r, const char *text)
{
	if (r->nnotes < RT_DOC_MAX_NOTES)
		snprintf(r->notes[r->nnotes++], sizeof(r->notes[0]), "%s", text);
}

/* No RDMA device: every Ethernet netdev that is up; the down ones are named in a note. */
static int add_ethernet_netdevs(const char *root, struct targets *ts, struct rt_doc_report *r,
                                char *errbuf)
{
	char path[4096], down[200] = "";
	int64_t type, flags;
	snprintf(path, sizeof(path), "%s/class/net", root);
	struct dirent **names = NULL;
	int n = scandir(path, &names, visible, name_sort);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		snprintf(path, sizeof(path), "%s/class/net/%s/type", root, names[i]->d_name);
		if (rt_sysfs_read_i64(path, &type) < 0 || type != ARPHRD_ETHER_TYPE)
			continue;
		snprintf(path, sizeof(path), "%s/class/net/%s/flags", root, names[i]->d_name);
		if (rt_sysfs_read_i64(path, &flags) == 0 && !(flags & IFF_UP)) {
			rt_text_appendf(down, sizeof(down), "%s%s", down[0] ? ", " : "",
			                names[i]->d_name);
			continue;
		}
		rc = add_netdev(root, names[i]->d_name, ts, errbuf);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (down[0]) {
		char note[256];
		snprintf(note, sizeof(note), "not checked, administratively down: %.200s", down);
		add_note(r, note);
	}
	return rc;
}

static int resolve(const struct rt_doctor_config *cfg, char *const *names, int nnames,
                   struct targets *ts, struct rt_doc_report *r, char *errbuf)
{
	const char *root = rt_sysfs_root(cfg->sysfs_root);
	char path[4096], note[256];
	for (int i = 0; i < nnames; i++) {
		const char *name = names[i];
		char dev[RT_DEVNAME_MAX];
		unsigned port;
		int rc;
		if (rt_rdma_name_is_device(root, name)) {
			if (rt_rdma_split_name(name, dev, &port) < 0) {
				snprintf(errbuf, RT_ERRBUF_SIZE, "'%s': bad port", name);
				return -EINVAL;
			}
			rc = add_ports(root, dev, strchr(name, ':') ? port : 0, ts, errbuf);
		} else if (netdev_exists(root, name)) {
			rc = add_netdev(root, name, ts, errbuf);
		} else {
			snprintf(errbuf, RT_ERRBUF_SIZE,
			         "'%s' is neither an RDMA device (in %s/class/infiniband) nor a "
			         "netdev (in "
			         "%s/class/net)",
			         name, root, root);
			rc = -ENODEV;
		}
		if (rc < 0)
			return rc;
	}
	if (nnames)
		return 0;
	snprintf(path, sizeof(path), "%s/class/infiniband", root);
	struct dirent **devs = NULL;
	int n = scandir(path, &devs, visible, name_sort);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++)
		rc = add_ports(root, devs[i]->d_name, 0, ts, errbuf);
	for (int i = 0; i < n; i++)
		free(devs[i]);
	free(devs);
	if (rc < 0)
		return rc;
	if (ts->n)
		return 0;
	snprintf(note, sizeof(note),
	         "no RDMA device on this host (%s/class/infiniband is %s): checking its Ethernet "
	         "netdevs only",
	         root, n < 0 ? "absent" : "empty");
	add_note(r, note);
	rc = add_ethernet_netdevs(root, ts, r, errbuf);
	if (rc == 0 && !ts->n)
		add_note(r, "no Ethernet netdev either: nothing to check");
	return rc;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
	                      .tv_nsec = (long)(ns % 1000000000u)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int rt_doctor_run(const struct rt_doctor_config *cfg, char *const *names, int nnames,
                  struct rt_doc_report *r, char *errbuf)
{
	memset(r, 0, sizeof(*r));
	if (gethostname(r->host, sizeof(r->host) - 1) < 0)
		snprintf(r->host, sizeof(r->host), "localhost");
	r->priority = cfg->priority;
	r->dscp = cfg->dscp;
	struct targets ts = {0};
	int rc = resolve(cfg, names, nnames, &ts, r, errbuf);
	if (rc < 0) {
		free(ts.v);
		return rc;
	}
	if (geteuid() != 0)
		add_note(r, "not running as root: what needs root (debugfs, some tools) is marked "
		            "'could not check'");
	for (unsigned i = 0; i < ts.n; i++)
		rt_doc_gather(cfg, &ts.v[i]);
	for (unsigned i = 0; i < ts.n; i++)
		rt_doc_sample(cfg, &ts.v[i], RT_DOC_SAMPLE_FIRST);
	if (cfg->interval_ns && ts.n) {
		sleep_ns(cfg->interval_ns);
		for (unsigned i = 0; i < ts.n; i++)
			rt_doc_sample(cfg, &ts.v[i], RT_DOC_SAMPLE_SECOND);
	}
	if (cfg->traffic_ns)
		for (unsigned i = 0; i < ts.n; i++)
			rt_doc_capture(cfg, &ts.v[i]);
	r->targets = calloc(ts.n ? ts.n : 1, sizeof(*r->targets));
	if (!r->targets) {
		free(ts.v);
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		return -ENOMEM;
	}
	r->ntargets = ts.n;
	for (unsigned i = 0; i < ts.n; i++) {
		rt_doc_judge(&ts.v[i], cfg, &r->targets[i]);
		for (unsigned k = 0; k < r->targets[i].nchecks; k++)
			r->counts[r->targets[i].checks[k].status]++;
	}
	free(ts.v);
	return 0;
}

void rt_doctor_report_free(struct rt_doc_report *r)
{
	free(r->targets);
	r->targets = NULL;
	r->ntargets = 0;
}
