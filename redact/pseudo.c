#include "pseudo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/siphash.h"

/* ---- a string -> string table, open addressing ---- */

typedef struct entry {
	char *k; /* kind byte + original bytes */
	size_t kn;
	char *v;
	bool known; /* a name to find anywhere (pseudo_find) */
} entry;

typedef struct table {
	entry *v;
	size_t n, cap;
} table;

static size_t probe_start(const table *t, const hashkey *key, const char *k, size_t kn)
{
	return (size_t)siphash(key, k, kn) & (t->cap - 1);
}

static entry *table_find(const table *t, const hashkey *key, const char *k, size_t kn)
{
	if (!t->cap)
		return NULL;
	for (size_t i = probe_start(t, key, k, kn);; i = (i + 1) & (t->cap - 1)) {
		entry *e = &t->v[i];
		if (!e->k)
			return NULL;
		if (e->kn == kn && memcmp(e->k, k, kn) == 0)
			return e;
	}
}

static entry *table_put(table *t, const hashkey *key, const char *k, size_t kn, char *v);

static void table_grow(table *t, const hashkey *key)
{
	table old = *t;
	t->cap = old.cap ? old.cap * 2 : 64;
	t->v = xcalloc(t->cap, sizeof *t->v);
	t->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.v[i].k) {
			table_put(t, key, old.v[i].k, old.v[i].kn, old.v[i].v)->known = old.v[i].known;
			free(old.v[i].k);
		}
	free(old.v);
}

/* Stores a copy of k with value v (taken over). */
static entry *table_put(table *t, const hashkey *key, const char *k, size_t kn, char *v)
{
	if ((t->n + 1) * 2 > t->cap)
		table_grow(t, key);
	size_t i = probe_start(t, key, k, kn);
	while (t->v[i].k)
		i = (i + 1) & (t->cap - 1);
	t->v[i] = (entry){ xstrndup(k, kn), kn, v, false };
	t->n++;
	return &t->v[i];
}

static void table_free(table *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		free(t->v[i].k);
		free(t->v[i].v);
	}
	free(t->v);
}

/* ---- pseudonyms ---- */

/* Past this many remembered originals, new ones get a pseudonym computed
 * from the key alone (the same original still gets the same one, but two
 * may share one): the tables stay within a few tens of MB whatever the
 * input. */
#define PSEUDO_MAX_ENTRIES (1u << 17)

struct pseudo {
	hashkey key; /* SipHash's (util/siphash.h), which also picks the pseudonyms */
	table map;  /* kind + original -> pseudonym */
	table used; /* kind + pseudonym -> "" */
	size_t nnames, minlen, maxlen; /* known host names */
	char scratch[300]; /* a pseudonym not remembered (tables full) */
	unsigned char *pid_seen; /* a bit per pid below 2^22 met so far */
	char pidbuf[32];
};

pseudo *pseudo_new(const char *key)
{
	pseudo *p = xcalloc(1, sizeof *p);
	if (key && *key)
		hashkey_derive(&p->key, key);
	else
		hashkey_random(&p->key);
	return p;
}

void pseudo_free(pseudo *p)
{
	if (!p)
		return;
	table_free(&p->map);
	table_free(&p->used);
	free(p->pid_seen);
	free(p);
}

static uint64_t prf(const pseudo *p, char kind, const char *s, size_t n, unsigned counter)
{
	char buf[300];
	size_t len = n < sizeof buf - 8 ? n : sizeof buf - 8;
	buf[0] = kind;
	memcpy(buf + 1, &counter, sizeof counter);
	memcpy(buf + 1 + sizeof counter, s, len);
	return siphash(&p->key, buf, 1 + sizeof counter + len);
}

/* A table key on the stack: kind byte + original (names longer than a
 * host name can be are cut; no allocation per looked-up word). Host names
 * and domains are looked up in lower case: DNS ignores case. */
typedef struct key {
	char b[264];
	size_t n;
} key;

static bool folds(char kind)
{
	return kind == PSEUDO_HOST || kind == PSEUDO_DOMAIN;
}

static void key_set(key *k, char kind, const char *s, size_t n)
{
	if (n > sizeof k->b - 1)
		n = sizeof k->b - 1;
	k->b[0] = kind;
	memcpy(k->b + 1, s, n);
	if (folds(kind))
		for (size_t i = 1; i <= n; i++)
			if (k->b[i] >= 'A' && k->b[i] <= 'Z')
				k->b[i] = (char)(k->b[i] + 32);
	k->n = n + 1;
}

