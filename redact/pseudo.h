/* Consistent pseudonyms for one run: a keyed hash (SipHash-2-4, random key
 * unless one is given) picks each pseudonym, a table keeps it so that the
 * same original always gets the same pseudonym and two originals never
 * share one. Addresses are mapped prefix-preservingly: two addresses that
 * share their first N bits still do, so subnets survive, and loopback,
 * link-local, docker-bridge and private ranges stay what they were. */
#ifndef NCCLOG_PSEUDO_H
#define NCCLOG_PSEUDO_H

#include "../util/ipaddr.h"
#include "../util/str.h"

typedef struct pseudo pseudo;

/* A new mapping keyed by key (any string), or by random bytes when key is
 * NULL or empty. */
pseudo *pseudo_new(const char *key);
void pseudo_free(pseudo *p);

enum pseudo_kind { PSEUDO_HOST = 'h', PSEUDO_USER = 'u' };
/* The pseudonym of a host or user name ("host-k3x9q", "user-7pz2m"),
 * created on first use. Valid until pseudo_free. */
const char *pseudo_name(pseudo *p, enum pseudo_kind kind, slice name);
/* The pseudonym of a name seen before, or NULL. */
const char *pseudo_find(const pseudo *p, enum pseudo_kind kind, slice name);
/* Number of host names known so far, and their shortest and longest
 * lengths (a cheap filter before a lookup). */
size_t pseudo_hosts(const pseudo *p, size_t *minlen, size_t *maxlen);
/* The pseudonym of a process or thread id given as decimal digits (one
 * space for both, so pid == tid stays visible). */
const char *pseudo_pid(pseudo *p, slice digits);
/* The pseudonym of a pid seen before, or NULL. */
const char *pseudo_pid_find(const pseudo *p, slice digits);
/* Appends the pseudonym of hex digits (a pointer, a commId): as many
 * digits, the same letter case. */
void pseudo_hex(pseudo *p, slice digits, strbuf *out);
/* Maps an address in place (see above). Loopback, unspecified and
 * multicast addresses are kept as they are. */
void pseudo_ip(pseudo *p, ipaddr *a);

#endif
