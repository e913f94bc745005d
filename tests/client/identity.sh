#!/bin/sh
# identity.sh: a user's lasting owner identity makes a relay's --owner-keys
# usable. Every session has an owner key of its own, so a relay limited to
# known owner keys could never be met; `airlox identity` makes one key
# (once, 0600 in the config dir) and shows it, the operator lists it, and
# session create and machine add sign with it. Others are refused with a
# message that says what to do.
. "${top_srcdir:-.}/tests/lib.sh"
need python3

# as_user NAME [ARGS]: airlox as NAME (its own config directory).
as_user() {
	n=$1
	shift
	XDG_CONFIG_HOME="$T/cfg-$n" XDG_CACHE_HOME="$T/c-$n" "$AIRLOX" "$@"
}

as_user alice --json identity >"$T/id1.json"
ok $? "airlox identity makes alice's identity"
KEY=$(json_get "$T/id1.json" 'j["key"]')
like "$KEY" '^[A-Za-z0-9_-]{43}$' "its owner key is 32 bytes of base64url"
is "$(json_get "$T/id1.json" 'j["created"]')" True "made now"
is "$(stat -c %a "$T/cfg-alice/airlox/identity")" 600 "kept in a file of mode 0600"
is "$(stat -c %a "$T/cfg-alice/airlox")" 700 "in a folder of mode 0700"
as_user alice --json identity >"$T/id2.json"
is "$(json_get "$T/id2.json" 'j["key"], j["created"]')" "('$KEY', False)" \
    "made once: the same key next time"
as_user alice identity >"$T/id.txt"
like "$(cat "$T/id.txt")" "owner key  $KEY" "shown in text too"
as_user carol --json identity >"$T/idc.json"
CAROL=$(json_get "$T/idc.json" 'j["key"]')
[ "$CAROL" != "$KEY" ]
ok $? "another user has another identity"

printf '# known owners\n%s\n' "$KEY" >"$T/owner-keys"
start_relay --owner-keys "$T/owner-keys" || skip_all "the relay did not start"
as_user alice --relay "$URL" --json session create >"$T/a.json" 2>"$T/a.err"
ok $? "a relay with --owner-keys: alice, listed, creates a session"
OWNER=$(json_get "$T/a.json" 'j["invites"]["owner"]')
AIRLOX_INVITE="$OWNER" as_user alice send text "hello" >/dev/null
ok $? "and uses it"
as_user bob --relay "$URL" --json session create >"$T/b.json" 2>"$T/b.err"
is $? 3 "bob, with no identity, is refused (exit 3)"
like "$(cat "$T/b.err")" 'owners it knows only.*no identity yet.*airlox identity' \
    "and told to make one and give it to the operator"
is "$(json_get "$T/b.json" 'j["error"]')" forbidden "--json: forbidden"
[ ! -e "$T/cfg-bob/airlox/identity" ]
ok $? "no identity is made behind bob's back"
as_user carol --relay "$URL" session create >/dev/null 2>"$T/c.err"
is $? 3 "carol, with an identity the relay does not list, is refused"
like "$(cat "$T/c.err")" "identity is not one of them" "and told so"

# machine add creates its session the same way.
XDG_CONFIG_HOME="$T/cfg-alice" XDG_CACHE_HOME="$T/c-alice-m" "$AIRLOX" \
    --relay "$URL" machine add box --yes >"$T/m.out" 2>&1 </dev/null &
M=$!
EXTRA_PIDS="$EXTRA_PIDS $M"
wait_for grep -q 'runner join' "$T/m.out"
ok $? "alice's machine add creates its session (it prints the join command)"
kill "$M" 2>/dev/null
wait "$M" 2>/dev/null
XDG_CONFIG_HOME="$T/cfg-bob" XDG_CACHE_HOME="$T/c-bob-m" "$AIRLOX" \
    --relay "$URL" machine add box --yes >"$T/mb.out" 2>&1 </dev/null
is $? 3 "bob's machine add is refused"
like "$(cat "$T/mb.out")" 'owners it knows only' "for the same reason"

# A secret others may read is not used.
chmod 644 "$T/cfg-alice/airlox/identity"
as_user alice identity >/dev/null 2>"$T/perm.err"
is $? 3 "an identity file others may read: refused"
like "$(cat "$T/perm.err")" 'may be read by others' "and said so"
as_user alice --relay "$URL" session create >/dev/null 2>"$T/perm2.err"
is $? 3 "session create does not sign with it either"
chmod 600 "$T/cfg-alice/airlox/identity"
grep -q 'owner keys may create sessions' "$T/relay.log"
ok $? "the relay said at start how many owner keys it knows"
done_testing
