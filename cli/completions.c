#include "completions.h"

#include <stdlib.h>
#include <string.h>

/* What the shell offers for a value (an option's, or the operands'). */
enum vkind {
	V_FREE,  /* anything: nothing to offer */
	V_WORDS, /* a fixed list */
	V_FILE,
	V_DIR,
	V_ID, /* the finding ids */
};

static enum vkind value_kind(const cli_cmd *c, const char *placeholder, strbuf *words)
{
	if (!placeholder)
		return V_FREE;
	if (strcmp(placeholder, "FMT") == 0) {
		cli_format_names(c, words, " ", false);
		return V_WORDS;
	}
	if (strcmp(placeholder, "WHEN") == 0) {
		sb_adds(words, "auto always never");
		return V_WORDS;
	}
	if (strcmp(placeholder, "SEV") == 0) {
		sb_adds(words, "error warning info");
		return V_WORDS;
	}
	if (strcmp(placeholder, "ID") == 0)
		return V_ID;
	if (strcmp(placeholder, "DIR") == 0)
		return V_DIR;
	if (strcmp(placeholder, "FILE") == 0 || strcmp(placeholder, "PATH") == 0)
		return V_FILE;
	return V_FREE;
}

/* Every option row of a command: the common ones it takes, then its own. */
typedef struct rows {
	cli_opt v[CLI_NCOMMON + 64];
	size_t n;
} rows;

static void rows_of(const cli_cmd *c, rows *r)
{
	r->n = cli_common_opts(c, r->v);
	for (const cli_opt *o = c->opts; o && o->name && r->n < sizeof r->v / sizeof r->v[0]; o++)
		r->v[r->n++] = *o;
}

/* An alias without help (--colour) is parsed and its value completed,
 * but not offered. */
static bool offered(const cli_opt *o)
{
	return o->help || strcmp(o->name, "format") == 0;
}

/* The help of an option, short enough for a menu: up to its first ";",
 * without what is in parentheses. */
static void short_help(const cli_cmd *c, const cli_opt *o, strbuf *b)
{
	if (strcmp(o->name, "format") == 0 && !o->help) {
		sb_adds(b, "report format: ");
		cli_format_names(c, b, NULL, false);
		return;
	}
	size_t start = b->n, depth = 0;
	for (const char *h = o->help ? o->help : ""; *h && *h != ';'; h++) {
		if (*h == '(')
			depth++;
		else if (*h == ')' && depth)
			depth--;
		else if (!depth && !(*h == ' ' && (h[1] == '(' || (b->n > start && b->p[b->n - 1] == ' '))))
			sb_addc(b, *h);
	}
	if (b->n - start > 72) {
		size_t n = 72;
		while (n > 0 && b->p[start + n] != ' ')
			n--;
		b->n = start + n;
		b->p[b->n] = '\0';
	}
}

/* s inside single quotes, for sh and zsh ('\'' closes, escapes, reopens)
 * or for fish (\'). */
static void put_sq(FILE *out, const char *s, bool fish)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs(fish ? "\\'" : "'\\''", out);
		else if (fish && *s == '\\')
			fputs("\\\\", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

static void put_names(FILE *out, const completion_cmd *cmds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? " " : "", cmds[i].name);
}

/* ---- bash and zsh: one case per command, read by the same logic ---- */

static void sh_value(FILE *out, enum vkind k, const strbuf *words)
{
	switch (k) {
	case V_WORDS:
		put_sq(out, words->p, false);
		break;
	case V_FILE:
		fputs("@file", out);
		break;
	case V_DIR:
		fputs("@dir", out);
		break;
	case V_ID:
		fputs("@id", out);
		break;
	case V_FREE:
		fputs("@none", out);
		break;
	}
}

/* The case of one command: its options (zsh: with their help), its
 * subcommands, its operands, and the value of each option. */
