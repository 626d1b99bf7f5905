/* How names resolve on this node: through its resolver (getaddrinfo, so
 * /etc/hosts, DNS and the nss modules in the order nsswitch.conf gives),
 * with the /etc/hosts line behind the answer when there is one; and which
 * local address the kernel sends from to reach an address. */
#ifndef NCCLOG_DOCTOR_NAMES_H
#define NCCLOG_DOCTOR_NAMES_H

#include "../util/ipaddr.h"

#define NAMES_MAX_ADDRS 4

typedef struct resolved {
	bool ok;
	ipaddr addr[NAMES_MAX_ADDRS]; /* in the resolver's order: tools take the first */
	int naddr;
	char err[160];
	int hosts_line;               /* the hosts-file line of addr[0], 0 when it came from elsewhere */
} resolved;

/* Resolves name. With files_only the hosts file alone answers (a node
 * described by files, as in tests); a numeric address always parses. */
void names_resolve(const char *name, const char *hosts, bool files_only, resolved *out);
/* The addresses hosts (an /etc/hosts file) gives name, in file order, at
 * most max; *line is the line of the first. Returns how many. Reads only
 * that file. */
int names_hosts_lookup(const char *hosts, const char *name, ipaddr *out, int max, int *line);
/* The source address the kernel would use to reach dst: a UDP socket
 * connected to it, which sends nothing. False when there is no route. */
bool names_route_src(const ipaddr *dst, ipaddr *src);
/* "10.0.0.5" or "fe80::1" into b. */
void names_addr_str(const ipaddr *a, strbuf *b);

#endif
