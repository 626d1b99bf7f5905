#include "record.h"

#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Letters, digits, '-', '_', '.': a table, as prefixes are read on every line */
static const bool host_chars[256] = {
	['a' ... 'z'] = true, ['A' ... 'Z'] = true, ['0' ... '9'] = true, ['-'] = true, ['_'] = true, ['.'] = true,
};

/* The same and what a file name grep prints holds besides: '/', ':' */
static const bool path_chars[256] = {
	['a' ... 'z'] = true, ['A' ... 'Z'] = true, ['0' ... '9'] = true, ['-'] = true, ['_'] = true, ['.'] = true,
	['/'] = true, [':'] = true,
};

static bool is_host_char(char c)
{
	return host_chars[(unsigned char)c];
}

static bool all_digits(slice s)
{
	if (!s.n)
		return false;
	for (size_t i = 0; i < s.n; i++)
		if (!is_digit(s.p[i]))
			return false;
	return true;
}

static int to_int(slice s)
{
	long v = -1;
	return slice_to_long(s, &v) && v >= 0 && v < (1L << 30) ? (int)v : -1;
}

const char *level_name(enum level lv)
{
	static const char *names[] = { "", "INFO", "WARN", "TRACE", "CALL", "VERSION", "ABORT" };
	return names[lv];
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant). */
static long days_from_civil(long y, long m, long d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool digits_at(slice s, size_t i, size_t n, long *v)
{
	if (i + n > s.n)
		return false;
	long x = 0;
	for (size_t k = 0; k < n; k++) {
		if (!is_digit(s.p[i + k]))
			return false;
		x = x * 10 + (s.p[i + k] - '0');
	}
	*v = x;
	return true;
}

/* HH:MM:SS[.,frac] at s[i]; returns the index after it, or 0. */
static size_t clock_at(slice s, size_t i, double *secs)
{
	long h, m, sec;
	if (!digits_at(s, i, 2, &h) || i + 8 > s.n || s.p[i + 2] != ':' ||
	    !digits_at(s, i + 3, 2, &m) || s.p[i + 5] != ':' || !digits_at(s, i + 6, 2, &sec))
		return 0;
	size_t j = i + 8;
	/* the scale of each fraction digit, as 0.1 divided by ten again and
	 * again gives it: the same sums, without a division a digit */
	static const double scales[] = { 0.1, 0.1 / 10, 0.1 / 10 / 10, 0.1 / 10 / 10 / 10, 0.1 / 10 / 10 / 10 / 10,
					 0.1 / 10 / 10 / 10 / 10 / 10, 0.1 / 10 / 10 / 10 / 10 / 10 / 10,
					 0.1 / 10 / 10 / 10 / 10 / 10 / 10 / 10, 0.1 / 10 / 10 / 10 / 10 / 10 / 10 / 10 / 10 };
	enum { NSCALES = sizeof scales / sizeof scales[0] };
	double frac = 0;
	if (j + 1 < s.n && (s.p[j] == '.' || s.p[j] == ',') && is_digit(s.p[j + 1])) {
		size_t k = 0;
		double scale = scales[NSCALES - 1];
		for (j++; j < s.n && is_digit(s.p[j]); j++, k++) {
			if (k >= NSCALES)
				scale /= 10;
			frac += (s.p[j] - '0') * (k < NSCALES ? scales[k] : scale);
		}
	}
	*secs = (double)(h * 3600 + m * 60 + sec) + frac;
	return j;
}

/* "Mar" as 1..12 at s[i], or 0. */
static int month_at(slice s, size_t i)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	/* the first letters of the months: most text stops here */
	if (i + 3 > s.n || !memchr("JFMASOND", s.p[i], 8))
		return 0;
	for (int m = 0; m < 12; m++)
		if (memcmp(s.p + i, names + 3 * m, 3) == 0)
			return m + 1;
	return 0;
}

/* The kernel's and syslog's heads: dmesg -T "Wed Mar 12 10:22:33 2025",
 * syslog "Mar 12 10:22:33" (no year: placed in 2000, like glog), and
 * dmesg's "[ 4711.232921]" seconds since boot (no time at all). */
static size_t kernel_stamp(slice s, size_t i, double *t)
{
	static const char days[] = "MonTueWedThuFriSatSun";
	size_t at = i;
	bool wday = false;
	/* the first letters of the days: most text stops here */
	bool day = at + 4 <= s.n && memchr("MTWFS", s.p[at], 5);
	for (int d = 0; d < 7 && day; d++)
		if (memcmp(s.p + at, days + 3 * d, 3) == 0 && s.p[at + 3] == ' ') {
			at += 4;
			wday = true;
			break;
		}
	int mo = month_at(s, at);
	if (mo && at + 4 < s.n && s.p[at + 3] == ' ') {
		size_t k = at + 4;
		if (s.p[k] == ' ')
			k++;
		long d = 0;
		size_t dn = 0;
		while (k < s.n && is_digit(s.p[k]) && dn < 2)
			d = d * 10 + (s.p[k++] - '0'), dn++;
		double secs;
		size_t end;
		if (!dn || d < 1 || d > 31 || k >= s.n || s.p[k] != ' ' || !(end = clock_at(s, k + 1, &secs)))
			return 0;
		long y;
		if (wday && end + 5 <= s.n && s.p[end] == ' ' && digits_at(s, end + 1, 4, &y)) {
			*t = (double)days_from_civil(y, mo, d) * 86400 + secs;
			return end + 5;
		}
		if (wday)
			return 0;
		*t = (double)days_from_civil(2000, mo, d) * 86400 + secs;
		return end;
	}
	/* "[ 4711.232921]": six digits of fraction, in brackets or alone */
	size_t k = i;
	while (k < s.n && s.p[k] == ' ')
		k++;
	size_t st = k;
	while (k < s.n && is_digit(s.p[k]) && k - st < 10)
		k++;
	if (k == st || k + 7 > s.n || s.p[k] != '.')
		return 0;
	for (size_t f = 1; f <= 6; f++)
		if (!is_digit(s.p[k + f]))
			return 0;
	k += 7;
	if (i ? k < s.n && s.p[k] == ']' : k == s.n) {
		*t = 0;
		return k;
	}
	return 0;
}

