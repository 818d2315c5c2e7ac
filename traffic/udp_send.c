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
	const struct rt_gen_config *cfg = s->cfg;
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
	struct sockaddr_in srv = {
	    .sin_family = AF_INET, .sin_port = htons(s->cfg->control_port), .sin_addr = s->remote};
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
		if (e != ECONNREFUSED || attempt >= 100 || (s->cfg->stop && *s->cfg->stop)) {
			return rt_errorf(errbuf, e, "connect to %s:%u", s->cfg->server,
			                 s->cfg->control_port);
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static int setup(struct rt_gen_snd *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
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

static void log_start(struct rt_gen_snd *s, uint64_t now)
{
	const struct rt_gen_config *cfg = s->cfg;
	rt_gen_log_start(&s->log, now, cfg, "udp", s->nqp);
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
		inet_ntop(AF_INET, &s->local, q->flow.src, sizeof(q->flow.src));
		inet_ntop(AF_INET, &s->remote, q->flow.dst, sizeof(q->flow.dst));
		q->flow.dest_qp = q->remote_qp;
		rt_evlog_begin_flow(&s->log, now, "qp", &q->flow);
		rt_evlog_u64(&s->log, "local_qp", q->local_qp);
		rt_evlog_u64(&s->log, "udp_sport", q->sport);
		rt_evlog_end(&s->log);
		rt_gen_snd_log_rate(s, q, now, "start");
	}
}

/*
 * Every run the configuration asks for (one size, or each of a sweep), their
 * table, then the end events and the closing summary line.
 */
static int run_all(struct rt_gen_snd *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t t0 = rt_mono_ns();
	uint32_t first = cfg->sweep ? RT_PERF_SWEEP_MIN : cfg->msg_size;
	uint32_t last = cfg->msg_size; /* a sweep's largest, 2^23 */
	bool intervals = !cfg->sweep && !cfg->latency;
	for (unsigned i = 0; i < s->nqp; i++)
		rt_gen_snd_init_cc(s, &s->qp[i], t0);
	log_start(s, t0);
	if (rt_perf_begin(s->report, cfg, intervals, &s->lat) < 0)
		return rt_errmsg(errbuf, ENOMEM, "out of memory for latency samples");
	struct rt_perf_run r = {0};
	for (uint64_t size = first; size <= last; size *= 2) {
		int rc = rt_gen_snd_run(s, (uint32_t)size, intervals, &r, errbuf);
		if (rc)
			return rc;
		rt_perf_row(s->report, cfg, intervals, (uint32_t)size, &r, s->lat, s->nlat);
		if (r.stopped)
			break;
	}
	uint64_t now = rt_mono_ns();
	double secs = (double)(now - t0) / 1e9;
	uint64_t pk = 0, by = 0, msgs = 0, cnp = 0, nak = 0, re = 0, to = 0;
	for (unsigned i = 0; i < s->nqp; i++) {
		struct rt_gen_snd_qp *q = &s->qp[i];
		rt_evlog_begin_flow(&s->log, now, "end", &q->flow);
		rt_evlog_u64(&s->log, "packets", q->packets);
		rt_evlog_u64(&s->log, "bytes", q->bytes);
		rt_evlog_u64(&s->log, "retransmitted", q->retransmitted);
		rt_evlog_u64(&s->log, "cnp_handled", q->cnps);
		rt_evlog_u64(&s->log, "naks", q->naks);
		rt_evlog_u64(&s->log, "timeouts", q->timeouts);
		rt_evlog_u64(&s->log, "messages", q->msgs_before);
		rt_evlog_end(&s->log);
		pk += q->packets;
		by += q->bytes;
		msgs += q->msgs_before;
		cnp += q->cnps;
		nak += q->naks;
		re += q->retransmitted;
		to += q->timeouts;
	}
	fprintf(s->report,
	        "summary role=%s backend=udp op=%s msg_size=%u qps=%u seconds=%.3f packets=%llu "
	        "bytes=%llu messages=%llu gbps=%.3f msg_per_s=%.0f cnp=%llu nak=%llu "
	        "retransmitted=%llu timeouts=%llu pfc_frames=%llu\n",
	        cfg->latency ? "lat" : "send", rt_gen_op_name(cfg->op), last, s->nqp, secs,
	        (unsigned long long)pk, (unsigned long long)by, (unsigned long long)msgs,
	        (double)by * 8 / secs / 1e9, (double)msgs / secs, (unsigned long long)cnp,
	        (unsigned long long)nak, (unsigned long long)re, (unsigned long long)to,
	        (unsigned long long)s->pfc_frames);
	return 0;
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
	s->cfg = cfg;
	s->report = report;
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
		rc = run_all(s, errbuf);
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
	free(s->lat);
	free(s);
	return rc;
}
