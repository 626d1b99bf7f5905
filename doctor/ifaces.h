/* The node's network interfaces as NCCL sees them through getifaddrs():
 * one entry per (interface, address), in kernel order, plus one entry
 * without an address for each interface that has none. */
#ifndef NCCLOG_DOCTOR_IFACES_H
#define NCCLOG_DOCTOR_IFACES_H

#include "../util/ipaddr.h"
#include "../util/str.h"

#define DIF_NAME_MAX 32

typedef struct dif {
	char name[DIF_NAME_MAX];
	ipaddr addr;      /* family 0: the interface has no IPv4/IPv6 address */
	int prefix;       /* netmask length in bits */
	unsigned scope;   /* IPv6 scope id, 0 otherwise */
	int mtu;          /* -1 when unknown */
	bool up, running, loopback;
	bool routable;    /* read back from a report: not lo, virtual or link-local */
} dif;

typedef struct diflist {
	dif *v;
	size_t n, cap;
} diflist;

/* Appends one entry; returns it (zeroed apart from name, mtu -1). */
dif *ifaces_add(diflist *l, const char *name);
/* Lists the interfaces of the current network namespace. On error, -1 is
 * returned and *err says why. On success, 0 is returned. */
int ifaces_list(diflist *out, strbuf *err);
void ifaces_free(diflist *l);
/* Appends "10.0.0.5" (no scope, no prefix) to b; "-" when there is no address. */
void ifaces_addr_str(const dif *d, strbuf *b);
/* Netmask length of a mask given as bytes (4 or 16). */
int ifaces_mask_bits(const unsigned char *mask, int len);
/* True when a and b are on one subnet by the netmask of `local`. */
bool ifaces_same_subnet(const dif *local, const ipaddr *remote);

#endif