size_t timestamp_parse(slice s, double *t)
{
	size_t i = s.n && s.p[0] == '[' ? 1 : 0;
	long y, mo, d;
	double secs;
	size_t end;
	if (digits_at(s, i, 4, &y) && i + 10 < s.n && s.p[i + 4] == '-' &&
	    digits_at(s, i + 5, 2, &mo) && s.p[i + 7] == '-' && digits_at(s, i + 8, 2, &d) &&
	    (s.p[i + 10] == ' ' || s.p[i + 10] == 'T') && (end = clock_at(s, i + 11, &secs))) {
		*t = (double)days_from_civil(y, mo, d) * 86400 + secs;
		return end;
	}
	/* glog: E0709 17:05:38.162555850, c10 also E709 (no year) */
	size_t nd = i + 5 < s.n && s.p[i + 4] == ' ' ? 3 : 4;
	char lv = i < s.n ? s.p[i] : 0;
	if ((lv == 'F' || lv == 'E' || lv == 'W' || lv == 'I' || lv == 'V') && digits_at(s, i + 1, nd, &mo) && i + nd + 1 < s.n &&
	    s.p[i + nd + 1] == ' ' && (end = clock_at(s, i + nd + 2, &secs))) {
		d = mo % 100;
		mo /= 100;
		if (mo < 1 || mo > 12 || d < 1 || d > 31)
			return 0;
		*t = (double)days_from_civil(2000, mo, d) * 86400 + secs;
		return end;
	}
	return kernel_stamp(s, i, t);
}

/* ---- launcher prefixes ---- */

static size_t find_close(slice s, size_t from, char c, size_t limit)
{
	size_t end = s.n < limit ? s.n : limit;
	const char *q = from < end ? memchr(s.p + from, c, end - from) : NULL;
	return q ? (size_t)(q - s.p) : 0;
}

/* Where "]<std" first lies whole within s[0..limit), or -1: found by its
 * '<', which few lines have near their start. */
static long find_std(slice s, size_t limit)
{
	size_t end = s.n < limit ? s.n : limit;
	for (size_t k = 1; k + 4 <= end; k++) {
		const char *q = memchr(s.p + k, '<', end - 3 - k);
		if (!q)
			return -1;
		k = (size_t)(q - s.p);
		if (s.p[k - 1] == ']' && memcmp(s.p + k + 1, "std", 3) == 0)
			return (long)k - 1;
	}
	return -1;
}

static bool looks_like_host_label(slice tok)
{
	bool sign = false;
	if (tok.n < 2 || tok.n > 64)
		return false;
	for (size_t i = 0; i < tok.n; i++) {
		char c = tok.p[i];
		if (c >= 'A' && c <= 'Z')
			return false;
		if (!is_host_char(c))
			return false;
		if (is_digit(c) || c == '-')
			sign = true;
	}
	return sign && tok.p[0] != '-' && tok.p[0] != '.';
}

/* Value of "key=N" inside s, or -1. */
static int kv_int(slice s, const char *key)
{
	long at = slice_find(s, key, strlen(key));
	if (at < 0)
		return -1;
	size_t i = (size_t)at + strlen(key), j = i;
	while (j < s.n && is_digit(s.p[j]))
		j++;
	return to_int((slice){ s.p + i, j - i });
}

static slice kv_str(slice s, const char *key)
{
	long at = slice_find(s, key, strlen(key));
	if (at < 0)
		return SLICE_NONE;
	size_t i = (size_t)at + strlen(key), j = i;
	while (j < s.n && s.p[j] != ',' && s.p[j] != ')' && s.p[j] != ' ')
		j++;
	return (slice){ s.p + i, j - i };
}

/* The outermost prefix names the stream: "3: [rank3]:" is stream "3". */
static void set_tag(launch *ln, slice tag)
{
	if (!ln->tag.n)
		ln->tag = tag;
}

/* True when s.p[0..e) names a log file: "x.log", "x.txt", "x.out", "x.err",
 * rotated "x.log.1". */
static bool names_log(slice s, size_t e)
{
	size_t n = e;
	while (n > 0 && is_digit(s.p[n - 1]))
		n--;
	if (n < e && n > 0 && s.p[n - 1] == '.')
		n--;
	else
		n = e;
	static const char *const exts[] = { ".log", ".txt", ".out", ".err" };
	for (size_t x = 0; x < sizeof exts / sizeof exts[0]; x++)
		if (n >= 5 && memcmp(s.p + n - 4, exts[x], 4) == 0)
			return true;
	return false;
}

/* The length of the file name grep puts in front of a line it found in a
 * log ("logs/rank0.log:", "-n" "rank0.log:17:", a context "rank0.log-17-"),
 * up to its separator; 0 when there is none. s[0..known) are host bytes
 * already measured. */
