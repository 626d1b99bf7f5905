# bash completion for ncclog(1)
# Installed into share/bash-completion/completions/ncclog; or: source this file.

_ncclog()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd=${COMP_WORDS[1]} opts
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "analyze live merge view explain rules redact doctor --help --version" -- "$cur"))
		return
	fi
	case $prev in
	-f | --format)
		opts="text json markdown"
		[[ $cmd == analyze || $cmd == merge ]] && opts="$opts html"
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
		;;
	--color | --colour)
		COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
		return
		;;
	--rules | --peers | --nccl-lib)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	-o | --output-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	-j | --jobs | --peer | --timeout | --gpus | --nccl-version | --settle)
		return
		;;
	esac
	case $cmd in
	analyze) opts="--format --color --rules --redact --jobs --summary --help" ;;
	merge) opts="--format --color --help" ;;
	view) opts="--color --rules --help" ;;
	live) opts="--follow --format --color --rules --settle --no-tui --help" ;;
	explain)
		if ((COMP_CWORD == 2)) && [[ $cur != -* ]]; then
			# the finding ids, from the ncclog being completed
			COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" explain --list 2>/dev/null | cut -d' ' -f1)" -- "$cur"))
			return
		fi
		opts="--list --help"
		;;
	rules)
		if ((COMP_CWORD == 2)); then
			COMPREPLY=($(compgen -W "list test --help" -- "$cur"))
			return
		fi
		opts="--rules --quiet --color --help"
		;;
	redact) opts="--output-dir --color --help" ;;
	doctor) opts="--peer --peers --connect --timeout --gpus --nccl-version --nccl-lib --no-dlopen --compare --format --color --help" ;;
	*) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _ncclog ncclog
