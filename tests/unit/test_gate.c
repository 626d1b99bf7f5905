/* The literal gate finds every occurrence, overlapping ones included. */
#include "../../rules/gate.h"
#include "check.h"

static void count(void *ctx, int v)
{
	((int *)ctx)[v]++;
}

typedef struct found {
	int n;
	bool order; /* at never went back, and lies inside */
	size_t last;
	size_t start[64], len[64];
	int val[64];
} found;

static void at(void *ctx, int v, size_t start, size_t len, size_t pos)
{
	found *f = ctx;
	f->order &= pos >= f->last && pos >= start && pos < start + len;
	f->last = pos;
	if (f->n < 64) {
		f->start[f->n] = start;
		f->len[f->n] = len;
		f->val[f->n] = v;
	}
	f->n++;
}

/* Scanning a buffer in pieces reports what one scan does, each once,
 * with where it starts. */
static void check_pieces(checks *c, gate *g, const slice *pats, slice s, size_t step)
{
	found whole = { .order = true }, parts = { .order = true };
	gate_scan_at(g, s, 0, s.n, at, &whole);
	for (size_t from = 0; from < s.n; from += step)
		gate_scan_at(g, s, from, from + step, at, &parts);
	CHECK(c, whole.n == parts.n, "in pieces of %zu: %d occurrences, not %d", step, parts.n, whole.n);
	CHECK(c, whole.order && parts.order, "in pieces of %zu: in order, each found inside itself", step);
	for (int i = 0; i < whole.n && i < 64; i++) {
		bool seen = false;
		for (int k = 0; k < parts.n && k < 64; k++)
			seen |= parts.start[k] == whole.start[i] && parts.val[k] == whole.val[i];
		const slice *lit = &pats[whole.val[i]];
		CHECK(c, seen && whole.len[i] == lit->n && memcmp(s.p + whole.start[i], lit->p, lit->n) == 0,
		      "occurrence %d at %zu in pieces of %zu", i, whole.start[i], step);
	}
}

/* A small deterministic generator, so a failure can be replayed. */
static unsigned next(unsigned *st)
{
	*st = *st * 1103515245u + 12345u;
	return *st >> 8;
}

#define MANY 1200

static void count_many(void *ctx, int v)
{
	((int *)ctx)[v]++;
}

/* Hundreds of literals of log-like text, some sharing their bytes, in
 * lines of log-like noise: the gate finds exactly what a naive search
 * does, each occurrence once, overlapping ones included. */
static void check_many(checks *c, gate_engine engine)
{
	static const char alpha[] = "NCCL_ INFO WARN comm rank error 0123456789:[]/.-=abcdefghijklmnopqrstuvwxyz";
	static char store[MANY][24];
	static slice pats[MANY];
	static int vals[MANY], got[MANY], want[MANY];
	unsigned st = 7;
	for (int k = 0; k < MANY; k++) {
		size_t n = 4 + next(&st) % 16;
		for (size_t i = 0; i < n; i++)
			store[k][i] = alpha[next(&st) % (sizeof alpha - 1)];
		if (k % 5 == 1) /* a literal that others start or end with */
			memcpy(store[k], store[k - 1], n < 8 ? n : 8);
		pats[k] = (slice){ store[k], n };
		vals[k] = k;
	}
	gate *g = gate_build_as(pats, vals, MANY, engine);
	char line[700];
	int bad = 0;
	for (int round = 0; round < 300 && !bad; round++) {
		size_t n = next(&st) % sizeof line;
		for (size_t i = 0; i < n; i++)
			line[i] = alpha[next(&st) % (sizeof alpha - 1)];
		for (int k = 0; k < 4 && n > 24; k++) {
			const slice *lit = &pats[next(&st) % MANY];
			memcpy(line + next(&st) % (n - lit->n), lit->p, lit->n);
		}
		memset(got, 0, sizeof got);
		memset(want, 0, sizeof want);
		size_t total = gate_scan(g, (slice){ line, n }, count_many, got), expect = 0;
		for (int k = 0; k < MANY; k++)
			for (size_t at = 0; at + pats[k].n <= n; at++)
				if (memcmp(line + at, pats[k].p, pats[k].n) == 0) {
					want[k]++;
					expect++;
				}
		for (int k = 0; k < MANY; k++)
			bad += got[k] != want[k];
		CHECK(c, !bad && total == expect, "%d literals, line %d of %zu bytes: %zu found, %zu there", MANY, round, n,
		      total, expect);
	}
	/* a buffer of such lines longer than the pieces either engine scans at
	 * a time, in pieces of the pipeline's size and of odd sizes */
	static char big[70000];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (i % 97 == 96) ? '\n' : alpha[next(&st) % (sizeof alpha - 1)];
	for (int k = 0; k < 400; k++) {
		const slice *lit = &pats[next(&st) % MANY];
		memcpy(big + next(&st) % (sizeof big - lit->n), lit->p, lit->n);
	}
	check_pieces(c, g, pats, (slice){ big, sizeof big }, 4096);
	check_pieces(c, g, pats, (slice){ big, sizeof big }, 16383);
	check_pieces(c, g, pats, (slice){ big, sizeof big }, 999);
	gate_free(g);
}

