/* Addresses as NCCL prints them ("10.0.0.5", "fe80::1%eth0") and the
 * questions the analyzer asks of them. */
#ifndef NCCLOG_IPADDR_H
#define NCCLOG_IPADDR_H

#include "str.h"

typedef struct ipaddr {
	int family; /* 4, 6, or 0 when unparsed */
	unsigned char b[16];
} ipaddr;

enum ip_kind { IP_UNKNOWN, IP_LOOPBACK, IP_LINK_LOCAL, IP_PRIVATE, IP_GLOBAL };

/* Parses s (an optional "%scope" is ignored). Returns false when it is no address. */
bool ipaddr_parse(slice s, ipaddr *out);
enum ip_kind ipaddr_kind(const ipaddr *a);
/* True when a and b share their first `bits` bits (same family only). */
bool ipaddr_same_net(const ipaddr *a, const ipaddr *b, int bits);
/* Writes the network of a with prefix length bits, e.g. "192.168.1.0/24". */
void ipaddr_net_str(const ipaddr *a, int bits, strbuf *b);

#endif
