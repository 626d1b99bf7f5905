/* Consistent pseudonyms for one run: a keyed hash (SipHash-2-4, random key
 * unless one is given) picks each pseudonym, a table keeps it so that the
 * same original always gets the same pseudonym and two originals never
 * share one. Addresses are mapped prefix-preservingly: two addresses that
 * share their first N bits still do, so subnets survive, and loopback,
 * link-local, docker-bridge and private ranges stay what they were; the
 * host part moves too. Past a fixed number of remembered originals the
 * pseudonyms come from the key alone: memory stays bounded. */
#ifndef NCCLOG_PSEUDO_H
#define NCCLOG_PSEUDO_H

#include "../util/ipaddr.h"
#include "../util/str.h"

typedef struct pseudo pseudo;

/* A new mapping keyed by key (any string), or by random bytes when key is
 * NULL or empty. */
pseudo *pseudo_new(const char *key);
void pseudo_free(pseudo *p);

enum pseudo_kind {
	PSEUDO_HOST = 'h',   /* host-k3x9q; an ip-A-B-C-D name maps as its address */
	PSEUDO_USER = 'u',   /* user-7pz2m */
	PSEUDO_DOMAIN = 'd', /* domain-4kq2m.example */
	PSEUDO_NAME = 'n',   /* name-9xq3w: namespaces, clusters, accounts */
	PSEUDO_DIR = 'p',    /* dir-2mzq8: a directory of a shared file system */
};
/* The pseudonym of a name of that kind, created on first use. Host names
 * and domains are matched without regard to case (their pseudonyms are
 * lower case). learn: the name is also one to find anywhere in the text
 * (pseudo_find). Valid until the next call on p. */
const char *pseudo_name(pseudo *p, enum pseudo_kind kind, slice name, bool learn);
/* The pseudonym of a learned name, or NULL. */
const char *pseudo_find(const pseudo *p, enum pseudo_kind kind, slice name);
/* Number of learned host names, and their shortest and longest lengths (a
 * cheap filter before a lookup). */
size_t pseudo_hosts(const pseudo *p, size_t *minlen, size_t *maxlen);
/* When label is an IPv4 address spelled with dashes ("172-25-226-197",
 * "ip-172-25-226-197", as cloud host names are), appends it with the
 * address mapped (pseudo_ip) to out (NULL: only the test) and returns true. */
bool pseudo_dashed_ip(pseudo *p, slice label, strbuf *out);
/* The pseudonym of a process or thread id given as decimal digits (one
 * space for both, so pid == tid stays visible; a permutation, so two pids
 * never share one). Valid until the next call. */
const char *pseudo_pid(pseudo *p, slice digits);
/* The pseudonym of a pid seen before, or NULL. */
const char *pseudo_pid_find(pseudo *p, slice digits);
/* Appends the pseudonym of hex digits (a pointer, a commId): as many
 * digits, the same letter case. */
void pseudo_hex(pseudo *p, slice digits, strbuf *out);
/* Maps an address in place (see above). Loopback, unspecified and
 * multicast addresses are kept as they are. */
void pseudo_ip(pseudo *p, ipaddr *a);

#endif
