/* Fuzzes the pickle decoder and the Flight Recorder dump reader on the same
 * bytes, then matches what reads as a dump. Besides memory errors it checks
 * what a sanitizer cannot see: a refusal says where; a decoded graph keeps
 * its strings inside the input, its dicts in pairs and its tree within the
 * limit; a dump's offsets stay inside its own arrays; and a dump the sniffer
 * recognises as a pickle decodes as the decoder alone would. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../model/frmatch.h"
#include "../parser/frdump.h"
#include "../parser/pickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(bool ok)
{
	if (!ok)
		__builtin_trap();
}

/* Walks the tree (the decoder promised it unfolds to at most max values,
 * containers nested at most PICKLE_MAX_DEPTH deep; depth counts them). */
static uint64_t walk(const pk_value *v, const uint8_t *buf, size_t n, int depth, uint64_t *budget)
{
	must(*budget > 0);
	(*budget)--;
	switch (v->kind) {
	case PK_STR:
	case PK_BYTES:
		must(v->u.s.n == 0 || ((const uint8_t *)v->u.s.p >= buf && (const uint8_t *)v->u.s.p + v->u.s.n <= buf + n));
		return 1;
	case PK_LIST:
	case PK_TUPLE:
	case PK_DICT:
	case PK_SET:
	case PK_FROZENSET: {
		must(depth <= PICKLE_MAX_DEPTH);
		must(v->kind != PK_DICT || v->u.c.n % 2 == 0);
		must(v->u.c.n <= v->u.c.cap || v->u.c.n == 0);
		uint64_t w = 1;
		for (uint32_t i = 0; i < v->u.c.n; i++)
			w += walk(v->u.c.items[i], buf, n, depth + 1, budget);
		return w;
	}
	default:
		must(v->kind <= PK_FROZENSET);
		return 1;
	}
}

static void check_dump(const frdump *d)
{
	for (size_t i = 0; i < d->nentries; i++) {
		const fr_entry *e = &d->entries[i];
		must(e->pg_name && e->pg_desc && e->profiling_name && e->thread_id && e->thread_name);
		must(e->in <= d->ndims && e->out <= d->ndims);
		must(e->in_dtypes + e->n_in_dtypes <= d->ndtypes && e->out_dtypes + e->n_out_dtypes <= d->ndtypes);
		must(e->frame0 + e->nframes <= d->nframe_idx);
		for (uint32_t k = 0; k < e->nframes; k++)
			must(d->frame_idx[e->frame0 + k] < d->nframes);
		char buf[32];
		fr_sizes_text(d, e, false, buf, sizeof buf);
		must(strlen(buf) < sizeof buf);
		(void)fr_numel(d, e, true);
		(void)fr_op_name(e->profiling_name);
	}
	for (size_t i = 0; i < d->npgs; i++)
		must(d->pgs[i].name && d->pgs[i].desc && (d->pgs[i].nranks == 0 || d->pgs[i].ranks));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an own copy, so that reading past the input is caught */
	uint8_t *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	pickle_limits lim = pickle_limits_default();
	lim.max_memory = 64u << 20;
	pickle_doc doc;
	pickle_error err;
	int rc = pickle_decode(buf, size, &lim, &doc, &err);
	if (rc == 0) {
		must(doc.root && doc.used <= size);
		uint64_t budget = lim.max_expanded;
		must(walk(doc.root, buf, size, 1, &budget) <= lim.max_expanded);
	} else {
		must(doc.root == NULL && err.status != PK_OK && err.off <= size && strstr(err.msg, "offset"));
	}
	pickle_free(&doc);

	frdump_kind kind = frdump_sniff(buf, size);
	frdump d;
	frdump_error fe;
	int frc = frdump_parse(buf, size, "fuzz_rank_3", &d, &fe);
	if (frc == 0) {
		check_dump(&d);
		must(d.rank >= 0);
		/* the same dump twice under two ranks, then matched */
		frmatch *m = frmatch_new();
		strbuf e = { 0 };
		frmatch_add(m, &d, "a", &e);
		int64_t r = d.rank;
		d.rank = r + 1 <= FRMATCH_MAX_RANK ? r + 1 : 0;
		frmatch_add(m, &d, "b", &e);
		must(frmatch_add(m, &d, "b", &e) < 0);
		d.rank = r;
		sb_free(&e);
		frmatch_report rep;
		frmatch_finish(m, &rep);
		for (size_t i = 0; i < rep.npgs; i++) {
			const frm_pg *g = &rep.pgs[i];
			must(g->nmissing + g->nnodump + g->nunknown + g->n_ahead + g->n_inside <= g->nmembers);
			must(g->nmm <= FRMATCH_REPORTED && g->nmm <= g->nmm_total);
		}
		must(rep.first_stuck < (int)rep.npgs);
		frmatch_report_free(&rep);
		frmatch_free(m);
	} else {
		must(d.nentries == 0 && fe.msg[0]);
	}
	/* a dump read as a pickle is exactly what the decoder accepts */
	if (kind == FRDUMP_PICKLE && frc == 0)
		must(rc == 0);
	frdump_free(&d);
	free(buf);
	return 0;
}
