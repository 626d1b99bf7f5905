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

static uint64_t load64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

uint64_t siphash(const hashkey *key, const void *data, size_t n)
{
	const unsigned char *in = data;
	uint64_t v0 = 0x736f6d6570736575ULL ^ key->k[0], v1 = 0x646f72616e646f6dULL ^ key->k[1];
	uint64_t v2 = 0x6c7967656e657261ULL ^ key->k[0], v3 = 0x7465646279746573ULL ^ key->k[1];
	size_t full = n - n % 8;
	for (size_t i = 0; i < full; i += 8) {
		uint64_t m = load64(in + i);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	uint64_t b = (uint64_t)n << 56;
	for (size_t i = 0; i < n % 8; i++)
		b |= (uint64_t)in[full + i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t siphash_ints(const hashkey *key, uint64_t a, uint64_t b)
{
	unsigned char buf[16];
	for (int i = 0; i < 8; i++) {
		buf[i] = (unsigned char)(a >> (8 * i));
		buf[8 + i] = (unsigned char)(b >> (8 * i));
	}
	return siphash(key, buf, sizeof buf);
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
