/* SHA-256 (FIPS 180-4), for the hash a Content-Security-Policy names to
 * allow exactly one inline style sheet. */
#ifndef NCCLOG_SHA256_H
#define NCCLOG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "str.h"

/* Writes the 32-byte digest of p[0..n) to out. */
void sha256_digest(const void *p, size_t n, uint8_t out[32]);
/* Appends the digest of p[0..n) in base64 (RFC 4648, padded) to b. */
void sha256_base64(strbuf *b, const void *p, size_t n);

#endif
