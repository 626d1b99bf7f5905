#include "node.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "sysfs.h"

const node_paths node_default_paths = { "/dev/shm", "/dev", "/sys/class/infiniband" };

static int count_gpus(const char *dev)
{
	DIR *d = opendir(dev);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *s = e->d_name;
		if (strncmp(s, "nvidia", 6) != 0 || !s[6])
			continue;
		s += 6;
		while (*s >= '0' && *s <= '9')
			s++;
		if (!*s)
			n++;
	}
	closedir(d);
	return n;
}

/* The GID table of one port: gids/N with gid_attrs/types/N and ndevs/N. */
static void collect_gids(ibport *p, const char *portdir)
{
	strbuf d = { 0 };
	sb_printf(&d, "%s/gids", portdir);
	char **names = sysfs_names(d.p);
	size_t cap = 0;
	for (size_t i = 0; names && names[i]; i++) {
		char *end;
		long idx = strtol(names[i], &end, 10);
		if (*end || idx < 0 || idx > 65535)
			continue;
		if ((int)idx + 1 > p->gid_tbl_len)
			p->gid_tbl_len = (int)idx + 1;
		char text[64], path[4200];
		unsigned char raw[16];
		static const unsigned char zero[16];
		snprintf(path, sizeof path, "%s/%s", d.p, names[i]);
		if (p->ngids >= NODE_MAX_GIDS || !sysfs_line(path, text, sizeof text) || !gid_parse(text, raw) ||
		    memcmp(raw, zero, 16) == 0)
			continue;
		grow(&p->gids, &cap, p->ngids, sizeof *p->gids);
		gident *g = &p->gids[p->ngids++];
		*g = (gident){ .index = (int)idx };
		memcpy(g->raw, raw, 16);
		snprintf(path, sizeof path, "%s/gid_attrs/types/%ld", portdir, idx);
		if (sysfs_line(path, text, sizeof text))
			g->roce = strstr(text, "v2") ? 2 : strstr(text, "v1") ? 1 : 0;
		snprintf(path, sizeof path, "%s/gid_attrs/ndevs/%ld", portdir, idx);
		sysfs_line(path, g->ndev, sizeof g->ndev);
	}
	/* sysfs lists indices as names: sorted as text, put them in numeric order */
	for (size_t i = 1; i < p->ngids; i++)
		for (size_t k = i; k > 0 && p->gids[k - 1].index > p->gids[k].index; k--) {
			gident t = p->gids[k];
			p->gids[k] = p->gids[k - 1];
			p->gids[k - 1] = t;
		}
	sysfs_names_free(names);
	sb_free(&d);
}

static void collect_ib(node_facts *f, const char *root)
{
	char **devs = sysfs_names(root);
	size_t ibcap = 0;
	for (size_t i = 0; devs && devs[i]; i++) {
		char path[4096], fw[64] = "";
		snprintf(path, sizeof path, "%s/%s/fw_ver", root, devs[i]);
		sysfs_line(path, fw, sizeof fw);
		for (int port = 1; port <= 64; port++) {
			char st[64], ll[64];
			snprintf(path, sizeof path, "%s/%s/ports/%d/state", root, devs[i], port);
			if (!sysfs_line(path, st, sizeof st))
				break;
			snprintf(path, sizeof path, "%s/%s/ports/%d/link_layer", root, devs[i], port);
			if (!sysfs_line(path, ll, sizeof ll))
				snprintf(ll, sizeof ll, "unknown");
			grow(&f->ib, &ibcap, f->nib, sizeof *f->ib);
			ibport *p = &f->ib[f->nib++];
			*p = (ibport){ 0 };
			snprintf(p->dev, sizeof p->dev, "%s", devs[i]);
			p->port = port;
			/* "4: ACTIVE" -> "ACTIVE" */
			const char *colon = strchr(st, ':');
			const char *s = colon ? colon + 1 : st;
			while (*s == ' ')
				s++;
			snprintf(p->state, sizeof p->state, "%s", s);
			snprintf(p->link, sizeof p->link, "%s", ll);
			snprintf(p->fw, sizeof p->fw, "%s", fw);
			snprintf(path, sizeof path, "%s/%s/ports/%d/rate", root, devs[i], port);
			sysfs_line(path, p->rate, sizeof p->rate);
			snprintf(path, sizeof path, "%s/%s/ports/%d", root, devs[i], port);
			collect_gids(p, path);
			snprintf(path, sizeof path, "%s/%s/ports/%d/gid_attrs/ndevs/0", root, devs[i], port);
			sysfs_line(path, p->netdev, sizeof p->netdev);
		}
	}
	sysfs_names_free(devs);
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp(((const envvar *)a)->name, ((const envvar *)b)->name);
}