static size_t grep_file_len(slice s, size_t known)
{
	/* a log's name has a '.' before its separator: a first word without
	 * one (NCCL's "host:pid:tid") is not walked colon by colon */
	size_t lim = s.n < 200 ? s.n : 200, end = known > 5 ? known : 5;
	if (lim <= 5)
		return 0;
	while (end < lim && path_chars[(unsigned char)s.p[end]])
		end++;
	if (!memchr(s.p, '.', end))
		return 0;
	for (size_t e = 5; e < s.n && e < 200; e++) {
		char c = s.p[e];
		if (c == ':' || (c == '-' && e + 1 < s.n && is_digit(s.p[e + 1]))) {
			if (names_log(s, e))
				return e;
		} else if (!is_host_char(c) && c != '/') {
			return 0;
		}
	}
	return 0;
}

/* The length of grep's "FILE:", "FILE:17:" or "FILE-17-" at the start of s. */
static size_t grep_line_len(slice s, size_t k)
{
	char sep = s.p[k];
	size_t i = k + 1;
	while (i < s.n && i - k <= 10 && is_digit(s.p[i]))
		i++;
	if (i > k + 1 && i < s.n && s.p[i] == sep)
		return i + 1;
	return sep == ':' ? k + 1 : 0;
}

/* Strips one prefix; returns its length, 0 when none is there. */
static size_t strip_one(slice s, launch *ln)
{
	size_t i = 0;
	while (i < s.n && i < 8 && s.p[i] == ' ')
		i++;
	/* srun --label "3: " */
	size_t j = i;
	while (j < s.n && j - i < 6 && is_digit(s.p[j]))
		j++;
	if (j > i && j + 1 < s.n && s.p[j] == ':' && s.p[j + 1] == ' ') {
		ln->rank = to_int((slice){ s.p + i, j - i });
		set_tag(ln, (slice){ s.p + i, j - i });
		return j + 2;
	}
	if (i)
		return 0;
	/* Slurm's own lines ("srun: error: ...", "slurmstepd-node-b: error:
	 * ..."): a stream of their own, kept in the message the rules read */
	if (s.n && s.p[0] == 's' &&
	    (slice_starts(s, "srun: ") || slice_starts(s, "slurmstepd: ") || slice_starts(s, "slurmstepd-"))) {
		const char *colon = memchr(s.p, ':', s.n < 80 ? s.n : 80);
		if (colon && colon + 1 < s.p + s.n && colon[1] == ' ') {
			slice who = { s.p, (size_t)(colon - s.p) };
			if (slice_starts(who, "slurmstepd-") && who.n > 11)
				ln->host = (slice){ who.p + 11, who.n - 11 };
			set_tag(ln, who);
		}
		return 0;
	}
	/* a collector's stamp before a launcher's bracket: "18:11:06.680 [rank4]:",
	 * "2025-02-05 18:11:06,680 [rank4]:" */
	if (s.n > 9 && is_digit(s.p[0])) {
		double t = 0, secs;
		size_t end = launch_stamp(ln, s, &t);
		if (!end)
			end = clock_at(s, 0, &secs);
		if (end && end + 1 < s.n && s.p[end] == ' ' && (s.p[end + 1] == '[' || s.p[end + 1] == '(')) {
			if (t != 0)
				ln->time = t;
			return end + 1;
		}
	}
	if (s.n && s.p[0] == '[') {
		size_t c = find_close(s, 1, ']', 64);
		if (!c)
			return 0;
		slice in = { s.p + 1, c - 1 };
		size_t after = c + 1;
		double t;
		/* the stamp inside the brackets, read once ("[[" is no stamp) */
		size_t end = in.n && in.p[0] != '[' ? timestamp_parse(in, &t) : 0;
		if (end) {
			slice rest = slice_trim((slice){ in.p + end, in.n - end });
			ln->time = t;
			if (rest.n)
				set_tag(ln, rest);
			return after < s.n && s.p[after] == ' ' ? after + 1 : after;
		}
		long comma = slice_find(in, ",", 1);
		if (comma > 0 && all_digits((slice){ in.p, (size_t)comma }) &&
		    all_digits((slice){ in.p + comma + 1, in.n - (size_t)comma - 1 })) {
			ln->rank = to_int((slice){ in.p + comma + 1, in.n - (size_t)comma - 1 });
			set_tag(ln, in);
			slice rest = { s.p + after, s.n - after };
			if (slice_starts(rest, "<stdout>:") || slice_starts(rest, "<stderr>:"))
				after += 9;
			return after;
		}
		/* kubectl logs --prefix: "[pod/NAME/CONTAINER] "; a pod's host
		 * name is its own name, the one NCCL's prefix shows */
		if (slice_starts(in, "pod/") && after < s.n && s.p[after] == ' ') {
			const char *sl = memchr(in.p + 4, '/', in.n - 4);
			if (sl && sl > in.p + 4) {
				ln->host = (slice){ in.p + 4, (size_t)(sl - in.p - 4) };
				set_tag(ln, in);
				return after + 1;
			}
		}
		bool word = in.n > 0;
		for (size_t k = 0; k < in.n; k++)
			if (!is_host_char(in.p[k]) && in.p[k] != '|')
				word = false;
		if (!word)
			return 0;
		if (all_digits(in) && after < s.n && s.p[after] == ' ') {
			ln->rank = to_int(in);
			set_tag(ln, in);
			return after + 1;
		}
		if (after >= s.n || s.p[after] != ':')
			return 0;
		after++;
		if (slice_starts(in, "rank") && all_digits((slice){ in.p + 4, in.n - 4 }))
			ln->rank = to_int((slice){ in.p + 4, in.n - 4 });
		else if (slice_starts(in, "default") && all_digits((slice){ in.p + 7, in.n - 7 }))
			ln->local = to_int((slice){ in.p + 7, in.n - 7 });
		set_tag(ln, in);
		return after < s.n && s.p[after] == ' ' ? after + 1 : after;
	}
	/* Ray and vLLM workers: "(RayWorkerWrapper pid=306, ip=10.0.0.5) ", "(pid=93499) ",
	 * also cut at the left: "WorkerWrapper pid=7086) " */
	/* cheap byte tests first: this runs on every line of a log */
	const char *paren = memchr(s.p, ')', s.n < 160 ? s.n : 160);
	long pid = paren ? slice_find((slice){ s.p, (size_t)(paren - s.p) < 96 ? (size_t)(paren - s.p) : 96 }, "pid=", 4) : -1;
	if (pid >= 0) {
		size_t c = find_close(s, (size_t)pid, ')', 160);
		if (c && c + 1 < s.n && s.p[c + 1] == ' ') {
			slice in = { s.p, c };
			if (!memchr(s.p + 1, '(', (size_t)pid) && s.p[0] != '(') {
				/* a prefix cut on its left: only letters before pid= */
				for (long k = 0; k < pid; k++)
					if (!is_host_char(s.p[k]) && s.p[k] != ' ')
						return 0;
			} else if (s.p[0] != '(') {
				return 0;
			}
			int r = kv_int(in, "rank=");
			if (r >= 0)
				ln->rank = r;
			slice ip = kv_str(in, "ip=");
			if (ip.n)
				ln->host = ip;
			set_tag(ln, in);
			return c + 2;
		}
	}
	/* mpirun --timestamp-output: "Mon May 24 07:12:46 2021[1,0]<stderr>:" */
	long std = find_std(s, 48);
	if (std > 0) {
		size_t o = (size_t)std;
		while (o > 0 && s.p[o] != '[')
			o--;
		if (s.p[o] == '[') {
			launch tmp = *ln;
			size_t k = strip_one((slice){ s.p + o, s.n - o }, &tmp);
			if (k) {
				*ln = tmp;
				return o + k;
			}
		}
	}
	/* pdsh / clush / DeepSpeed "host: " */
	j = 0;
	while (j < s.n && j < 64 && is_host_char(s.p[j]))
		j++;
	/* grep over log files: "logs/rank0.log:", "rank0.log:17:", "rank0.log-17-" */
	if (j >= 5 || (j < s.n && s.p[j] == '/')) {
		size_t k = grep_file_len(s, j), n = k ? grep_line_len(s, k) : 0;
		if (n) {
			set_tag(ln, (slice){ s.p, k });
			return n;
		}
	}
	if (j + 1 < s.n && s.p[j] == ':' && s.p[j + 1] == ' ' && looks_like_host_label((slice){ s.p, j })) {
		ln->host = (slice){ s.p, j };
		set_tag(ln, ln->host);
		return j + 2;
	}
	return 0;
}

