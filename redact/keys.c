/* Keys whose values identify someone or something (hosts, users,
 * namespaces, accounts) or are secrets, in every notation logs use:
 * KEY=value, KEY: value, "key": "value", 'KEY': 'value', --key value,
 * --key=value; and the words around a host name in messages ("connect to
 * (X, 29500)", "peer X<51159>", "on host X", "pod/X"). */
#include <string.h>
#include <strings.h>

#include "scan.h"

enum keykind { KEY_NONE, KEY_SECRET, KEY_HOST, KEY_HOST_WEAK, KEY_USER, KEY_NAME };

#define MAX_PARTS 8

/* A key in upper-case parts, split at '_', '-', '.' and lower-to-upper
 * ("WANDB_API_KEY", "apiKey", "master-addr"). */
typedef struct parts {
	char v[MAX_PARTS][24];
	int n;
} parts;

static void split(slice k, parts *ps)
{
	ps->n = 0;
	size_t len = 0;
	for (size_t i = 0; i <= k.n; i++) {
		bool cut = i == k.n || k.p[i] == '_' || k.p[i] == '-' || k.p[i] == '.' ||
			   (i > 0 && k.p[i] >= 'A' && k.p[i] <= 'Z' && k.p[i - 1] >= 'a' && k.p[i - 1] <= 'z');
		if (cut && len) {
			ps->v[ps->n][len] = '\0';
			if (++ps->n == MAX_PARTS)
				return;
			len = 0;
		}
		if (i < k.n && k.p[i] != '_' && k.p[i] != '-' && k.p[i] != '.' && len < 23) {
			char c = k.p[i];
			ps->v[ps->n][len++] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
		}
	}
}

static bool part_in(const char *p, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (list[i][0] == p[0] && strcmp(p, list[i]) == 0)
			return true;
	return false;
}

