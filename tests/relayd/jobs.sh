#!/bin/sh
# jobs.sh: job dispatch. Two approved runners on one label race for one job:
# exactly one claim wins, the other gets 409 already_claimed; an unapproved
# runner cannot claim; a job named for a runner whose slots are all taken
# is refused with runner_busy, and accepted once its result freed the slot;
# an expired job is never claimed; job state is readable by its author.
# Who answers a job: only the runner that claimed it (of those its key was
# wrapped to) posts its result, once; only its author or the owner cancels
# it; a job the owner could not read is refused. In a session without
# approval, a runner serves the name and labels it announced, never its
# display name.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"


start_relay --plain-http
new_session 3600 execute
like "$r" '^201 ' "an execute session"
join alice:owner bob:sender mal:sender r1:runner r2:runner r3:runner
like "$r" '^201 ' "owner, two senders and three runners joined"
"$CLI" approve "$S" r1 gpu1 pool
r=$(call alice PUT "/v1/sessions/$sid/manifest" "$S/manifest.json")
like "$r" '^200 \{"ver":2,' "the owner approves runner gpu1 (label pool)"
"$CLI" approve "$S" r2 gpu2 pool
r=$(call alice PUT "/v1/sessions/$sid/manifest" "$S/manifest.json")
like "$r" '^200 \{"ver":3,' "and runner gpu2 (label pool)"
for n in 1 2 3; do
	"$CLI" announce "$S" r$n gpu$n pool 1 >"$T/ann$n"
	r=$(call r$n POST "/v1/sessions/$sid/runners" "$T/ann$n")
	like "$r" '^200 ' "runner r$n announces one slot"
done
r=$(call bob POST "/v1/sessions/$sid/runners" "$T/ann1")
like "$r" '^403 ' "a sender cannot announce"
r=$(call bob GET "/v1/sessions/$sid/runners" -)
is "$(echo "$r" | grep -o '"approved":true' | wc -l)" 2 \
    "runners list: two approved"
like "$r" '"online":true,"busy":0' "online and idle"

JOB_TARGET=label:pool JOB_TO="r1 r2" "$CLI" item "$S" bob job
job=$(cat "$S/item.id")
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "a job for label pool"
r=$(call bob GET "/v1/sessions/$sid/jobs/$job" -)
like "$r" "^200 \\{\"jobs\":\\[\\{\"id\":\"$job\",\"state\":\"waiting\",\"why\":\"unclaimed\"" \
    "its author sees it waiting"

# Two claims at once.
pids=
for n in 1 2; do
	"$CLI" claim "$S" r$n "$job" >"$T/claim$n"
	auth=$("$CLI" auth "$S" r$n POST "/v1/sessions/$sid/jobs/$job/claim" \
	    "$T/claim$n" "$ADDR")
	echo "$auth" >"$T/auth$n"
done
for n in 1 2; do
	curl -sS -o "$T/cb$n" -w '%{http_code}' -H "Authorization: $(cat "$T/auth$n")" \
	    --data-binary @"$T/claim$n" "$URL/v1/sessions/$sid/jobs/$job/claim" \
	    >"$T/cc$n" &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p"
done
codes=$(cat "$T/cc1" "$T/cc2" | fold -w3 | sort | tr '\n' ' ')
is "$codes" "200 409 " "two runners, one job: exactly one claim wins"
loser=1
winner=2
[ "$(cat "$T/cc1")" = 200 ] && { winner=1; loser=2; }
like "$(cat "$T/cb$loser")" '^\{"error":"already_claimed"' \
    "the other gets already_claimed"
"$CLI" claim "$S" r3 "$job" >"$T/claim3"
r=$(call r3 POST "/v1/sessions/$sid/jobs/$job/claim" "$T/claim3")
like "$r" '^403 ' "an unapproved runner cannot claim"
r=$(call bob GET "/v1/sessions/$sid/jobs/$job" -)
like "$r" '"state":"claimed","claimed_by":"[A-Za-z0-9_-]{22}"' \
    "the job is claimed, by whom is shown"
r=$(call r1 GET "/v1/sessions/$sid/jobs" -)
is "$r" '200 {"jobs":[]}' "a runner does not see others' job state"

# Who may answer or cancel the job. A refused item is not stored, so its
# author's chain stays where it was (refused NAME KIND...: the item is made
# and posted, the relay's answer is in $r, NAME's chain is put back).
refused() {
	n=$1
	shift
	for f in seq prev; do
		rm -f "$T/$n.$f"
		[ -f "$S/$n.$f" ] && cp "$S/$n.$f" "$T/$n.$f"
	done
	"$CLI" item "$S" "$n" "$@"
	r=$(call "$n" POST "/v1/sessions/$sid/items" "$S/item.json")
	for f in seq prev; do
		rm -f "$S/$n.$f"
		[ -f "$T/$n.$f" ] && cp "$T/$n.$f" "$S/$n.$f"
	done
}
REPLY_TO=$job refused r$loser result
like "$r" '^409 \{"error":"already_claimed"' \
    "a result from the runner that lost the claim: 409 already_claimed"
REPLY_TO=$job refused r3 progress
like "$r" '^403 \{"error":"not_allowed"' \
    "progress from an unapproved runner: 403 not_allowed"
