#include "nics.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sysfs.h"

const nic *nics_find(const niclist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

/* Copies src into an empty dst, cut to fit. */
static void set(char *dst, size_t size, const char *src)
{
	if (dst[0] || !src || !*src)
		return;
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void ask_kernel(int fd, nic *n)
{
	struct ifreq r;
	struct ethtool_drvinfo di;
	memset(&r, 0, sizeof r);
	memset(&di, 0, sizeof di);
	snprintf(r.ifr_name, sizeof r.ifr_name, "%.*s", (int)sizeof r.ifr_name - 1, n->name);
	di.cmd = ETHTOOL_GDRVINFO;
	r.ifr_data = (void *)&di;
	if (ioctl(fd, SIOCETHTOOL, &r) == 0) {
		di.driver[sizeof di.driver - 1] = di.version[sizeof di.version - 1] = '\0';
		di.fw_version[sizeof di.fw_version - 1] = di.bus_info[sizeof di.bus_info - 1] = '\0';
		set(n->driver, sizeof n->driver, di.driver);
		set(n->version, sizeof n->version, di.version);
		/* drivers without firmware say "N/A" or nothing */
		if (strcmp(di.fw_version, "N/A") != 0)
			set(n->firmware, sizeof n->firmware, di.fw_version);
		if (strcmp(di.bus_info, "N/A") != 0)
			set(n->bus, sizeof n->bus, di.bus_info);
	}
	struct ethtool_cmd ec;
	memset(&ec, 0, sizeof ec);
	ec.cmd = ETHTOOL_GSET;
	r.ifr_data = (void *)&ec;
	if (ioctl(fd, SIOCETHTOOL, &r) == 0) {
		unsigned s = ethtool_cmd_speed(&ec);
		if (s && s != (unsigned)SPEED_UNKNOWN && s != 0xffff)
			n->speed = (long)s;
	}
	memset(&r.ifr_ifru, 0, sizeof r.ifr_ifru);
	if (n->mtu < 0 && ioctl(fd, SIOCGIFMTU, &r) == 0)
		n->mtu = r.ifr_mtu;
}

static void ask_sysfs(const char *root, nic *n)
{
	char path[4200], t[64];
	snprintf(path, sizeof path, "%s/sys/class/net/%s/mtu", root, n->name);
	if (n->mtu < 0 && sysfs_line(path, t, sizeof t))
		n->mtu = atoi(t);
	snprintf(path, sizeof path, "%s/sys/class/net/%s/speed", root, n->name);
	if (n->speed < 0 && sysfs_line(path, t, sizeof t) && atol(t) > 0)
		n->speed = atol(t);
	snprintf(path, sizeof path, "%s/sys/class/net/%s/device/driver", root, n->name);
	if (!n->driver[0] && sysfs_link_name(path, t, sizeof t))
		set(n->driver, sizeof n->driver, t);
	snprintf(path, sizeof path, "%s/sys/class/net/%s/device", root, n->name);
	if (!n->bus[0] && sysfs_link_name(path, t, sizeof t))
		set(n->bus, sizeof n->bus, t);
	/* out-of-tree drivers (MLNX_OFED, vendor packages) publish a module version */
	if (n->driver[0]) {
		snprintf(path, sizeof path, "%s/sys/module/%s/version", root, n->driver);
		if (sysfs_line(path, t, sizeof t)) {
			n->version[0] = '\0';
			set(n->version, sizeof n->version, t);
		}
	}
	/* an RDMA-capable NIC names its firmware under its RDMA device */
	if (!n->firmware[0]) {
		snprintf(path, sizeof path, "%s/sys/class/net/%s/device/infiniband", root, n->name);
		char **devs = sysfs_names(path);
		if (devs && devs[0]) {
			snprintf(path, sizeof path, "%s/sys/class/net/%s/device/infiniband/%s/fw_ver", root, n->name, devs[0]);
			if (sysfs_line(path, t, sizeof t))
				set(n->firmware, sizeof n->firmware, t);
		}
		sysfs_names_free(devs);
	}
}

void nics_collect(niclist *out, const diflist *ifs, const char *root, bool live)
{
	int fd = live ? socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0) : -1;
	for (size_t i = 0; i < ifs->n; i++) {
		if (nics_find(out, ifs->v[i].name))
			continue;
		grow(&out->v, &out->cap, out->n, sizeof *out->v);
		nic *n = &out->v[out->n++];
		*n = (nic){ .speed = -1, .mtu = ifs->v[i].mtu };
		snprintf(n->name, sizeof n->name, "%s", ifs->v[i].name);
		if (fd >= 0)
			ask_kernel(fd, n);
		ask_sysfs(root, n);
	}
	if (fd >= 0)
		close(fd);
}

void nics_free(niclist *l)
{
	free(l->v);
	*l = (niclist){ 0 };
}
