/* udp backend sender: sockets and the setup exchange, the runs asked for, end events, summary. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "traffic/perf.h"
#include "traffic/internal.h"

static int handshake(struct rt_gen_snd *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->snd.cfg;
	char *line = malloc(RT_GEN_CTL_MAX);
	if (!line) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	int len = snprintf(line, RT_GEN_CTL_MAX, "HELLO 1 %s %u %u %u", rt_gen_op_name(cfg->op),
	                   cfg->msg_size, cfg->mtu, s->nqp);
	for (unsigned i = 0; i < s->nqp && len < RT_GEN_CTL_MAX - 40; i++)
		len += snprintf(line + len, (size_t)(RT_GEN_CTL_MAX - len), " %u:%u:%u",
		                s->qp[i].local_qp, s->qp[i].start_psn, s->qp[i].sport);
	line[len++] = '\n';
	int rc = rt_gen_write_all(s->ctl, line, (size_t)len);
	if (!rc)
		rc = rt_gen_read_line(s->ctl, line, RT_GEN_CTL_MAX, 5000);
	if (rc) {
		free(line);
		return rt_errorf(errbuf, -rc, "setup exchange with the server");
	}
	if (strncmp(line, "READY", 5) != 0) {
		char quote[128];
		rc = rt_errmsg(errbuf, ECONNREFUSED, "server refused: %s",
		               rt_gen_escape(quote, sizeof(quote), line, strlen(line)));
		free(line);
		return rc;
	}
	char *p = line + 5;
	for (unsigned i = 0; i < s->nqp; i++) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || v == 0 || v > 0xffffff) {
			free(line);
			return rt_errmsg(errbuf, EPROTO, "bad READY line from the server");
		}
		s->qp[i].remote_qp = (uint32_t)v;
		p = end;
	}
	free(line);
	return 0;
}

static int connect_ctl(struct rt_gen_snd *s, char *errbuf)
{
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr = s->local};
	struct sockaddr_in srv = {.sin_family = AF_INET,
	                          .sin_port = htons(s->snd.cfg->control_port),
	                          .sin_addr = s->remote};
	/* the server may still be starting: retry refused connections for 5 s */
	for (int attempt = 0;; attempt++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			int e = errno;
			return rt_errorf(errbuf, e, "socket");
		}
		if (bind(fd, (struct sockaddr *)&me, sizeof(me)) == 0 &&
		    connect(fd, (struct sockaddr *)&srv, sizeof(srv)) == 0) {
			s->ctl = fd;
			return 0;
		}
		int e = errno;
		close(fd);
		if (e != ECONNREFUSED || attempt >= 100 ||
		    (s->snd.cfg->stop && *s->snd.cfg->stop)) {
			return rt_errorf(errbuf, e, "connect to %s:%u", s->snd.cfg->server,
			                 s->snd.cfg->control_port);
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static int setup(struct rt_gen_snd *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->snd.cfg;
	int rc = rt_gen_resolve4(cfg->server, &s->remote, errbuf);
	if (rc)
		return rc;
	if (cfg->bind_addr)
		rc = rt_gen_resolve4(cfg->bind_addr, &s->local, errbuf);
	else
		rc = rt_gen_route_src(s->remote, &s->local, errbuf);
	if (rc)
		return rc;
	if (s->local.s_addr == s->remote.s_addr) {
		return rt_errmsg(errbuf, EADDRINUSE,
		                 "sender and server share the address %s: give the sender another "
		                 "one with --bind (replies come back to port %u)",
		                 inet_ntoa(s->local), cfg->port);
	}
	s->rfd = rt_gen_udp_socket(s->local, cfg->port, cfg->dscp << 2, true, errbuf);
	if (s->rfd < 0)
		return s->rfd;
	if (cfg->pfc && (s->pfd = rt_pfc_rx_open(s->local.s_addr, errbuf)) < 0)
		return s->pfd;
	uint32_t seed = (uint32_t)getpid() * 2654435761u ^ (uint32_t)rt_mono_ns();
	uint32_t qp_base = 0x10000u + ((uint32_t)getpid() & 0xff) * 0x100u;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
		q->fd = rt_gen_udp_socket(s->local, 0, cfg->dscp << 2 | 2, false, errbuf);
		if (q->fd < 0)
			return q->fd;
		struct sockaddr_in sa;
		socklen_t len = sizeof(sa);
		getsockname(q->fd, (struct sockaddr *)&sa, &len);
		q->sport = ntohs(sa.sin_port);
		q->local_qp = qp_base + i;
		seed = seed * 1103515245u + 12345u;
		q->start_psn = (seed >> 4) & 0xffffff;
	}
	rc = connect_ctl(s, errbuf);
	if (rc)
		return rc;
	return handshake(s, errbuf);
}

