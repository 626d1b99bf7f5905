/* What `ethtool -i` and `ethtool` show of each network interface: its
 * driver, the driver's version, the firmware, the bus address, and the
 * link speed and MTU. Read from the kernel (SIOCETHTOOL, which needs no
 * privilege and sees the current network namespace) and from sysfs. */
#ifndef NCCLOG_DOCTOR_NICS_H
#define NCCLOG_DOCTOR_NICS_H

#include "ifaces.h"

typedef struct nic {
	char name[DIF_NAME_MAX];
	char driver[32], version[32], firmware[32], bus[32];
	long speed;     /* Mb/s, -1 unknown (no link, or virtual) */
	int mtu;        /* -1 unknown */
} nic;

typedef struct niclist {
	nic *v;
	size_t n, cap;
} niclist;

/* One entry per distinct interface name of ifs, in their order. With live
 * the kernel is asked first; sysfs under root (ROOT/sys/class/net,
 * ROOT/sys/module) fills what it left out. */
void nics_collect(niclist *out, const diflist *ifs, const char *root, bool live);
/* The entry of name, or NULL. */
const nic *nics_find(const niclist *l, const char *name);
void nics_free(niclist *l);

#endif
