#include "names.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define HOSTS_MAX_LINES 100000

void names_addr_str(const ipaddr *a, strbuf *b)
{
	char t[INET6_ADDRSTRLEN];
	if (a->family && inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->b, t, sizeof t))
		sb_adds(b, t);
	else
		sb_adds(b, "-");
}

int names_hosts_lookup(const char *hosts, const char *name, ipaddr *out, int max, int *line)
{
	FILE *f = fopen(hosts, "r");
	*line = 0;
	if (!f)
		return 0;
	char buf[1024];
	int n = 0, lineno = 0;
	while (n < max && lineno < HOSTS_MAX_LINES && fgets(buf, sizeof buf, f)) {
		lineno++;
		if (!strchr(buf, '\n') && !feof(f)) { /* a line longer than any hosts line: skip it */
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		char *save = NULL, *addr = strtok_r(buf, " \t\r\n", &save);
		if (!addr)
			continue;
		ipaddr a;
		if (!ipaddr_parse(slice_from(addr), &a))
			continue;
		for (char *w = strtok_r(NULL, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save))
			if (strcasecmp(w, name) == 0) {
				if (!n)
					*line = lineno;
				out[n++] = a;
				break;
			}
	}
	fclose(f);
	return n;
}

static bool addr_eq(const ipaddr *a, const ipaddr *b)
{
	return a->family == b->family && memcmp(a->b, b->b, a->family == 4 ? 4 : 16) == 0;
}

void names_resolve(const char *name, const char *hosts, bool files_only, resolved *out)
{
	*out = (resolved){ 0 };
	ipaddr file[NAMES_MAX_ADDRS];
	int line = 0;
	int nfile = names_hosts_lookup(hosts, name, file, NAMES_MAX_ADDRS, &line);
	ipaddr num;
	if (ipaddr_parse(slice_from(name), &num)) {
		out->addr[0] = num;
		out->naddr = 1;
		out->ok = true;
		return;
	}
	if (files_only) {
		for (int i = 0; i < nfile; i++)
			out->addr[out->naddr++] = file[i];
		out->ok = nfile > 0;
		out->hosts_line = nfile ? line : 0;
		if (!nfile)
			snprintf(out->err, sizeof out->err, "cannot resolve: not in %s", hosts);
		return;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
	int rc = getaddrinfo(name, NULL, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(out->err, sizeof out->err, "cannot resolve: %s", gai_strerror(rc));
		return;
	}
	for (struct addrinfo *r = res; r && out->naddr < NAMES_MAX_ADDRS; r = r->ai_next) {
		ipaddr a = { 0 };
		if (r->ai_family == AF_INET) {
			a.family = 4;
			memcpy(a.b, &((struct sockaddr_in *)(void *)r->ai_addr)->sin_addr, 4);
		} else if (r->ai_family == AF_INET6) {
			a.family = 6;
			memcpy(a.b, &((struct sockaddr_in6 *)(void *)r->ai_addr)->sin6_addr, 16);
		} else {
			continue;
		}
		bool dup = false;
		for (int k = 0; k < out->naddr; k++)
			dup = dup || addr_eq(&out->addr[k], &a);
		if (!dup)
			out->addr[out->naddr++] = a;
	}
	freeaddrinfo(res);
	out->ok = out->naddr > 0;
	for (int i = 0; out->ok && i < nfile; i++)
		if (addr_eq(&file[i], &out->addr[0]))
			out->hosts_line = line;
}

bool names_route_src(const ipaddr *dst, ipaddr *src)
{
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof ss);
	if (dst->family == 4) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;
		s->sin_family = AF_INET;
		s->sin_port = htons(9);
		memcpy(&s->sin_addr, dst->b, 4);
		len = sizeof *s;
	} else if (dst->family == 6) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
		s->sin6_family = AF_INET6;
		s->sin6_port = htons(9);
		memcpy(&s->sin6_addr, dst->b, 16);
		len = sizeof *s;
	} else {
		return false;
	}
	int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	bool ok = connect(fd, (struct sockaddr *)&ss, len) == 0;
	struct sockaddr_storage me;
	socklen_t ml = sizeof me;
	if (ok)
		ok = getsockname(fd, (struct sockaddr *)&me, &ml) == 0;
	close(fd);
	if (!ok)
		return false;
	*src = (ipaddr){ 0 };
	if (me.ss_family == AF_INET) {
		src->family = 4;
		memcpy(src->b, &((struct sockaddr_in *)&me)->sin_addr, 4);
	} else {
		src->family = 6;
		memcpy(src->b, &((struct sockaddr_in6 *)&me)->sin6_addr, 16);
	}
	return true;
}