static void sh_command(FILE *out, const cli_cmd *c, bool zsh)
{
	rows r;
	rows_of(c, &r);
	strbuf h = { 0 }, w = { 0 };
	fprintf(out, "\t%s)\n\t\topts=%s", c->name, zsh ? "(" : "'");
	for (size_t i = 0, k = 0; i < r.n; i++) {
		if (!offered(&r.v[i]))
			continue;
		if (k++)
			fputc(' ', out);
		if (!zsh) {
			fprintf(out, "--%s", r.v[i].name);
			continue;
		}
		sb_clear(&h);
		sb_printf(&h, "--%s:", r.v[i].name);
		short_help(c, &r.v[i], &h);
		put_sq(out, h.p, false);
	}
	fputs(zsh ? ")\n" : "'\n", out);
	if (c->subcommands) {
		fprintf(out, "\t\tsubs=%s", zsh ? "(" : "'");
		for (size_t i = 0; c->subcommands[i]; i++)
			fprintf(out, "%s%s", i ? " " : "", c->subcommands[i]);
		fputs(zsh ? ")\n" : "'\n", out);
	}
	if (c->operands) {
		fputs("\t\toperands=", out);
		sh_value(out, value_kind(c, c->operands, &w), &w);
		fputc('\n', out);
	}
	bool any = false;
	for (size_t i = 0; i < r.n; i++) {
		if (!r.v[i].value)
			continue;
		if (!any)
			fputs("\t\tcase $prev in\n", out);
		any = true;
		sb_clear(&w);
		fputs("\t\t", out);
		if (r.v[i].letter)
			fprintf(out, "-%c | ", r.v[i].letter);
		fprintf(out, "--%s) value=", r.v[i].name);
		sh_value(out, value_kind(c, r.v[i].value, &w), &w);
		fputs(" ;;\n", out);
	}
	if (any)
		fputs("\t\tesac\n", out);
	fputs("\t\t;;\n", out);
	sb_free(&h);
	sb_free(&w);
}

static void bash_write(FILE *out, const completion_cmd *cmds, size_t n)
{
	fputs("# bash completion for ncclog(1), made by `ncclog completions bash` from its option tables.\n"
	      "# Installed as share/bash-completion/completions/ncclog; or: source <(ncclog completions bash)\n"
	      "\n"
	      "# The values of an option or of the operands: @file, @dir, @id, @none or words.\n"
	      "_ncclog_values() {\n"
	      "\tcase $1 in\n"
	      "\t@file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$2\")) ;;\n"
	      "\t@dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$2\")) ;;\n"
	      "\t@id) COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" explain --list 2>/dev/null | cut -d' ' -f1)\" -- \"$2\")) ;;\n"
	      "\t@none) ;;\n"
	      "\t*) COMPREPLY=($(compgen -W \"$1\" -- \"$2\")) ;;\n"
	      "\tesac\n"
	      "}\n"
	      "\n"
	      "_ncclog() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]}\n"
	      "\tCOMPREPLY=()\n"
	      "\t# --option=value: bash splits the word at \"=\"\n"
	      "\tif [ \"$cur\" = \"=\" ]; then\n"
	      "\t\tcur=\n"
	      "\telif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -ge 3 ]; then\n"
	      "\t\tprev=${COMP_WORDS[COMP_CWORD-2]}\n"
	      "\tfi\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W '",
	      out);
	put_names(out, cmds, n);
	fputs(" --help --version' -- \"$cur\"))\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tlocal opts= subs= operands= value=\n"
	      "\tcase $cmd in\n",
	      out);
	for (size_t i = 0; i < n; i++)
		sh_command(out, cmds[i].cmd, false);
	fputs("\thelp) [ \"$COMP_CWORD\" -eq 2 ] && operands='", out);
	put_names(out, cmds, n);
	fputs("' ;;\n"
	      "\t*) return ;;\n"
	      "\tesac\n"
	      "\tif [ -n \"$value\" ]; then\n"
	      "\t\t_ncclog_values \"$value\" \"$cur\"\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\t# the first operand of a command with subcommands is one of them\n"
	      "\tif [ -n \"$subs\" ]; then\n"
	      "\t\tlocal i w\n"
	      "\t\tfor ((i = 2; i < COMP_CWORD; i++)); do\n"
	      "\t\t\tfor w in $subs; do [ \"${COMP_WORDS[i]}\" = \"$w\" ] && subs=; done\n"
	      "\t\tdone\n"
	      "\t\tif [ -n \"$subs\" ]; then\n"
	      "\t\t\tCOMPREPLY=($(compgen -W \"$subs $opts\" -- \"$cur\"))\n"
	      "\t\t\treturn\n"
	      "\t\tfi\n"
	      "\tfi\n"
	      "\t[ -n \"$operands\" ] && _ncclog_values \"$operands\" \"$cur\"\n"
	      "}\n"
	      "complete -F _ncclog ncclog\n",
	      out);
}

