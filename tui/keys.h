/* Keys and the event loop: one table of keys (lnav and less habits) that
 * the help screen and the status line are made from, and one poll() over
 * the terminal and a data descriptor. Keys change the view state; drawing
 * is draw.h's. */
#ifndef NCCLOG_TUI_KEYS_H
#define NCCLOG_TUI_KEYS_H

#include "view.h"

/* Applies one key (a curses key code) to the view. */
void keys_handle(view *v, int ch);
/* Runs the event loop until q, a signal or an error. Returns 0 after q,
 * 1 after SIGINT or SIGTERM, -1 when the terminal failed or went away. */
int keys_run(view *v);
/* The text of the help screen, one line per '\n': every key of the table,
 * then what the markers, letters and glyphs mean. */
void keys_help(const view *v, strbuf *b);
/* The keys the status line suggests, shortest form when cols is small. */
void keys_hint(int cols, strbuf *b);

#endif
