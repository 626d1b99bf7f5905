/* The terminal: curses lifecycle, signals, colours with a monochrome
 * fallback, UTF-8 glyphs with an ASCII fallback, and drawing of text that
 * came from a log (always escaped first). Only this module and the panes
 * touch curses state. */
#ifndef NCCLOG_TUI_TERM_H
#define NCCLOG_TUI_TERM_H

#include <stdbool.h>
#include <stdio.h>

#include "../util/str.h"

/* What a glyph means; each has a UTF-8 and an ASCII form. */
enum glyph {
	G_DONE,     /* a phase or time span the rank went through */
	G_TODO,     /* a phase it never reached */
	G_LAST,     /* the last line seen */
	G_WARN,
	G_ERROR,
	G_TIMEOUT,
	G_ABORT,
	G_OPEN,     /* an expanded host group */
	G_CLOSED,   /* a collapsed host group */
	G_BAR_FULL, /* progress bar */
	G_BAR_EMPTY,
	G_MORE,     /* text goes on past the edge */
	G_COUNT
};

/* Roles map to a colour pair, or to attributes on a monochrome terminal. */
enum role {
	RL_NORMAL, RL_ERROR, RL_WARNING, RL_INFO, RL_OK, RL_STOPPED, RL_HILITE,
	RL_CURSOR, RL_BAR, RL_DIM, RL_TITLE, RL_COUNT
};

typedef struct term {
	void *screen;   /* SCREEN *, opaque here */
	FILE *tty;      /* /dev/tty when standard input or output is not one */
	int fd;         /* what poll() waits on for keys */
	bool utf8, color, active;
} term;

/* Opens the terminal (newterm on stdin/stdout, else on /dev/tty), installs
 * the signal handlers and restores everything on close. On error, -1 is
 * returned and *err says why. On success, 0 is returned. */
int term_open(term *t, bool want_color, strbuf *err);
/* Restores the terminal; safe to call twice. */
void term_close(term *t);
/* True once SIGINT or SIGTERM arrived. */
bool term_interrupted(void);
const char *term_glyph(const term *t, enum glyph g);
/* The curses attributes of a role (an attr_t as an int). */
int term_attr(const term *t, enum role r);
/* Appends log bytes to b, safe to draw: escaped, and ASCII-only when the
 * terminal is not UTF-8. */
void term_escape(const term *t, strbuf *b, slice s);
/* How many bytes of s (already safe) fit in cols columns; *used gets the
 * columns they take (may be NULL). */
size_t term_fit(const term *t, const char *s, int cols, int *used);
/* Draws s (already safe) at y,x in at most `cols` columns with attributes
 * attr; returns the columns used. */
int term_put(const term *t, int y, int x, int cols, const char *s, int attr);
/* As term_put, leaving out the first `skip` columns of s (scrolled
 * horizontally); returns the columns used. */
int term_put_from(const term *t, int y, int x, int cols, int skip, const char *s, int attr);
/* The columns s (already safe) takes. */
int term_width(const term *t, const char *s);
/* Fills cols columns at y,x with spaces in attr. */
void term_blank(int y, int x, int cols, int attr);

#endif
