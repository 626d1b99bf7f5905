#include "siphash.h"

#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                   \
	do {                                                                                       \
		v0 += v1, v1 = ROTL(v1, 13), v1 ^= v0, v0 = ROTL(v0, 32);                          \
		v2 += v3, v3 = ROTL(v3, 16), v3 ^= v2;                                             \
		v0 += v3, v3 = ROTL(v3, 21), v3 ^= v0;                                             \
		v2 += v1, v1 = ROTL(v1, 17), v1 ^= v2, v2 = ROTL(v2, 32);                          \
	} while (0)

/* 8 bytes as a little-endian integer, in one load where the machine is one */
static inline uint64_t load64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
#else
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
#endif
}

#define SIP_INIT(key)                                                                              \
	uint64_t v0 = 0x736f6d6570736575ULL ^ (key)->k[0], v1 = 0x646f72616e646f6dULL ^ (key)->k[1];     \
	uint64_t v2 = 0x6c7967656e657261ULL ^ (key)->k[0], v3 = 0x7465646279746573ULL ^ (key)->k[1]
#define SIP_BLOCK(m)                                                                               \
	do {                                                                                       \
		v3 ^= (m);                                                                         \
		SIPROUND;                                                                          \
		SIPROUND;                                                                          \
		v0 ^= (m);                                                                         \
	} while (0)

static inline uint64_t sip_finish(uint64_t v0, uint64_t v1, uint64_t v2, uint64_t v3)
{
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t siphash(const hashkey *key, const void *data, size_t n)
{
	const unsigned char *in = data;
	SIP_INIT(key);
	size_t full = n - n % 8;
	for (size_t i = 0; i < full; i += 8)
		SIP_BLOCK(load64(in + i));
	uint64_t b = (uint64_t)n << 56;
	for (size_t i = 0; i < n % 8; i++)
		b |= (uint64_t)in[full + i] << (8 * i);
	SIP_BLOCK(b);
	return sip_finish(v0, v1, v2, v3);
}

/* The same as siphash over a's 8 bytes, then b's, little-endian: without
 * the buffer */
uint64_t siphash_ints(const hashkey *key, uint64_t a, uint64_t b)
{
	SIP_INIT(key);
	SIP_BLOCK(a);
	SIP_BLOCK(b);
	SIP_BLOCK((uint64_t)16 << 56);
	return sip_finish(v0, v1, v2, v3);
}

void hashkey_random(hashkey *key)
{
	if (getrandom(key->k, sizeof key->k, GRND_NONBLOCK) == (ssize_t)sizeof key->k)
		return;
	/* no entropy source (yet): still unpredictable enough from outside */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	key->k[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	key->k[1] = (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)key;
}

void hashkey_child(hashkey *out, const hashkey *parent, uint64_t label)
{
	hashkey k = *parent; /* out may be parent */
	out->k[0] = siphash_ints(&k, label, 0);
	out->k[1] = siphash_ints(&k, label, 1);
}

void hashkey_derive(hashkey *key, const char *secret)
{
	static const hashkey k0 = { { 0x6e63636c6f672d72ULL, 0x65646163742d6b65ULL } }, k1 = { { 1, 2 } };
	size_t n = strlen(secret);
	key->k[0] = siphash(&k0, secret, n);
	key->k[1] = siphash(&k1, secret, n);
}