REPLY_TO=AAAAAAAAAAAAAAAAAAAAAA refused r$winner progress
like "$r" '^404 \{"error":"not_found"' "progress for no job: 404 not_found"
REPLY_TO=$job refused mal cancel
like "$r" '^403 \{"error":"wrong_role","message":"only the job.s author or the owner' \
    "another sender's cancel of bob's job: 403 wrong_role"
JOB_TARGET=label:pool JOB_TO="r1 r2" JOB_NO_OWNER=1 refused mal job
like "$r" '^403 \{"error":"not_recipient"' \
    "a job whose key is not wrapped to the owner: 403 not_recipient"
"$CLI" item "$S" mal text
r=$(call mal POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "mal's next item: none of those was stored"

# A job named for the busy winner is refused; its result frees the slot.
cp "$S/bob.seq" "$S/bob.prev" "$T/"
JOB_TARGET=runner:gpu$winner JOB_TO=r$winner "$CLI" item "$S" bob job
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^409 \{"error":"runner_busy"' "a named runner with no free slot: 409 runner_busy"
cp "$T/bob.seq" "$T/bob.prev" "$S/"
REPLY_TO=$job "$CLI" item "$S" r$winner result
r=$(call r$winner POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "the winner posts its result"
r=$(call bob GET "/v1/sessions/$sid/jobs/$job" -)
like "$r" '"state":"done"' "the job is done"
REPLY_TO=$job refused r$winner result
like "$r" '^409 \{"error":"exists"' "a second result: 409 exists"
REPLY_TO=$job "$CLI" item "$S" bob cancel
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "bob cancels his own job"
REPLY_TO=$job "$CLI" item "$S" alice cancel
r=$(call alice POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "the owner cancels any job"
JOB_TARGET=runner:gpu$winner "$CLI" item "$S" bob job
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "the named job is accepted once the slot is free"

# An expired job is never claimed.
JOB_TARGET=label:pool JOB_TTL=5 "$CLI" item "$S" bob job
old=$(cat "$S/item.id")
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "a job that expires in 5 s"
wait_for sh -c "'$CLI' auth '$S' bob GET '/v1/sessions/$sid/jobs/$old' - \
    '$ADDR' >'$T/a' && curl -sS -H \"Authorization: \$(cat '$T/a')\" \
    '$URL/v1/sessions/$sid/jobs/$old' | grep -q '\"state\":\"expired\"'"
ok $? "its state becomes expired"
"$CLI" claim "$S" r$loser "$old" >"$T/claim4"
r=$(call r$loser POST "/v1/sessions/$sid/jobs/$old/claim" "$T/claim4")
like "$r" '^410 \{"error":"expired"' "a claim after not_after: 410 expired"
"$CLI" claim "$S" r$loser "$job" >"$T/claim5"
r=$(call r$loser POST "/v1/sessions/$sid/jobs/AAAAAAAAAAAAAAAAAAAAAA/claim" \
    "$T/claim5")
like "$r" '^(400|404) ' "a claim for another job id than the path: refused"
# A session whose runners need no approval: each serves what it announced.
S=$T/s2
mkdir -p "$S"
NO_APPROVE=1 new_session 3600 execute
like "$r" '^201 ' "an execute session without approval"
join alice:owner bob:sender gpu:runner cpu:runner
like "$r" '^201 ' "a sender and two runners, one of them displayed as gpu"
"$CLI" announce "$S" gpu box1 cpu 1 >"$T/a1"
r=$(call gpu POST "/v1/sessions/$sid/runners" "$T/a1")
like "$r" '^200 ' "the runner displayed as gpu announces name box1, label cpu"
"$CLI" announce "$S" cpu box2 gpu 1 >"$T/a2"
r=$(call cpu POST "/v1/sessions/$sid/runners" "$T/a2")
like "$r" '^200 ' "the other announces name box2, label gpu"
JOB_TARGET=label:gpu JOB_TO="cpu" "$CLI" item "$S" bob job
lj=$(cat "$S/item.id")
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "a job for label gpu"
"$CLI" claim "$S" gpu "$lj" >"$T/c1"
r=$(call gpu POST "/v1/sessions/$sid/jobs/$lj/claim" "$T/c1")
like "$r" '^403 ' "the runner that only calls itself gpu cannot claim it"
"$CLI" claim "$S" cpu "$lj" >"$T/c2"
r=$(call cpu POST "/v1/sessions/$sid/jobs/$lj/claim" "$T/c2")
like "$r" '^200 ' "the runner that announced label gpu claims it"
JOB_TARGET=runner:gpu JOB_TO="gpu" "$CLI" item "$S" bob job
nj=$(cat "$S/item.id")
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
"$CLI" claim "$S" gpu "$nj" >"$T/c3"
r=$(call gpu POST "/v1/sessions/$sid/jobs/$nj/claim" "$T/c3")
like "$r" '^403 ' "a job named gpu is not for the runner displayed as gpu"
JOB_TARGET=runner:box1 JOB_TO="gpu" "$CLI" item "$S" bob job
nj=$(cat "$S/item.id")
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
"$CLI" claim "$S" gpu "$nj" >"$T/c4"
r=$(call gpu POST "/v1/sessions/$sid/jobs/$nj/claim" "$T/c4")
like "$r" '^200 ' "a job named box1 is, by its announcement"

stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
done_testing