/* Looks up kind+original; NULL when unseen. */
static entry *lookup(const pseudo *p, char kind, const char *s, size_t n, key *k)
{
	key_set(k, kind, s, n);
	return table_find(&p->map, &p->key, k->b, k->n);
}

static bool full(const pseudo *p)
{
	return p->map.n >= PSEUDO_MAX_ENTRIES;
}

/* Remembers kind+original -> pseudonym when the pseudonym is still free;
 * once the tables are full, hands out cand unremembered. */
static entry *claim(pseudo *p, char kind, const key *k, const char *cand)
{
	if (full(p)) {
		snprintf(p->scratch, sizeof p->scratch, "%s", cand);
		return NULL;
	}
	key u;
	key_set(&u, kind, cand, strlen(cand));
	if (table_find(&p->used, &p->key, u.b, u.n))
		return NULL;
	table_put(&p->used, &p->key, u.b, u.n, xstrdup(""));
	return table_put(&p->map, &p->key, k->b, k->n, xstrdup(cand));
}

static int dec_at(slice s, size_t *i, char sep)
{
	size_t d = *i;
	unsigned v = 0;
	while (*i < s.n && s.p[*i] >= '0' && s.p[*i] <= '9' && *i - d < 3)
		v = v * 10 + (unsigned)(s.p[(*i)++] - '0');
	if (*i == d || v > 255 || (*i < s.n && s.p[*i] >= '0' && s.p[*i] <= '9'))
		return -1;
	if (sep) {
		if (*i >= s.n || s.p[*i] != sep)
			return -1;
		(*i)++;
	}
	return (int)v;
}

bool pseudo_dashed_ip(pseudo *p, slice label, strbuf *out)
{
	size_t i = 0;
	if (label.n > 3 && (label.p[0] | 32) == 'i' && (label.p[1] | 32) == 'p' && label.p[2] == '-')
		i = 3;
	size_t head = i;
	ipaddr a = { .family = 4 };
	for (int o = 0; o < 4; o++) {
		int v = dec_at(label, &i, o < 3 ? '-' : 0);
		if (v < 0)
			return false;
		a.b[o] = (unsigned char)v;
	}
	if (i != label.n)
		return false;
	pseudo_ip(p, &a);
	if (out) {
		sb_add(out, label.p, head);
		sb_printf(out, "%u-%u-%u-%u", a.b[0], a.b[1], a.b[2], a.b[3]);
	}
	return true;
}

/* The candidate pseudonym number c of a name. */
static void candidate(pseudo *p, char kind, slice name, unsigned c, char *cand, size_t size)
{
	static const char digits[] = "abcdefghijkmnpqrstuvwxyz23456789";
	const char *pre = kind == PSEUDO_HOST     ? "host-"
			  : kind == PSEUDO_USER   ? "user-"
			  : kind == PSEUDO_DOMAIN ? "domain-"
			  : kind == PSEUDO_DIR    ? "dir-"
						  : "name-";
	key k;
	key_set(&k, kind, name.p, name.n);
	uint64_t h = prf(p, kind, k.b + 1, k.n - 1, c);
	char tail[6];
	for (int i = 0; i < 5; i++, h >>= 5)
		tail[i] = digits[h & 31];
	tail[5] = '\0';
	/* a domain stays a domain: the reserved .example top level */
	snprintf(cand, size, "%s%s%s", pre, tail, kind == PSEUDO_DOMAIN ? ".example" : "");
}

const char *pseudo_name(pseudo *p, enum pseudo_kind kind, slice name, bool learn)
{
	key k;
	entry *e = lookup(p, (char)kind, name.p, name.n, &k);
	if (!e) {
		char cand[64];
		/* an address spelled in a host name maps as the address does
		 * (a bijection: its pseudonym is never taken) */
		strbuf dashed = { 0 };
		bool is_dashed = kind == PSEUDO_HOST && pseudo_dashed_ip(p, name, &dashed);
		if (is_dashed)
			e = claim(p, (char)kind, &k, dashed.p);
		for (unsigned c = 0; !e && !is_dashed && !full(p); c++) {
			candidate(p, (char)kind, name, c, cand, sizeof cand);
			e = claim(p, (char)kind, &k, cand);
		}
		if (!e) {
			if (is_dashed)
				snprintf(p->scratch, sizeof p->scratch, "%s", dashed.p);
			else
				candidate(p, (char)kind, name, 0, p->scratch, sizeof p->scratch);
			sb_free(&dashed);
			return p->scratch;
		}
		sb_free(&dashed);
	}
	if (learn && !e->known && kind == PSEUDO_HOST) {
		if (!p->nnames || name.n < p->minlen)
			p->minlen = name.n;
		if (name.n > p->maxlen)
			p->maxlen = name.n;
		p->nnames++;
	}
	e->known = e->known || learn;
	return e->v;
}

