/* The answer on top of every report: the root cause in words, and what to
 * do about it; or, when the logs prove no cause, what they show and what
 * to collect next. It never guesses. */
#include "report.h"

#include <string.h>

static const char default_collect[] =
	"NCCL_DEBUG=INFO logs of every rank, one file per rank (NCCL_DEBUG_FILE=nccl.%h.%p.log), with the "
	"framework's stderr";

/* The ids of what a root explains: "bootstrap-connect-failed, init-incomplete and 3 more";
 * an id once, however many of its findings there are. */
static void consequences(const model *m, int root, strbuf *b)
{
	size_t shown = 0, total = 0;
	const char *ids[3];
	for (size_t i = 0; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		if (f->root != root || (int)i == root)
			continue;
		total++;
		bool seen = false;
		for (size_t k = 0; k < shown; k++)
			seen |= strcmp(ids[k], f->id) == 0;
		if (shown < 3 && !seen) {
			sb_adds(b, shown ? ", " : "");
			sb_adds(b, f->id);
			ids[shown++] = f->id;
		}
	}
	if (total > shown)
		sb_printf(b, " and %zu more", total - shown);
}

/* A warning of a cause or a setting, explained by nothing, on one of r's
 * processes: what may be behind a result the logs give no cause for. */
static const finding *cause_nearby(const model *m, const finding *r)
{
	for (size_t i = 1; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		if (f->severity != SEV_WARNING || f->demoted || f->root != (int)i ||
		    (f->kind != KIND_CAUSE && f->kind != KIND_CONFIGURATION))
			continue;
		for (size_t k = 0; k < f->procs.n; k++)
			if (intset_has(&r->procs, f->procs.v[k]))
				return f;
	}
	return NULL;
}

void report_verdict(const model *m, verdict *v)
{
	*v = (verdict){ 0 };
	if (!m->fs.n) {
		sb_adds(&v->what, "no problem found in these logs");
		return;
	}
	/* model_order put the most important root first */
	const finding *r = &m->fs.v[0];
	v->root = r;
	enum severity worst = r->severity;
	for (size_t i = 0; i < m->fs.n; i++)
		if (m->fs.v[i].root == 0 && m->fs.v[i].severity > worst && !m->fs.v[i].demoted)
			worst = m->fs.v[i].severity;
	v->explained = (size_t)r->nconseq;
	const catentry *ce = m->cat ? catalog_find(m->cat, r->id) : NULL;
	v->proven = r->kind <= KIND_STATE && r->confidence != CONF_SUSPECTED;
	strbuf msg = { 0 };
	report_message(m, r, &msg);
	/* a message that quotes a sentence ends in "."; the verdict goes on */
	while (msg.n && (msg.p[msg.n - 1] == '.' || msg.p[msg.n - 1] == ' '))
		msg.p[--msg.n] = '\0';
	if (worst < SEV_ERROR) {
		sb_adds(&v->what, "no error found");
		if (worst == SEV_WARNING) {
			sb_adds(&v->what, "; worth a look: ");
			sb_add(&v->what, msg.p, msg.n);
		}
		if (r->hint)
			sb_adds(&v->fix, r->hint);
		v->proven = false;
	} else if (r->confidence == CONF_SUSPECTED) {
		sb_adds(&v->what, "suspected, not proven: ");
		sb_add(&v->what, msg.p, msg.n);
		if (r->hint)
			sb_adds(&v->fix, r->hint);
	} else if (v->proven) {
		sb_add(&v->what, msg.p, msg.n);
		if (r->nconseq) {
			sb_printf(&v->what, "; this explains %d other finding%s (", r->nconseq, r->nconseq == 1 ? "" : "s");
			consequences(m, 0, &v->what);
			sb_adds(&v->what, ")");
		}
		if (r->hint)
			sb_adds(&v->fix, r->hint);
	} else {
		sb_adds(&v->what, "the logs show this but not its cause: ");
		sb_add(&v->what, msg.p, msg.n);
		const finding *near = cause_nearby(m, r);
		if (near) {
			strbuf nm = { 0 };
			report_message(m, near, &nm);
			sb_printf(&v->what, "; a warning on the same processes may be why: %s", nm.p ? nm.p : near->id);
			sb_free(&nm);
		}
		if (near && near->hint) {
			sb_adds(&v->fix, near->hint);
		} else {
			sb_adds(&v->fix, "collect ");
			sb_adds(&v->fix, ce && ce->collect ? ce->collect : default_collect);
		}
	}
	sb_free(&msg);
}

void verdict_free(verdict *v)
{
	sb_free(&v->what);
	sb_free(&v->fix);
}
