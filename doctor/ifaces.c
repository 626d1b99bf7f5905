#include "ifaces.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

dif *ifaces_add(diflist *l, const char *name)
{
	grow(&l->v, &l->cap, l->n, sizeof *l->v);
	dif *d = &l->v[l->n++];
	*d = (dif){ 0 };
	snprintf(d->name, sizeof d->name, "%s", name);
	d->mtu = -1;
	return d;
}

int ifaces_mask_bits(const unsigned char *mask, int len)
{
	int bits = 0;
	for (int i = 0; i < len; i++)
		for (int k = 7; k >= 0; k--) {
			if (!(mask[i] >> k & 1))
				return bits;
			bits++;
		}
	return bits;
}

bool ifaces_same_subnet(const dif *local, const ipaddr *remote)
{
	return ipaddr_same_net(&local->addr, remote, local->prefix);
}

void ifaces_addr_str(const dif *d, strbuf *b)
{
	char t[INET6_ADDRSTRLEN];
	if (d->addr.family == 4 && inet_ntop(AF_INET, d->addr.b, t, sizeof t))
		sb_adds(b, t);
	else if (d->addr.family == 6 && inet_ntop(AF_INET6, d->addr.b, t, sizeof t))
		sb_adds(b, t);
	else
		sb_adds(b, "-");
}

static int mtu_of(int fd, const char *name)
{
	struct ifreq r;
	memset(&r, 0, sizeof r);
	snprintf(r.ifr_name, sizeof r.ifr_name, "%s", name);
	if (fd < 0 || ioctl(fd, SIOCGIFMTU, &r) != 0)
		return -1;
	return r.ifr_mtu;
}

static bool has_name(const diflist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return true;
	return false;
}

int ifaces_list(diflist *out, strbuf *err)
{
	struct ifaddrs *all;
	if (getifaddrs(&all) != 0) {
		sb_printf(err, "cannot list the network interfaces: %s", strerror(errno));
		return -1;
	}
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* addresses first, in kernel order: the order NCCL walks */
	for (struct ifaddrs *a = all; a; a = a->ifa_next) {
		if (!a->ifa_addr || (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6))
			continue;
		dif *d = ifaces_add(out, a->ifa_name);
		if (a->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *s = (const void *)a->ifa_addr;
			d->addr.family = 4;
			memcpy(d->addr.b, &s->sin_addr, 4);
			if (a->ifa_netmask)
				d->prefix = ifaces_mask_bits((const void *)&((const struct sockaddr_in *)(const void *)a->ifa_netmask)->sin_addr, 4);
		} else {
			const struct sockaddr_in6 *s = (const void *)a->ifa_addr;
			d->addr.family = 6;
			memcpy(d->addr.b, &s->sin6_addr, 16);
			d->scope = s->sin6_scope_id;
			if (a->ifa_netmask)
				d->prefix = ifaces_mask_bits((const void *)&((const struct sockaddr_in6 *)(const void *)a->ifa_netmask)->sin6_addr, 16);
		}
		d->up = a->ifa_flags & IFF_UP;
		d->running = a->ifa_flags & IFF_RUNNING;
		d->loopback = a->ifa_flags & IFF_LOOPBACK;
		d->mtu = mtu_of(fd, a->ifa_name);
	}
	/* then the interfaces that have no address at all, so that a named
	 * interface without an address can be told from a missing one */
	for (struct ifaddrs *a = all; a; a = a->ifa_next) {
		if (has_name(out, a->ifa_name))
			continue;
		dif *d = ifaces_add(out, a->ifa_name);
		d->up = a->ifa_flags & IFF_UP;
		d->running = a->ifa_flags & IFF_RUNNING;
		d->loopback = a->ifa_flags & IFF_LOOPBACK;
		d->mtu = mtu_of(fd, a->ifa_name);
	}
	if (fd >= 0)
		close(fd);
	freeifaddrs(all);
	return 0;
}

void ifaces_free(diflist *l)
{
	free(l->v);
	*l = (diflist){ 0 };
}
