/* The parts of the HTML report (report_html in report.h): one escaper for
 * every byte that came from a log, host names folded into ranges, and the
 * per-rank timeline as inline SVG. Private to report/. */
#ifndef NCCLOG_REPORT_HTML_H
#define NCCLOG_REPORT_HTML_H

#include "report.h"

/* Appends s as HTML that is safe both as text and inside a quoted
 * attribute: markup characters become entities; control bytes, invalid
 * UTF-8, C1 controls and characters that are invisible or reorder text
 * (bidi overrides and isolates, zero-width marks) become visible "\x1b" or
 * "\u{202e}" text, wrapped in <span class="esc"> when `text` is set. */
void html_escape(strbuf *b, slice s, bool text);
/* html_escape of at most max characters of s, then "…" when s was longer. */
void html_escape_cut(strbuf *b, slice s, size_t max, bool text);

/* Appends interned host names in the hostlist form of Slurm and pdsh
 * ("gpu-node-[0000-0020,0022-0063]", patterns joined by ", "), numbers in order within a name
 * pattern; after max pieces, " and N more". Raw text: escape it. */
void html_hostlist(strbuf *b, const model *m, const int *hosts, size_t n, size_t max);

/* Appends "0-7,9" for a sorted set, at most max runs, then " and N more"
 * with the count of the values left out. */
void html_ranges(strbuf *b, const int *v, size_t n, size_t max);

/* Appends the per-rank timeline of an ordered model as an inline <svg>:
 * hosts as bands, the init phase each rank reached, and the ranks that the
 * findings mark (stuck, behind, timed out) and the first to fail. Alike
 * hosts of a large job fold into one band. */
void html_timeline(strbuf *b, const model *m);

#endif