/* Frames that pasting and log viewers add: indentation, table borders
 * ("│ " of k9s, "| "), a markdown quote ("> "). Returns their length at
 * the start of s. */
static size_t frame_len(slice s)
{
	size_t i = 0;
	for (;;) {
		if (i < s.n && (s.p[i] == ' ' || s.p[i] == '\t'))
			i++;
		else if (i < s.n && s.p[i] == '>' && (i + 1 == s.n || s.p[i + 1] == ' '))
			i++;
		else if (i + 3 < s.n && memcmp(s.p + i, "\xe2\x94\x82", 3) == 0 && s.p[i + 3] == ' ')
			i += 4;
		else if (i + 1 < s.n && s.p[i] == '|' && s.p[i + 1] == ' ')
			i += 2;
		else
			return i;
	}
}

/* The same frame at the end of a message. */
slice frame_trim_end(slice s)
{
	for (;;) {
		s = slice_trim(s);
		if (s.n >= 4 && memcmp(s.p + s.n - 3, "\xe2\x94\x82", 3) == 0 && s.p[s.n - 4] == ' ')
			s.n -= 3;
		else if (s.n >= 2 && s.p[s.n - 1] == '|' && s.p[s.n - 2] == ' ')
			s.n -= 1;
		else
			return s;
	}
}

size_t launch_stamp(launch *ln, slice s, double *t)
{
	if (ln->stamp.p != s.p || ln->stamp.n != s.n) {
		double v = 0;
		ln->stamp.end = timestamp_parse(s, &v);
		ln->stamp.t = v;
		ln->stamp.p = s.p;
		ln->stamp.n = s.n;
	}
	if (ln->stamp.end)
		*t = ln->stamp.t;
	return ln->stamp.end;
}

slice launch_strip(slice s, launch *ln)
{
	for (int k = 0; k < 6 && s.n; k++) {
		size_t n = strip_one(s, ln);
		if (!n) {
			/* srun's padded "  3: " is strip_one's; other indentation is a frame */
			n = frame_len(s);
			if (!n)
				break;
		}
		s.p += n;
		s.n -= n;
	}
	return s;
}

void lineinfo_init(lineinfo *li, slice s)
{
	li->s = s;
	li->undated = false;
	li->stripped = false;
	li->nccl_tok = 0;
	li->ln.stamp.p = NULL;
	li->ln.stamp.n = 0;
}

