/* The pickle machine of Python's Lib/pickle.py (_Unpickler), restricted to
 * data: a stack of values cut into segments by MARKs, and a memo. Opcodes
 * and operands as documented in Lib/pickletools.py. */
#include "pickle.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every opcode of protocols 0 to 5: byte, name, and what this decoder does
 * with it. FORBIDDEN ones would import, build or call; UNSUPPORTED ones are
 * data this decoder does not read (quoted text strings, out-of-band
 * buffers). */
#define PICKLE_OPS(_)                                 \
	_(0x28, MARK, DATA)                           \
	_(0x2e, STOP, DATA)                           \
	_(0x30, POP, DATA)                            \
	_(0x31, POP_MARK, DATA)                       \
	_(0x32, DUP, DATA)                            \
	_(0x46, FLOAT, DATA)                          \
	_(0x49, INT, DATA)                            \
	_(0x4a, BININT, DATA)                         \
	_(0x4b, BININT1, DATA)                        \
	_(0x4c, LONG, DATA)                           \
	_(0x4d, BININT2, DATA)                        \
	_(0x4e, NONE, DATA)                           \
	_(0x50, PERSID, FORBIDDEN)                    \
	_(0x51, BINPERSID, FORBIDDEN)                 \
	_(0x52, REDUCE, FORBIDDEN)                    \
	_(0x53, STRING, UNSUPPORTED)                  \
	_(0x54, BINSTRING, DATA)                      \
	_(0x55, SHORT_BINSTRING, DATA)                \
	_(0x56, UNICODE, UNSUPPORTED)                 \
	_(0x58, BINUNICODE, DATA)                     \
	_(0x61, APPEND, DATA)                         \
	_(0x62, BUILD, FORBIDDEN)                     \
	_(0x63, GLOBAL, FORBIDDEN)                    \
	_(0x64, DICT, DATA)                           \
	_(0x7d, EMPTY_DICT, DATA)                     \
	_(0x65, APPENDS, DATA)                        \
	_(0x67, GET, DATA)                            \
	_(0x68, BINGET, DATA)                         \
	_(0x69, INST, FORBIDDEN)                      \
	_(0x6a, LONG_BINGET, DATA)                    \
	_(0x6c, LIST, DATA)                           \
	_(0x5d, EMPTY_LIST, DATA)                     \
	_(0x6f, OBJ, FORBIDDEN)                       \
	_(0x70, PUT, DATA)                            \
	_(0x71, BINPUT, DATA)                         \
	_(0x72, LONG_BINPUT, DATA)                    \
	_(0x73, SETITEM, DATA)                        \
	_(0x74, TUPLE, DATA)                          \
	_(0x29, EMPTY_TUPLE, DATA)                    \
	_(0x75, SETITEMS, DATA)                       \
	_(0x47, BINFLOAT, DATA)                       \
	_(0x80, PROTO, DATA)                          \
	_(0x81, NEWOBJ, FORBIDDEN)                    \
	_(0x82, EXT1, FORBIDDEN)                      \
	_(0x83, EXT2, FORBIDDEN)                      \
	_(0x84, EXT4, FORBIDDEN)                      \
	_(0x85, TUPLE1, DATA)                         \
	_(0x86, TUPLE2, DATA)                         \
	_(0x87, TUPLE3, DATA)                         \
	_(0x88, NEWTRUE, DATA)                        \
	_(0x89, NEWFALSE, DATA)                       \
	_(0x8a, LONG1, DATA)                          \
	_(0x8b, LONG4, DATA)                          \
	_(0x42, BINBYTES, DATA)                       \
	_(0x43, SHORT_BINBYTES, DATA)                 \
	_(0x8c, SHORT_BINUNICODE, DATA)               \
	_(0x8d, BINUNICODE8, DATA)                    \
	_(0x8e, BINBYTES8, DATA)                      \
	_(0x8f, EMPTY_SET, DATA)                      \
	_(0x90, ADDITEMS, DATA)                       \
	_(0x91, FROZENSET, DATA)                      \
	_(0x92, NEWOBJ_EX, FORBIDDEN)                 \
	_(0x93, STACK_GLOBAL, FORBIDDEN)              \
	_(0x94, MEMOIZE, DATA)                        \
	_(0x95, FRAME, DATA)                          \
	_(0x96, BYTEARRAY8, DATA)                     \
	_(0x97, NEXT_BUFFER, UNSUPPORTED)             \
	_(0x98, READONLY_BUFFER, UNSUPPORTED)

enum op_class { OP_UNKNOWN, OP_DATA, OP_FORBIDDEN, OP_UNSUPPORTED };

enum {
#define OP_ENUM(byte, name, cls) OP_##name = byte,
	PICKLE_OPS(OP_ENUM)
#undef OP_ENUM
};

static const struct opinfo {
	const char *name;
	uint8_t cls;
} ops[256] = {
#define OP_INFO(byte, name, cls) [byte] = { #name, OP_##cls },
	PICKLE_OPS(OP_INFO)
#undef OP_INFO
};

static const char *const status_text[] = {
#define PK_TEXT(name, text) text,
	PICKLE_STATUS(PK_TEXT)
#undef PK_TEXT
};