static void collect_env(node_facts *f, char *const *env)
{
	size_t cap = 0;
	for (size_t i = 0; env && env[i]; i++) {
		const char *s = env[i];
		if (strncmp(s, "NCCL_", 5) != 0 && strncmp(s, "TORCH_NCCL_", 11) != 0)
			continue;
		const char *eq = strchr(s, '=');
		if (!eq)
			continue;
		grow(&f->env, &cap, f->nenv, sizeof *f->env);
		f->env[f->nenv].name = xstrndup(s, (size_t)(eq - s));
		f->env[f->nenv].value = xstrdup(eq + 1);
		f->nenv++;
	}
	if (f->nenv > 1)
		qsort(f->env, f->nenv, sizeof *f->env, cmp_env);
}

void node_collect(node_facts *f, const node_paths *p, char *const *environ_, int gpus)
{
	*f = (node_facts){ 0 };
	if (gethostname(f->host, sizeof f->host - 1) != 0)
		snprintf(f->host, sizeof f->host, "localhost");
	f->pid = (long)getpid();
	f->gpus_given = gpus >= 0;
	f->gpus = gpus >= 0 ? gpus : count_gpus(p->dev);
	struct statvfs sv;
	if (statvfs(p->shm, &sv) == 0) {
		f->shm_ok = true;
		f->shm_size = (uint64_t)sv.f_blocks * sv.f_frsize;
		f->shm_free = (uint64_t)sv.f_bavail * sv.f_frsize;
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		f->memlock_unlimited = rl.rlim_cur == RLIM_INFINITY;
		f->memlock_soft = (uint64_t)rl.rlim_cur;
		f->memlock_hard = (uint64_t)rl.rlim_max;
	}
	collect_ib(f, p->ib);
	collect_env(f, environ_);
}

void node_free(node_facts *f)
{
	for (size_t i = 0; i < f->nenv; i++) {
		free(f->env[i].name);
		free(f->env[i].value);
	}
	free(f->env);
	for (size_t i = 0; i < f->nib; i++)
		free(f->ib[i].gids);
	free(f->ib);
	*f = (node_facts){ 0 };
}

const char *node_env(const node_facts *f, const char *name)
{
	for (size_t i = 0; i < f->nenv; i++)
		if (strcmp(f->env[i].name, name) == 0)
			return f->env[i].value;
	return NULL;
}

/* One SHM connection buffer at the default NCCL_BUFFSIZE: Simple 4 MiB,
 * LL128 about 4.6 MiB and LL 0.5 MiB, the 9637892 bytes of the familiar
 * "failed to extend /dev/shm/nccl-XXXXXX to 9637892 bytes". Each local GPU
 * sends and receives over at least 2 channels to its ring neighbours. */
#define SHM_SEGMENT 9637892ull
#define SHM_CHANNELS 2ull

uint64_t node_shm_need(int gpus, uint64_t buffsize)
{
	if (gpus < 2)
		return 0;
	uint64_t seg = SHM_SEGMENT;
	if (buffsize)
		seg = seg * buffsize / (4ull << 20);
	return (uint64_t)gpus * 2 * SHM_CHANNELS * seg;
}

bool node_env_risky(const char *var, const char *val)
{
	static const char *const on[] = { "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE" };
	static const char *const any[] = { "NCCL_ALGO", "NCCL_PROTO", "NCCL_GRAPH_FILE", "NCCL_TOPO_FILE" };
	if (strcmp(var, "NCCL_NET") == 0 && strcmp(val, "Socket") == 0)
		return true;
	for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
		if (strcmp(var, on[i]) == 0 && strcmp(val, "0") != 0)
			return true;
	for (size_t i = 0; i < sizeof any / sizeof any[0]; i++)
		if (strcmp(var, any[i]) == 0)
			return true;
	return false;
}

void node_bytes_str(uint64_t n, strbuf *b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)n;
	int u = 0;
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		sb_printf(b, "%llu B", (unsigned long long)n);
	else
		sb_printf(b, "%.1f %s", v, unit[u]);
}