const launch *lineinfo_launch(lineinfo *li)
{
	if (!li->stripped) {
		launch ln = LAUNCH_NONE;
		ln.stamp = li->ln.stamp; /* a stamp read before, by join_continues_info */
		li->ln = ln;
		li->rest = launch_strip(li->s, &li->ln);
		li->stripped = true;
	}
	return &li->ln;
}

size_t lineinfo_stamp(lineinfo *li, slice at, double *t)
{
	return launch_stamp(&li->ln, at, t);
}

/* A clock "hh:mm:ss" in the first bytes: the dmesg -T, syslog and mpirun
 * --timestamp-output heads ("Mon May 24 07:12:46 2021") carry no dash. */
static bool head_has_clock(slice s)
{
	size_t n = s.n < 48 ? s.n : 48;
	for (const char *q = s.p + 2; q + 6 <= s.p + n; q++) {
		q = memchr(q, ':', (size_t)(s.p + n - 5 - q));
		if (!q)
			return false;
		if (is_digit(q[-2]) && is_digit(q[-1]) && is_digit(q[1]) && is_digit(q[2]) && q[3] == ':' &&
		    is_digit(q[4]) && is_digit(q[5]))
			return true;
	}
	return false;
}

bool line_may_be_dated(slice s)
{
	if (s.n < 10)
		return false;
	if (head_has_clock(s))
		return true;
	const char *end = s.p + s.n;
	/* by the first '-' of a date: most lines have few dashes */
	for (const char *q = s.p + 4; q + 6 <= end; q++) {
		q = memchr(q, '-', (size_t)(end - 5 - q));
		if (!q)
			return false;
		if (is_digit(q[-4]) && is_digit(q[-3]) && is_digit(q[-2]) && is_digit(q[-1]) && is_digit(q[1]) &&
		    is_digit(q[2]) && q[3] == '-' && is_digit(q[4]) && is_digit(q[5]))
			return true;
	}
	return false;
}

/* ---- the NCCL prefix ---- */

typedef struct anchor {
	size_t at;       /* first byte of the level word (or of "NCCL") */
	size_t body;     /* first byte of the message */
	enum level lv;
	bool old;        /* pre-2.3 form without the NCCL token */
} anchor;

static bool word_at(slice s, size_t i, const char *w, size_t *end)
{
	size_t n = strlen(w);
	if (i + n > s.n || memcmp(s.p + i, w, n) != 0)
		return false;
	if (i + n < s.n && s.p[i + n] != ' ')
		return false;
	*end = i + n < s.n ? i + n + 1 : i + n;
	return true;
}

static bool level_word(slice s, size_t i, enum level *lv, size_t *end)
{
	static const struct { const char *w; enum level lv; } words[] = {
		{ "INFO", LV_INFO }, { "WARN", LV_WARN }, { "TRACE", LV_TRACE },
		{ "CALL", LV_CALL }, { "ABORT", LV_ABORT },
	};
	for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
		if (word_at(s, i, words[k].w, end)) {
			*lv = words[k].lv;
			return true;
		}
	return false;
}

/* Start of the non-blank token that ends at `end` (exclusive). */
static size_t tok_back(slice s, size_t end)
{
	const char *b = end ? memrchr(s.p, ' ', end) : NULL;
	return b ? (size_t)(b - s.p) + 1 : 0;
}

static bool is_site(slice t)
{
	long colon = -1;
	for (size_t i = 0; i < t.n; i++)
		if (t.p[i] == ':')
			colon = (long)i;
	return colon > 0 && all_digits((slice){ t.p + colon + 1, t.n - (size_t)colon - 1 });
}

typedef struct prefix {
	size_t start;
	bool host_found;
} prefix;

/* Tokens read right to left: tok is the current one, at s[t0]. */
typedef struct cursor {
	slice s;
	size_t t0;
	slice tok;
} cursor;

/* Steps to the token before the current one; false when none is there. */
static bool cursor_back(cursor *c)
{
	if (c->t0 == 0 || c->s.p[c->t0 - 1] != ' ')
		return false;
	size_t end = c->t0 - 1;
	c->t0 = tok_back(c->s, end);
	c->tok = (slice){ c->s.p + c->t0, end - c->t0 };
	return true;
}

/* The digits that end s[0..end): returns where they start, and sets *v to
 * their value, -1 when there are more than slice_to_long reads (18). */
static size_t digits_back(slice s, size_t end, long *v)
{
	size_t i = end;
	long val = 0, place = 1;
	while (i > 0 && is_digit(s.p[i - 1])) {
		if (end - i < 18) {
			val += (s.p[i - 1] - '0') * place;
			place *= 10;
		}
		i--;
	}
	*v = end - i <= 18 ? val : -1;
	return i;
}

