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
	int local;            /* first local entry on the peer's subnet, -1 */
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
/* Resolves every peer's host to its first address (getaddrinfo). */
void peers_resolve(peerlist *l);
/* Sets each peer's `local`: the first local address whose subnet holds it. */
void peers_match(peerlist *l, const dif *ifs, size_t n);
/* One non-blocking TCP connect per peer, waited for at most timeout_ms. */
void peers_connect(peerlist *l, int timeout_ms);
void peers_free(peerlist *l);
const char *peers_conn_name(enum peer_conn c);

#endif