/* What each forbidden opcode would have done: the words of the refusal. */
static const char *forbidden_why(int op)
{
	switch (op) {
	case OP_GLOBAL:
	case OP_STACK_GLOBAL:
		return "would import a Python object";
	case OP_REDUCE:
		return "would call a Python object";
	case OP_BUILD:
		return "would set an object's state";
	case OP_INST:
	case OP_OBJ:
	case OP_NEWOBJ:
	case OP_NEWOBJ_EX:
		return "would build a class instance";
	case OP_EXT1:
	case OP_EXT2:
	case OP_EXT4:
		return "would import an object from the extension registry";
	default:
		return "would load a persistent object";
	}
}

const char *pickle_opname(int op)
{
	return op >= 0 && op < 256 ? ops[op].name : NULL;
}

const char *pickle_status_text(pickle_status s)
{
	return (unsigned)s < sizeof status_text / sizeof *status_text ? status_text[s] : "?";
}

pickle_limits pickle_limits_default(void)
{
	return (pickle_limits){ PICKLE_MAX_DEPTH, PICKLE_MAX_STR,    PICKLE_MAX_ITEMS,   PICKLE_MAX_VALUES,
				PICKLE_MAX_MEMO,  PICKLE_MAX_MEMORY, PICKLE_MAX_EXPANDED };
}

/* ---- values ---- */

struct pk_block {
	pk_block *next;
	size_t n, cap;
	pk_value v[];
};

/* Item arrays come from chunks, not malloc: a dump has a container per
 * few values. An array that grows moves to a new place in the chunks. */
struct pk_chunk {
	pk_chunk *next;
	size_t used, cap; /* in items */
	pk_value *slot[];
};

static bool charge(pickle_doc *doc, size_t n);

static pk_value **items_alloc(pickle_doc *doc, size_t n)
{
	pk_chunk *c = doc->chunks;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 8192 ? n : 8192;
		size_t bytes = sizeof(pk_chunk) + cap * sizeof(pk_value *);
		if (!charge(doc, bytes))
			return NULL;
		c = malloc(bytes);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		/* a big array gets a chunk of its own behind the current one, so
		 * the current one's free room is not lost */
		if (doc->chunks && n > 8192) {
			c->next = doc->chunks->next;
			doc->chunks->next = c;
		} else {
			c->next = doc->chunks;
			doc->chunks = c;
		}
	}
	pk_value **p = c->slot + c->used;
	c->used += n;
	return p;
}

static bool is_container(int k)
{
	return k >= PK_LIST;
}

