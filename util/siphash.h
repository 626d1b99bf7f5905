/* SipHash-2-4 (Aumasson, Bernstein): a keyed hash. Every table whose keys
 * come from the input hashes them with a key drawn at random when the
 * table's owner is made, so that no input can choose keys that collide
 * (a fixed hash lets a log send every name down one probe sequence). No
 * output depends on the key: tables are looked up, never walked in slot
 * order for what is shown. */
#ifndef NCCLOG_SIPHASH_H
#define NCCLOG_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct hashkey {
	uint64_t k[2];
} hashkey;

/* A fresh key from the kernel's entropy (the clock, the pid and an
 * address when there is none). */
void hashkey_random(hashkey *key);
/* A key for another table, derived from parent and a label: as hard to
 * guess as parent, unlike it and unlike the key of any other label. */
void hashkey_child(hashkey *out, const hashkey *parent, uint64_t label);
/* A key derived from a secret: the same secret gives the same key. */
void hashkey_derive(hashkey *key, const char *secret);
/* The hash of n bytes. */
uint64_t siphash(const hashkey *key, const void *data, size_t n);
/* The hash of two integers, for tables keyed by pairs. */
uint64_t siphash_ints(const hashkey *key, uint64_t a, uint64_t b);

#endif
