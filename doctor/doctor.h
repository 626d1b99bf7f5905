/* `ncclog doctor`: what NCCL will find on this node, gathered once into
 * doctor_facts; everything from facts to findings (diagnose.h) is pure and
 * testable. */
#ifndef NCCLOG_DOCTOR_H
#define NCCLOG_DOCTOR_H

#include "ifaces.h"
#include "names.h"
#include "nics.h"
#include "node.h"
#include "peers.h"
#include "select.h"
#include "versions.h"

#define DOCTOR_PATH_MAX 4096

/* Where doctor reads the system. Tests point them at a fake tree. */
typedef struct doctor_paths {
	char root[DOCTOR_PATH_MAX];   /* prefix of /sys, /proc, /etc, /dev and the library directories; "" is / */
	char shm[DOCTOR_PATH_MAX], dev[DOCTOR_PATH_MAX], ib[DOCTOR_PATH_MAX], hosts[DOCTOR_PATH_MAX];
	bool live;                    /* the running system: the kernel and the resolver answer too */
} doctor_paths;

/* The paths of the running system (root NULL or ""), or of a tree at root,
 * whose names then resolve through ROOT/etc/hosts alone. */
void doctor_paths_at(doctor_paths *p, const char *root);
/* The node_paths view of p. */
node_paths doctor_node_paths(const doctor_paths *p);

typedef struct doctor_opts {
	int gpus;                /* --gpus, -1: count the devices */
	int version;             /* --nccl-version as SEL_VERSION(), 0 */
	const char *nccl_lib;    /* --nccl-lib, NULL */
	bool connect;            /* --connect */
	int timeout_ms;          /* for each connect */
	int probe_ms;            /* for each library probe; 0: the default */
	bool probe;              /* dlopen the libraries found */
} doctor_opts;

/* Which NCCL the prediction is for. */
enum version_src { VS_LATEST, VS_OPTION, VS_LIBRARY };

typedef struct doctor_facts {
	diflist ifs;
	niclist nics;            /* one per interface name */
	node_facts node;
	versions vers;
	peerlist peers;          /* --peer, --peers, then MASTER_ADDR (marked master) */
	resolved self;           /* this node's host name, through its resolver */
	int self_if;             /* the local entry that holds self.addr[0], -1 */
	char master_addr[256], master_port[32]; /* MASTER_ADDR, MASTER_PORT; "" when unset */
	bool master_port_bad;    /* MASTER_PORT is set but no port number */
	bool connected;          /* --connect ran */
	sel_input sel;           /* from node.env; sel.version from vsrc */
	enum version_src vsrc;
	sel_result pick;         /* at sel.version */
	sel_result pick_old;     /* before 2.28.3, when the version is not known */
	int suggest;             /* the interface to name in NCCL_SOCKET_IFNAME, -1 */
	char net[64];            /* the predicted transport: "IB", "Socket", NCCL_NET or the plugin's name */
} doctor_facts;

/* Gathers the facts of this node into f (whose peers the caller may have
 * added) and predicts. On error, -1 is returned and *err says why (the
 * interfaces cannot be listed). On success, 0 is returned. */
int doctor_collect(doctor_facts *f, const doctor_paths *p, const doctor_opts *o, char *const *environ_, strbuf *err);
/* Reads NCCL_SOCKET_IFNAME, NCCL_COMM_ID and NCCL_SOCKET_FAMILY from
 * f->node.env into f->sel and predicts (f->pick, f->pick_old, f->suggest,
 * f->net) for f->sel.version (0: the latest). Pure. */
void doctor_predict(doctor_facts *f);
void doctor_facts_free(doctor_facts *f);
enum { K_ROUTABLE, K_LOOP, K_VIRTUAL, K_LINK_LOCAL };
/* "lo", docker*, veth*, ... and link-local addresses: what NCCL must not
 * use between nodes: one of the K_ kinds. */
int doctor_iface_kind(const dif *d);
/* "2.21.5" for SEL_VERSION(2, 21, 5). */
const char *doctor_version_str(int v, char *buf, size_t size);

#endif
