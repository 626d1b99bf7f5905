/* String interning under hostile input: names crafted to share their
 * unkeyed FNV-1a hash go in with a comparison or two each (the table's
 * hash is keyed), the caps on strings and bytes hold and count what they
 * refuse, a name with a NUL is one name, two tables draw two keys, and
 * a key derived for another table is another. */
#include "../../util/intern.h"
#include "check.h"

#include <stdlib.h>

/* Blocks that take FNV-1a-64 from one state to the same low 32 bits
 * (tests/crafted.py holds the same): one block per pair, any choice, and
 * the names collide there. */
static const char *const pairs[][2] = {
	{ "6o48vd", "xsjg4m" },
	{ "ywvn8m", "i1y5q6" },
	{ "2eo1od", "delowm" },
	{ "vd8uw3", "4v4e11" },
	{ "zpl61o", "m6c2ie" },
	{ "ordlci", "87pfs3" },
	{ "kv2z2u", "m4ik9l" },
	{ "ky75y8", "g7wcnu" },
	{ "35nrmx", "tfw4j6" },
	{ "xzu7fq", "wf78rq" },
	{ "2n0o3q", "4juciv" },
	{ "tyxxp0", "pcn9fs" },
	{ "oxvkua", "pkwyur" },
	{ "l2ww0t", "dfubbu" },
	{ "1aeu82", "gpozke" },
	{ "jsqjfm", "588vhf" },
	{ "2up0tt", "cwnh83" },
	{ "9zo8c1", "gnlk4d" }
};
#define NPAIRS (sizeof pairs / sizeof pairs[0])

static void colliding(char *out, unsigned n)
{
	size_t k = 0;
	for (size_t i = 0; i < NPAIRS; i++) {
		memcpy(out + k, pairs[i][(n >> i) & 1], 6);
		k += 6;
	}
	out[k] = '\0';
}

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

