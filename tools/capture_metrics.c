/* capture --metrics: the store a capture publishes its figures into, and the server that reads it. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "capture/pump.h"
#include "common/clock.h"
#include "tools/capture_metrics.h"
#include "tools/cli.h"
#if RT_HAVE_MICROHTTPD
#include "tools/metrics_http.h"
#endif

#define CMD "capture"

int rt_capture_metrics_check(const char *listen)
{
#if RT_HAVE_MICROHTTPD
	struct sockaddr_storage ss;
	char errbuf[RT_ERRBUF_SIZE];
	if (rt_metrics_listen_parse(listen, &ss, errbuf) < 0)
		return rt_cli_usage_error(CMD, "--metrics: %s", errbuf);
#else
	(void)listen;
#endif
	return 0;
}

void rt_capture_metrics_publish(struct rt_capture_metrics *m, const struct rt_analyzer *an,
                                uint64_t idle_ns, uint64_t frames, uint64_t dropped, uint64_t now,
                                bool final)
{
	/* counted before a scraper can see the final figures: a signal sent on seeing them ends the linger */
	if (final)
		m->final_requests = rt_pump_stop_requests();
	if (an && rt_metrics_publish(m->store, an, idle_ns, frames, dropped, !final, final))
		m->published = now;
}

void rt_capture_metrics_nic_sample(void *ctx, const struct rt_counter_value *v, unsigned n)
{
	struct rt_capture_metrics *m = ctx;
	if (n > RT_METRICS_NIC_MAX)
		n = RT_METRICS_NIC_MAX;
	for (unsigned i = 0; i < n; i++) {
		struct rt_metrics_nic *x = &m->nic[i];
		snprintf(x->dev, sizeof(x->dev), "%s", v[i].dev);
		snprintf(x->name, sizeof(x->name), "%s", v[i].name);
		x->port = v[i].port;
		x->value = v[i].value;
	}
	rt_metrics_set_nic(m->store, m->nic, n);
}

void rt_capture_metrics_stop(struct rt_capture_metrics *m)
{
#if RT_HAVE_MICROHTTPD
	rt_metrics_http_stop(m->http);
#endif
	rt_metrics_free(m->store);
	free(m->nic);
	memset(m, 0, sizeof(*m));
}

int rt_capture_metrics_start(struct rt_capture_metrics *m, const char *listen, unsigned top)
{
#if RT_HAVE_MICROHTTPD
	struct sockaddr_storage ss;
	char errbuf[RT_ERRBUF_SIZE], addr[INET6_ADDRSTRLEN] = "";
	unsigned port = 0;
	if (rt_metrics_listen_parse(listen, &ss, errbuf) < 0) /* checked with the options */
		return rt_cli_usage_error(CMD, "--metrics: %s", errbuf);
	if (!(m->store = rt_metrics_new(top, errbuf)) ||
	    !(m->nic = calloc(RT_METRICS_NIC_MAX, sizeof(*m->nic)))) {
		rt_capture_metrics_stop(m);
		return rt_cli_fail(CMD, "--metrics: out of memory");
	}
	if (rt_metrics_http_start(&m->http, &ss, m->store, &port, errbuf) < 0) {
		rt_capture_metrics_stop(m);
		return rt_cli_fail(CMD, "%s", errbuf);
	}
	bool v6 = ss.ss_family == AF_INET6;
	if (v6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	fprintf(stderr, "rocetrace capture: metrics at http://%s%s%s:%u/metrics\n", v6 ? "[" : "",
	        addr, v6 ? "]" : "", port);
	return 0;
#else
	(void)m;
	(void)listen;
	(void)top;
	return rt_cli_fail(CMD, "--metrics: this rocetrace was built without libmicrohttpd "
	                        "(install libmicrohttpd-dev and build again)");
#endif
}

void rt_capture_metrics_linger(struct rt_capture_metrics *m, uint64_t linger_ns)
{
	uint64_t end = rt_mono_ns() + linger_ns;
	for (uint64_t now;
	     (now = rt_mono_ns()) < end && rt_pump_stop_requests() == m->final_requests;) {
		uint64_t left = end - now < 50000000u ? end - now : 50000000u;
		struct timespec ts = {0, (long)left};
		nanosleep(&ts, NULL);
	}
	rt_capture_metrics_stop(m);
}
