/* A data-only decoder for Python pickles: the opcodes that Python's pickle
 * (protocols 2 to 5, and the data opcodes of 0 and 1) and PyTorch's own
 * pickler use for dicts, lists, tuples, sets, str, bytes, ints, floats,
 * bools, None and the memo. Every opcode that would import, build or call
 * an object (GLOBAL, REDUCE, BUILD, NEWOBJ, ...) is refused with its name
 * and byte offset, so a hostile file can only ever decode to data.
 *
 * The result is a graph of tagged values: the memo makes values shared, so
 * a container may be reached more than once. Depth, sizes, the number of
 * values, the memory used and the size of the tree the graph unfolds to
 * are all bounded by pickle_limits; a container that contains itself is
 * refused. Strings are views into the input, which must outlive the doc. */
#ifndef NCCLOG_PICKLE_H
#define NCCLOG_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/str.h"

/* Default limits: generous for a Flight Recorder dump of a million entries,
 * small enough that no input can take the process down. */
#define PICKLE_MAX_DEPTH 128                   /* nesting of containers, and open MARKs */
#define PICKLE_MAX_STR (16u << 20)             /* bytes of one str or bytes value */
#define PICKLE_MAX_ITEMS (16u << 20)           /* elements of one container */
#define PICKLE_MAX_VALUES (32u << 20)          /* values made by one pickle */
#define PICKLE_MAX_MEMO (16u << 20)            /* highest memo index */
#define PICKLE_MAX_MEMORY ((size_t)512 << 20)  /* bytes the decoder may allocate */
#define PICKLE_MAX_EXPANDED ((uint64_t)1 << 26) /* values of the unfolded tree */

typedef struct pickle_limits {
	size_t max_depth, max_str, max_items, max_values, max_memo, max_memory;
	uint64_t max_expanded;
} pickle_limits;

/* The limits above. */
pickle_limits pickle_limits_default(void);

typedef enum pk_kind {
	PK_NONE,
	PK_BOOL,
	PK_INT,
	PK_FLOAT,
	PK_STR,   /* bytes as stored (UTF-8 unless the writer lied) */
	PK_BYTES, /* bytes, bytearray, and Python 2 byte strings */
	PK_LIST,
	PK_TUPLE,
	PK_DICT, /* items[2k] is a key, items[2k+1] its value, in insertion order */
	PK_SET,
	PK_FROZENSET,
} pk_kind;

typedef struct pk_value pk_value;
struct pk_value {
	uint64_t off; /* byte offset of the opcode that made the value */
	uint8_t kind; /* pk_kind */
	uint8_t seen;   /* private: state of the check that follows STOP */
	uint8_t sealed; /* private: inside another container, or reached twice */
	uint32_t cid;   /* private: index of a container */
	union {
		bool b;
		int64_t i;
		double f;
		slice s;
		struct {
			pk_value **items;
			uint32_t n, cap; /* n counts items: a dict of k pairs has n = 2k */
		} c;
	} u;
};

/* The status of a decode: one list, expanded into the enum and the names. */
#define PICKLE_STATUS(_)                                                     \
	_(PK_OK, "ok")                                                           \
	_(PK_E_TRUNCATED, "the pickle ends before its STOP opcode")             \
	_(PK_E_FORBIDDEN, "opcode would import, build or call an object")      \
	_(PK_E_UNSUPPORTED, "opcode not supported by this data-only decoder")   \
	_(PK_E_UNKNOWN, "unknown opcode")                                       \
	_(PK_E_PROTOCOL, "unsupported pickle protocol")                         \
	_(PK_E_STACK, "opcode finds the stack in the wrong state")              \
	_(PK_E_MEMO, "bad memo reference")                                      \
	_(PK_E_DEPTH, "nested too deeply")                                      \
	_(PK_E_SIZE, "a value is larger than the limit")                        \
	_(PK_E_COUNT, "too many values")                                        \
	_(PK_E_MEMORY, "decoding needs more memory than the limit")             \
	_(PK_E_EXPANSION, "shared references unfold to too many values")       \
	_(PK_E_RECURSIVE, "a container contains itself")                        \
	_(PK_E_VALUE, "malformed operand")

typedef enum pickle_status {
#define PK_ENUM(name, text) name,
	PICKLE_STATUS(PK_ENUM)
#undef PK_ENUM
} pickle_status;

typedef struct pickle_error {
	pickle_status status;
	uint64_t off; /* byte offset of the opcode at fault */
	int op;       /* that opcode's byte, or -1 when no opcode is at fault */
	char msg[192];
} pickle_error;

typedef struct pk_block pk_block;
typedef struct pk_chunk pk_chunk;

/* One decoded pickle: its root value and the arena that holds every value. */
typedef struct pickle_doc {
	pk_value *root;
	size_t used;   /* bytes of input up to and including STOP */
	size_t memory; /* bytes allocated */
	size_t values; /* values made */
	int protocol;  /* the PROTO operand, 0 or 1 when there was none */
	/* private */
	pk_block *blocks;  /* values */
	pk_chunk *chunks; /* the item arrays of containers */
	size_t containers;
	uint64_t *weight; /* per container: values of its unfolded tree */
	uint16_t *depth;  /* per container: levels, itself included */
	size_t metacap;
	bool dirty; /* a container changed after it was sealed: check it all after STOP */
	pickle_limits lim;
} pickle_doc;

/* Decodes the pickle at buf[0..n) (the first one, up to its STOP) into doc,
 * with lim (NULL: the defaults). Strings in doc point into buf. On error,
 * -1 is returned, *err says what and where, and doc is empty. On success,
 * 0 is returned. doc must be released with pickle_free either way. */
int pickle_decode(const unsigned char *buf, size_t n, const pickle_limits *lim, pickle_doc *doc,
		  pickle_error *err);
/* Frees every value of doc; doc can be decoded into again. */
void pickle_free(pickle_doc *doc);

/* The name of opcode op ("GLOBAL", "BINUNICODE"), or NULL when none has it. */
const char *pickle_opname(int op);
/* The text of a status ("unknown opcode"). */
const char *pickle_status_text(pickle_status s);

/* An empty doc for readers of other formats (JSON) that build the same
 * values; limits as in pickle_decode. */
void pickle_doc_init(pickle_doc *doc, const pickle_limits *lim);
/* Makes a value of kind k in doc, or NULL when a limit is reached. */
pk_value *pickle_new(pickle_doc *doc, pk_kind k, uint64_t off);
/* Appends item to container c (a dict takes key and value as two calls).
 * Returns false when a limit is reached. */
bool pickle_append(pickle_doc *doc, pk_value *c, pk_value *item);

/* The value under the str key `key` in dict d (the last one when the key
 * repeats), or NULL when d is not a dict or has no such key. */
const pk_value *pk_get(const pk_value *d, const char *key);
/* Whether v is a str equal to s. */
bool pk_is_str(const pk_value *v, const char *s);
/* Number of items of a list, tuple or set (pairs of a dict); 0 otherwise. */
size_t pk_len(const pk_value *v);
/* Item i of a list, tuple or set. */
const pk_value *pk_at(const pk_value *v, size_t i);
/* Name of a kind ("dict"). */
const char *pk_kind_name(int k);

#endif
