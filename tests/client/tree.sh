#!/bin/sh
# tree.sh: what "airlox run --tree" sends, built by the client's own code
# (tests/client/tree-tool): in a git checkout, exactly the committed,
# modified and untracked files, not the ignored or deleted ones; LFS files
# as their pointers; --tree-exclude and .airloxignore; credential-like
# files refused with the flag that allows them (token files of a home folder
# too); outside one git repository (a plain folder, one holding two, the
# home folder) refused unless --tree-folder, then the current
# directory; a delta against the confirmed tree holds only what changed.
. "${top_srcdir:-.}/tests/lib.sh"
need git tar python3
TOOL=${TREE_TOOL:-$top_builddir/tests/client/tree-tool}
case $TOOL in /*) ;; *) TOOL=$(pwd)/$TOOL ;; esac
[ -x "$TOOL" ] || skip_all "tree-tool is not built"
export XDG_CACHE_HOME="$T/cache"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org

listing() {	# the archive's members, sorted, one line
	tar -tf "$1" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

R=$T/repo
mkdir -p "$R/src/sub" "$R/build" "$R/docs"
cd "$R" || exit 1
git init -q . && git config commit.gpgsign false
printf 'committed\n' >src/a.c
printf 'to modify\n' >src/b.c
printf 'to delete\n' >src/gone.c
printf 'build/\n*.log\n' >.gitignore
printf '*.bin filter=lfs diff=lfs merge=lfs -text\n' >.gitattributes
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%064d\nsize 5000000\n' 0 >pointer.txt
# The LFS pointer in the index; the work tree holds the "smudged" content.
BLOB=$(git hash-object -w pointer.txt)
git update-index --add --cacheinfo 100644,"$BLOB",model.bin
rm pointer.txt
head -c 100000 /dev/zero >model.bin
printf '#!/bin/sh\necho hi\n' >run.sh && chmod +x run.sh
ln -s src/a.c link-to-a
ln -s ../../etc/passwd link-out
printf 'registry=x\n' >.npmrc
git add src .gitignore .gitattributes run.sh link-to-a link-out .npmrc
git commit -q -m init
ok $? "a git checkout"
printf 'modified\n' >src/b.c
rm src/gone.c .npmrc
printf 'untracked\n' >src/sub/new.c
printf 'ignored\n' >build/out.o
printf 'ignored\n' >debug.log
printf 'excluded\n' >docs/big.pdf
printf 'secret\n' >docs/private.txt
printf 'docs/private.txt\n' >.airloxignore

cd "$R/src" || exit 1
"$TOOL" --exclude '*.pdf' "$T/a.tar" >"$T/a.out" 2>"$T/a.err"
ok $? "the tree builds (a credential file deleted in the work tree is not sent, so not refused)"
is "$(listing "$T/a.tar")" ".airloxignore .gitattributes .gitignore link-to-a model.bin run.sh src/a.c src/b.c src/sub/new.c" \
    "exactly the committed, modified and untracked files"
like "$(tail -1 "$T/a.out")" 'cwd=src ' "the job starts in the matching directory"
like "$(tail -1 "$T/a.out")" 'git=1 skipped=1' "the link out of the tree is skipped"
mkdir -p "$T/x" && tar -xf "$T/a.tar" -C "$T/x"
is "$(cat "$T/x/src/b.c")" modified "a modified file goes as it is on disk"
like "$(cat "$T/x/model.bin")" '^version https://git-lfs' "an LFS file goes as its pointer"
[ -x "$T/x/run.sh" ]
ok $? "the executable bit is kept"
is "$(readlink "$T/x/link-to-a")" src/a.c "a link inside the tree goes as a link"

printf 'TOKEN=1\n' >"$R/.env"
printf 'k\n' >"$R/src/server.pem"
"$TOOL" "$T/b.tar" >"$T/b.out" 2>"$T/b.err"
is $? 3 "credential-like files are refused"
like "$(cat "$T/b.err")" '\.env' "the message names .env"
like "$(cat "$T/b.err")" 'src/server\.pem' "and src/server.pem"
like "$(cat "$T/b.err")" '--tree-allow' "and the flag that allows them"
"$TOOL" --allow .env --allow '*.pem' "$T/c.tar" >"$T/c.out" 2>"$T/c.err"
ok $? "--tree-allow lets them go"
like "$(listing "$T/c.tar")" '(^| )\.env( |$)' ".env is in the tree"
rm "$R/.env" "$R/src/server.pem"

# Token files of a home folder, wherever they sit: gh, git, histories,
# .ssh, .gnupg, the cloud CLIs.
mkdir -p "$R/h/.config/gh" "$R/h/.config/git" "$R/h/.ssh" "$R/h/.gnupg" \
    "$R/h/.aws" "$R/h/.config/gcloud" "$R/h/.azure" "$R/h/.kube"
for f in .config/gh/hosts.yml .config/git/credentials .bash_history \
    .zsh_history .python_history .ssh/config .gnupg/pubring.kbx .aws/config \
    .config/gcloud/credentials.db .azure/msal_token_cache.json .kube/config; do
	printf 'token\n' >"$R/h/$f"
done
"$TOOL" "$T/t.tar" >"$T/t.out" 2>"$T/t.err"
is $? 3 "common token files are refused"
for f in .config/gh/hosts.yml .config/git/credentials .bash_history \
    .zsh_history .python_history .ssh/config .gnupg/pubring.kbx .aws/config \
    .config/gcloud/credentials.db .azure/msal_token_cache.json .kube/config; do
	has "$(cat "$T/t.err")" "h/$f" "refused: $f"
done
rm -rf "$R/h"

# A delta against the confirmed tree.
cd "$R" || exit 1
"$TOOL" --sid S1 --target box "$T/d1.tar" >"$T/d1.out" 2>&1
ok $? "a first run"
like "$(tail -1 "$T/d1.out")" 'delta=0' "with nothing confirmed, the full tree"
ID=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["id"])' "$T/d1.out")
"$TOOL" --sid S1 --target box --confirm "{\"tree\":{\"id\":\"$ID\"}}" "$T/d1.tar" >"$T/d1.out" 2>&1
ok $? "the runner confirms the tree"
[ "$(stat -c %a "$XDG_CACHE_HOME/airlox/trees/S1/box")" = 600 ]
ok $? "the confirmed state is kept 0600"
printf 'changed again\n' >src/a.c
rm src/sub/new.c
"$TOOL" --sid S1 --target box "$T/d2.tar" >"$T/d2.out" 2>&1
ok $? "a second run"
like "$(tail -1 "$T/d2.out")" 'sent=1 .*deleted=1 delta=1' "a delta: one changed, one deleted"
is "$(listing "$T/d2.tar")" "src/a.c" "the archive holds only the changed file"
like "$(head -1 "$T/d2.out")" "\"base\":\"$ID\"" "against the confirmed tree"
like "$(head -1 "$T/d2.out")" '"deleted":\["src/sub/new.c"\]' "naming the deleted file"
"$TOOL" --sid S1 --target box --fresh "$T/d3.tar" >"$T/d3.out" 2>&1
like "$(tail -1 "$T/d3.out")" 'delta=0' "--fresh sends the full tree"
"$TOOL" --sid S1 --target box --confirm '{"sandbox":"local"}' "$T/d4.tar" >/dev/null 2>&1
[ ! -e "$XDG_CACHE_HOME/airlox/trees/S1/box" ]
ok $? "a result without the tree id forgets the state"

# Outside git: refused unless --tree-folder; with it, the directory with
# .airloxignore.
P=$T/plain
mkdir -p "$P/lib" && cd "$P" || exit 1
printf 'x\n' >lib/m.py && printf 'y\n' >main.py && printf 'z\n' >notes.tmp
printf '*.tmp\n' >.airloxignore
"$TOOL" "$T/e.tar" >"$T/e.out" 2>&1
is $? 3 "a folder outside any git repository is refused"
like "$(cat "$T/e.out")" 'is not inside a git repository: .*give --tree-folder' \
    "naming the option that sends it anyway"
"$TOOL" --folder "$T/e.tar" >"$T/e.out" 2>&1
ok $? "a tree outside git, with --tree-folder"
is "$(listing "$T/e.tar")" ".airloxignore lib/m.py main.py" "the directory's files minus .airloxignore"
like "$(tail -1 "$T/e.out")" 'git=0' "not by git's rules"

# A folder holding two repositories: not inside one; refused.
mkdir -p "$T/two/a" "$T/two/b"
(cd "$T/two/a" && git init -q . && echo a >a.txt)
(cd "$T/two/b" && git init -q . && echo b >b.txt)
cd "$T/two" || exit 1
"$TOOL" "$T/two.tar" >"$T/two.out" 2>&1
is $? 3 "a folder holding two repositories is refused"
# The home folder: outside a repository, and as a repository (dotfiles).
mkdir -p "$T/home/proj" && cd "$T/home" || exit 1
printf 'token\n' >"$T/home/notes.txt"
HOME=$T/home "$TOOL" "$T/home.tar" >"$T/home.out" 2>&1
is $? 3 "the home folder is refused"
like "$(cat "$T/home.out")" '\(your home folder\)' "and called so"
git init -q . && git config commit.gpgsign false
HOME=$T/home "$TOOL" "$T/home.tar" >"$T/home.out" 2>&1
is $? 3 "a home folder that is a git repository is refused too"
like "$(cat "$T/home.out")" 'the repository here is your home folder' "saying so"
cd "$T/home/proj" && git init -q . && printf 'x\n' >x.c
HOME=$T/home "$TOOL" "$T/proj.tar" >"$T/proj.out" 2>&1
ok $? "a repository inside the home folder is sent"
is "$(listing "$T/proj.tar")" "x.c" "with its own files only"
done_testing
