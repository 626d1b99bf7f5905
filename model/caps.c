/* What the caps of the model dropped, and the one finding that says so.
 * Every input-keyed table of the model is capped (model.h, findings.h,
 * util/intern.h, system.h): a hostile or runaway log costs bounded memory
 * and time, and the report says what it could not keep instead of
 * pretending it read everything. */
#include "checks.h"
#include "system.h"

#include <stdlib.h>
#include <string.h>

uint64_t model_dropped(const model *m, enum model_cap cap)
{
	uint64_t n = m->dropped[cap];
	if (cap == CAP_FINDINGS)
		n += m->fs.dropped.findings + m->fs.dropped.job;
	else if (cap == CAP_KEYS)
		n += m->fs.dropped.keys;
	else if (cap == CAP_STRINGS)
		n += m->str.dropped;
	return n;
}

uint64_t caps_total(const model *m)
{
	uint64_t n = 0;
	for (int k = 0; k < CAP_COUNT; k++)
		n += model_dropped(m, (enum model_cap)k);
	return n;
}

uint64_t caps_mark(const model *m)
{
	return m->ndrops + m->fs.dropped.findings + m->fs.dropped.job + m->fs.dropped.keys + m->str.dropped;
}

void caps_note_line(model *m)
{
	if (m->ev_cap.text || !m->cur)
		return;
	m->ev_cap.file = m->cur_file;
	m->ev_cap.line = m->cur_line;
	m->ev_cap.off = m->cur_off;
	m->ev_cap.text = xstrndup(m->cur_text.p, m->cur_text.n < 512 ? m->cur_text.n : 512);
}

void model_drop(model *m, enum model_cap cap)
{
	m->dropped[cap]++;
	m->ndrops++;
}

void check_caps(model *m)
{
	static const struct {
		const char *what;
		unsigned long max;
		const char *unit;
	} caps[] = {
#define X(e, what, max, unit) { what, (unsigned long)(max), unit },
		MODEL_CAPS(X)
#undef X
	};
	strbuf msg = { 0 };
	for (int k = 0; k < CAP_COUNT; k++) {
		uint64_t n = model_dropped(m, (enum model_cap)k);
		if (!n)
			continue;
		sb_adds(&msg, msg.n ? "; " : "the input holds more than ncclog keeps, so part of it was not analyzed: ");
		sb_printf(&msg, "%s: %lu kept, %llu %s dropped", caps[k].what, caps[k].max, (unsigned long long)n,
			  caps[k].unit);
	}
	if (!msg.n)
		return;
	finding *f = findings_add(&m->fs, m->cat,
				  &(findspec){ .id = "input-cap-reached", .key = "job:", .severity = SEV_WARNING, .message = msg.p,
					       .hint = "the findings may miss what the dropped part held: analyze fewer logs at "
						       "once (the ranks or the node of interest), and check what writes so many "
						       "distinct names into the log (a process group made every step, a loop, "
						       "lines that are not the job's)",
					       .job = true, .keep = true },
				  NULL);
	f->scoped = true;
	if (m->ev_cap.text)
		findings_note(f, -1, 0, m->ev_cap.file, m->ev_cap.line, slice_from(m->ev_cap.text));
	sb_free(&msg);
}
