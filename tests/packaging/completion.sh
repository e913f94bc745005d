#!/bin/sh
# completion.sh: the bash and zsh completions built from the client's
# command table load, and complete commands, subcommands, options and
# option values as the table says, and the machines kept here after --on
# and as the NAME of the machine commands (but add).
. "${top_srcdir:-.}/tests/packaging/lib.sh"
B=$top_builddir/contrib/completion/airlox.bash
Z=$top_builddir/contrib/completion/_airlox
[ -f "$B" ] || skip_all "contrib/completion/airlox.bash is not built"
need bash

bash -n "$B"
ok $? "bash -n airlox.bash"
# complete WORDS...: what _airlox offers for the last word, sorted.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
	    COMPREPLY=(); _airlox; printf "%s\n" "${COMPREPLY[@]}" | sort | paste -s -d " " -' \
	    _ "$B" "$@"
}
is "$(complete_words airlox se)" "send session" "airlox se -> send, session"
is "$(complete_words airlox session cr)" "create" "airlox session cr -> create"
is "$(complete_words airlox send "")" "file text" "airlox send -> file, text"
is "$(complete_words airlox --relay https://r.example se)" "send session" \
    "an option's value is not taken for a command"
is "$(complete_words airlox session create --mo)" "--mode" "a command's own option"
is "$(complete_words airlox session create --mode "")" "chat execute" \
    "an option's choices"
like "$(complete_words airlox send text --)" "--reply-to" "send text offers --reply-to"
like "$(complete_words airlox send text --)" "--invite" "and the options of every command"
like "$(complete_words airlox send text --n)" "^--name$" "and the participant options"
bash -c '. "$1"; complete -p airlox' _ "$B" >/dev/null 2>&1
ok $? "complete -p airlox after loading"
# After --on: the machines kept here (airlox machine add).
mkdir -p "$T/cache/airlox/machines/box" "$T/cache/airlox/machines/gpu1"
is "$(export XDG_CACHE_HOME=$T/cache; complete_words airlox run --on "")" "box gpu1" \
    "run --on completes the machines kept here"
is "$(export XDG_CACHE_HOME=$T/cache; complete_words airlox job logs --on g)" "gpu1" \
    "and so does job logs --on"
is "$(export XDG_CACHE_HOME=$T/cache; complete_words airlox result --on "")" "box gpu1" \
    "and result --on"
is "$(export XDG_CACHE_HOME=$T/cache; complete_words airlox machine rm "")" "box gpu1" \
    "machine rm completes the machines kept here"
is "$(export XDG_CACHE_HOME=$T/cache; complete_words airlox machine invite --json b)" "box" \
    "and so does machine invite, after an option"
lacks "$(export XDG_CACHE_HOME=$T/cache; complete_words airlox machine add "")" "gpu1" \
    "machine add (a new name) does not offer those kept"

# Every command of the table is offered.
if command -v python3 >/dev/null 2>&1; then
	ASAN_OPTIONS=detect_leaks=0 "$AIRLOX" --json help >"$T/table.json"
	firsts=$(python3 -c 'import json, sys
print(" ".join(sorted({c["name"].split()[0] for c in json.load(open(sys.argv[1]))["commands"]})))' "$T/table.json")
	is "$(complete_words airlox "")" "$firsts" "the first words are exactly the table's"
fi

if command -v zsh >/dev/null 2>&1; then
	zsh -n "$Z"
	ok $? "zsh -n _airlox"
	head -n 1 "$Z" | grep -q '^#compdef airlox$'
	ok $? "_airlox starts with #compdef airlox"
	# Load it through compinit and ask for completions of "airlox se".
	mkdir -p "$T/zfunc"
	cp "$Z" "$T/zfunc/_airlox"
	out=$(HOME=$T ZDOTDIR=$T zsh -f -c '
		fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$1/.zcd"
		compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
		_files() { :; }
		words=(airlox se); CURRENT=2; PREFIX=se
		_airlox' _ "$T/zfunc" 2>&1 | sort -u | paste -s -d " " -)
	like "$out" "send.*session" "zsh: airlox se offers send and session"
	# zcomp WORDS...: what _airlox offers for the last (empty) word.
	zcomp() {
		HOME=$T ZDOTDIR=$T XDG_CACHE_HOME=$T/cache zsh -f -c '
		fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$1/.zcd"
		compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
		_files() { print FILES; }
		shift; words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}
		_airlox' _ "$T/zfunc" "$@" 2>&1 | sort -u | paste -s -d " " -
	}
	is "$(zcomp airlox run --on "")" "box gpu1" "zsh: run --on offers the machines kept here"
	is "$(zcomp airlox machine rm "")" "box gpu1" "zsh: so does machine rm"
	is "$(zcomp airlox machine add "")" "FILES" "zsh: machine add does not"
else
	skip "zsh completion" "zsh is not installed"
fi
done_testing
