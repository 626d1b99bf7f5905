#include "gid.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/ipaddr.h"
#include "select.h"

static const unsigned char zero[16];

const gident *gid_at(const gid_input *in, int index)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->v[i].index == index)
			return &in->v[i];
	return NULL;
}

static const unsigned char *raw_at(const gid_input *in, int index)
{
	const gident *g = gid_at(in, index);
	return g ? g->raw : zero;
}

bool gid_is_v4(const unsigned char r[16])
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const unsigned char mcast[12] = { 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return memcmp(r, mapped, 12) == 0 || memcmp(r, mcast, 12) == 0;
}

static bool link_local(const unsigned char r[16])
{
	return r[0] == 0xfe && r[1] == 0x80 && !r[2] && !r[3] && !r[4] && !r[5] && !r[6] && !r[7];
}

bool gid_valid(const unsigned char r[16])
{
	/* configuredGid: not all zero, and not fe80:: with a zero tail */
	bool tail_zero = memcmp(r + 4, zero, 12) == 0;
	bool head_zero = memcmp(r, zero, 4) == 0;
	bool fe80 = r[0] == 0xfe && r[1] == 0x80 && !r[2] && !r[3];
	if ((head_zero && tail_zero) || (fe80 && tail_zero))
		return false;
	return !link_local(r);
}

static int roce_of(const gid_input *in, int index)
{
	const gident *g = gid_at(in, index);
	return g ? g->roce : 0;
}

/* NCCL_IB_ADDR_RANGE "a.b.c.d/n" or "v6/n": false when unset or unusable (NCCL then matches all). */
static bool parse_range(const char *s, int fam, ipaddr *base, int *bits)
{
	if (!s || !*s)
		return false;
	const char *slash = strchr(s, '/');
	if (!slash || !ipaddr_parse((slice){ s, (size_t)(slash - s) }, base) || base->family != fam)
		return false;
	*bits = atoi(slash + 1);
	return *bits > 0 && *bits <= (fam == 4 ? 32 : 128);
}

static bool range_match(int fam, bool have, const ipaddr *base, int bits, const unsigned char r[16])
{
	if (!have)
		return true;
	ipaddr a = { .family = fam };
	if (fam == 4)
		memcpy(a.b, r + 12, 4);
	else
		memcpy(a.b, r, 16);
	return ipaddr_same_net(&a, base, bits);
}

static int fam_of(const unsigned char r[16])
{
	return gid_is_v4(r) ? 4 : 6;
}

static void wanted(const gid_input *in, int *fam, int *ver, ipaddr *base, int *bits, bool *have)
{
	*fam = in->addr_family && strcmp(in->addr_family, "AF_INET6") == 0 ? 6 : 4;
	*ver = in->roce_version && *in->roce_version ? atoi(in->roce_version) : 2;
	*have = parse_range(in->addr_range, *fam, base, bits);
}

int gid_pick(const gid_input *in, enum gid_how *how)
{
	if (in->gid_index && *in->gid_index && atoi(in->gid_index) >= 0) {
		*how = GID_ENV;
		return atoi(in->gid_index);
	}
	if (in->version && in->version < SEL_VERSION(2, 21, 5)) {
		*how = GID_DEFAULT_ZERO; /* NCCL_IB_GID_INDEX defaulted to 0 */
		return 0;
	}
	*how = GID_SCAN;
	int fam, ver, bits = 0;
	ipaddr base;
	bool have;
	wanted(in, &fam, &ver, &base, &bits, &have);
	int cur = 0;
	for (int cand = 1; cand < in->tbl_len; cand++) {
		const unsigned char *g = raw_at(in, cur), *c = raw_at(in, cand);
		bool match = range_match(fam, have, &base, bits, c);
		if (fam_of(c) != fam_of(g) && fam_of(c) == fam && match) {
			cur = cand;
			continue;
		}
		if (fam_of(c) != fam || !gid_valid(c) || !match)
			continue;
		int vc = roce_of(in, cand);
		if ((roce_of(in, cur) != vc || !gid_valid(g)) && vc == ver)
			cur = cand;
	}
	return cur;
}

bool gid_wanted(const gid_input *in, const gident *g)
{
	int fam, ver, bits = 0;
	ipaddr base;
	bool have;
	wanted(in, &fam, &ver, &base, &bits, &have);
	return g && gid_valid(g->raw) && fam_of(g->raw) == fam && g->roce == ver && range_match(fam, have, &base, bits, g->raw);
}

int gid_preferred(const gid_input *in)
{
	for (size_t i = 0; i < in->n; i++)
		if (gid_wanted(in, &in->v[i]))
			return in->v[i].index;
	return -1;
}

bool gid_parse(const char *s, unsigned char raw[16])
{
	for (int i = 0; i < 8; i++) {
		unsigned v = 0;
		for (int k = 0; k < 4; k++, s++) {
			if (!isxdigit((unsigned char)*s))
				return false;
			v = v * 16 + (unsigned)(isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10));
		}
		raw[2 * i] = (unsigned char)(v >> 8);
		raw[2 * i + 1] = (unsigned char)v;
		if (i < 7 && *s++ != ':')
			return false;
	}
	return *s == '\0' || *s == '\n';
}

void gid_str(const unsigned char raw[16], strbuf *b)
{
	char t[INET6_ADDRSTRLEN];
	if (inet_ntop(AF_INET6, raw, t, sizeof t))
		sb_adds(b, t);
	else
		sb_adds(b, "?");
}
