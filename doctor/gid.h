/* The GID a RoCE port's NCCL connections use, chosen by the rules of
 * NCCL's ncclIbGetGidIndex (transport/net_ib): NCCL_IB_GID_INDEX, else
 * index 0 before 2.21.5, else from 2.21.5 the scan for a GID of
 * NCCL_IB_ADDR_FAMILY (AF_INET), in NCCL_IB_ADDR_RANGE, of RoCE version
 * NCCL_IB_ROCE_VERSION_NUM (2). Pure. */
#ifndef NCCLOG_DOCTOR_GID_H
#define NCCLOG_DOCTOR_GID_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/str.h"

typedef struct gident {
	int index;
	unsigned char raw[16];
	int roce;           /* 1 or 2 from gid_attrs/types ("IB/RoCE v1", "RoCE v2"), 0 unknown */
	char ndev[32];      /* gid_attrs/ndevs: the interface it belongs to */
} gident;

typedef struct gid_input {
	const gident *v;    /* the non-zero entries, by index */
	size_t n;
	int tbl_len;        /* the table's length (sysfs lists every index) */
	int version;        /* SEL_VERSION() of the NCCL */
	const char *gid_index;     /* NCCL_IB_GID_INDEX, NULL */
	const char *addr_family;   /* NCCL_IB_ADDR_FAMILY, NULL */
	const char *addr_range;    /* NCCL_IB_ADDR_RANGE, NULL */
	const char *roce_version;  /* NCCL_IB_ROCE_VERSION_NUM, NULL */
} gid_input;

enum gid_how { GID_ENV, GID_DEFAULT_ZERO, GID_SCAN };

/* The index NCCL uses, and how it got there. */
int gid_pick(const gid_input *in, enum gid_how *how);
/* The entry at index, or NULL when that index holds the zero GID. */
const gident *gid_at(const gid_input *in, int index);
/* True for an IPv4-mapped GID (::ffff:a.b.c.d): a RoCE GID of an IPv4 address. */
bool gid_is_v4(const unsigned char raw[16]);
/* NCCL's validGid: configured and not link-local. */
bool gid_valid(const unsigned char raw[16]);
/* True when g is what the 2.21.5 scan looks for: valid, of the wanted
 * family, RoCE version and range. */
bool gid_wanted(const gid_input *in, const gident *g);
/* The first entry NCCL would prefer if nothing forced it: valid, of the
 * wanted family and RoCE version (what the 2.21.5 scan looks for); -1. */
int gid_preferred(const gid_input *in);
/* Parses sysfs's "fe80:0000:...:0001" (8 groups of 4 hex digits). */
bool gid_parse(const char *s, unsigned char raw[16]);
/* "::ffff:10.0.0.5", "fe80::1" into b. */
void gid_str(const unsigned char raw[16], strbuf *b);

#endif