static enum keykind classify(slice key, bool flag)
{
	parts ps;
	split(key, &ps);
	if (!ps.n)
		return KEY_NONE;
	const char *last = ps.v[ps.n - 1], *before = ps.n > 1 ? ps.v[ps.n - 2] : "";
	/* NCCL's own variables hold no secret and no name but NCCL_COMM_ID */
	if (strcmp(ps.v[0], "NCCL") == 0 || (ps.n > 1 && strcmp(ps.v[0], "TORCH") == 0 && strcmp(ps.v[1], "NCCL") == 0))
		return ps.n == 3 && strcmp(ps.v[1], "COMM") == 0 && strcmp(last, "ID") == 0 ? KEY_HOST : KEY_NONE;
	static const char *const secret[] = { "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
					      "CREDENTIALS", "APIKEY", "KEY", "AUTH", "AUTHORIZATION", "SIGNATURE",
					      "SIG", "COOKIE", "ACCESSTOKEN", NULL };
	for (int i = 0; i < ps.n; i++)
		if (part_in(ps.v[i], secret) || (strlen(ps.v[i]) > 6 && (strstr(ps.v[i], "PASSWORD") || strstr(ps.v[i], "SECRET"))))
			return KEY_SECRET;
	if ((strcmp(last, "NAME") == 0 && (strcmp(before, "POD") == 0 || strcmp(before, "NODE") == 0 ||
					   strcmp(before, "HOST") == 0)) ||
	    (strcmp(last, "LIST") == 0 && (strcmp(before, "NODE") == 0 || strcmp(before, "HOST") == 0)))
		return KEY_HOST;
	if (strcmp(last, "NAME") == 0 && strcmp(before, "CLUSTER") == 0)
		return KEY_NAME;
	if (strcmp(last, "NAME") == 0 && strcmp(before, "USER") == 0)
		return KEY_USER;
	static const char *const host[] = { "HOST", "HOSTNAME", "HOSTS", "ADDR", "NODENAME", "NODELIST", "HOSTLIST",
					    "ENDPOINT", "PODNAME", NULL };
	static const char *const host_weak[] = { "NODE", "NODES", "SERVER", "ADDRESS", "IP", "POD", NULL };
	static const char *const user[] = { "USER", "USERNAME", "LOGNAME", "OWNER", NULL };
	static const char *const name[] = { "NAMESPACE", "ACCOUNT", "ENTITY", "PROJECT", NULL };
	if (part_in(last, host))
		return KEY_HOST;
	if (part_in(last, host_weak))
		return KEY_HOST_WEAK;
	if (part_in(last, user))
		return KEY_USER;
	if (part_in(last, name))
		return KEY_NAME;
	/* srun/pdsh -w LIST, mpirun -H LIST */
	if (flag && key.n == 1 && (key.p[0] == 'w' || key.p[0] == 'H'))
		return KEY_HOST;
	return KEY_NONE;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_quote(char c)
{
	return c == '"' || c == '\'';
}

/* The end of an unquoted value of that kind starting at s[i]. */
static size_t value_end(slice s, size_t i, enum keykind kind)
{
	const char *stop = kind == KEY_SECRET ? " \t\"'`,;)]}>&" : kind == KEY_HOST || kind == KEY_HOST_WEAK
										  ? " \t\"'`;)}>&"
										  : " \t\"'`,;:)]}>&/";
	while (i < s.n && !strchr(stop, s.p[i]))
		i++;
	return i;
}

bool keys_value(scanner *sc, size_t at, size_t end, size_t *next)
{
	slice s = sc->s;
	if (end - at > 80)
		return false;
	/* "--master_addr", "-w": the dashes are part of the token */
	size_t kat = at;
	while (kat < end && s.p[kat] == '-')
		kat++;
	bool flag = kat > at && kat - at <= 2 && kat < end && (at == 0 || is_space(s.p[at - 1]));
	if (kat > at && !flag)
		return false;
	size_t j = end, spaces = 0;
	bool quoted_key = at > 0 && is_quote(s.p[at - 1]) && j < s.n && s.p[j] == s.p[at - 1];
	if (quoted_key)
		j++;
	while (j < s.n && is_space(s.p[j]) && spaces < 16)
		j++, spaces++;
	if (j < s.n && s.p[j] == '=') {
		j++;
	} else if (j < s.n && s.p[j] == ':' &&
		   (quoted_key || j + 1 == s.n || is_space(s.p[j + 1]) || is_quote(s.p[j + 1]))) {
		j++;
	} else if (!(flag && spaces == 1 && j < s.n && s.p[j] != '-')) {
		return false;
	}
	enum keykind kind = classify((slice){ s.p + kat, end - kat }, flag);
	if (kind == KEY_NONE)
		return false;
	while (j < s.n && is_space(s.p[j]) && j - end < 40)
		j++;
	char q = j < s.n && is_quote(s.p[j]) ? s.p[j] : 0;
	size_t vs = q ? j + 1 : j, ve = vs;
	if (q) {
		while (ve < s.n && s.p[ve] != q)
			ve++;
	} else {
		ve = value_end(s, vs, kind);
	}
	if (ve == vs)
		return false;
	/* MASTER_ADDR=$(hostname), USER=$USER: a shell's, not a name */
	if (kind != KEY_SECRET && !scan_word(s.p[vs]) && s.p[vs] != '[')
		return false;
	switch (kind) {
	case KEY_SECRET: {
		/* "Authorization: Bearer TOKEN": the scheme stays, the token goes */
		static const char *const schemes[] = { "Bearer", "Basic", "Token", "Digest", NULL };
		for (size_t k = 0; !q && schemes[k]; k++)
			if (ve - vs == strlen(schemes[k]) && strncasecmp(s.p + vs, schemes[k], ve - vs) == 0 && ve + 1 < s.n &&
			    s.p[ve] == ' ' && !is_space(s.p[ve + 1])) {
				vs = ve + 1;
				ve = value_end(s, vs, kind);
			}
		scan_put(sc, vs, ve, SECRET_MASK);
		*next = ve;
		return true;
	}
	case KEY_HOST:
	case KEY_HOST_WEAK:
		sc->ctx = CTX_HOST;
		sc->ctx_strong = kind == KEY_HOST;
		break;
	case KEY_USER:
		sc->ctx = CTX_USER;
		break;
	default:
		sc->ctx = CTX_NAME;
	}
	sc->ctx_end = ve;
	*next = vs;
	return true;
}

static bool word_is(slice s, size_t at, size_t end, const char *const *list)
{
	return scan_word_in((slice){ s.p + at, end - at }, list);
}

static bool starts(slice s, size_t i, const char *lit)
{
	size_t n = 0;
	while (lit[n] && i + n < s.n && s.p[i + n] == lit[n])
		n++;
	return !lit[n];
}

enum ctx keys_phrase(const scanner *sc, size_t at, size_t end, bool *strong)
{
	slice s = sc->s;
	char before = at ? s.p[at - 1] : ' ', after = end < s.n ? s.p[end] : ' ';
	*strong = true;
	/* c10d's "(host, port)" and "[host]:port", NCCL's "host<port>" */
	if (before == '(' && starts(s, end, ", ")) {
		size_t d = end + 2, e = d;
		while (e < s.n && scan_digit(s.p[e]))
			e++;
		if (e > d && e < s.n && s.p[e] == ')')
			return CTX_HOST;
	}
	if (before == '[' && starts(s, end, "]:") && end + 2 < s.n && scan_digit(s.p[end + 2]))
		return CTX_HOST;
	if (after == '<' && before != '%' && end + 1 < s.n && scan_digit(s.p[end + 1])) {
		size_t e = end + 1;
		while (e < s.n && scan_digit(s.p[e]))
			e++;
		if (e < s.n && s.p[e] == '>')
			return CTX_HOST;
	}
	/* srun's "error: HOST: task 3", slurmstepd's "ON HOST CANCELLED" */
	if (after == ':' && starts(s, end, ": task "))
		return CTX_HOST;
	bool have_prev = sc->prev_end > sc->prev_at && sc->prev_end <= at;
	if (have_prev && after == ' ' && starts(s, end, " CANCELLED") && sc->prev_end + 1 == at &&
	    sc->prev_end - sc->prev_at == 2 && memcmp(s.p + sc->prev_at, "ON", 2) == 0)
		return CTX_HOST;
	/* nccl-tests' device table: "Rank 0 Group 0 Pid 91822 on HOST device 0" */
	if (have_prev && starts(s, end, " device ") && sc->prev_end - sc->prev_at == 2 &&
	    memcmp(s.p + sc->prev_at, "on", 2) == 0) {
		size_t b = sc->prev_at;
		while (b > 0 && s.p[b - 1] == ' ')
			b--;
		size_t d = b;
		while (d > 0 && scan_digit(s.p[d - 1]))
			d--;
		while (d > 0 && s.p[d - 1] == ' ')
			d--;
		if (d < b && d >= 3 && memcmp(s.p + d - 3, "Pid", 3) == 0)
			return CTX_HOST;
	}
	/* kubectl's "pod/NAME", "namespace/NAME" */
	static const char *const pods[] = { "pod", "pods", "node", "nodes", "host", "hosts", NULL };
	static const char *const spaces[] = { "namespace", "namespaces", "ns", NULL };
	if (have_prev && before == '/' && sc->prev_end + 1 == at) {
		if (word_is(s, sc->prev_at, sc->prev_end, pods))
			return CTX_HOST;
		if (word_is(s, sc->prev_at, sc->prev_end, spaces))
			return CTX_NAME;
	}
	/* "on host X", "peer X", "Nodes gpu[1-4]", "resolve 'X'", pod "X" */
	if (!have_prev)
		return CTX_NONE;
	size_t g = sc->prev_end, quotes = 0, parens = 0;
	for (; g < at; g++) {
		if (is_quote(s.p[g]))
			quotes++;
		else if (s.p[g] == '(')
			parens++;
		else if (!is_space(s.p[g]))
			return CTX_NONE;
	}
	if (quotes > 1 || parens > 1 || at - sc->prev_end > 8 || (quotes && !is_quote(before)))
		return CTX_NONE;
	static const char *const hostwords[] = { "host", "hostname", "node", "nodes", "nodelist", "peer", "server",
						 "machine", "pod", "resolve", "resolving", "hosts", "gethostbyname",
						 "getaddrinfo", NULL };
	*strong = quotes > 0;
	size_t pw = sc->prev_end; /* the last label: socket.gethostbyname */
	while (pw > sc->prev_at && s.p[pw - 1] != '.')
		pw--;
	if (word_is(s, pw, sc->prev_end, hostwords))
		return CTX_HOST;
	if (word_is(s, sc->prev_at, sc->prev_end, spaces))
		return CTX_NAME;
	return CTX_NONE;
}

static bool run_of(slice t, size_t from, size_t min, bool (*ok)(char))
{
	if (t.n < from + min)
		return false;
	for (size_t i = from; i < t.n; i++)
		if (!ok(t.p[i]))
			return false;
	return true;
}

static bool alnum(char c)
{
	return scan_alpha(c) || scan_digit(c);
}

static bool upper_alnum(char c)
{
	return (c >= 'A' && c <= 'Z') || scan_digit(c);
}

static bool token_char(char c)
{
	return alnum(c) || c == '-' || c == '_';
}

static bool jwt_char(char c)
{
	return token_char(c) || c == '.';
}

bool keys_secret_shape(slice t)
{
	if (t.n < 13 || !strchr("hgxsAe", t.p[0]))
		return false;
	static const struct {
		const char *prefix;
		size_t min;
		bool (*ok)(char);
	} shapes[] = {
		{ "hf_", 30, alnum },          /* Hugging Face */
		{ "ghp_", 30, alnum },         /* GitHub, classic and app tokens */
		{ "gho_", 30, alnum },
		{ "ghu_", 30, alnum },
		{ "ghs_", 30, alnum },
		{ "ghr_", 30, alnum },
		{ "github_pat_", 20, token_char },
		{ "glpat-", 20, token_char },  /* GitLab */
		{ "xoxb-", 10, token_char },   /* Slack */
		{ "xoxp-", 10, token_char },
		{ "sk-", 20, token_char },     /* OpenAI-style API keys */
		{ "AKIA", 16, upper_alnum },   /* AWS access key ids */
		{ "ASIA", 16, upper_alnum },
	};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		if (shapes[i].prefix[0] != t.p[0] || !starts(t, 0, shapes[i].prefix))
			continue;
		size_t n = strlen(shapes[i].prefix);
		if (run_of(t, n, shapes[i].min, shapes[i].ok))
			return shapes[i].prefix[0] != 'A' || t.n == n + 16;
	}
	/* a JSON Web Token: three base64url parts, the first a JSON object */
	if (t.n >= 20 && memcmp(t.p, "eyJ", 3) == 0 && run_of(t, 0, 0, jwt_char)) {
		size_t dots = 0;
		for (size_t i = 0; i < t.n; i++)
			dots += t.p[i] == '.';
		return dots == 2;
	}
	return false;
}