/* A handle cloned for another thread finds what the first does. */
static void check_clone(checks *c, gate_engine engine)
{
	slice pats[] = { SLICE_LIT("NCCL WARN"), SLICE_LIT("Init COMPLETE"), SLICE_LIT("WARN") };
	int vals[] = { 0, 1, 2 }, a[3] = { 0 }, b[3] = { 0 };
	gate *g = gate_build_as(pats, vals, 3, engine), *k = gate_clone(g);
	slice line = SLICE_LIT("x NCCL WARN y Init COMPLETE z WARN");
	CHECK(c, gate_scan(g, line, count, a) == 4 && gate_scan(k, line, count, b) == 4 && !memcmp(a, b, sizeof a),
	      "a clone finds the same 4");
	CHECK(c, !strcmp(gate_engine_name(k), gate_engine_name(g)), "a clone scans as the first: %s", gate_engine_name(k));
	gate_free(k);
	gate_free(g);
}

static void check_engine(checks *c, gate_engine engine)
{
	slice pats[] = { SLICE_LIT("hers"), SLICE_LIT("shers"), SLICE_LIT("his "), SLICE_LIT("NCCL WARN"),
			 SLICE_LIT("WARN"), SLICE_LIT("ab") };
	int vals[] = { 0, 1, 2, 3, 4, 5 };
	gate *g = gate_build_as(pats, vals, 6, engine);
	int hits[6] = { 0 };
	size_t n = gate_scan(g, SLICE_LIT("ushers and his NCCL WARN she hershers"), count, hits);
	CHECK(c, n == 8, "8 occurrences, got %zu", n);
	CHECK(c, hits[0] == 3 && hits[1] == 2 && hits[2] == 1 && hits[3] == 1 && hits[4] == 1 && hits[5] == 0,
	      "%d %d %d %d %d %d", hits[0], hits[1], hits[2], hits[3], hits[4], hits[5]);
	memset(hits, 0, sizeof hits);
	CHECK(c, gate_scan(g, SLICE_LIT("WARN"), count, hits) == 1 && hits[4] == 1, "a whole line");
	CHECK(c, gate_scan(g, SLICE_LIT("WAR"), count, hits) == 0, "shorter than any literal");
	/* every literal at every offset of a noisy line */
	char line[256];
	for (size_t k = 0; k < 5; k++)
		for (size_t off = 0; off + pats[k].n <= 64; off += 7) {
			memset(line, '.', sizeof line);
			memcpy(line + off, pats[k].p, pats[k].n);
			memset(hits, 0, sizeof hits);
			gate_scan(g, (slice){ line, 64 }, count, hits);
			CHECK(c, hits[k] >= 1, "literal %zu at offset %zu", k, off);
		}
	/* a buffer of many lines, scanned a piece at a time */
	static const char buf[] = "ushers and his NCCL WARN she hershers\nNCCL WARN\n......................................"
				  "his hers..................NCCL WARN..........................................shers\n";
	found f = { 0 };
	CHECK(c, gate_scan_at(g, SLICE_LIT("a NCCL WARN b"), 0, 13, at, &f) == 2 && f.start[0] + f.start[1] == 2 + 7,
	      "NCCL WARN at 2 and WARN at 7");
	for (size_t step = 1; step < 80; step += step < 8 ? 1 : 13)
		check_pieces(c, g, pats, (slice){ buf, sizeof buf - 1 }, step);
	memset(hits, 0, sizeof hits);
	CHECK(c, gate_scan(g, SLICE_LIT("xyz abc 123"), count, hits) == 0, "no hit");
	char bin[256];
	for (int i = 0; i < 256; i++)
		bin[i] = (char)i;
	CHECK(c, gate_scan(g, (slice){ bin, sizeof bin }, count, hits) == 0, "binary bytes hit nothing");
	gate_free(g);
	g = gate_build_as(NULL, NULL, 0, engine);
	CHECK(c, gate_scan(g, SLICE_LIT("abc"), count, hits) == 0, "empty gate");
	gate_free(g);
	check_many(c, engine);
	check_clone(c, engine);
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	check_engine(c, GATE_OWN);
	check_engine(c, GATE_VECTORSCAN);
	slice one = SLICE_LIT("NCCL WARN");
	int v = 0;
	gate *g = gate_build_as(&one, &v, 1, GATE_OWN);
	CHECK(c, !strcmp(gate_engine_name(g), "own"), "asked for the own scan: %s", gate_engine_name(g));
	CHECK(c, !gate_accelerate(g, 1ull << 40), "one literal is not worth a compile");
	gate_free(g);
	g = gate_build_as(&one, &v, 1, GATE_VECTORSCAN);
	printf("gate: the accelerated engine here is %s\n", gate_engine_name(g));
	gate_free(g);
	return check_done(c, "gate");
}
