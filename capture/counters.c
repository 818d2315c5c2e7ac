/* NIC counter sampler: RDMA port sysfs counters and netdev ethtool statistics, JSON Lines. */
#include "capture/counters.h"

#include "capture/source.h"
#include "common/clock.h"
#include "common/sysfs.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "common/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct rt_counters {
	struct rt_counters_config cfg;
	char path[4096];
	char root[1024];
	char dev[RT_DEVNAME_MAX];
	char netdev[RT_DEVNAME_MAX];
	bool use_ethtool;
	unsigned last_count;
	FILE *fp;
	pthread_t thread;
	bool started;
	bool stop;
	int thread_err; /* first error of the thread's samples */
	char thread_errbuf[RT_ERRBUF_SIZE];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rt_outbuf out;
	char capture_dev[RT_DEVNAME_MAX];
	rt_counters_capture_fn capture_fn;
	void *capture_ctx;
	/* rt_counters_set_sample_fn: the sample's counters gathered for fn */
	rt_counters_sample_fn sample_fn;
	void *sample_ctx;
	struct rt_counter_value *vals;
	char (*val_names)[64];
	unsigned nvals, cap_vals;
};

static int ethtool_ioctl(int fd, const char *netdev, void *data)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", netdev);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

int rt_ethtool_stats(const char *netdev, char (**names)[32], uint64_t **values)
{
	*names = NULL;
	*values = NULL;
	if (strlen(netdev) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct ethtool_sset_info *sset = calloc(1, sizeof(*sset) + sizeof(uint32_t));
	if (!sset) {
		close(fd);
		return -ENOMEM;
	}
	sset->cmd = ETHTOOL_GSSET_INFO;
	sset->sset_mask = 1ull << ETH_SS_STATS;
	int rc = ethtool_ioctl(fd, netdev, sset);
	uint32_t n = rc == 0 && sset->sset_mask ? sset->data[0] : 0;
	free(sset);
	struct ethtool_gstrings *gs = NULL;
	struct ethtool_stats *gst = NULL;
	if (rc == 0 && n == 0)
		goto out;
	if (rc < 0)
		goto out;
	gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	gst = calloc(1, sizeof(*gst) + (size_t)n * sizeof(uint64_t));
	*names = calloc(n, sizeof(**names));
	*values = calloc(n, sizeof(**values));
	if (!gs || !gst || !*names || !*values) {
		rc = -ENOMEM;
		goto out;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	gst->cmd = ETHTOOL_GSTATS;
	gst->n_stats = n;
	if ((rc = ethtool_ioctl(fd, netdev, gs)) < 0 || (rc = ethtool_ioctl(fd, netdev, gst)) < 0)
		goto out;
	if (gs->len < n)
		n = gs->len;
	if (gst->n_stats < n)
		n = gst->n_stats;
	for (uint32_t i = 0; i < n; i++) {
		memcpy((*names)[i], gs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		(*names)[i][ETH_GSTRING_LEN - 1] = '\0';
		(*values)[i] = gst->data[i];
	}
out:
	free(gs);
	free(gst);
	close(fd);
	if (rc < 0 || n == 0) {
		free(*names);
		free(*values);
		*names = NULL;
		*values = NULL;
	}
	return rc < 0 ? rc : (int)n;
}

/* Keep a counter for the sample function (what does not fit in memory is left out). */
static void gather(struct rt_counters *c, const char *dev, unsigned port, const char *name,
                   uint64_t v)
{
	if (c->nvals == c->cap_vals) {
		unsigned cap = c->cap_vals ? 2 * c->cap_vals : 256;
		struct rt_counter_value *vals = realloc(c->vals, cap * sizeof(*vals));
		if (vals)
			c->vals = vals;
		char(*names)[64] = realloc(c->val_names, cap * sizeof(*names));
		if (names)
			c->val_names = names;
		if (!vals || !names)
			return;
		c->cap_vals = cap;
	}
	snprintf(c->val_names[c->nvals], sizeof(c->val_names[0]), "%s", name);
	c->vals[c->nvals++] = (struct rt_counter_value){.dev = dev, .port = port, .value = v};
}

/* One counter as a member "name":value (of the RDMA port when port is set, else of the netdev). */
static void put_counter(struct rt_counters *c, struct rt_json *j, unsigned *n, unsigned port,
                        const char *name, uint64_t v)
{
	(*n)++;
	rt_json_key(j, name);
	rt_json_u64(j, v);
	if (c->sample_fn)
		gather(c, port ? c->dev : c->netdev, port, name, v);
}

/* Every number file of one sysfs directory. */
static void put_dir(struct rt_counters *c, struct rt_json *j, unsigned *n, const char *sub)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/%s", c->root, c->dev,
	         c->cfg.port, sub);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char file[4352];
		uint64_t v;
		if (e->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
		if (rt_sysfs_read_u64(file, &v) == 0)
			put_counter(c, j, n, c->cfg.port ? c->cfg.port : 1, e->d_name, v);
	}
	closedir(d);
}

int rt_counters_sample(struct rt_counters *c, char *errbuf)
{
	struct rt_json j;
	unsigned n = 0;
	uint64_t ts = rt_real_ns();
	rt_json_init(&j, &c->out);
	rt_json_obj(&j);
	RT_JSON_KEY(&j, "ts");
	rt_json_ts(&j, ts);
	RT_JSON_U64(&j, "ts_ns", ts);
	if (c->dev[0]) {
		RT_JSON_STR(&j, "dev", c->dev);
		RT_JSON_U64(&j, "port", c->cfg.port);
	}
	char(*names)[32] = NULL;
	uint64_t *values = NULL;
	int ne = c->use_ethtool ? rt_ethtool_stats(c->netdev, &names, &values) : 0;
	if (ne > 0)
		RT_JSON_STR(&j, "netdev", c->netdev);
	RT_JSON_KEY(&j, "counters");
	rt_json_obj(&j);
	if (c->dev[0]) {
		put_dir(c, &j, &n, "hw_counters");
		put_dir(c, &j, &n, "counters");
	}
	for (int i = 0; i < ne; i++)
		put_counter(c, &j, &n, 0, names[i], values[i]);
	free(names);
	free(values);
	rt_json_obj_end(&j);
	rt_json_obj_end(&j);
	if (c->sample_fn) {
		for (unsigned i = 0; i < c->nvals; i++) /* names now stay where they are */
			c->vals[i].name = c->val_names[i];
		c->sample_fn(c->sample_ctx, c->vals, c->nvals);
		c->nvals = 0;
	}
	rt_out_char(&c->out, '\n');
	c->last_count = n;
	int err = rt_out_flush(&c->out);
	if (err == 0 && fflush(c->fp) != 0)
		err = errno;
	return err ? rt_errorf(errbuf, err, "%s", c->path) : 0;
}

void rt_counters_set_capture(struct rt_counters *c, const char *device, rt_counters_capture_fn fn,
                             void *ctx)
{
	snprintf(c->capture_dev, sizeof(c->capture_dev), "%s", device);
	c->capture_fn = fn;
	c->capture_ctx = ctx;
}

/* {"ts":"...","capture":{"device":"eth0","received":N,"os_dropped":N,"if_dropped":N}} */
static int capture_line(struct rt_counters *c, char *errbuf)
{
	struct rt_source_stats st;
	memset(&st, 0, sizeof(st));
	c->capture_fn(c->capture_ctx, &st);
	uint64_t ts = rt_real_ns();
	rt_out_str(&c->out, "{\"ts\":\"");
	rt_out_ts(&c->out, ts);
	rt_out_str(&c->out, "\",\"ts_ns\":");
	rt_out_u64(&c->out, ts);
	rt_out_str(&c->out, ",\"capture\":{\"device\":");
	rt_out_json_str(&c->out, c->capture_dev);
	rt_out_str(&c->out, ",\"received\":");
	rt_out_u64(&c->out, st.received);
	rt_out_str(&c->out, ",\"os_dropped\":");
	rt_out_u64(&c->out, st.dropped);
	rt_out_str(&c->out, ",\"if_dropped\":");
	rt_out_u64(&c->out, st.if_dropped);
	rt_out_str(&c->out, "}}\n");
	int err = rt_out_flush(&c->out);
	return err ? rt_errorf(errbuf, err, "%s", c->path) : 0;
}

void rt_counters_set_sample_fn(struct rt_counters *c, rt_counters_sample_fn fn, void *ctx)
{
	c->sample_fn = fn;
	c->sample_ctx = ctx;
}

unsigned rt_counters_count(const struct rt_counters *c)
{
	return c->last_count;
}

void rt_counters_targets(const char *dev, const char *root, struct rt_counters_config *cc,
                         char rdev[RT_DEVNAME_MAX], char netdev[RT_DEVNAME_MAX])
{
	unsigned port = 1;
	if (rt_rdma_name_is_device(root, dev) && rt_rdma_split_name(dev, rdev, &port) == 0) {
		cc->dev = rdev;
		cc->port = port;
		if (rt_rdma_port_netdev(root, rdev, port, netdev) == 0)
			cc->netdev = netdev;
		return;
	}
	snprintf(netdev, RT_DEVNAME_MAX, "%s", dev);
	cc->netdev = netdev;
	if (rt_rdma_find_by_netdev(root, dev, rdev, &port) == 0) {
		cc->dev = rdev;
		cc->port = port;
	}
}

int rt_counters_open(struct rt_counters **out, const struct rt_counters_config *cfg, char *errbuf)
{
	if (strlen(rt_sysfs_root(cfg->sysfs_root)) >= sizeof(((struct rt_counters *)0)->root) ||
	    strlen(cfg->path) >= sizeof(((struct rt_counters *)0)->path))
		return rt_errorf(errbuf, ENAMETOOLONG, "%s", cfg->path);
	struct rt_counters *c = calloc(1, sizeof(*c));
	if (!c)
		return rt_errorf(errbuf, ENOMEM, "%s", cfg->path);
	c->cfg = *cfg;
	snprintf(c->path, sizeof(c->path), "%s", cfg->path);
	snprintf(c->root, sizeof(c->root), "%s", rt_sysfs_root(cfg->sysfs_root));
	if (cfg->dev)
		snprintf(c->dev, sizeof(c->dev), "%s", cfg->dev);
	if (cfg->netdev && strcmp(cfg->netdev, "any") != 0) {
		char(*names)[32];
		uint64_t *values;
		snprintf(c->netdev, sizeof(c->netdev), "%s", cfg->netdev);
		c->use_ethtool = rt_ethtool_stats(c->netdev, &names, &values) > 0;
		free(names);
		free(values);
	}
	int rc = rt_fopen_output(&c->fp, c->path, errbuf);
	if (rc < 0) {
		free(c);
		return rc;
	}
	rt_out_init(&c->out, c->fp);
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	*out = c;
	return 0;
}

static void *sampler_main(void *arg)
{
	struct rt_counters *c = arg;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&c->lock);
	for (;;) {
		uint64_t ns = (uint64_t)next.tv_nsec + c->cfg.interval_ns;
		next.tv_sec += (time_t)(ns / 1000000000u);
		next.tv_nsec = (long)(ns % 1000000000u);
		while (!c->stop && pthread_cond_timedwait(&c->cond, &c->lock, &next) != ETIMEDOUT)
			;
		if (c->stop)
			break;
		pthread_mutex_unlock(&c->lock);
		char errbuf[RT_ERRBUF_SIZE];
		int rc = rt_counters_sample(c, errbuf);
		pthread_mutex_lock(&c->lock);
		if (rc < 0 && !c->thread_err) {
			c->thread_err = rc;
			memcpy(c->thread_errbuf, errbuf, sizeof(errbuf));
		}
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

int rt_counters_start(struct rt_counters *c, char *errbuf)
{
	int rc = rt_counters_sample(c, errbuf);
	if (rc < 0)
		return rc;
	if (c->cfg.interval_ns == 0)
		return rt_errorf(errbuf, EINVAL, "%s: sampling interval is zero", c->path);
	/* the sampler takes no signals: they go to the thread that handles them (and forwards them) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int err = pthread_create(&c->thread, NULL, sampler_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return rt_errorf(errbuf, err, "counter sampler thread");
	c->started = true;
	return 0;
}

int rt_counters_stop(struct rt_counters *c, char *errbuf)
{
	if (!c)
		return 0;
	int rc = 0;
	if (c->started) {
		pthread_mutex_lock(&c->lock);
		c->stop = true;
		pthread_cond_signal(&c->cond);
		pthread_mutex_unlock(&c->lock);
		pthread_join(c->thread, NULL);
		if (c->thread_err) {
			rc = rt_errmsg(errbuf, -c->thread_err, "%s", c->thread_errbuf);
		}
	}
	int src = rt_counters_sample(c, errbuf);
	if (rc == 0)
		rc = src;
	if (c->capture_fn && (src = capture_line(c, errbuf)) < 0 && rc == 0)
		rc = src;
	if (fclose(c->fp) != 0 && rc == 0)
		rc = rt_errorf(errbuf, errno, "%s", c->path);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c->vals);
	free(c->val_names);
	free(c);
	return rc;
}
