/* The parts of the HTML report (report_html in report.h): one escaper for
 * every byte that came from a log, the per-rank timeline as inline SVG,
 * and the job summary. Private to report/. */
#ifndef NCCLOG_REPORT_HTML_H
#define NCCLOG_REPORT_HTML_H

#include "report.h"

/* Appends s as HTML that is safe both as text and inside a quoted
 * attribute: markup characters become entities; control bytes, invalid
 * UTF-8, C1 controls and characters that are invisible or reorder text
 * (bidi overrides and isolates, zero-width marks) become visible "\x1b" or
 * "\u{202e}" text, wrapped in <span class="esc"> when `text` is set (never
 * inside SVG: a <span> there would end the <svg>). */
void html_escape(strbuf *b, slice s, bool text);
/* html_escape of at most max characters of s, then "…" when s was longer. */
void html_escape_cut(strbuf *b, slice s, size_t max, bool text);
/* html_escape of a C string; NULL is "". */
void html_escape_str(strbuf *b, const char *s, bool text);

/* Appends the per-rank timeline of an ordered model as an inline <svg>:
 * hosts as bands, the init phase each rank reached, and the ranks that the
 * findings mark (stuck, behind, timed out) and the first to fail. Alike
 * hosts of a large job fold into one band; past 120 rows it stops and
 * says how many ranks it left out. */
void html_timeline(strbuf *b, const model *m);
/* Appends the job summary: its facts, and its hosts, transports and NCCL
 * settings with alike rows folded. */
void html_job(strbuf *b, const model *m);

#endif