const char *pseudo_find(const pseudo *p, enum pseudo_kind kind, slice name)
{
	key k;
	const entry *e = lookup(p, (char)kind, name.p, name.n, &k);
	return e && e->known ? e->v : NULL;
}

size_t pseudo_hosts(const pseudo *p, size_t *minlen, size_t *maxlen)
{
	*minlen = p->minlen;
	*maxlen = p->maxlen;
	return p->nnames;
}

/* A 4-round Feistel network over bits-wide values (bits even, <= 64) with
 * SipHash as the round function: a keyed bijection of [0, 2^bits). */
static uint64_t feistel(const pseudo *p, unsigned char tag, uint64_t v, int bits)
{
	int half = bits / 2; /* at most 32 */
	uint64_t mask = (1ULL << half) - 1;
	uint64_t l = (v >> half) & mask, r = v & mask;
	for (unsigned char round = 0; round < 4; round++) {
		unsigned char in[10] = { tag, round };
		memcpy(in + 2, &r, sizeof r);
		uint64_t f = siphash(&p->key, in, sizeof in) & mask;
		uint64_t t = l ^ f;
		l = r;
		r = t;
	}
	return (l << half) | r;
}

void pseudo_hex(pseudo *p, slice digits, strbuf *out)
{
	char low[64];
	size_t n = digits.n < sizeof low ? digits.n : sizeof low - 1;
	bool upper = false;
	for (size_t i = 0; i < n; i++) {
		char c = digits.p[i];
		upper = upper || (c >= 'A' && c <= 'F');
		low[i] = (char)(c >= 'A' && c <= 'F' ? c + 32 : c);
	}
	low[n] = '\0';
	if (n <= 16) {
		/* a keyed permutation of n-digit values: injective with no table, so
		 * millions of distinct pointers cost no memory */
		char cand[17];
		uint64_t v = feistel(p, 'f', strtoull(low, NULL, 16), (int)n * 4);
		for (size_t i = n; i-- > 0; v >>= 4)
			cand[i] = "0123456789abcdef"[v & 15];
		for (size_t i = 0; i < n; i++)
			sb_addc(out, (char)(upper && cand[i] >= 'a' ? cand[i] - 32 : cand[i]));
		return;
	}
	key k;
	entry *e = lookup(p, 'x', low, n, &k);
	const char *v = e ? e->v : NULL;
	for (unsigned c = 0; !v; c++) {
		char cand[64];
		uint64_t h = 0;
		for (size_t i = 0; i < n; i++) {
			if (i % 16 == 0)
				h = prf(p, 'x', low, n, c * 8 + (unsigned)(i / 16));
			cand[i] = "0123456789abcdef"[h & 15];
			h >>= 4;
		}
		cand[n] = '\0';
		e = claim(p, 'x', &k, cand);
		v = e ? e->v : full(p) ? p->scratch : NULL;
	}
	for (size_t i = 0; v[i]; i++)
		sb_addc(out, (char)(upper && v[i] >= 'a' ? v[i] - 32 : v[i]));
}

/* Pids: a keyed permutation, no table. Linux pids and tids are below
 * 2^22 (pid_max's limit); those map within [0, 2^22), larger numbers (up
 * to 9 digits) within [2^22, 2^30) by cycle walking: distinct pids never
 * share a pseudonym, however many there are. */
#define PID_BITS 22

static uint64_t pid_map(const pseudo *p, uint64_t v)
{
	if (v < (1u << PID_BITS))
		return feistel(p, 'p', v, PID_BITS);
	do
		v = feistel(p, 'P', v, 30);
	while (v < (1u << PID_BITS));
	return v;
}

static bool pid_value(slice digits, uint64_t *v)
{
	while (digits.n > 1 && digits.p[0] == '0') /* "007" and "7" are one pid */
		digits.p++, digits.n--;
	if (!digits.n || digits.n > 9)
		return false;
	*v = 0;
	for (size_t i = 0; i < digits.n; i++)
		*v = *v * 10 + (uint64_t)(digits.p[i] - '0');
	return true;
}