/* ---- zsh ---- */

static void zsh_write(FILE *out, const completion_cmd *cmds, size_t n)
{
	fputs("#compdef ncclog\n"
	      "# zsh completion for ncclog(1), made by `ncclog completions zsh` from its option tables.\n"
	      "# Installed as share/zsh/site-functions/_ncclog; or: source <(ncclog completions zsh)\n"
	      "\n"
	      "# The values of an option or of the operands: @file, @dir, @id, @none or words.\n"
	      "_ncclog_values() {\n"
	      "\tcase $1 in\n"
	      "\t@file) _files ;;\n"
	      "\t@dir) _files -/ ;;\n"
	      "\t@id)\n"
	      "\t\tlocal -a ids\n"
	      "\t\tids=(${(f)\"$(_call_program ids $words[1] explain --list 2>/dev/null)\"})\n"
	      "\t\tcompadd -- ${ids%% *}\n"
	      "\t\t;;\n"
	      "\t@none) return 1 ;;\n"
	      "\t*) compadd -- ${=1} ;;\n"
	      "\tesac\n"
	      "}\n"
	      "\n"
	      "_ncclog() {\n"
	      "\tlocal cur=$words[CURRENT] prev=$words[CURRENT-1] cmd=$words[2]\n"
	      "\tif [[ $cur == --*=* ]]; then\n"
	      "\t\tprev=${cur%%=*}\n"
	      "\t\tcompset -P '*='\n"
	      "\t\tcur=$PREFIX\n"
	      "\tfi\n"
	      "\tif (( CURRENT == 2 )); then\n"
	      "\t\tlocal -a cmds\n"
	      "\t\tcmds=(",
	      out);
	strbuf s = { 0 };
	for (size_t i = 0; i < n; i++) {
		sb_clear(&s);
		sb_printf(&s, "%s:%s", cmds[i].name, cmds[i].summary);
		if (i)
			fputc(' ', out);
		put_sq(out, s.p, false);
	}
	sb_free(&s);
	fputs(")\n"
	      "\t\tif [[ $cur == -* ]]; then compadd -- --help --version; else _describe -t commands 'ncclog command' cmds; fi\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tlocal -a opts subs\n"
	      "\tlocal operands= value=\n"
	      "\tcase $cmd in\n",
	      out);
	for (size_t i = 0; i < n; i++)
		sh_command(out, cmds[i].cmd, true);
	fputs("\thelp) (( CURRENT == 3 )) && operands='", out);
	put_names(out, cmds, n);
	fputs("' ;;\n"
	      "\t*) return 1 ;;\n"
	      "\tesac\n"
	      "\tif [[ -n $value ]]; then\n"
	      "\t\t_ncclog_values $value\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\t_describe -t options option opts\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\t# the first operand of a command with subcommands is one of them\n"
	      "\tif (( $#subs )); then\n"
	      "\t\tlocal w\n"
	      "\t\tfor w in $words[3,CURRENT-1]; do (( $subs[(Ie)$w] )) && subs=(); done\n"
	      "\t\tif (( $#subs )); then\n"
	      "\t\t\tcompadd -- $subs\n"
	      "\t\t\t_describe -t options option opts\n"
	      "\t\t\treturn\n"
	      "\t\tfi\n"
	      "\tfi\n"
	      "\t[[ -n $operands ]] && _ncclog_values $operands\n"
	      "}\n"
	      "\n"
	      "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _ncclog \"$@\"; else compdef _ncclog ncclog; fi\n",
	      out);
}

/* ---- fish ---- */

static void fish_value(FILE *out, enum vkind k, const strbuf *words)
{
	switch (k) {
	case V_WORDS:
		fputs(" -x -a ", out);
		put_sq(out, words->p, true);
		break;
	case V_FILE:
		fputs(" -r -F", out);
		break;
	case V_DIR:
		fputs(" -x -a '(__fish_complete_directories (commandline -ct))'", out);
		break;
	case V_ID:
		fputs(" -x -a '(__ncclog_ids)'", out);
		break;
	case V_FREE:
		fputs(" -x", out);
		break;
	}
}

