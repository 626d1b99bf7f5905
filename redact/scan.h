/* The scanner behind redaction, internal to redact/: one pass over a line
 * that copies it with every identifier replaced, or, without an output,
 * only learns the names it meets. Identifiers are found by what they are
 * (an address, a URL, a key's value, a path, a name that the job uses for
 * a host) wherever they stand; names.c, keys.c and paths.c each know one
 * family, redact.c drives them. */
#ifndef NCCLOG_REDACT_SCAN_H
#define NCCLOG_REDACT_SCAN_H

#include <string.h>
#include <strings.h>

#include "redact.h"

/* What the parsed records of a line say a span is. */
typedef struct span {
	size_t at, n;
	char what; /* 'p': a pid or tid, 'h': a host name */
} span;

/* What the tokens of a value are: a key's value, a launcher's list. */
enum ctx { CTX_NONE, CTX_HOST, CTX_USER, CTX_NAME };

typedef struct scanner {
	redactor *r;
	slice s;
	strbuf *out;    /* NULL: learn only */
	size_t lit;     /* s[lit..) is not written yet */
	bool name_mode; /* a file name: known pids as bare numbers too */
	enum ctx ctx;   /* tokens before ctx_end are of this kind */
	size_t ctx_end;
	bool ctx_strong; /* the key leaves no doubt (MASTER_ADDR, not "node") */
	size_t prev_at, prev_end; /* the token before, for phrases */
	size_t listed;  /* node list names expanded on this line (bounded) */
} scanner;

#define SECRET_MASK "<redacted>"

static inline bool scan_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool scan_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A character of a word: host names, identifiers, numbers. */
static inline bool scan_word(char c)
{
	return scan_alpha(c) || scan_digit(c) || c == '_' || c == '-';
}

/* True when w is one of the words of list (NULL-terminated), in any case. */
static inline bool scan_word_in(slice w, const char *const *list)
{
	for (size_t i = 0; w.n && list[i]; i++)
		if ((list[i][0] | 32) == (w.p[0] | 32) && strncasecmp(w.p, list[i], w.n) == 0 && list[i][w.n] == '\0')
			return true;
	return false;
}

/* Writes the line up to from, then text instead of s[from..to). */
void scan_put(scanner *sc, size_t from, size_t to, const char *text);
/* As scan_put, with the letter case of what it replaces: "NODE-A" gets
 * "HOST-K3X9Q", "Node-a" "Host-k3x9q". */
void scan_put_cased(scanner *sc, size_t from, size_t to, const char *text);
/* End of the token at i: word characters and inner dots. */
size_t scan_token_end(slice s, size_t i);

/* names.c: the token s[at..end) and what follows it (a URL, an e-mail, a
 * node list, a host name, a domain, a token-shaped secret); returns where
 * scanning goes on. */
size_t names_token(scanner *sc, size_t at, size_t end);
/* A host name at s[at..end) that a parsed record names (NCCL's prefix, a
 * launcher's): learned and replaced, its domain too. */
void names_host(scanner *sc, size_t at, size_t end);

/* keys.c: when s[at..end) is a key whose value identifies something
 * (MASTER_ADDR=, HF_TOKEN=, --master_addr, "user": ...), handles the value
 * (a secret is masked, a host or user value sets sc->ctx) and returns true
 * with *next where scanning goes on. */
bool keys_value(scanner *sc, size_t at, size_t end, size_t *next);
/* The kind the words around s[at..end) give it ("on host X", "(X, 29500)",
 * "X<51159>", "pod/X"); *strong when they leave no doubt. */
enum ctx keys_phrase(const scanner *sc, size_t at, size_t end, bool *strong);
/* True when the token looks like an access token (hf_..., ghp_..., AKIA...,
 * a JWT) whatever key it stands under. */
bool keys_secret_shape(slice token);

/* paths.c: a path of a home or shared file system at s[i] ('/' or '~'):
 * replaces its user and site directories and returns the end of what it
 * handled, or 0 when there is none. */
size_t paths_at(scanner *sc, size_t i);

#endif
