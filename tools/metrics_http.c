/* capture --metrics: the HTTP server (libmicrohttpd) that hands the metrics store to scrapers. */
#include "tools/metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errbuf.h"
#include "tools/options.h"

struct rt_metrics_http {
	struct MHD_Daemon *daemon;
	struct rt_metrics *store;
};

int rt_metrics_listen_parse(const char *text, struct sockaddr_storage *ss, char *errbuf)
{
	char addr[64] = "127.0.0.1";
	const char *port = text;
	memset(ss, 0, sizeof(*ss));
	if (text[0] == '[') { /* [IPv6]:PORT */
		const char *end = strchr(text, ']');
		if (!end || end[1] != ':' || (size_t)(end - text - 1) >= sizeof(addr))
			return rt_errmsg(errbuf, EINVAL,
			                 "'%s': write [ADDRESS]:PORT for an IPv6 address", text);
		memcpy(addr, text + 1, (size_t)(end - text - 1));
		addr[end - text - 1] = 0;
		port = end + 2;
	} else if (strchr(text, ':')) {
		const char *colon = strrchr(text, ':');
		if ((size_t)(colon - text) >= sizeof(addr) || strchr(text, ':') != colon)
			return rt_errmsg(errbuf, EINVAL,
			                 "'%s' is not ADDRESS:PORT (an IPv6 address goes in [])",
			                 text);
		memcpy(addr, text, (size_t)(colon - text));
		addr[colon - text] = 0;
		port = colon + 1;
	}
	uint64_t p;
	if (rt_opt_parse_uint(port, 0, 65535, &p) != 0)
		return rt_errmsg(errbuf, EINVAL, "'%s': the port is a number from 0 to 65535",
		                 text);
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)p);
	} else if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)p);
	} else {
		return rt_errmsg(errbuf, EINVAL, "'%s': '%s' is not a numeric IPv4 or IPv6 address",
		                 text, addr);
	}
	return 0;
}

/* A short answer other than the metrics (a wrong path or method). */
static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *text)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Each request, answered at its first call (a body, which no GET has, is not read). */
static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
	struct rt_metrics_http *h = cls;
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (!strcmp(url, "/"))
		return reply(conn, MHD_HTTP_OK, "rocetrace capture: the metrics are at /metrics\n");
	if (strcmp(url, "/metrics") != 0)
		return reply(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
	const char *accept =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	enum rt_metrics_format f = rt_metrics_negotiate(accept);
	char *text;
	size_t len;
	if (rt_metrics_render(h->store, f, &text, &len) < 0)
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rt_metrics_content_type(f));
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

int rt_metrics_http_start(struct rt_metrics_http **out, const struct sockaddr_storage *ss,
                          struct rt_metrics *store, unsigned *port, char *errbuf)
{
	struct rt_metrics_http *h = calloc(1, sizeof(*h));
	if (!h)
		return rt_errorf(errbuf, ENOMEM, "metrics server");
	h->store = store;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* the server's thread takes no signals: they go to the threads that handle them */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	errno = 0;
	h->daemon = MHD_start_daemon(
	    flags, 0, NULL, NULL, answer, h, MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)ss,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)RT_METRICS_HTTP_CONNECTIONS,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)RT_METRICS_HTTP_PER_IP,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)RT_METRICS_HTTP_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)RT_METRICS_HTTP_MEMORY, MHD_OPTION_END);
	int err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->daemon) {
		free(h);
		char a[INET6_ADDRSTRLEN] = "?";
		unsigned p;
		if (ss->ss_family == AF_INET6) {
			inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, a,
			          sizeof(a));
			p = ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
		} else {
			inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, a,
			          sizeof(a));
			p = ntohs(((const struct sockaddr_in *)ss)->sin_port);
		}
		return rt_errorf(errbuf, err ? err : EADDRINUSE,
		                 "--metrics: cannot serve on %s port %u", a, p);
	}
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
	*port = info ? info->port : 0;
	*out = h;
	return 0;
}

void rt_metrics_http_stop(struct rt_metrics_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon);
	free(h);
}