const char *pseudo_pid(pseudo *p, slice digits)
{
	uint64_t v;
	if (!pid_value(digits, &v)) {
		/* not a pid: as many digits, from the key */
		size_t n = digits.n < sizeof p->pidbuf ? digits.n : sizeof p->pidbuf - 1;
		uint64_t h = 0;
		for (size_t i = 0; i < n; i++, h /= 10) {
			if (i % 16 == 0)
				h = prf(p, 'q', digits.p, digits.n, (unsigned)i);
			p->pidbuf[i] = (char)('0' + (i == 0 ? 1 + h % 9 : h % 10));
		}
		p->pidbuf[n] = '\0';
		return p->pidbuf;
	}
	if (v < (1u << PID_BITS)) {
		if (!p->pid_seen)
			p->pid_seen = xcalloc((1u << PID_BITS) / 8, 1);
		p->pid_seen[v / 8] = (unsigned char)(p->pid_seen[v / 8] | 1u << (v % 8));
	}
	snprintf(p->pidbuf, sizeof p->pidbuf, "%llu", (unsigned long long)pid_map(p, v));
	return p->pidbuf;
}

const char *pseudo_pid_find(pseudo *p, slice digits)
{
	uint64_t v;
	if (!pid_value(digits, &v) || v >= (1u << PID_BITS) || !p->pid_seen || !(p->pid_seen[v / 8] >> (v % 8) & 1))
		return NULL;
	return pseudo_pid(p, digits);
}

static int get_bit(const unsigned char *b, int i)
{
	return (b[i / 8] >> (7 - i % 8)) & 1;
}

static void set_bit(unsigned char *b, int i, int v)
{
	unsigned char m = (unsigned char)(1u << (7 - i % 8));
	b[i / 8] = (unsigned char)(v ? b[i / 8] | m : b[i / 8] & ~m);
}

/* Bits [keep, end) of b: bit i is flipped by a keyed function of bits
 * [0, i) (Crypto-PAn's construction), so the longest common prefix of any
 * two addresses is kept, and the first mapped bit always flips, so no
 * mapped address is left as it was. */
static void map_bits(const pseudo *p, unsigned char *b, int len, int keep, int end)
{
	unsigned char in[16], pre[18];
	memcpy(in, b, (size_t)len);
	for (int i = keep; i < end; i++) {
		int flip = 1;
		if (i > keep) {
			memset(pre, 0, sizeof pre);
			pre[0] = (unsigned char)len;
			pre[1] = (unsigned char)i;
			for (int j = 0; j < i; j++)
				set_bit(pre + 2, j, get_bit(in, j));
			flip = (int)(siphash(&p->key, pre, sizeof pre) & 1);
		}
		set_bit(b, i, get_bit(in, i) ^ flip);
	}
}

static void map_v4(const pseudo *p, unsigned char *b)
{
	if (b[0] == 0 || b[0] == 127 || b[0] >= 224)
		return;
	/* 169.254/16 link-local, 172.16/12 (docker's 172.17/16), 192.168/16, 100.64/10 */
	int keep = (b[0] == 169 || b[0] == 172 || b[0] == 192 || b[0] == 100) ? 16 : 8;
	/* every bit after those moves, the host part too: a kept last octet
	 * would give the node numbering away. Prefixes still map to prefixes,
	 * so a subnet stays one subnet. */
	map_bits(p, b, 4, keep, 32);
}

static void map_ip(const pseudo *p, ipaddr *a)
{
	if (a->family == 4) {
		map_v4(p, a->b);
		return;
	}
	if (a->family != 6)
		return;
	unsigned char *b = a->b;
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	bool zero_head = true;
	for (int i = 0; i < 15; i++)
		zero_head = zero_head && b[i] == 0;
	if (zero_head || b[0] == 0xff) /* ::, ::1, multicast */
		return;
	if (memcmp(b, mapped, 12) == 0) {
		map_v4(p, b + 12);
		return;
	}
	/* fe80::/10 link-local: the /64 is always fe80::, the interface id is the host */
	int keep = (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) ? 64 : 16;
	map_bits(p, b, 16, keep, 128);
}

static unsigned hexval(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)(c - 'a' + 10);
}

/* Mapping costs a SipHash per bit; an address repeats on many lines. */
void pseudo_ip(pseudo *p, ipaddr *a)
{
	size_t len = a->family == 4 ? 4 : 16;
	if (a->family != 4 && a->family != 6)
		return;
	key k;
	entry *e = lookup(p, (char)('0' + a->family), (const char *)a->b, len, &k);
	const char *v = e ? e->v : NULL;
	if (!v) {
		ipaddr m = *a;
		map_ip(p, &m);
		if (full(p)) {
			*a = m;
			return;
		}
		char hex[33];
		for (size_t i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", m.b[i]);
		v = table_put(&p->map, &p->key, k.b, k.n, xstrdup(hex))->v;
	}
	for (size_t i = 0; i < len; i++)
		a->b[i] = (unsigned char)(hexval(v[2 * i]) << 4 | hexval(v[2 * i + 1]));
}
