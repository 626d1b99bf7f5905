#include "term.h"

#include <curses.h>
#include <fcntl.h>
#include <langinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "../util/escape.h"

/* The one flag a signal handler may set; the event loop polls it. */
static volatile sig_atomic_t interrupted;

/* Handlers that were in place before ours (a sanitizer's, say), put back
 * before a crash is re-raised so that it still reports. */
static struct sigaction crash_old[5];
static const int crash_sigs[5] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static void on_stop(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void on_crash(int sig)
{
	/* endwin is not async-signal-safe, but the alternative is a terminal
	 * left in raw mode; htop makes the same trade. */
	endwin();
	for (int i = 0; i < 5; i++)
		if (crash_sigs[i] == sig)
			sigaction(sig, &crash_old[i], NULL);
	raise(sig);
}

static void signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop; /* no SA_RESTART: poll() returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	for (int i = 0; i < 5; i++)
		sigaction(crash_sigs[i], &sa, &crash_old[i]);
}

static void signals_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	for (int i = 0; i < 5; i++)
		sigaction(crash_sigs[i], &crash_old[i], NULL);
}

bool term_interrupted(void)
{
	return interrupted != 0;
}

static const short pairs[RL_COUNT][2] = {
	[RL_ERROR] = { COLOR_RED, -1 },      [RL_WARNING] = { COLOR_YELLOW, -1 },
	[RL_INFO] = { COLOR_CYAN, -1 },      [RL_OK] = { COLOR_GREEN, -1 },
	[RL_STOPPED] = { COLOR_WHITE, COLOR_RED }, [RL_HILITE] = { COLOR_BLACK, COLOR_YELLOW },
	[RL_BAR] = { COLOR_GREEN, -1 },      [RL_DIM] = { COLOR_BLUE, -1 },
	[RL_TITLE] = { COLOR_BLACK, COLOR_CYAN },
};

int term_open(term *t, bool want_color, strbuf *err)
{
	*t = (term){ .fd = -1 };
	FILE *in = stdin, *out = stdout;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		t->tty = fopen("/dev/tty", "r+e");
		if (!t->tty) {
			sb_adds(err, "needs a terminal (no /dev/tty)");
			return -1;
		}
		in = out = t->tty;
	}
	const char *tname = getenv("TERM");
	if (!tname || !*tname || strcmp(tname, "dumb") == 0) {
		sb_adds(err, "needs a terminal that can address the cursor (TERM is unset or dumb)");
		term_close(t);
		return -1;
	}
	SCREEN *s = newterm(NULL, out, in);
	if (!s) {
		sb_printf(err, "cannot use the terminal type '%s'", tname);
		term_close(t);
		return -1;
	}
	t->screen = s;
	t->active = true;
	t->fd = fileno(in);
	signals_install();
	const char *cs = nl_langinfo(CODESET);
	t->utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (want_color && has_colors() && start_color() == OK) {
		use_default_colors();
		t->color = true;
		for (int r = 1; r < RL_COUNT; r++)
			if (pairs[r][0] || pairs[r][1])
				init_pair((short)r, pairs[r][0], pairs[r][1]);
	}
	return 0;
}

void term_close(term *t)
{
	if (t->active) {
		curs_set(1);
		endwin();
		delscreen(t->screen);
		signals_restore();
		t->active = false;
		t->screen = NULL;
	}
	if (t->tty)
		fclose(t->tty);
	t->tty = NULL;
}

const char *term_glyph(const term *t, enum glyph g)
{
	static const char *const utf8[G_COUNT] = { "\u2501", "\u00b7", "\u25c6", "\u25b2", "\u2717", "\u25f7",
						   "\u2298", "\u25be", "\u25b8", "\u2588", "\u2591", "\u2026" };
	static const char *const ascii[G_COUNT] = { "=", ".", ">", "w", "X", "T", "A", "-", "+", "#", ".", ">" };
	return t->utf8 ? utf8[g] : ascii[g];
}

int term_attr(const term *t, enum role r)
{
	static const int mono[RL_COUNT] = {
		[RL_NORMAL] = A_NORMAL, [RL_ERROR] = A_BOLD, [RL_WARNING] = A_BOLD, [RL_INFO] = A_NORMAL,
		[RL_OK] = A_NORMAL, [RL_STOPPED] = A_BOLD | A_REVERSE, [RL_HILITE] = A_BOLD | A_UNDERLINE,
		[RL_CURSOR] = A_REVERSE, [RL_BAR] = A_BOLD, [RL_DIM] = A_DIM, [RL_TITLE] = A_REVERSE,
	};
	if (!t->color || r == RL_NORMAL || r == RL_CURSOR)
		return (int)mono[r];
	int a = (int)COLOR_PAIR(r);
	if (r == RL_ERROR || r == RL_WARNING || r == RL_STOPPED || r == RL_TITLE)
		a |= A_BOLD;
	return a;
}

void term_escape(const term *t, strbuf *b, slice s)
{
	size_t start = b->n;
	escape_text(b, s);
	if (t->utf8)
		return;
	/* A C locale terminal would show bytes >= 0x80 as M- sequences. */
	for (size_t i = start; i < b->n; i++)
		if ((unsigned char)b->p[i] >= 0x80)
			b->p[i] = '?';
}

size_t term_fit(const term *t, const char *s, int cols, int *used)
{
	size_t n = s ? strlen(s) : 0, bytes = 0;
	int u = 0;
	if (t->utf8) {
		mbstate_t st;
		memset(&st, 0, sizeof st);
		while (bytes < n) {
			wchar_t wc;
			size_t k = mbrtowc(&wc, s + bytes, n - bytes, &st);
			if (k == (size_t)-1 || k == (size_t)-2 || k == 0)
				break;
			int w = wcwidth(wc);
			/* escaped text holds no unprintable character; stop rather than draw one */
			if (w < 0 || u + w > cols)
				break;
			u += w;
			bytes += k;
		}
	} else {
		while (bytes < n && u < cols && (unsigned char)s[bytes] >= 0x20 && (unsigned char)s[bytes] < 0x7f) {
			bytes++;
			u++;
		}
	}
	if (used)
		*used = u;
	return bytes;
}

int term_put(const term *t, int y, int x, int cols, const char *s, int attr)
{
	if (cols <= 0 || !s)
		return 0;
	int used;
	size_t bytes = term_fit(t, s, cols, &used);
	attrset((attr_t)attr);
	mvaddnstr(y, x, s, (int)bytes);
	attrset(A_NORMAL);
	return used;
}

int term_put_from(const term *t, int y, int x, int cols, int skip, const char *s, int attr)
{
	if (!s)
		return 0;
	if (skip > 0) {
		int used;
		size_t k = term_fit(t, s, skip, &used);
		s += k;
		/* a wide character cut by the edge goes with the part left out */
		if (used < skip && *s) {
			s++;
			while (((unsigned char)*s & 0xc0) == 0x80)
				s++;
		}
	}
	return term_put(t, y, x, cols, s, attr);
}

int term_width(const term *t, const char *s)
{
	int used;
	term_fit(t, s, 1 << 30, &used);
	return used;
}

void term_blank(int y, int x, int cols, int attr)
{
	if (cols <= 0)
		return;
	mvhline(y, x, (chtype)' ' | (chtype)attr, cols);
}