const char *pk_kind_name(int k)
{
	static const char *const names[] = { "None", "bool", "int", "float", "str", "bytes",
					     "list", "tuple", "dict", "set", "frozenset" };
	return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

void pickle_doc_init(pickle_doc *doc, const pickle_limits *lim)
{
	*doc = (pickle_doc){ 0 };
	doc->lim = lim ? *lim : pickle_limits_default();
}

/* Accounts n more bytes against the memory limit. */
static bool charge(pickle_doc *doc, size_t n)
{
	if (n > doc->lim.max_memory || doc->memory > doc->lim.max_memory - n)
		return false;
	doc->memory += n;
	return true;
}

/* A new block of values; false at a limit. */
static bool block_new(pickle_doc *doc)
{
	pk_block *b = doc->blocks;
	/* small pickles stay small; big ones get big blocks */
	size_t cap = b ? b->cap * 2 : 64;
	if (cap > 8192)
		cap = 8192;
	size_t bytes = sizeof(pk_block) + cap * sizeof(pk_value);
	if (!charge(doc, bytes))
		return false;
	pk_block *nb = malloc(bytes);
	if (!nb)
		return false;
	nb->next = b;
	nb->n = 0;
	nb->cap = cap;
	doc->blocks = nb;
	return true;
}

static bool meta_grow(pickle_doc *doc)
{
	size_t cap = doc->metacap ? doc->metacap * 2 : 256;
	while (cap <= doc->containers)
		cap *= 2;
	if (!charge(doc, (cap - doc->metacap) * (sizeof *doc->weight + sizeof *doc->depth)))
		return false;
	uint64_t *w = realloc(doc->weight, cap * sizeof *w);
	if (w)
		doc->weight = w;
	uint16_t *dp = realloc(doc->depth, cap * sizeof *dp);
	if (dp)
		doc->depth = dp;
	if (!w || !dp)
		return false;
	doc->metacap = cap;
	return true;
}

/* The common path of pickle_new, inlined into the opcodes. */
static inline pk_value *value_new(pickle_doc *doc, pk_kind k, uint64_t off)
{
	if (doc->values >= doc->lim.max_values)
		return NULL;
	pk_block *b = doc->blocks;
	if (__builtin_expect(!b || b->n == b->cap, 0)) {
		if (!block_new(doc))
			return NULL;
		b = doc->blocks;
	}
	if (is_container(k) && __builtin_expect(doc->containers >= doc->metacap, 0) && !meta_grow(doc))
		return NULL;
	pk_value *v = &b->v[b->n++];
	*v = (pk_value){ .off = off, .kind = (uint8_t)k };
	if (is_container(k)) {
		v->cid = (uint32_t)doc->containers++;
		doc->weight[v->cid] = 1;
		doc->depth[v->cid] = 1;
	}
	doc->values++;
	return v;
}

pk_value *pickle_new(pickle_doc *doc, pk_kind k, uint64_t off)
{
	return value_new(doc, k, off);
}

static bool reserve_slow(pickle_doc *doc, pk_value *c, size_t extra);

static inline bool reserve(pickle_doc *doc, pk_value *c, size_t extra)
{
	size_t need = (size_t)c->u.c.n + extra;
	if (__builtin_expect(need <= c->u.c.cap, 1))
		return true;
	return reserve_slow(doc, c, extra);
}

static bool reserve_slow(pickle_doc *doc, pk_value *c, size_t extra)
{
	size_t need = (size_t)c->u.c.n + extra;
	if (need > doc->lim.max_items)
		return false;
	/* the first batch (APPENDS into an empty list) gets its exact size */
	size_t cap = c->u.c.cap ? (size_t)c->u.c.cap * 2 : extra > 1 ? need : 4;
	while (cap < need)
		cap *= 2;
	if (cap > doc->lim.max_items)
		cap = doc->lim.max_items;
	pk_value **items = items_alloc(doc, cap);
	if (!items)
		return false;
	if (c->u.c.n)
		memcpy(items, c->u.c.items, c->u.c.n * sizeof *items);
	c->u.c.items = items;
	c->u.c.cap = (uint32_t)cap;
	return true;
}

bool pickle_append(pickle_doc *doc, pk_value *c, pk_value *item)
{
	if (!reserve(doc, c, 1))
		return false;
	c->u.c.items[c->u.c.n++] = item;
	return true;
}

void pickle_free(pickle_doc *doc)
{
	for (pk_block *b = doc->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	for (pk_chunk *c = doc->chunks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(doc->weight);
	free(doc->depth);
	pickle_limits lim = doc->lim;
	*doc = (pickle_doc){ 0 };
	doc->lim = lim;
}

/* ---- accessors ---- */

bool pk_is_str(const pk_value *v, const char *s)
{
	if (!v || v->kind != PK_STR)
		return false;
	size_t n = strlen(s);
	return v->u.s.n == n && memcmp(v->u.s.p, s, n) == 0;
}

const pk_value *pk_get(const pk_value *d, const char *key)
{
	if (!d || d->kind != PK_DICT)
		return NULL;
	for (size_t i = d->u.c.n; i >= 2; i -= 2)
		if (pk_is_str(d->u.c.items[i - 2], key))
			return d->u.c.items[i - 1];
	return NULL;
}

size_t pk_len(const pk_value *v)
{
	if (!v || !is_container(v->kind))
		return 0;
	return v->kind == PK_DICT ? v->u.c.n / 2 : v->u.c.n;
}

const pk_value *pk_at(const pk_value *v, size_t i)
{
	if (!v || !is_container(v->kind) || v->kind == PK_DICT || i >= v->u.c.n)
		return NULL;
	return v->u.c.items[i];
}

/* ---- the machine ---- */

typedef struct dec {
	const unsigned char *base, *p, *end;
	pickle_doc *doc;
	pickle_error *err;
	pk_value **stack;
	size_t sn, scap;
	size_t *marks;
	size_t mn, mcap;
	pk_value **memo;
	size_t memocap, memocount;
	uint64_t op_off;
	int op;
} dec;

/* Keeps only printable ASCII of an operand quoted in a message. */
static void printable(char *out, size_t cap, const unsigned char *p, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < cap; i++)
		out[k++] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	out[k] = 0;
}

static int fail(dec *d, pickle_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(dec *d, pickle_status s, const char *fmt, ...)
{
	pickle_error *e = d->err;
	e->status = s;
	e->off = d->op_off;
	e->op = d->op;
	char detail[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	if (d->op >= 0) {
		const char *name = ops[d->op].name;
		if (name)
			snprintf(e->msg, sizeof e->msg, "offset %llu: opcode %s (0x%02x) %s",
				 (unsigned long long)d->op_off, name, d->op, detail);
		else
			snprintf(e->msg, sizeof e->msg, "offset %llu: unknown opcode 0x%02x%s",
				 (unsigned long long)d->op_off, d->op, detail);
	} else {
		snprintf(e->msg, sizeof e->msg, "offset %llu: %s", (unsigned long long)d->op_off, detail);
	}
	return -1;
}

static int fail_limit(dec *d)
{
	pickle_doc *doc = d->doc;
	if (doc->values >= doc->lim.max_values)
		return fail(d, PK_E_COUNT, "makes more than %zu values", doc->lim.max_values);
	return fail(d, PK_E_MEMORY, "needs more than %zu MiB", doc->lim.max_memory >> 20);
}

static bool need(dec *d, size_t k)
{
	return (size_t)(d->end - d->p) >= k;
}

static int truncated(dec *d)
{
	return fail(d, PK_E_TRUNCATED, "is cut short: the input ends inside its operand");
}

static inline uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Bottom of the current segment: values above the last MARK. */
static size_t seg(const dec *d)
{
	return d->mn ? d->marks[d->mn - 1] : 0;
}

static int stack_grow(dec *d)
{
	size_t cap = d->scap ? d->scap * 2 : 64;
	if (!charge(d->doc, (cap - d->scap) * sizeof(pk_value *)))
		return fail_limit(d);
	pk_value **s = realloc(d->stack, cap * sizeof *s);
	if (!s)
		return fail_limit(d);
	d->stack = s;
	d->scap = cap;
	return 0;
}

static inline int push(dec *d, pk_value *v)
{
	if (__builtin_expect(d->sn == d->scap, 0) && stack_grow(d) < 0)
		return -1;
	d->stack[d->sn++] = v;
	return 0;
}

static inline pk_value *make(dec *d, pk_kind k)
{
	pk_value *v = value_new(d->doc, k, d->op_off);
	if (!v)
		fail_limit(d);
	return v;
}

static inline int push_new(dec *d, pk_kind k, pk_value **out)
{
	pk_value *v = make(d, k);
	if (!v)
		return -1;
	*out = v;
	return push(d, v);
}

static int pop_mark(dec *d, size_t *from)
{
	if (!d->mn)
		return fail(d, PK_E_STACK, "needs a MARK and there is none");
	*from = d->marks[--d->mn];
	return 0;
}

static inline void seal(pk_value *v)
{
	if (is_container(v->kind))
		v->sealed = 1;
}

/* Accounts n items just put into p: its unfolded size and depth grow with
 * theirs, so that a pickle whose containers are all filled before they are
 * placed or shared (every pickler's) needs no second pass. A change to a
 * container already placed or shared leaves the question to settle(). */
static int absorb(dec *d, pk_value *p, pk_value *const *items, size_t n)
{
	pickle_doc *doc = d->doc;
	if (p->sealed)
		doc->dirty = true;
	if (doc->dirty)
		return 0;
	uint64_t w = doc->weight[p->cid];
	unsigned dep = doc->depth[p->cid];
	for (size_t i = 0; i < n; i++) {
		pk_value *c = items[i];
		if (!is_container(c->kind)) {
			w++;
			continue;
		}
		c->sealed = 1;
		w += doc->weight[c->cid];
		if (doc->depth[c->cid] + 1u > dep)
			dep = doc->depth[c->cid] + 1u;
	}
	if (dep > doc->lim.max_depth)
		return fail(d, PK_E_DEPTH, "nests containers more than %zu deep", doc->lim.max_depth);
	if (w > doc->lim.max_expanded)
		return fail(d, PK_E_EXPANSION, "makes a %s that unfolds, through shared references, to more than %llu "
				      "values", pk_kind_name(p->kind), (unsigned long long)doc->lim.max_expanded);
	doc->weight[p->cid] = w;
	doc->depth[p->cid] = (uint16_t)dep;
	return 0;
}

/* Makes a container of the values above the last MARK (which it removes). */
static int from_mark(dec *d, pk_kind k)
{
	size_t from = 0;
	if (pop_mark(d, &from) < 0)
		return -1;
	size_t n = d->sn - from;
	if (k == PK_DICT && n % 2)
		return fail(d, PK_E_STACK, "has an odd number of keys and values (%zu)", n);
	pk_value *c = make(d, k);
	if (!c)
		return -1;
	if (n && !reserve(d->doc, c, n))
		return n > d->doc->lim.max_items ? fail(d, PK_E_SIZE, "makes a %s of %zu items", pk_kind_name(k), n)
						  : fail_limit(d);
	if (n)
		memcpy(c->u.c.items, d->stack + from, n * sizeof *c->u.c.items);
	c->u.c.n = (uint32_t)n;
	d->sn = from;
	if (n && absorb(d, c, c->u.c.items, n) < 0)
		return -1;
	return push(d, c);
}

/* Moves the values above the last MARK into the container just below it. */
static int extend_from_mark(dec *d, pk_kind want)
{
	size_t from = 0;
	if (pop_mark(d, &from) < 0)
		return -1;
	size_t n = d->sn - from;
	if (from == 0 || from <= seg(d))
		return fail(d, PK_E_STACK, "has no %s below its MARK", pk_kind_name(want));
	pk_value *c = d->stack[from - 1];
	if (c->kind != want)
		return fail(d, PK_E_STACK, "adds to a %s, not a %s", pk_kind_name(c->kind), pk_kind_name(want));
	if (want == PK_DICT && n % 2)
		return fail(d, PK_E_STACK, "has an odd number of keys and values (%zu)", n);
	if (n && !reserve(d->doc, c, n))
		return (size_t)c->u.c.n + n > d->doc->lim.max_items
			       ? fail(d, PK_E_SIZE, "grows a %s past %zu items", pk_kind_name(want), d->doc->lim.max_items)
			       : fail_limit(d);
	if (n)
		memcpy(c->u.c.items + c->u.c.n, d->stack + from, n * sizeof *c->u.c.items);
	c->u.c.n += (uint32_t)n;
	d->sn = from;
	return n ? absorb(d, c, c->u.c.items + c->u.c.n - n, n) : (c->sealed ? (d->doc->dirty = true, 0) : 0);
}

static int tuple_n(dec *d, size_t n)
{
	if (d->sn - seg(d) < n)
		return fail(d, PK_E_STACK, "needs %zu values on the stack", n);
	pk_value *t = make(d, PK_TUPLE);
	if (!t || !reserve(d->doc, t, n))
		return t ? fail_limit(d) : -1;
	memcpy(t->u.c.items, d->stack + d->sn - n, n * sizeof *t->u.c.items);
	t->u.c.n = (uint32_t)n;
	d->sn -= n;
	if (absorb(d, t, t->u.c.items, n) < 0)
		return -1;
	return push(d, t);
}

static int memo_put(dec *d, uint64_t idx)
{
	if (d->sn == seg(d))
		return fail(d, PK_E_STACK, "finds no value to memoize");
	/* picklers number the memo densely from 0; an index far beyond the
	 * values made so far would only make a tiny input cost a big table */
	if (idx > d->doc->lim.max_memo || idx > 2 * (uint64_t)d->doc->values + 1024)
		return fail(d, PK_E_MEMO, "stores memo index %llu, beyond the %zu values made", (unsigned long long)idx,
			    d->doc->values);
	if (idx >= d->memocap) {
		size_t cap = d->memocap ? d->memocap : 64;
		while (cap <= idx)
			cap *= 2;
		if (!charge(d->doc, (cap - d->memocap) * sizeof(pk_value *)))
			return fail_limit(d);
		pk_value **m = realloc(d->memo, cap * sizeof *m);
		if (!m)
			return fail_limit(d);
		memset(m + d->memocap, 0, (cap - d->memocap) * sizeof *m);
		d->memo = m;
		d->memocap = cap;
	}
	if (!d->memo[idx])
		d->memocount++;
	d->memo[idx] = d->stack[d->sn - 1];
	return 0;
}

static inline int memo_get(dec *d, uint64_t idx)
{
	if (idx >= d->memocap || !d->memo[idx])
		return fail(d, PK_E_MEMO, "reads memo index %llu, which was never stored", (unsigned long long)idx);
	seal(d->memo[idx]); /* now it can be reached twice */
	return push(d, d->memo[idx]);
}

/* The operand of a text opcode: bytes up to the newline, which it skips. */
static int text_line(dec *d, const unsigned char **p, size_t *n)
{
	const unsigned char *nl = memchr(d->p, '\n', (size_t)(d->end - d->p));
	if (!nl)
		return truncated(d);
	*p = d->p;
	*n = (size_t)(nl - d->p);
	d->p = nl + 1;
	return 0;
}

/* A decimal operand of INT, LONG, GET or PUT (a trailing L allowed for LONG). */
static int text_int(dec *d, bool allow_l, int64_t *out)
{
	const unsigned char *p = NULL;
	size_t n = 0;
	if (text_line(d, &p, &n) < 0)
		return -1;
	if (allow_l && n && p[n - 1] == 'L')
		n--;
	char buf[32];
	if (n == 0 || n >= sizeof buf)
		return fail(d, PK_E_VALUE, "has a decimal operand of %zu characters", n);
	memcpy(buf, p, n);
	buf[n] = 0;
	char *endp;
	errno = 0;
	long long v = strtoll(buf, &endp, 10);
	if (*endp || endp == buf)
		return fail(d, PK_E_VALUE, "has an operand that is not a decimal integer");
	if (errno == ERANGE)
		return fail(d, PK_E_VALUE, "has an integer that does not fit 64 bits");
	*out = v;
	return 0;
}

static inline int push_int(dec *d, int64_t i)
{
	pk_value *v;
	if (push_new(d, PK_INT, &v) < 0)
		return -1;
	v->u.i = i;
	return 0;
}

/* LONG1 / LONG4: a little-endian two's complement integer of n bytes. */
static int push_long(dec *d, size_t n)
{
	if (!need(d, n))
		return truncated(d);
	const unsigned char *b = d->p;
	d->p += n;
	if (n == 0)
		return push_int(d, 0);
	bool neg = b[n - 1] & 0x80;
	/* wider than 8 bytes: fits only when the extra bytes are sign */
	for (size_t i = 8; i < n; i++)
		if (b[i] != (neg ? 0xff : 0x00))
			return fail(d, PK_E_VALUE, "has an integer that does not fit 64 bits");
	size_t k = n < 8 ? n : 8;
	/* 8 bytes is what PyTorch writes for every int beyond 32 bits */
	uint64_t u = k == 8 ? le(b, 8) : le(b, (int)k);
	if (k < 8 && neg)
		u |= ~(uint64_t)0 << (8 * k);
	if (n > 8 && ((u >> 63) != 0) != neg)
		return fail(d, PK_E_VALUE, "has an integer that does not fit 64 bits");
	return push_int(d, (int64_t)u);
}

static int push_bytes(dec *d, pk_kind k, uint64_t n)
{
	if (n > d->doc->lim.max_str)
		return fail(d, PK_E_SIZE, "declares %llu bytes, beyond the limit of %zu", (unsigned long long)n,
			    d->doc->lim.max_str);
	if (!need(d, (size_t)n))
		return fail(d, PK_E_TRUNCATED, "declares %llu bytes and only %zu remain", (unsigned long long)n,
			    (size_t)(d->end - d->p));
	pk_value *v;
	if (push_new(d, k, &v) < 0)
		return -1;
	v->u.s = (slice){ (const char *)d->p, (size_t)n };
	d->p += n;
	return 0;
}

/* Reads a length operand of w bytes, then that many bytes of kind k. */
static int push_sized(dec *d, pk_kind k, int w, bool is_signed)
{
	if (!need(d, (size_t)w))
		return truncated(d);
	uint64_t n = le(d->p, w);
	d->p += w;
	if (is_signed && w == 4 && (n & 0x80000000u))
		return fail(d, PK_E_VALUE, "declares a negative length");
	return push_bytes(d, k, n);
}

static int forbidden(dec *d)
{
	if (d->op == OP_GLOBAL || d->op == OP_INST) {
		/* name the object it wanted: "module.name" */
		const unsigned char *m = d->p, *nl1 = memchr(m, '\n', (size_t)(d->end - m)), *nl2 = NULL;
		if (nl1)
			nl2 = memchr(nl1 + 1, '\n', (size_t)(d->end - nl1 - 1));
		if (nl1 && nl2) {
			char mod[48], name[48];
			printable(mod, sizeof mod, m, (size_t)(nl1 - m));
			printable(name, sizeof name, nl1 + 1, (size_t)(nl2 - nl1 - 1));
			return fail(d, PK_E_FORBIDDEN, "%s (%s.%s); a data-only decoder refuses it", forbidden_why(d->op),
				    mod, name);
		}
	}
	return fail(d, PK_E_FORBIDDEN, "%s; a data-only decoder refuses it", forbidden_why(d->op));
}

/* Runs one opcode; 1 at STOP, 0 to go on, -1 on error. */
static int step(dec *d)
{
	d->op_off = (uint64_t)(d->p - d->base);
	int op = *d->p++;
	d->op = op;
	pk_value *v;
	size_t from = 0;
	int64_t i64 = 0;
	switch (op) {
	case OP_PROTO:
		if (!need(d, 1))
			return truncated(d);
		if (*d->p > 5)
			return fail(d, PK_E_PROTOCOL, "asks for protocol %d; 0 to 5 are known", *d->p);
		if (!d->doc->protocol)
			d->doc->protocol = *d->p;
		d->p++;
		return 0;
	case OP_FRAME:
		if (!need(d, 8))
			return truncated(d);
		if (le(d->p, 8) > (uint64_t)(d->end - d->p - 8))
			return fail(d, PK_E_TRUNCATED, "announces a frame of %llu bytes and only %zu remain",
				    (unsigned long long)le(d->p, 8), (size_t)(d->end - d->p - 8));
		d->p += 8;
		return 0;
	case OP_STOP:
		if (d->sn == seg(d))
			return fail(d, PK_E_STACK, "finds nothing to return");
		d->doc->root = d->stack[d->sn - 1];
		return 1;
	case OP_MARK:
		if (d->mn >= d->doc->lim.max_depth)
			return fail(d, PK_E_DEPTH, "opens more than %zu MARKs", d->doc->lim.max_depth);
		if (d->mn == d->mcap) {
			size_t cap = d->mcap ? d->mcap * 2 : 16;
			if (!charge(d->doc, (cap - d->mcap) * sizeof(size_t)))
				return fail_limit(d);
			size_t *m = realloc(d->marks, cap * sizeof *m);
			if (!m)
				return fail_limit(d);
			d->marks = m;
			d->mcap = cap;
		}
		d->marks[d->mn++] = d->sn;
		return 0;
	case OP_POP:
		if (d->sn > seg(d)) {
			d->sn--;
			return 0;
		}
		return pop_mark(d, &from) < 0 ? -1 : (d->sn = from, 0);
	case OP_POP_MARK:
		if (pop_mark(d, &from) < 0)
			return -1;
		d->sn = from;
		return 0;
	case OP_DUP:
		if (d->sn == seg(d))
			return fail(d, PK_E_STACK, "finds no value to copy");
		seal(d->stack[d->sn - 1]);
		return push(d, d->stack[d->sn - 1]);
	case OP_NONE:
		return push_new(d, PK_NONE, &v);
	case OP_NEWTRUE:
	case OP_NEWFALSE:
		if (push_new(d, PK_BOOL, &v) < 0)
			return -1;
		v->u.b = op == OP_NEWTRUE;
		return 0;
	case OP_INT:
		/* protocol 0 spells True and False as I01 and I00 */
		if (need(d, 3) && d->p[0] == '0' && (d->p[1] == '0' || d->p[1] == '1') && d->p[2] == '\n') {
			if (push_new(d, PK_BOOL, &v) < 0)
				return -1;
			v->u.b = d->p[1] == '1';
			d->p += 3;
			return 0;
		}
		return text_int(d, false, &i64) < 0 ? -1 : push_int(d, i64);
	case OP_LONG:
		return text_int(d, true, &i64) < 0 ? -1 : push_int(d, i64);
	case OP_FLOAT: {
		const unsigned char *p = NULL;
		size_t n = 0;
		if (text_line(d, &p, &n) < 0)
			return -1;
		char buf[64];
		if (n == 0 || n >= sizeof buf)
			return fail(d, PK_E_VALUE, "has a float operand of %zu characters", n);
		memcpy(buf, p, n);
		buf[n] = 0;
		char *endp;
		double f = strtod(buf, &endp);
		if (*endp)
			return fail(d, PK_E_VALUE, "has an operand that is not a float");
		if (push_new(d, PK_FLOAT, &v) < 0)
			return -1;
		v->u.f = f;
		return 0;
	}
	case OP_BININT:
		if (!need(d, 4))
			return truncated(d);
		i64 = (int32_t)(uint32_t)le(d->p, 4);
		d->p += 4;
		return push_int(d, i64);
	case OP_BININT1:
		if (!need(d, 1))
			return truncated(d);
		return push_int(d, *d->p++);
	case OP_BININT2:
		if (!need(d, 2))
			return truncated(d);
		i64 = (int64_t)le(d->p, 2);
		d->p += 2;
		return push_int(d, i64);
	case OP_LONG1:
		if (!need(d, 1))
			return truncated(d);
		return push_long(d, *d->p++);
	case OP_LONG4: {
		if (!need(d, 4))
			return truncated(d);
		uint64_t n = le(d->p, 4);
		d->p += 4;
		if (n & 0x80000000u)
			return fail(d, PK_E_VALUE, "declares a negative length");
		if (n > d->doc->lim.max_str)
			return fail(d, PK_E_SIZE, "declares an integer of %llu bytes", (unsigned long long)n);
		return push_long(d, (size_t)n);
	}
	case OP_BINFLOAT: {
		if (!need(d, 8))
			return truncated(d);
		uint64_t u = 0;
		for (int k = 0; k < 8; k++)
			u = u << 8 | d->p[k];
		d->p += 8;
		if (push_new(d, PK_FLOAT, &v) < 0)
			return -1;
		memcpy(&v->u.f, &u, sizeof u);
		return 0;
	}
	case OP_SHORT_BINUNICODE:
		return push_sized(d, PK_STR, 1, false);
	case OP_BINUNICODE:
		return push_sized(d, PK_STR, 4, false);
	case OP_BINUNICODE8:
		return push_sized(d, PK_STR, 8, false);
	case OP_SHORT_BINSTRING:
		/* Python 3 reads these as str in its default ASCII encoding */
		return push_sized(d, PK_STR, 1, false);
	case OP_BINSTRING:
		return push_sized(d, PK_STR, 4, true);
	case OP_SHORT_BINBYTES:
		return push_sized(d, PK_BYTES, 1, false);
	case OP_BINBYTES:
		return push_sized(d, PK_BYTES, 4, false);
	case OP_BINBYTES8:
	case OP_BYTEARRAY8:
		return push_sized(d, PK_BYTES, 8, false);
	case OP_EMPTY_DICT:
		return push_new(d, PK_DICT, &v);
	case OP_EMPTY_LIST:
		return push_new(d, PK_LIST, &v);
	case OP_EMPTY_TUPLE:
		return push_new(d, PK_TUPLE, &v);
	case OP_EMPTY_SET:
		return push_new(d, PK_SET, &v);
	case OP_DICT:
		return from_mark(d, PK_DICT);
	case OP_LIST:
		return from_mark(d, PK_LIST);
	case OP_TUPLE:
		return from_mark(d, PK_TUPLE);
	case OP_FROZENSET:
		return from_mark(d, PK_FROZENSET);
	case OP_TUPLE1:
	case OP_TUPLE2:
	case OP_TUPLE3:
		return tuple_n(d, (size_t)(op - OP_TUPLE1 + 1));
	case OP_APPEND:
		if (d->sn - seg(d) < 2)
			return fail(d, PK_E_STACK, "needs a list and a value on the stack");
		v = d->stack[d->sn - 2];
		if (v->kind != PK_LIST)
			return fail(d, PK_E_STACK, "appends to a %s, not a list", pk_kind_name(v->kind));
		if (!pickle_append(d->doc, v, d->stack[d->sn - 1]))
			return v->u.c.n >= d->doc->lim.max_items ? fail(d, PK_E_SIZE, "grows a list past %zu items",
									 d->doc->lim.max_items)
								 : fail_limit(d);
		d->sn--;
		return absorb(d, v, v->u.c.items + v->u.c.n - 1, 1);
	case OP_APPENDS:
		return extend_from_mark(d, PK_LIST);
	case OP_SETITEM:
		if (d->sn - seg(d) < 3)
			return fail(d, PK_E_STACK, "needs a dict, a key and a value on the stack");
		v = d->stack[d->sn - 3];
		if (v->kind != PK_DICT)
			return fail(d, PK_E_STACK, "sets an item of a %s, not a dict", pk_kind_name(v->kind));
		if (!reserve(d->doc, v, 2))
			return v->u.c.n + 2 > d->doc->lim.max_items ? fail(d, PK_E_SIZE, "grows a dict past %zu items",
									   d->doc->lim.max_items)
								   : fail_limit(d);
		v->u.c.items[v->u.c.n++] = d->stack[d->sn - 2];
		v->u.c.items[v->u.c.n++] = d->stack[d->sn - 1];
		d->sn -= 2;
		return absorb(d, v, v->u.c.items + v->u.c.n - 2, 2);
	case OP_SETITEMS:
		return extend_from_mark(d, PK_DICT);
	case OP_ADDITEMS:
		return extend_from_mark(d, PK_SET);
	case OP_BINPUT:
		if (!need(d, 1))
			return truncated(d);
		return memo_put(d, *d->p++);
	case OP_LONG_BINPUT:
		if (!need(d, 4))
			return truncated(d);
		d->p += 4;
		return memo_put(d, le(d->p - 4, 4));
	case OP_PUT:
		if (text_int(d, false, &i64) < 0)
			return -1;
		if (i64 < 0)
			return fail(d, PK_E_MEMO, "stores a negative memo index");
		return memo_put(d, (uint64_t)i64);
	case OP_MEMOIZE:
		return memo_put(d, d->memocount);
	case OP_BINGET:
		if (!need(d, 1))
			return truncated(d);
		return memo_get(d, *d->p++);
	case OP_LONG_BINGET:
		if (!need(d, 4))
			return truncated(d);
		d->p += 4;
		return memo_get(d, le(d->p - 4, 4));
	case OP_GET:
		if (text_int(d, false, &i64) < 0)
			return -1;
		if (i64 < 0)
			return fail(d, PK_E_MEMO, "reads a negative memo index");
		return memo_get(d, (uint64_t)i64);
	}
	/* every DATA opcode has its case above */
	switch (ops[op].cls) {
	case OP_FORBIDDEN:
		return forbidden(d);
	case OP_UNSUPPORTED:
		return fail(d, PK_E_UNSUPPORTED, "is not read by this data-only decoder");
	}
	return fail(d, PK_E_UNKNOWN, "%s", "");
}

/* ---- the check after STOP ---- */

enum { SEEN_NEW, SEEN_OPEN, SEEN_DONE };

typedef struct frame {
	pk_value *v;
	uint32_t next;
	uint32_t depth;  /* deepest child subtree so far */
	uint64_t weight; /* values of the unfolded subtree so far */
} frame;

static int refuse(dec *d, pickle_status s, const pk_value *v)
{
	d->op_off = v->off;
	d->op = -1;
	if (s == PK_E_RECURSIVE)
		return fail(d, s, "the %s made here contains itself", pk_kind_name(v->kind));
	if (s == PK_E_DEPTH)
		return fail(d, s, "containers nest more than %zu deep", d->doc->lim.max_depth);
	return fail(d, s, "the %s made here unfolds, through shared references, to more than %llu values",
		    pk_kind_name(v->kind), (unsigned long long)d->doc->lim.max_expanded);
}

/* Walks the graph from the root, each container once: refuses a container
 * inside itself, nesting deeper than the limit, and shared references that
 * unfold to more values than the limit (a "billion laughs" memo bomb), so
 * that readers may then walk the tree naively. Level 1 is the root. */
static int settle(dec *d)
{
	pickle_doc *doc = d->doc;
	pk_value *root = doc->root;
	if (!is_container(root->kind))
		return 0;
	size_t nc = doc->containers, maxd = doc->lim.max_depth;
	uint64_t cap = doc->lim.max_expanded;
	size_t scratch = nc * (sizeof(uint64_t) + sizeof(uint32_t)) + (maxd + 1) * sizeof(frame);
	if (!charge(doc, scratch))
		return fail_limit(d);
	uint64_t *weight = malloc(nc * sizeof *weight);
	uint32_t *depth = malloc(nc * sizeof *depth);
	frame *st = malloc((maxd + 1) * sizeof *st);
	int rc = 0;
	if (!weight || !depth || !st) {
		rc = fail_limit(d);
		goto out;
	}
	size_t sp = 0;
	if (maxd == 0) {
		rc = refuse(d, PK_E_DEPTH, root);
		goto out;
	}
	st[sp++] = (frame){ root, 0, 0, 0 };
	root->seen = SEEN_OPEN;
	while (sp) {
		frame *f = &st[sp - 1];
		if (f->next < f->v->u.c.n) {
			pk_value *c = f->v->u.c.items[f->next++];
			if (!is_container(c->kind)) {
				f->weight++;
			} else if (c->seen == SEEN_DONE) {
				f->weight += weight[c->cid];
				if (depth[c->cid] > f->depth)
					f->depth = depth[c->cid];
				if (sp + depth[c->cid] > maxd) {
					rc = refuse(d, PK_E_DEPTH, c);
					goto out;
				}
			} else if (c->seen == SEEN_OPEN) {
				rc = refuse(d, PK_E_RECURSIVE, c);
				goto out;
			} else if (sp >= maxd) {
				rc = refuse(d, PK_E_DEPTH, c);
				goto out;
			} else {
				c->seen = SEEN_OPEN;
				st[sp++] = (frame){ c, 0, 0, 0 };
				continue;
			}
			if (f->weight > cap) {
				rc = refuse(d, PK_E_EXPANSION, f->v);
				goto out;
			}
			continue;
		}
		/* every child seen: settle f into its parent */
		pk_value *v = f->v;
		weight[v->cid] = f->weight + 1;
		depth[v->cid] = f->depth + 1;
		v->seen = SEEN_DONE;
		sp--;
		if (weight[v->cid] > cap) {
			rc = refuse(d, PK_E_EXPANSION, v);
			goto out;
		}
		if (sp) {
			frame *p = &st[sp - 1];
			p->weight += weight[v->cid];
			if (depth[v->cid] > p->depth)
				p->depth = depth[v->cid];
		}
	}
out:
	free(weight);
	free(depth);
	free(st);
	doc->memory -= scratch;
	return rc;
}

int pickle_decode(const unsigned char *buf, size_t n, const pickle_limits *lim, pickle_doc *doc,
		  pickle_error *err)
{
	pickle_doc_init(doc, lim);
	*err = (pickle_error){ PK_OK, 0, -1, "" };
	dec d = { .base = buf, .p = buf, .end = buf + n, .doc = doc, .err = err, .op = -1 };
	int rc = 0;
	for (;;) {
		if (d.p >= d.end) {
			d.op_off = n;
			d.op = -1;
			rc = fail(&d, PK_E_TRUNCATED, "the pickle ends before its STOP opcode");
			break;
		}
		rc = step(&d);
		if (rc)
			break;
	}
	if (rc > 0) {
		doc->used = (size_t)(d.p - buf);
		rc = doc->dirty ? settle(&d) : 0;
	}
	free(d.stack);
	free(d.marks);
	free(d.memo);
	doc->memory -= d.scap * sizeof(pk_value *) + d.mcap * sizeof(size_t) + d.memocap * sizeof(pk_value *);
	/* the per-container accounts served the decode only */
	free(doc->weight);
	free(doc->depth);
	doc->memory -= doc->metacap * (sizeof *doc->weight + sizeof *doc->depth);
	doc->weight = NULL;
	doc->depth = NULL;
	doc->metacap = 0;
	if (rc < 0) {
		pickle_free(doc);
		return -1;
	}
	return 0;
}