static void fish_command(FILE *out, const cli_cmd *c)
{
	rows r;
	rows_of(c, &r);
	strbuf h = { 0 }, w = { 0 }, cond = { 0 };
	sb_printf(&cond, "__fish_seen_subcommand_from %s", c->name);
	for (size_t i = 0; i < r.n; i++) {
		if (!offered(&r.v[i]))
			continue;
		fputs("complete -c ncclog -n ", out);
		put_sq(out, cond.p, true);
		if (r.v[i].letter)
			fprintf(out, " -s %c", r.v[i].letter);
		fprintf(out, " -l %s", r.v[i].name);
		if (r.v[i].value) {
			sb_clear(&w);
			fish_value(out, value_kind(c, r.v[i].value, &w), &w);
		}
		sb_clear(&h);
		short_help(c, &r.v[i], &h);
		fputs(" -d ", out);
		put_sq(out, h.p, true);
		fputc('\n', out);
	}
	if (c->subcommands) {
		strbuf subs = { 0 };
		for (size_t i = 0; c->subcommands[i]; i++)
			sb_printf(&subs, "%s%s", i ? " " : "", c->subcommands[i]);
		fputs("complete -c ncclog -n ", out);
		sb_printf(&cond, "; and not __fish_seen_subcommand_from %s", subs.p);
		put_sq(out, cond.p, true);
		fputs(" -a ", out);
		put_sq(out, subs.p, true);
		fputc('\n', out);
		sb_clear(&cond);
		sb_printf(&cond, "__fish_seen_subcommand_from %s; and __fish_seen_subcommand_from %s", c->name, subs.p);
		sb_free(&subs);
	}
	if (c->operands) {
		sb_clear(&w);
		enum vkind k = value_kind(c, c->operands, &w);
		fputs("complete -c ncclog -n ", out);
		put_sq(out, cond.p, true);
		if (k == V_FILE)
			fputs(" -F", out);
		else if (k == V_ID)
			fputs(" -a '(__ncclog_ids)'", out);
		else if (k == V_WORDS) {
			fputs(" -a ", out);
			put_sq(out, w.p, true);
		}
		fputc('\n', out);
	}
	sb_free(&h);
	sb_free(&w);
	sb_free(&cond);
}

static void fish_write(FILE *out, const completion_cmd *cmds, size_t n)
{
	fputs("# fish completion for ncclog(1), made by `ncclog completions fish` from its option tables.\n"
	      "# Installed as share/fish/vendor_completions.d/ncclog.fish; or: ncclog completions fish | source\n"
	      "\n"
	      "# the finding ids, from the ncclog being completed\n"
	      "function __ncclog_ids\n"
	      "\tset -l bin (commandline -opc)[1]\n"
	      "\t$bin explain --list 2>/dev/null | string replace -r ' .*' ''\n"
	      "end\n"
	      "\n"
	      "complete -c ncclog -f\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "complete -c ncclog -n __fish_use_subcommand -a %s -d ", cmds[i].name);
		put_sq(out, cmds[i].summary, true);
		fputc('\n', out);
	}
	fputs("complete -c ncclog -n __fish_use_subcommand -s h -l help -d 'list the commands'\n"
	      "complete -c ncclog -n __fish_use_subcommand -s V -l version -d 'version and the NCCL log formats it knows'\n"
	      "complete -c ncclog -n '__fish_seen_subcommand_from help' -a ",
	      out);
	strbuf names = { 0 };
	for (size_t i = 0; i < n; i++)
		sb_printf(&names, "%s%s", i ? " " : "", cmds[i].name);
	put_sq(out, names.p, true);
	sb_free(&names);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		fputc('\n', out);
		fish_command(out, cmds[i].cmd);
	}
}

int completions_write(FILE *out, const char *shell, const completion_cmd *cmds, size_t n)
{
	if (strcmp(shell, "bash") == 0)
		bash_write(out, cmds, n);
	else if (strcmp(shell, "zsh") == 0)
		zsh_write(out, cmds, n);
	else if (strcmp(shell, "fish") == 0)
		fish_write(out, cmds, n);
	else
		return -1;
	return 0;
}
