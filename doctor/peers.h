/* The other nodes of a job: which local interface shares a subnet with
 * each, and (on request) whether one TCP port of each answers. One port
 * per peer, one attempt: never a scan. */
#ifndef NCCLOG_DOCTOR_PEERS_H
#define NCCLOG_DOCTOR_PEERS_H

#include <sys/socket.h>

#include "ifaces.h"

#define PEER_DEFAULT_PORT 22

enum peer_conn { PC_NOT_TRIED, PC_OK, PC_REFUSED, PC_UNREACHABLE, PC_TIMEOUT, PC_ERROR };

typedef struct peer {
	char host[256];
	int port;
	bool resolved;
	ipaddr addr;
	struct sockaddr_storage sa;
	socklen_t salen;
	char err[160];        /* why resolving or connecting failed */
	int hosts_line;       /* the /etc/hosts line its address came from, 0 */
	int local;            /* first local entry on the peer's subnet, -1 */
	int route;            /* the local entry whose address the kernel sends from to reach it, -1 */
	bool master;          /* MASTER_ADDR:MASTER_PORT, not a --peer */
	bool no_connect;      /* resolve it, but there is no port to try */
	enum peer_conn conn;
	double ms;            /* connect time */
} peer;

typedef struct peerlist {
	peer *v;
	size_t n, cap;
} peerlist;

/* Adds "HOST", "HOST:PORT", "[V6]:PORT" or a bare IPv6 address. On error,
 * -1 is returned and *err says why. On success, 0 is returned. */
int peers_add(peerlist *l, const char *spec, strbuf *err);
/* Adds the peers of a file: one per line, the first word of each (so
 * MPI/Slurm host files work), '#' comments. Errors as peers_add. */
int peers_read_file(peerlist *l, const char *path, strbuf *err);
/* Resolves every peer's host to its first address through the node's
 * resolver, or with files_only through the hosts file alone (names.h). */
void peers_resolve(peerlist *l, const char *hosts, bool files_only);
/* Sets each peer's `local`, the first local address whose subnet holds
 * it, and `route`, the local address the kernel would send from. */
void peers_match(peerlist *l, const dif *ifs, size_t n);
/* One non-blocking TCP connect per peer, waited for at most timeout_ms. */
void peers_connect(peerlist *l, int timeout_ms);
void peers_free(peerlist *l);
const char *peers_conn_name(enum peer_conn c);

#endif
