#!/bin/sh
# inputs.sh: `airlox run --input FILE` sends files with a job (large
# fixtures that --tree leaves out); the job reads each at $AIRLOX_IN/NAME
# (/in in the local and docker sandboxes), byte for byte, and cannot write
# there. An input is sealed with a key made from the job's: an observer
# sees that it exists and reads nothing of it. Bad --input arguments are
# usage errors before anything is sent; an input over the session's
# largest item is refused, naming it. On every sandbox that runs here.
#
# Docker is skipped with the reason when AIRLOX_SKIP_DOCKER=1, without root,
# or when dockerd cannot start.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
. "$top_srcdir/tests/runnerd/boxes.sh"
boxes_init

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 120 \
    --memory 256 --item-max 4M
ok $? "an execute session (largest item 4 MB)"
boxes_skip
boxes_up

head -c 3000000 /dev/urandom >"$T/big.bin"
printf 'a,b\n1,2\n' >"$T/data.csv"
WANT=$(cd "$T" && sha256sum big.bin data.csv)
for box in $BOXES; do
	INV=$SENDER ax bob run --timeout 120s --on "$box" --input "$T/big.bin" \
	    --input "$T/data.csv" -- sh -c 'echo "in=$AIRLOX_IN"; cd "$AIRLOX_IN" &&
	    sha256sum big.bin data.csv;
	    if echo x >new 2>/dev/null || echo x >>data.csv 2>/dev/null; then
	    echo WROTE; else echo READONLY; fi' >"$T/$box.out" 2>"$T/$box.err"
	is $? 0 "$box: a job with two inputs"
	is "$(grep -v -e '^in=' -e 'ONLY$' -e 'WROTE$' "$T/$box.out")" "$WANT" \
	    "$box: it reads both at \$AIRLOX_IN, byte for byte"
	has "$(cat "$T/$box.out")" READONLY "$box: and cannot write there"
	[ $box = process ] || has "$(cat "$T/$box.out")" "in=/in" \
	    "$box: \$AIRLOX_IN is /in"
	like "$(head -1 "$T/$box.err")" '· 2 inputs, 3000008 bytes' \
	    "$box: the header counts them"
done

# An observer follows the log: the inputs are there, unreadable to it.
INV=$OBSERVER ax carol --json watch --all --timeout 3s >"$T/obs.json" 2>&1
python3 -c 'import json, sys
n = 0
for l in open(sys.argv[1]):
    try:
        j = json.loads(l)
    except ValueError:
        continue
    if j.get("kind") == "input":
        assert "unreadable" in j, j
        n += 1
assert n > 0' "$T/obs.json"
ok $? "an observer sees the input items and reads none of them"

box=${BOXES%% *}
mkdir "$T/adir"
INV=$SENDER ax bob run --on "$box" --input "$T/adir" -- true >/dev/null 2>&1
is $? 2 "--input of a folder: a usage error"
mkdir -p "$T/two"
cp "$T/data.csv" "$T/two/data.csv"
INV=$SENDER ax bob run --on "$box" --input "$T/data.csv" \
    --input "$T/two/data.csv" -- true >/dev/null 2>&1
is $? 2 "two inputs of one name: a usage error"
head -c 5000000 /dev/zero >"$T/huge.bin"
INV=$SENDER ax bob run --on "$box" --input "$T/huge.bin" -- true \
    >/dev/null 2>"$T/huge.err"
rc=$?
[ $rc -ne 0 ]
ok $? "an input over the session's largest item is refused (exit $rc)"
like "$(cat "$T/huge.err")" 'huge.bin was not sent.*largest item' "  naming it"
done_testing