/* Walks back from the anchor over [ts] host:pid:tid [dev] site (func). */
static prefix parse_back(slice s, const anchor *a, record *r)
{
	prefix pf = { a->at, false };
	cursor c = { s, a->at, SLICE_NONE };
	if (!cursor_back(&c))
		return pf;
	if (a->lv == LV_WARN || a->lv == LV_ABORT || a->lv == LV_TRACE) {
		if (c.tok.n > 2 && c.tok.p[0] == '(' && c.tok.p[c.tok.n - 1] == ')') {
			r->func = (slice){ c.tok.p + 1, c.tok.n - 2 };
			pf.start = c.t0;
			if (!cursor_back(&c))
				return pf;
		}
		if (is_site(c.tok)) {
			r->site = c.tok;
			pf.start = c.t0;
			if (!cursor_back(&c))
				return pf;
			/* TRACE: the milliseconds before func:line */
			if (a->lv == LV_TRACE && c.tok.n && is_digit(c.tok.p[0])) {
				pf.start = c.t0;
				if (!cursor_back(&c))
					return pf;
			}
		}
	}
	if (c.tok.n >= 3 && c.tok.p[0] == '[' && c.tok.p[c.tok.n - 1] == ']') {
		slice d = { c.tok.p + 1, c.tok.n - 2 };
		long v;
		if (slice_to_long(d, &v) && v > -1000000 && v < 1000000) {
			r->dev = (int)v;
			pf.start = c.t0;
			if (!cursor_back(&c))
				return pf;
		}
	}
	slice tok = c.tok;
	size_t t0 = c.t0;
	/* host:pid:tid, read from the right: junk may be glued on its left */
	long pid, tid;
	size_t i = digits_back(tok, tok.n, &tid);
	if (i == tok.n || i == 0 || tok.p[i - 1] != ':')
		return pf;
	size_t pid_end = --i;
	i = digits_back(tok, pid_end, &pid);
	if (i == pid_end || i == 0 || tok.p[i - 1] != ':')
		return pf;
	size_t host_end = --i;
	while (i > 0 && is_host_char(tok.p[i - 1]))
		i--;
	if (i == host_end)
		return pf;
	/* a host glued after a number ("acc: 0.8081dlbox:", "...-07:00ip-10-5:"):
	 * the digits belong to the number when a dot, or a colon after a digit,
	 * ties them to it; after a launcher's "<stdout>:" they begin the host
	 * (a container's hex name, "5873af64cf59") */
	size_t d = i;
	bool dot = false;
	while (d < host_end && (is_digit(tok.p[d]) || tok.p[d] == '.'))
		dot |= tok.p[d++] == '.';
	if (d > i && d < host_end && ((tok.p[d] >= 'a' && tok.p[d] <= 'z') || (tok.p[d] >= 'A' && tok.p[d] <= 'Z')) &&
	    (dot || (i > 1 && tok.p[i - 1] == ':' && is_digit(tok.p[i - 2]))))
		i = d;
	if (pid < 0 || tid < 0)
		return pf;
	r->host = (slice){ tok.p + i, host_end - i };
	r->pid = pid;
	r->tid = tid;
	pf.start = t0 + i;
	pf.host_found = true;
	/* [YYYY-MM-DD HH:MM:SS] before the host, when the host starts its token */
	if (i == 0 && t0 >= 3 && s.p[t0 - 1] == ' ' && s.p[t0 - 2] == ']') {
		size_t o = t0 - 2;
		while (o > 0 && t0 - o < 48 && s.p[o] != '[')
			o--;
		slice in = { s.p + o + 1, t0 - 3 - o };
		double t;
		/* NCCL's own "[%F %T]" only: "[56]" or "[... TP14]" belong to launchers */
		if (s.p[o] == '[' && in.n && timestamp_parse(in, &t) == in.n) {
			r->ts = in;
			pf.start = o;
		}
	}
	return pf;
}

long blank_word_find(slice s, size_t from, const char *w)
{
	size_t n = strlen(w);
	/* by the word: a blank is everywhere */
	for (size_t i = from + 1; i + n < s.n;) {
		long f = slice_find((slice){ s.p + i, s.n - i - 1 }, w, n);
		if (f < 0)
			return -1;
		size_t at = i + (size_t)f;
		if (s.p[at - 1] == ' ' && s.p[at + n] == ' ')
			return (long)at - 1;
		i = at + 1;
	}
	return -1;
}

/* Next anchor at or after `from`. */
static bool find_anchor(slice s, size_t from, anchor *a)
{
	size_t i = from;
	while (i + 5 < s.n) {
		long f = slice_find((slice){ s.p + i, s.n - i }, "NCCL ", 5);
		if (f < 0)
			break;
		size_t at = i + (size_t)f, end;
		if (level_word(s, at + 5, &a->lv, &end)) {
			a->at = at;
			a->body = end;
			a->old = false;
			return true;
		}
		i = at + 5;
	}
	return false;
}

/* The pre-2.3 form: "host:pid:tid [0] INFO msg", "include/socket.h:360 WARN msg". */
static bool find_old_anchor(slice s, size_t from, anchor *a)
{
	static const char *words[] = { "INFO", "WARN" };
	for (int w = 0; w < 2; w++) {
		size_t i = from;
		while (i + 6 <= s.n) {
			long f = blank_word_find(s, i, words[w]);
			if (f < 0)
				break;
			size_t at = (size_t)f + 1;
			if (at >= 2 && (s.p[at - 2] == ']' || is_digit(s.p[at - 2]))) {
				a->at = at;
				a->body = at + 5;
				a->lv = w ? LV_WARN : LV_INFO;
				a->old = true;
				return true;
			}
			i = at + 4;
		}
	}
	return false;
}

/* Field by field: a whole-struct clear compiles to a string store, whose
 * start-up costs more than the stores themselves, once a line. */
static void record_reset(record *r, slice s)
{
	r->text = s;
	r->level = LV_NONE;
	r->nccl = r->legacy = false;
	r->host = r->ts = r->site = r->func = r->body = SLICE_NONE;
	r->pid = r->tid = -1;
	r->dev = -1;
	r->time = 0;
	r->ln.rank = r->ln.local = -1;
	r->ln.tag = r->ln.host = SLICE_NONE;
	r->ln.time = 0;
}