int main(void)
{
	checks c = { 0 };
	char name[6 * NPAIRS + 1];

	/* the crafted names do collide under FNV-1a ... */
	colliding(name, 0);
	uint32_t lo = (uint32_t)fnv(name);
	bool all = true;
	for (unsigned n = 1; n < 1000; n++) {
		colliding(name, n * 263);
		all &= (uint32_t)fnv(name) == lo;
	}
	CHECK(&c, all, "the crafted names share their low 32 FNV bits");

	/* ... and not in the table: 65536 of them, each new, each found again */
	intern t;
	intern_init(&t);
	unsigned n = 1u << 16;
	for (unsigned i = 0; i < n; i++) {
		colliding(name, i);
		CHECK(&c, intern_get(&t, slice_from(name)) == (int)i, "name %u gets id %u", i, i);
	}
	for (unsigned i = 0; i < n; i += 97) {
		colliding(name, i);
		CHECK(&c, intern_find(&t, slice_from(name)) == (int)i, "name %u is found", i);
	}
	/* a comparison per name found, a few stray ones: not one per name before it */
	CHECK(&c, t.compares < 2 * (uint64_t)n, "%llu comparisons for %u names", (unsigned long long)t.compares, n);
	intern_free(&t);

	/* a NUL inside a name: one name, found again */
	intern_init(&t);
	int a = intern_get(&t, (slice){ "eth\0x", 5 }), b = intern_get(&t, (slice){ "eth\0x", 5 });
	CHECK(&c, a == b && t.n == 1, "a name with a NUL is interned once (%d %d, %zu)", a, b, t.n);
	CHECK(&c, intern_get(&t, (slice){ "eth", 3 }) != a, "and it is not its prefix");
	intern_free(&t);

	/* the cap on strings: past it, a new name gets -1 and is counted; old ones are found */
	intern_init(&t);
	char buf[32];
	for (unsigned i = 0; i < INTERN_MAX_STRINGS; i++) {
		snprintf(buf, sizeof buf, "n%u", i);
		intern_get(&t, slice_from(buf));
	}
	CHECK(&c, t.n == INTERN_MAX_STRINGS, "the table holds %zu", t.n);
	CHECK(&c, intern_get(&t, SLICE_LIT("one-more")) == -1 && t.dropped == 1, "past the cap: -1, counted");
	CHECK(&c, intern_get(&t, SLICE_LIT("n7")) == 7 && t.dropped == 1, "an old name still has its id");
	CHECK(&c, *intern_str(&t, -1) == '\0', "-1 reads as the empty string");
	intern_free(&t);

	/* the cap on bytes: long names fill it before the count does */
	intern_init(&t);
	size_t big = 1u << 20;
	char *s = malloc(big);
	memset(s, 'x', big);
	int got = 0;
	for (unsigned i = 0; i < 40; i++) {
		snprintf(s, 16, "%08u", i);
		if (intern_get(&t, (slice){ s, big }) >= 0)
			got++;
	}
	CHECK(&c, got == 31 && t.dropped == 9, "%d MiB names kept in a 32 MiB table, %llu dropped", got,
	      (unsigned long long)t.dropped);
	CHECK(&c, t.used <= INTERN_MAX_BYTES, "bytes held: %zu", t.used);
	free(s);
	intern_free(&t);

	/* two tables, two keys: the hash of a name depends on the table */
	hashkey k1, k2;
	hashkey_random(&k1);
	hashkey_random(&k2);
	CHECK(&c, memcmp(&k1, &k2, sizeof k1) != 0, "two random keys differ");
	CHECK(&c, siphash(&k1, "node-a", 6) != siphash(&k2, "node-a", 6), "and so do the hashes of one name");
	/* a key for another table, derived from one drawn once: the same
	 * parent and label give it again, another label or parent another */
	hashkey c1, c1b, c2, c3;
	hashkey_child(&c1, &k1, 1);
	hashkey_child(&c1b, &k1, 1);
	hashkey_child(&c2, &k1, 2);
	hashkey_child(&c3, &k2, 1);
	CHECK(&c, memcmp(&c1, &c1b, sizeof c1) == 0, "a child key is the same again");
	CHECK(&c, memcmp(&c1, &k1, sizeof c1) != 0 && memcmp(&c1, &c2, sizeof c1) != 0 && memcmp(&c1, &c3, sizeof c1) != 0,
	      "and unlike its parent, its sibling and its cousin");
	intern ta, tb;
	intern_init_keyed(&ta, &c1);
	intern_init_keyed(&tb, &c1);
	CHECK(&c, memcmp(&ta.key, &tb.key, sizeof ta.key) == 0 && intern_get(&ta, slice_from("x")) == 0,
	      "a table keyed as given");
	intern_free(&ta);
	intern_free(&tb);
	/* SipHash-2-4's reference vector: key 00..0f, message 00..0e */
	hashkey ref = { { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL } };
	unsigned char msg[15];
	for (int i = 0; i < 15; i++)
		msg[i] = (unsigned char)i;
	CHECK(&c, siphash(&ref, msg, 15) == 0xa129ca6149be45e5ULL, "SipHash-2-4 of the reference vector");
	/* the reference vectors of every tail length and of several blocks */
	static const struct {
		size_t n;
		uint64_t h;
	} vec[] = {
		{ 0, 0x726fdb47dd0e0e31ULL },  { 1, 0x74f839c593dc67fdULL },  { 2, 0x0d6c8009d9a94f5aULL },
		{ 3, 0x85676696d7fb7e2dULL },  { 4, 0xcf2794e0277187b7ULL },  { 5, 0x18765564cd99a68dULL },
		{ 6, 0xcbc9466e58fee3ceULL },  { 7, 0xab0200f58b01d137ULL },  { 8, 0x93f5f5799a932462ULL },
		{ 9, 0x9e0082df0ba9e4b0ULL },  { 16, 0x3f2acc7f57c29bdbULL }, { 23, 0xa80c038ccd5ccec8ULL },
		{ 31, 0x32d892fad841c342ULL }, { 32, 0x7127512f72f27cceULL }, { 63, 0x958a324ceb064572ULL },
	};
	unsigned char seq[64];
	for (int i = 0; i < 64; i++)
		seq[i] = (unsigned char)i;
	for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++)
		CHECK(&c, siphash(&ref, seq, vec[i].n) == vec[i].h, "SipHash-2-4 of %zu bytes", vec[i].n);
	/* two integers hash as their 16 little-endian bytes */
	uint64_t x = 0x0123456789abcdefULL;
	for (int i = 0; i < 100; i++) {
		uint64_t u = x, v = x * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
		x = v ^ (v >> 29);
		unsigned char le[16];
		for (int k = 0; k < 8; k++) {
			le[k] = (unsigned char)(u >> (8 * k));
			le[8 + k] = (unsigned char)(v >> (8 * k));
		}
		if (siphash_ints(&k1, u, v) != siphash(&k1, le, 16)) {
			CHECK(&c, false, "siphash_ints(%llx, %llx)", (unsigned long long)u, (unsigned long long)v);
			break;
		}
	}
	return check_done(&c, "intern");
}
