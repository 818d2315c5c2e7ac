/* capture --metrics: the HTTP server (libmicrohttpd) that hands the metrics store to scrapers. */
#ifndef RT_METRICS_HTTP_H
#define RT_METRICS_HTTP_H

#include <sys/socket.h>

#include "render/metrics.h"

/* What the server allows each client (docs/METRICS.md, "Hostile clients"). */
#define RT_METRICS_HTTP_CONNECTIONS 32          /* connections at once */
#define RT_METRICS_HTTP_PER_IP      8           /* connections at once from one address */
#define RT_METRICS_HTTP_TIMEOUT_S   10          /* a connection idle this long is closed */
#define RT_METRICS_HTTP_MEMORY      (16 * 1024) /* request line and headers of one connection */

/*
 * "[ADDR:]PORT" (ADDR a numeric IPv4 address or [IPv6] address, default
 * 127.0.0.1; PORT 0 picks a free one) into *ss. Returns 0 or -EINVAL with
 * errbuf filled.
 */
int rt_metrics_listen_parse(const char *text, struct sockaddr_storage *ss, char *errbuf);

struct rt_metrics_http;

/*
 * Serve `store` at http://ADDR:PORT/metrics from a thread of the server's
 * own (it takes no signals). *port receives the port bound. Returns 0 or
 * a negative errno with errbuf filled.
 */
int rt_metrics_http_start(struct rt_metrics_http **out, const struct sockaddr_storage *ss,
                          struct rt_metrics *store, unsigned *port, char *errbuf);
/* Close every connection and the listening socket, end the thread, free. */
void rt_metrics_http_stop(struct rt_metrics_http *h);

#endif