/* An anchor counts when it has a real prefix, or begins the line. */
static bool anchor_valid(slice s, const anchor *a, const prefix *pf, const record *r, size_t line_start)
{
	if (pf->host_found)
		return true;
	if (a->old)
		return r->site.n && pf->start == line_start;
	return pf->start == line_start || r->dev >= 0 || r->site.n;
	(void)s;
}

static void set_time(record *r)
{
	if (r->ts.n)
		timestamp_parse(r->ts, &r->time);
	if (r->time == 0)
		r->time = r->ln.time;
}

/* Ends the record at another process's record glued after its body, if
 * any; sets its text (from start) and body. Returns its length. */
static size_t record_finish(slice s, record *r, size_t start, size_t body)
{
	size_t body_end = s.n;
	anchor b;
	size_t from = body;
	while (find_anchor(s, from, &b)) {
		record tmp; /* only where its prefix starts counts */
		prefix pb = parse_back(s, &b, &tmp);
		if (pb.host_found && pb.start > body) {
			body_end = pb.start;
			break;
		}
		from = b.at + 5;
	}
	r->text = (slice){ s.p + start, body_end - start };
	r->body = frame_trim_end((slice){ s.p + body, body_end - body });
	if (body > body_end)
		r->body = SLICE_NONE;
	return body_end;
}

size_t record_parse_general(slice s, record *r)
{
	record_reset(r, s);
	launch ln = LAUNCH_NONE;
	slice rest = launch_strip(s, &ln);
	size_t line_start = (size_t)(rest.p - s.p);
	anchor a;
	prefix pf = { 0, false };
	bool found = false;
	size_t from = line_start;
	/* each try reads into r; one that does not count leaves r as it was */
	while (find_anchor(s, from, &a)) {
		pf = parse_back(s, &a, r);
		if (anchor_valid(s, &a, &pf, r, line_start)) {
			found = true;
			break;
		}
		record_reset(r, s);
		from = a.at + 5;
	}
	if (!found && find_old_anchor(s, line_start, &a)) {
		pf = parse_back(s, &a, r);
		if (anchor_valid(s, &a, &pf, r, line_start))
			found = true;
		else
			record_reset(r, s);
	}
	if (found && pf.start > line_start) {
		/* Text before the record: its own record when it says anything. */
		slice pre = slice_trim((slice){ s.p + line_start, pf.start - line_start });
		if (pre.n > 1) {
			record_reset(r, (slice){ s.p, pf.start });
			r->ln = ln;
			r->body = pre;
			r->time = 0;
			double t;
			if (timestamp_parse(pre, &t))
				r->time = t;
			return pf.start;
		}
	}
	if (!found) {
		r->ln = ln;
		r->body = rest;
		if (slice_starts(rest, "NCCL version ") || slice_starts(rest, "RCCL version "))
			r->level = LV_VERSION;
		timestamp_parse(rest, &r->time);
		set_time(r);
		return s.n;
	}
	if (pf.host_found && pf.start < line_start && r->host.p + r->host.n > s.p + line_start) {
		/* grep's context prefix runs into the host ("x.log-17-node-a:1:2") */
		r->host = (slice){ s.p + line_start, (size_t)(r->host.p + r->host.n - (s.p + line_start)) };
		pf.start = line_start;
	}
	if (pf.start < line_start) {
		/* "[0] misc/socket.cc:71 NCCL WARN": the [0] was the device */
		ln = (launch)LAUNCH_NONE;
		launch_strip((slice){ s.p, pf.start }, &ln);
	}
	r->ln = ln;
	r->level = a.lv;
	r->nccl = pf.host_found;
	r->legacy = a.old;
	set_time(r);
	return record_finish(s, r, pf.start, a.body);
}

/* ---- the common shape, read forward ---- */

/* Whether launch_strip would strip nothing from x, which starts with a
 * host of host_n bytes and its ':' (so no blank, bracket, '(' or frame
 * starts it): of the prefixes, only these may begin so. */
static bool no_launcher(slice x, size_t host_n, bool dot, size_t body)
{
	/* a collector's clock "10:22:33 [" or date "2025-02-05 ..." */
	if (is_digit(x.p[0]) && ((x.n > 2 && x.p[2] == ':') || (x.n > 4 && x.p[4] == '-')))
		return false;
	/* mpirun's "...2021[1,0]<stderr>:": the prefix up to body holds no '<' */
	size_t lim = x.n < 48 ? x.n : 48;
	if (body < lim && memchr(x.p + body, '<', lim - body) && find_std(x, 48) >= 0)
		return false;
	/* grep's "rank0.log:": a log's name has a dot */
	if (dot && grep_file_len(x, host_n < 64 ? host_n : 64))
		return false;
	return true;
}