int rt_gen_udp_send(const struct rt_gen_config *cfg, FILE *report, char *errbuf)
{
	if (cfg->op == RT_GEN_OP_READ) {
		return rt_errmsg(errbuf, EOPNOTSUPP,
		                 "the udp backend sends writes and sends; "
		                 "read needs --backend verbs");
	}
	if (!cfg->server || cfg->qps == 0 || cfg->qps > RT_GEN_MAX_QPS || cfg->msg_size == 0 ||
	    cfg->mtu < 256 || cfg->mtu > 4096 || cfg->qdepth == 0 ||
	    (cfg->latency && (cfg->qps != 1 || cfg->qdepth != 1)) ||
	    (cfg->sweep && cfg->msg_size < RT_PERF_SWEEP_MAX) ||
	    (cfg->duration_s <= 0 && !cfg->iters)) {
		return rt_errmsg(errbuf, EINVAL, "bad sender configuration");
	}
	struct rt_gen_snd *s = calloc(1, sizeof(*s));
	if (!s) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	s->snd = (struct rt_gen_sender){
	    .ops = &rt_gen_udp_send_ops, .backend = s, .cfg = cfg, .report = report};
	s->ctl = s->rfd = s->pfd = -1;
	s->nqp = cfg->qps;
	s->max_mbps = cfg->line_gbps * 1000.0;
	if (cfg->rate_gbps > 0 && cfg->rate_gbps * 1000.0 < s->max_mbps)
		s->max_mbps = cfg->rate_gbps * 1000.0;
	for (unsigned i = 0; i < sizeof(s->payload); i++)
		s->payload[i] = (uint8_t)i;
	s->qp = calloc(s->nqp, sizeof(*s->qp));
	int rc = s->qp ? 0 : rt_errmsg(errbuf, ENOMEM, "out of memory");
	for (unsigned i = 0; !rc && i < s->nqp; i++)
		s->qp[i].fd = -1;
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (!rc)
		rc = rt_evlog_open(&s->log, cfg->log_path, errbuf);
	if (!rc)
		rc = setup(s, errbuf);
	if (!rc)
		rc = rt_gen_send_runs(&s->snd, errbuf);
	if (!rc) {
		char line[64];
		rc = rt_gen_write_all(s->ctl, "DONE\n", 5);
		if (!rc)
			rc = rt_gen_read_line(s->ctl, line, sizeof(line), 5000);
		if (rc) {
			rt_errorf(errbuf, -rc, "closing exchange with the server");
		} else if (strcmp(line, "BYE") != 0) {
			char quote[128];
			rc = rt_errmsg(errbuf, EPROTO, "server did not confirm the end: %s",
			               rt_gen_escape(quote, sizeof(quote), line, strlen(line)));
		}
	}
	char cerr[RT_ERRBUF_SIZE];
	int lrc = rt_evlog_close(&s->log, cerr);
	if (!rc && lrc) {
		rc = lrc;
		memcpy(errbuf, cerr, RT_ERRBUF_SIZE);
	}
	for (unsigned i = 0; s->qp && i < s->nqp; i++)
		if (s->qp[i].fd >= 0)
			close(s->qp[i].fd);
	if (s->rfd >= 0)
		close(s->rfd);
	if (s->pfd >= 0)
		close(s->pfd);
	if (s->ctl >= 0)
		close(s->ctl);
	free(s->qp);
	free(s->snd.lat);
	free(s);
	return rc;
}
