#include "peers.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "names.h"

int peers_add(peerlist *l, const char *spec, strbuf *err)
{
	peer p = { .port = PEER_DEFAULT_PORT, .local = -1, .route = -1 };
	const char *host = spec, *port = NULL;
	size_t hlen;
	const char *colon = strchr(spec, ':');
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (!close || (close[1] && close[1] != ':')) {
			sb_printf(err, "peer '%s': write an IPv6 address with a port as [ADDR]:PORT", spec);
			return -1;
		}
		host = spec + 1;
		hlen = (size_t)(close - host);
		port = close[1] ? close + 2 : NULL;
	} else if (colon && strchr(colon + 1, ':')) {
		hlen = strlen(spec); /* a bare IPv6 address */
	} else {
		hlen = colon ? (size_t)(colon - spec) : strlen(spec);
		port = colon ? colon + 1 : NULL;
	}
	if (hlen == 0 || hlen >= sizeof p.host) {
		sb_printf(err, "peer '%s': no host name", spec);
		return -1;
	}
	memcpy(p.host, host, hlen);
	p.host[hlen] = '\0';
	if (port) {
		char *end;
		long v = strtol(port, &end, 10);
		if (!*port || *end || v < 1 || v > 65535) {
			sb_printf(err, "peer '%s': the port must be a number from 1 to 65535", spec);
			return -1;
		}
		p.port = (int)v;
	}
	grow(&l->v, &l->cap, l->n, sizeof *l->v);
	l->v[l->n++] = p;
	return 0;
}

int peers_read_file(peerlist *l, const char *path, strbuf *err)
{
	char *text;
	size_t len;
	if (file_slurp(path, &text, &len, err) != 0)
		return -1;
	int rc = 0, lineno = 0;
	for (char *line = text; line && *line && rc == 0;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		line += strspn(line, " \t\r");
		size_t w = strcspn(line, " \t\r");
		line[w] = '\0';
		if (*line) {
			strbuf e = { 0 };
			if (peers_add(l, line, &e) != 0) {
				sb_printf(err, "%s:%d: %s", path, lineno, e.p);
				rc = -1;
			}
			sb_free(&e);
		}
		line = next;
	}
	free(text);
	return rc;
}

void peers_resolve(peerlist *l, const char *hosts, bool files_only)
{
	for (size_t i = 0; i < l->n; i++) {
		peer *p = &l->v[i];
		resolved r;
		names_resolve(p->host, hosts, files_only, &r);
		if (!r.ok) {
			snprintf(p->err, sizeof p->err, "%s", r.err);
			continue;
		}
		p->addr = r.addr[0];
		p->hosts_line = r.hosts_line;
		p->resolved = true;
		memset(&p->sa, 0, sizeof p->sa);
		if (p->addr.family == 4) {
			struct sockaddr_in *s = (struct sockaddr_in *)&p->sa;
			s->sin_family = AF_INET;
			s->sin_port = htons((uint16_t)p->port);
			memcpy(&s->sin_addr, p->addr.b, 4);
			p->salen = sizeof *s;
		} else {
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)&p->sa;
			s->sin6_family = AF_INET6;
			s->sin6_port = htons((uint16_t)p->port);
			memcpy(&s->sin6_addr, p->addr.b, 16);
			p->salen = sizeof *s;
		}
	}
}

void peers_match(peerlist *l, const dif *ifs, size_t n)
{
	for (size_t i = 0; i < l->n; i++) {
		peer *p = &l->v[i];
		p->local = p->route = -1;
		for (size_t k = 0; p->resolved && k < n && p->local < 0; k++)
			if (ifs[k].addr.family && ifaces_same_subnet(&ifs[k], &p->addr))
				p->local = (int)k;
		ipaddr src;
		if (!p->resolved || !names_route_src(&p->addr, &src))
			continue;
		for (size_t k = 0; k < n && p->route < 0; k++)
			if (ifs[k].addr.family == src.family && memcmp(ifs[k].addr.b, src.b, src.family == 4 ? 4 : 16) == 0)
				p->route = (int)k;
	}
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static enum peer_conn classify(int e)
{
	switch (e) {
	case 0:
		return PC_OK;
	case ECONNREFUSED:
		return PC_REFUSED;
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
		return PC_UNREACHABLE;
	case ETIMEDOUT:
		return PC_TIMEOUT;
	default:
		return PC_ERROR;
	}
}

static void connect_one(peer *p, int timeout_ms)
{
	int fd = socket(p->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		p->conn = PC_ERROR;
		snprintf(p->err, sizeof p->err, "socket: %s", strerror(errno));
		return;
	}
	double t0 = now_ms();
	int e = 0;
	if (connect(fd, (struct sockaddr *)&p->sa, p->salen) != 0) {
		e = errno;
		if (e == EINPROGRESS) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			int left = timeout_ms, r;
			do {
				r = poll(&pf, 1, left);
				left = timeout_ms - (int)(now_ms() - t0);
			} while (r < 0 && errno == EINTR && left > 0);
			if (r == 0 || (r < 0 && errno == EINTR)) {
				e = ETIMEDOUT;
			} else if (r < 0) {
				e = errno;
			} else {
				socklen_t len = sizeof e;
				if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
					e = errno;
			}
		}
	}
	p->ms = now_ms() - t0;
	p->conn = classify(e);
	if (e)
		snprintf(p->err, sizeof p->err, "%s", e == ETIMEDOUT && p->conn == PC_TIMEOUT ? "timed out" : strerror(e));
	close(fd);
}

void peers_connect(peerlist *l, int timeout_ms)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].resolved && !l->v[i].no_connect)
			connect_one(&l->v[i], timeout_ms);
}

void peers_free(peerlist *l)
{
	free(l->v);
	*l = (peerlist){ 0 };
}

const char *peers_conn_name(enum peer_conn c)
{
	static const char *const names[] = { "not tried", "ok", "refused", "unreachable", "timed out", "failed" };
	return names[c];
}