/* host_chars, with a dot told apart (2): whether a host may be a log's name */
static const unsigned char host_class[256] = {
	['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['0' ... '9'] = 1, ['-'] = 1, ['_'] = 1, ['.'] = 2,
};

/* level_word by the first letter and one compare of constant size */
static bool level_fast(slice s, size_t i, enum level *lv, size_t *end)
{
	size_t n;
	if (i + 4 > s.n)
		return false;
	const char *p = s.p + i;
	if (memcmp(p, "INFO", 4) == 0)
		*lv = LV_INFO, n = 4;
	else if (memcmp(p, "WARN", 4) == 0)
		*lv = LV_WARN, n = 4;
	else if (memcmp(p, "CALL", 4) == 0)
		*lv = LV_CALL, n = 4;
	else if (i + 5 <= s.n && memcmp(p, "TRACE", 5) == 0)
		*lv = LV_TRACE, n = 5;
	else if (i + 5 <= s.n && memcmp(p, "ABORT", 5) == 0)
		*lv = LV_ABORT, n = 5;
	else
		return false;
	if (i + n < s.n && s.p[i + n] != ' ')
		return false;
	*end = i + n < s.n ? i + n + 1 : i + n;
	return true;
}

/* Up to 18 digits at s[*i] (what digits_back reads); false when none or more. */
static bool digits_fwd(slice s, size_t *i, long *v)
{
	size_t k = *i, end = s.n - *i > 18 ? *i + 18 : s.n;
	long x = 0;
	unsigned dg;
	while (k < end && (dg = (unsigned char)s.p[k] - '0') <= 9) {
		x = x * 10 + dg;
		k++;
	}
	if (k == *i || (k < s.n && is_digit(s.p[k])))
		return false;
	*i = k;
	*v = x;
	return true;
}

/* "[%F %T] "? HOST:PID:TID ([DEV] )?NCCL LEVEL ", read forward: false for
 * any other start. */
static bool prefix_fast(slice s, recprefix *k)
{
	size_t h = 0;
	double t = 0;
	if (s.n && s.p[0] == '[') {
		/* NCCL's own stamp; launch_strip takes it for a launcher's */
		if (s.n < 23 || s.p[1] == '[' || s.p[20] != ']' || s.p[21] != ' ' ||
		    timestamp_parse((slice){ s.p + 1, 19 }, &t) != 19)
			return false;
		h = 22;
	}
	size_t i = h;
	unsigned seen = 0;
	while (i < s.n && host_class[(unsigned char)s.p[i]])
		seen |= host_class[(unsigned char)s.p[i++]];
	if (i == h || i >= s.n || s.p[i] != ':')
		return false;
	size_t host_end = i++;
	long pid, tid;
	if (!digits_fwd(s, &i, &pid) || i >= s.n || s.p[i] != ':')
		return false;
	i++;
	if (!digits_fwd(s, &i, &tid) || i >= s.n || s.p[i] != ' ')
		return false;
	i++;
	int dev = -1;
	if (i < s.n && s.p[i] == '[') {
		size_t q = ++i;
		long v = 0;
		while (q < s.n && is_digit(s.p[q]) && q - i < 7)
			v = v * 10 + (s.p[q++] - '0');
		if (q == i || q - i > 6 || q + 1 >= s.n || s.p[q] != ']' || s.p[q + 1] != ' ')
			return false;
		dev = (int)v;
		i = q + 2;
	}
	if (i + 5 > s.n || memcmp(s.p + i, "NCCL ", 5) != 0)
		return false;
	enum level lv;
	size_t body;
	if (!level_fast(s, i + 5, &lv, &body))
		return false;
	/* without [DEV], a WARN's host:pid:tid reads as its call site */
	if (dev < 0 && lv != LV_INFO && lv != LV_CALL)
		return false;
	/* digits and a dot before letters: parse_back's glued number */
	size_t d = h;
	bool dot = false;
	while (d < host_end && (is_digit(s.p[d]) || s.p[d] == '.'))
		dot |= s.p[d++] == '.';
	if (dot && d < host_end && ((s.p[d] >= 'a' && s.p[d] <= 'z') || (s.p[d] >= 'A' && s.p[d] <= 'Z')))
		return false;
	/* field by field: b is filled only when it is kept */
	k->n = body;
	k->h = h;
	k->host_end = host_end;
	k->pid = pid;
	k->tid = tid;
	k->dev = dev;
	k->lv = lv;
	k->dot = seen & 2;
	k->t = t;
	return true;
}

/* The record of s, whose start k read: with no launcher prefix, what
 * most lines of a log are. False (r undefined) when a launcher's prefix
 * may be there after all, for record_parse_general to read. */
static bool record_fill(slice s, const recprefix *k, record *r, size_t *len)
{
	size_t h = k->h;
	if (!no_launcher((slice){ s.p + h, s.n - h }, k->host_end - h, k->dot, k->n - h))
		return false;
	record_reset(r, s);
	r->host = (slice){ s.p + h, k->host_end - h };
	r->pid = k->pid;
	r->tid = k->tid;
	r->dev = k->dev;
	r->level = k->lv;
	r->nccl = true;
	if (h) {
		r->ts = (slice){ s.p + 1, 19 };
		r->time = r->ln.time = k->t;
	}
	*len = record_finish(s, r, h, k->n);
	return true;
}

size_t record_parse(slice s, record *r)
{
	size_t n;
	recprefix k;
	if (prefix_fast(s, &k) && record_fill(s, &k, r, &n))
		return n;
	return record_parse_general(s, r);
}

size_t record_parse_known(slice s, record *r, recprefix *known)
{
	size_t n;
	/* the same bytes up to the body (its blank included) read the same */
	if (known->n && s.n > known->n && bytes_same(s.p, known->b, known->n)) {
		if (record_fill(s, known, r, &n))
			return n;
		return record_parse_general(s, r);
	}
	recprefix k;
	if (prefix_fast(s, &k)) {
		if (k.n <= sizeof k.b && s.p[k.n - 1] == ' ') {
			memcpy(k.b, s.p, k.n);
			*known = k;
		}
		if (record_fill(s, &k, r, &n))
			return n;
	}
	return record_parse_general(s, r);
}
