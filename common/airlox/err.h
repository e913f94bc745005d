/*
 * airlox/err.h: error codes of libairlox.
 *
 * Functions return int: 0 (ALX_OK) for success, a negative ALX_ERR_* code
 * otherwise. Every code has a stable snake_case name (alx_errname()) that
 * appears as the "error" member of JSON error bodies and in --json output,
 * and a one-line English message (alx_strerror()).
 *
 * The list is defined once, here, as an X-macro: add a code by adding a line.
 * Never renumber or rename a code; names are part of the protocol.
 */
#ifndef AIRLOX_ERR_H
#define AIRLOX_ERR_H

#define ALX_ERRORS(X) \
	X(ALX_ERR_NOMEM,           -1, "no_memory",           "out of memory") \
	X(ALX_ERR_INVALID,         -2, "bad_request",         "invalid argument or input") \
	X(ALX_ERR_TOO_LARGE,       -3, "too_large",           "input exceeds a size limit") \
	X(ALX_ERR_BAD_JSON,        -4, "bad_json",            "malformed JSON") \
	X(ALX_ERR_BAD_UTF8,        -5, "bad_utf8",            "text is not valid UTF-8") \
	X(ALX_ERR_DUP_KEY,         -6, "duplicate_key",       "duplicate key in a JSON object") \
	X(ALX_ERR_TOO_DEEP,        -7, "too_deep",            "JSON nesting too deep") \
	X(ALX_ERR_RANGE,           -8, "out_of_range",        "number out of range") \
	X(ALX_ERR_MISSING,         -9, "missing_field",       "a required field is missing") \
	X(ALX_ERR_TYPE,           -10, "wrong_type",          "a field has the wrong type") \
	X(ALX_ERR_BAD_BASE64,     -11, "bad_base64",          "not canonical unpadded base64url") \
	X(ALX_ERR_BAD_SIGNATURE,  -12, "bad_signature",       "signature does not verify") \
	X(ALX_ERR_WRONG_ROLE,     -13, "wrong_role",          "the role may not do this") \
	X(ALX_ERR_EXPIRED,        -14, "expired",             "past its validity time") \
	X(ALX_ERR_REPLAYED,       -15, "replayed",            "seen before (replay)") \
	X(ALX_ERR_REVOKED,        -16, "revoked",             "the key or certificate was revoked") \
	X(ALX_ERR_VERSION,        -17, "unsupported_version", "unsupported structure version") \
	X(ALX_ERR_WRONG_SESSION,  -18, "wrong_session",       "belongs to another session") \
	X(ALX_ERR_DECRYPT,        -19, "bad_ciphertext",      "ciphertext does not authenticate") \
	X(ALX_ERR_ORDER,          -20, "bad_order",           "sequence or hash chain broken (dropped, reordered or moved item)") \
	X(ALX_ERR_TRUNCATED,      -21, "truncated",           "input is truncated") \
	X(ALX_ERR_NOT_ALLOWED,    -22, "not_allowed",         "not allowed by the session's limits") \
	X(ALX_ERR_UNKNOWN_KEY,    -23, "unknown_key",         "signer key is not known in this session") \
	X(ALX_ERR_CRYPTO,         -24, "crypto_failure",      "cryptographic library failure") \
	X(ALX_ERR_CLOCK_SKEW,     -25, "clock_skew",          "request time too far from the server's clock") \
	X(ALX_ERR_NOT_RECIPIENT,  -26, "not_recipient",       "this participant cannot open the item") \
	X(ALX_ERR_BAD_INVITE,     -27, "bad_invite",          "malformed invite link") \
	X(ALX_ERR_BAD_CODE,       -28, "bad_code",            "malformed transfer code") \
	X(ALX_ERR_PAKE,           -29, "pake_failed",         "transfer code key confirmation failed") \
	X(ALX_ERR_RUNNER_BUSY,    -30, "runner_busy",         "every slot of the runner is taken") \
	X(ALX_ERR_NOT_SIGNED,     -31, "not_signed",          "not signed by an allowed participant") \
	X(ALX_ERR_IO,             -32, "io_error",            "input/output error") \
	X(ALX_ERR_BAD_HASH,       -33, "bad_hash",            "content does not match its hash") \
	X(ALX_ERR_NOT_FOUND,      -34, "not_found",           "no such object") \
	X(ALX_ERR_BAD_DOMAIN,     -35, "bad_domain",          "not a valid domain name entry") \
	X(ALX_ERR_BAD_NAME,       -36, "bad_name",            "not a valid name or label") \
	X(ALX_ERR_BAD_PATH,       -37, "bad_path",            "path is absolute, escapes or is not allowed") \
	X(ALX_ERR_RATE_LIMITED,   -38, "rate_limited",        "too many requests; retry later") \
	X(ALX_ERR_BAD_METHOD,     -39, "method_not_allowed",  "method not allowed on this path") \
	X(ALX_ERR_NO_SPACE,       -40, "insufficient_storage", "the relay is out of storage space") \
	X(ALX_ERR_TOO_MANY_CONNS, -41, "too_many_connections", "too many connections") \
	X(ALX_ERR_SESSION_EXPIRED, -42, "session_expired",    "the session has expired or was closed") \
	X(ALX_ERR_NOT_READY,      -43, "not_ready",           "the relay cannot serve this now") \
	X(ALX_ERR_FORBIDDEN,      -44, "forbidden",           "not permitted by the relay's policy") \
	X(ALX_ERR_STALE_MANIFEST, -45, "stale_manifest",      "the item acts on an old manifest version") \
	X(ALX_ERR_CURSOR_GONE,    -46, "cursor_gone",         "the cursor is older than what the relay keeps") \
	X(ALX_ERR_CLAIMED,        -47, "already_claimed",     "the job was claimed by another runner") \
	X(ALX_ERR_EXISTS,         -48, "exists",              "already exists") \
	X(ALX_ERR_NOT_PARTICIPANT, -49, "not_a_participant",  "not a participant of this session") \
	X(ALX_ERR_CHUNK_PENDING,  -50, "chunk_pending",       "the chunk has not been uploaded yet") \
	X(ALX_ERR_TOO_MANY_FAILS, -51, "too_many_failures",   "too many failed transfer code attempts") \
	X(ALX_ERR_TREE_MISMATCH,  -52, "tree_mismatch",       "the workspace does not hold the tree the delta applies to") \
	X(ALX_ERR_KEY_COMMIT,     -53, "bad_key_commitment",  "the key is not the one its signed envelope commits to") \
	X(ALX_ERR_ROLLBACK,       -54, "manifest_rollback",   "the relay served an older or different manifest chain than this reader verified before") \
	X(ALX_ERR_STORAGE,        -55, "storage_error",       "the relay's storage is damaged here")

enum alx_err {
	ALX_OK = 0,
#define ALX_ERR_ENUM(sym, num, name, msg) sym = (num),
	ALX_ERRORS(ALX_ERR_ENUM)
#undef ALX_ERR_ENUM
};

/* Stable snake_case name of a code ("bad_signature"); "ok" for 0. */
const char	*alx_errname(int err);
/* One-line English message for a code. */
const char	*alx_strerror(int err);
/* Code for a stable name, or 0 when the name is unknown. */
int		 alx_errcode(const char *name);

#endif /* AIRLOX_ERR_H */
