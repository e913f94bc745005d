/*
 * airlox/proto.h: the structures of the airlox protocol (docs/protocol.md).
 *
 * Every structure has an encoder, a decoder, and seal/sign and open/verify
 * functions. Decoders of untrusted bytes check sizes first, verify the
 * signature before parsing a body, and return a stable ALX_ERR_* code that
 * names the failed check.
 *
 * Ownership: a structure filled by an *_open() or *_parse() function owns
 * its allocations; release them with the matching *_free(). Functions that
 * return text (char **out) hand a malloc'd NUL-terminated string to the
 * caller.
 */
#ifndef AIRLOX_PROTO_H
#define AIRLOX_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "airlox/buf.h"
#include "airlox/crypto.h"

/*
 * ALX_PROTOCOL is the protocol's version (docs/protocol.md). Bodies carry
 * their own "v": ALX_PROTO_VERSION for the outer signed object and every
 * body but items and manifests, which carry key commitments since
 * protocol 2 and are ALX_ITEM_VERSION and ALX_MANIFEST_VERSION.
 */
#define ALX_PROTOCOL		2
#define ALX_PROTO_VERSION	1
#define ALX_ITEM_VERSION	2
#define ALX_MANIFEST_VERSION	2
#define ALX_SID_LEN		16
#define ALX_ID_LEN		16
#define ALX_SEED_LEN		32
#define ALX_CHUNK_SIZE		(1024 * 1024)	/* plaintext bytes */
#define ALX_CHUNK_CT_MAX	(ALX_CHUNK_SIZE + ALX_TAG_LEN)
#define ALX_ITEM_MAX_SIZE	((int64_t)100 * 1024 * 1024)
#define ALX_MAX_CHUNKS		100
#define ALX_META_MAX		(64 * 1024)
#define ALX_ITEM_BODY_MAX	(192 * 1024)	/* meta ct + fields */
#define ALX_MANIFEST_BODY_MAX	(256 * 1024)
#define ALX_SMALL_BODY_MAX	(4 * 1024)
#define ALX_MAX_TO		64
#define ALX_MAX_WRAPS		64
#define ALX_MAX_LIST		1024	/* approved, revoked, keep */
#define ALX_MAX_LABELS		16
#define ALX_NAME_MAX		63	/* runner names and labels */
#define ALX_DISPLAY_MAX		256	/* display name bytes (64 chars) */
#define ALX_CLOCK_SKEW		300
#define ALX_WRAP_CT_LEN		(ALX_KEY_LEN + ALX_TAG_LEN)
#define ALX_KIND_MAX		15
#define ALX_TYPE_MAX		15

/* Roles, in permission-matrix order. */
enum alx_role {
	ALX_ROLE_OWNER = 0,
	ALX_ROLE_SENDER,
	ALX_ROLE_OBSERVER,
	ALX_ROLE_RUNNER,
	ALX_ROLE_COUNT
};
const char	*alx_role_name(int role);
int		 alx_role_parse(const char *, int *role);

enum alx_mode {
	ALX_MODE_CHAT = 0,
	ALX_MODE_EXECUTE
};
const char	*alx_mode_name(int mode);

/* 0 when `role` may post items of `kind` (protocol.md section 10). */
int	alx_role_may_post(int role, const char *kind);
/* 1 when items of `kind` are readable by every member (epoch key). */
int	alx_kind_member_readable(const char *kind);
/*
 * 1 when items of `kind` that reply to a job (reply_to) are sealed to the
 * job's readers only (result, progress, report): alx_item_key_reply().
 */
int	alx_kind_job_reply(const char *kind);
/* Valid runner name or label: [a-z0-9][a-z0-9._-]{0,62}. */
int	alx_name_valid(const char *);
/* Valid display name: 1..64 characters of UTF-8, no control characters. */
int	alx_display_valid(const char *);

/*
 * Keys derived from an owner or role seed (protocol.md section 2).
 */
int	alx_seed_keys(const uint8_t seed[ALX_SEED_LEN], struct alx_signkey *,
	    struct alx_kxkey *);
/*
 * A participant key kept as a secret instead of in a cache: from a secret
 * of ALX_KEY_SECRET_MIN to ALX_KEY_SECRET_MAX bytes, the participant's
 * keys for one session and role (seed = HKDF(secret, sid || role name,
 * "airlox/v1/participant", 32), then as alx_seed_keys()). The same secret
 * gives the same participant in that session wherever it runs, and
 * unrelated keys in other sessions and roles. ALX_ERR_INVALID for a
 * secret too short to be one.
 */
#define ALX_KEY_SECRET_MIN	32
#define ALX_KEY_SECRET_MAX	1024
int	alx_participant_keys(const void *secret, size_t len,
	    const uint8_t sid[ALX_SID_LEN], int role, struct alx_signkey *,
	    struct alx_kxkey *);

/*
 * Signed objects (section 3).
 */
struct alx_signed {
	char	 type[ALX_TYPE_MAX + 1];
	uint8_t	 key[ALX_SIGN_PK_LEN];
	uint8_t	 sig[ALX_SIG_LEN];
	uint8_t	*body;		/* exact body bytes, NUL-terminated */
	size_t	 body_len;
	char	*raw;		/* the outer JSON as received or made */
	size_t	 raw_len;
};

/* Body size limit for a type; 0 for an unknown type. */
size_t	alx_signed_max_body(const char *type);
/* Sign body bytes as type; fills s (raw = the outer JSON). */
int	alx_signed_seal(struct alx_signed *s, const char *type,
	    const void *body, size_t len, const struct alx_signkey *);
/*
 * Parse the outer object only (strict members, v = 1, known type, sizes).
 * Nothing in it is trusted yet: the caller decides which key it trusts.
 */
int	alx_signed_parse(struct alx_signed *s, const char *json, size_t len);
/* Check type and that key equals `trusted`, then the signature. */
int	alx_signed_verify(const struct alx_signed *s, const char *type,
	    const uint8_t trusted[ALX_SIGN_PK_LEN]);
/* parse + verify in one call. */
int	alx_signed_open(struct alx_signed *s, const char *json, size_t len,
	    const char *type, const uint8_t trusted[ALX_SIGN_PK_LEN]);
void	alx_signed_hash(const struct alx_signed *s, uint8_t out[ALX_HASH_LEN]);
void	alx_signed_free(struct alx_signed *s);

/*
 * Wraps: a 32-byte key sealed to one X25519 public key (section 4).
 */
struct alx_wrap {
	char	to[ALX_FP_STRLEN + 1];	/* B64 fp, or a role name */
	uint8_t	epk[ALX_KX_PK_LEN];
	uint8_t	ct[ALX_WRAP_CT_LEN];
};
int	alx_wrap_seal(struct alx_wrap *, const char *to,
	    const uint8_t rpk[ALX_KX_PK_LEN], const void *ctx, size_t ctxlen,
	    const uint8_t key[ALX_KEY_LEN]);
int	alx_wrap_open(const struct alx_wrap *, const struct alx_kxkey *me,
	    const void *ctx, size_t ctxlen, uint8_t key[ALX_KEY_LEN]);
/* Contexts: manifest epoch wraps and job wraps. ctx holds >= 64 bytes. */
size_t	alx_wrap_ctx_manifest(uint8_t *ctx, const uint8_t sid[ALX_SID_LEN],
	    int64_t epoch);
size_t	alx_wrap_ctx_job(uint8_t *ctx, const uint8_t sid[ALX_SID_LEN],
	    const uint8_t id[ALX_ID_LEN]);

/*
 * Invite links (section 2).
 */
struct alx_invite {
	int	 https;
	char	 host[256];
	uint16_t port;		/* 0: the scheme's default */
	uint8_t	 sid[ALX_SID_LEN];
	int	 role;
	uint8_t	 seed[ALX_SEED_LEN];
};
int	alx_invite_parse(struct alx_invite *, const char *link);
int	alx_invite_format(const struct alx_invite *, char **out);
/*
 * A host[:port] as an invite link's authority (a DNS name, IPv4, or IPv6
 * in brackets; port 1..65535, 0 when absent); the host in lower case.
 * 0 or ALX_ERR_INVALID.
 */
int	alx_authority_parse(const char *, char *host, size_t hostlen,
	    uint16_t *port);
/* "https://host[:port]" (no trailing slash). */
int	alx_invite_base_url(const struct alx_invite *, char *out, size_t len);
void	alx_invite_wipe(struct alx_invite *);

/*
 * Job limits and the manifest's private part (section 8.1).
 */
enum alx_net_mode {
	ALX_NET_NONE = 0,
	ALX_NET_ALLOW,
	ALX_NET_FULL
};
struct alx_job_limits {
	unsigned	 kinds;		/* ALX_JOBKIND_* bits */
	int64_t		 timeout_s;
	int64_t		 memory_mb;
	int		 net_mode;
	char		**net_allow;
	size_t		 net_nallow;
	int		 return_out;
	char		*runtime;	/* "python3.11" or NULL */
	char		**packages;	/* PEP 440 requirement strings */
	size_t		 npackages;
};
#define ALX_JOBKIND_SHELL	0x1
#define ALX_JOBKIND_PYTHON	0x2
struct alx_private {
	char			**types;
	size_t			  ntypes;
	int			  has_limits;
	struct alx_job_limits	  limits;
};
void	alx_private_free(struct alx_private *);
int	alx_private_encode(const struct alx_private *, char **json, size_t *);
/* Strict: an unknown member of job_limits is ALX_ERR_NOT_ALLOWED. */
int	alx_private_decode(struct alx_private *, const char *json, size_t);

/*
 * The manifest (section 4).
 */
struct alx_role_pub {
	int	 present;
	uint8_t	 pk[ALX_SIGN_PK_LEN];
	uint8_t	 kx[ALX_KX_PK_LEN];
	int64_t	 n;		/* generation: 1, 2, ... after rotations */
	uint8_t	(*old)[ALX_SIGN_PK_LEN];	/* keys of generations 1..n-1 */
	size_t	 nold;
};
struct alx_approved {
	uint8_t	  fp[ALX_FP_LEN];
	char	  name[ALX_NAME_MAX + 1];
	char	**labels;
	size_t	  nlabels;
};
struct alx_manifest {
	int64_t			 ver;
	uint8_t			 sid[ALX_SID_LEN];
	int			 has_prev;
	uint8_t			 prev[ALX_HASH_LEN];
	uint8_t			 nonce[16];
	int			 mode;
	int64_t			 created;
	int64_t			 expires;
	int64_t			 item_max;
	int64_t			 session_max;
	uint8_t			 owner_pk[ALX_SIGN_PK_LEN];
	uint8_t			 owner_kx[ALX_KX_PK_LEN];
	struct alx_role_pub	 roles[ALX_ROLE_COUNT];	/* [OWNER] unused */
	uint8_t			(*keep)[ALX_FP_LEN];
	size_t			 nkeep;
	int			 approve;
	struct alx_approved	*approved;
	size_t			 napproved;
	uint8_t			(*revoked)[ALX_FP_LEN];
	size_t			 nrevoked;
	int64_t			 epoch;
	struct alx_wrap		*wraps;
	size_t			 nwraps;
	uint8_t			*private_ct;
	size_t			 private_len;
	uint8_t			 ekc[ALX_HASH_LEN];	/* commits E_epoch */

	struct alx_signed	 obj;		/* set by sign and open */
	uint8_t			 hash[ALX_HASH_LEN];
};
void	alx_manifest_free(struct alx_manifest *);
/* Deep copy (obj included). */
int	alx_manifest_copy(struct alx_manifest *dst,
	    const struct alx_manifest *src);
/* The body JSON of m as libairlox writes it. */
int	alx_manifest_encode(const struct alx_manifest *, char **json,
	    size_t *len);
/*
 * Sign m with the owner key. For ver 1 this derives m->sid from the body.
 * Fills m->obj and m->hash.
 */
int	alx_manifest_sign(struct alx_manifest *, const struct alx_signkey *);
/*
 * Open a manifest object. Version 1: self-signed by its owner key and
 * hashing to `sid` (the anchor from the invite; NULL only where there is no
 * anchor yet, as when the relay creates the session: m->sid is derived). Later versions: `prev`
 * is the version before it (already opened); the new one must be signed by
 * the same owner key, have ver = prev.ver + 1, prev = prev's hash, the same
 * sid, owner and mode.
 */
int	alx_manifest_open(struct alx_manifest *, const char *json, size_t len,
	    const uint8_t sid[ALX_SID_LEN], const struct alx_manifest *prev);
/* Epoch key wrap in m addressed to `to` (fp text or role name), or NULL. */
const struct alx_wrap *alx_manifest_find_wrap(const struct alx_manifest *,
	    const char *to);
/* Open the epoch key with the kx key that `to` names. */
int	alx_manifest_epoch_key(const struct alx_manifest *, const char *to,
	    const struct alx_kxkey *, uint8_t key[ALX_KEY_LEN]);
/* Seal / open the private part with the epoch key. */
int	alx_manifest_seal_private(struct alx_manifest *,
	    const uint8_t ekey[ALX_KEY_LEN], const struct alx_private *);
int	alx_manifest_open_private(const struct alx_manifest *,
	    const uint8_t ekey[ALX_KEY_LEN], struct alx_private *);
int	alx_manifest_is_revoked(const struct alx_manifest *,
	    const uint8_t fp[ALX_FP_LEN]);
int	alx_manifest_is_kept(const struct alx_manifest *,
	    const uint8_t fp[ALX_FP_LEN]);
const struct alx_approved *alx_manifest_find_approved(
	    const struct alx_manifest *, const uint8_t fp[ALX_FP_LEN]);

/*
 * The owner's side (alx_session.c): create a session, and make the next
 * manifest version. An update is: alx_manifest_next(), then any of
 * approve / unapprove / revoke / rotate_role / new_epoch, then
 * alx_manifest_finish() (which seals the private part for the new version
 * and signs).
 */
struct alx_session_secrets {
	uint8_t	seed[ALX_ROLE_COUNT][ALX_SEED_LEN];	/* [OWNER] = owner */
	uint8_t	epoch_key[ALX_KEY_LEN];
};
struct alx_session_params {
	int	mode;
	int64_t	now;
	int64_t	expires;	/* 0: never */
	int64_t	item_max;
	int64_t	session_max;
	int	approve;
};
/* A participant as the owner knows it (from its certificate). */
struct alx_member {
	uint8_t	fp[ALX_FP_LEN];
	uint8_t	kx[ALX_KX_PK_LEN];
	int	role;
};
void	alx_session_secrets_wipe(struct alx_session_secrets *);
int	alx_session_create(struct alx_manifest *, struct alx_session_secrets *,
	    const struct alx_session_params *, const struct alx_private *);
int	alx_manifest_next(struct alx_manifest *next,
	    const struct alx_manifest *cur);
int	alx_manifest_approve(struct alx_manifest *, const uint8_t fp[ALX_FP_LEN],
	    const char *name, const char *const *labels, size_t nlabels);
int	alx_manifest_unapprove(struct alx_manifest *,
	    const uint8_t fp[ALX_FP_LEN]);
int	alx_manifest_revoke(struct alx_manifest *, const uint8_t fp[ALX_FP_LEN]);
/* New role key (new_seed receives the role's new seed for its invite). */
int	alx_manifest_rotate_role(struct alx_manifest *, int role,
	    uint8_t new_seed[ALX_SEED_LEN], const struct alx_member *,
	    size_t nmembers);
/* New epoch key (ekey receives it), wrapped to owner, roles, kept members. */
int	alx_manifest_new_epoch(struct alx_manifest *, uint8_t ekey[ALX_KEY_LEN],
	    const struct alx_private *, const struct alx_member *,
	    size_t nmembers);
/*
 * Revoke a participant the way that holds: its key revoked, its role
 * rotated (it still holds the role's invite and could join again; every
 * other member of the role is kept), and a new epoch wrapped to everyone
 * else. new_seed and ekey receive the role's new seed and the epoch key.
 */
int	alx_manifest_revoke_member(struct alx_manifest *,
	    const struct alx_member *who, const struct alx_member *members,
	    size_t nmembers, const struct alx_private *,
	    uint8_t new_seed[ALX_SEED_LEN], uint8_t ekey[ALX_KEY_LEN]);
int	alx_manifest_finish(struct alx_manifest *, const struct alx_signkey *,
	    const uint8_t ekey[ALX_KEY_LEN], const struct alx_private *);

/*
 * Certificates (section 5).
 */
enum alx_pkind {
	ALX_PKIND_AGENT = 0,
	ALX_PKIND_PERSON,
	ALX_PKIND_RUNNER
};
struct alx_cert {
	uint8_t			 sid[ALX_SID_LEN];
	int			 role;
	int64_t			 n;
	uint8_t			 pk[ALX_SIGN_PK_LEN];
	uint8_t			 kx[ALX_KX_PK_LEN];
	char			 name[ALX_DISPLAY_MAX + 1];
	int			 kind;
	int64_t			 time;
	uint8_t			 fp[ALX_FP_LEN];	/* fp(pk) */
	struct alx_signed	 obj;
};
void	alx_cert_free(struct alx_cert *);
/* Sign c (fields filled by the caller) with the role key (or owner key). */
int	alx_cert_sign(struct alx_cert *, const struct alx_signkey *rolekey);
/* Open and check against manifest m (signer, role, session, revocation). */
int	alx_cert_open(struct alx_cert *, const char *json, size_t len,
	    const struct alx_manifest *m);
/* Re-check an opened certificate against a newer manifest. */
int	alx_cert_valid(const struct alx_cert *, const struct alx_manifest *m);
const char *alx_pkind_name(int kind);

/*
 * Items (section 7) and their content (section 6).
 */
struct alx_jobtarget {
	int	 is_label;
	char	 name[ALX_NAME_MAX + 1];
	int64_t	 not_after;
	struct alx_wrap *wraps;
	size_t	 nwraps;
};
struct alx_item {
	uint8_t			 sid[ALX_SID_LEN];
	uint8_t			 id[ALX_ID_LEN];
	char			 kind[ALX_KIND_MAX + 1];
	uint8_t			 author[ALX_FP_LEN];
	int64_t			 seq;
	int			 has_prev;
	uint8_t			 prev[ALX_HASH_LEN];
	int64_t			 time;
	int64_t			 mv;
	int64_t			 epoch;
	uint8_t			(*to)[ALX_FP_LEN];
	size_t			 nto;
	int			 has_reply_to;
	uint8_t			 reply_to[ALX_ID_LEN];
	uint8_t			*meta_ct;
	size_t			 meta_len;
	uint8_t			 kc[ALX_HASH_LEN];	/* commits K_item */
	int64_t			 size;
	uint8_t			(*chunks)[ALX_HASH_LEN];
	size_t			 nchunks;
	int			 has_job;
	struct alx_jobtarget	 job;

	struct alx_signed	 obj;
	uint8_t			 hash[ALX_HASH_LEN];
};
void	alx_item_free(struct alx_item *);
/* Number of chunks for a payload of `size` bytes. */
size_t	alx_chunk_count(int64_t size);
/* Item keys: member-readable (from the epoch key) or random (jobs). */
int	alx_item_key_epoch(const uint8_t ekey[ALX_KEY_LEN],
	    const uint8_t id[ALX_ID_LEN], uint8_t kitem[ALX_KEY_LEN]);
/*
 * The key of a reply to a job (a result, progress, or a report replying to
 * it; section 6): from the job's item key, so exactly the job's readers
 * (the owner, its author and the runners it was wrapped to) derive it.
 * `id` is the reply's own id.
 */
int	alx_item_key_reply(const uint8_t kjob[ALX_KEY_LEN],
	    const uint8_t id[ALX_ID_LEN], uint8_t kitem[ALX_KEY_LEN]);
/*
 * The key of a file sent with a job (kind input, posted before the job):
 * from the job's item key too, for the runners the job goes to; `id` is
 * the input item's own id.
 */
int	alx_item_key_input(const uint8_t kjob[ALX_KEY_LEN],
	    const uint8_t id[ALX_ID_LEN], uint8_t kitem[ALX_KEY_LEN]);
/*
 * Key commitment (section 6): the envelope signs kc = HKDF(K_item, "",
 * "airlox/v1/commit", 32), and the manifest ekc = HKDF(E_epoch, "",
 * "airlox/v1/epoch-commit", 32). AES-GCM does not commit to its key, so
 * every function below that opens or seals content under a key first
 * checks the key against the signed commitment (ALX_ERR_KEY_COMMIT): two
 * readers that open an item at all open it with the same key.
 */
int	alx_item_commit(const uint8_t kitem[ALX_KEY_LEN],
	    uint8_t kc[ALX_HASH_LEN]);
int	alx_item_check_key(const struct alx_item *,
	    const uint8_t kitem[ALX_KEY_LEN]);
int	alx_epoch_commit(const uint8_t ekey[ALX_KEY_LEN],
	    uint8_t ekc[ALX_HASH_LEN]);
int	alx_manifest_check_epoch_key(const struct alx_manifest *,
	    const uint8_t ekey[ALX_KEY_LEN]);
/*
 * Seal the meta JSON into it->meta_ct (sid, id, author, kind set first);
 * sets it->kc, the commitment to kitem, which alx_chunk_seal() then
 * requires.
 */
int	alx_item_seal_meta(struct alx_item *, const uint8_t kitem[ALX_KEY_LEN],
	    const char *meta, size_t len);
/* Open the meta into a new NUL-terminated string. */
int	alx_item_open_meta(const struct alx_item *,
	    const uint8_t kitem[ALX_KEY_LEN], char **meta, size_t *len);
/*
 * Seal chunk `index` of the item's payload: ct receives len + 16 bytes.
 * `len` must be ALX_CHUNK_SIZE except for the final chunk (1..C).
 */
int	alx_chunk_seal(const struct alx_item *, const uint8_t kitem[ALX_KEY_LEN],
	    uint64_t index, const uint8_t *pt, size_t len, uint8_t *ct);
/*
 * Check chunk `index` against the hash in the signed envelope and open it;
 * pt receives ctlen - 16 bytes, and nothing is written unless both the hash
 * and the tag check.
 */
int	alx_chunk_open(const struct alx_item *, const uint8_t kitem[ALX_KEY_LEN],
	    uint64_t index, const uint8_t *ct, size_t ctlen, uint8_t *pt);
/* Relay side: does this ciphertext match chunk `index`'s hash and size? */
int	alx_chunk_check(const struct alx_item *, uint64_t index,
	    const uint8_t *ct, size_t ctlen);
/* Sign the item (fields, meta_ct and chunk hashes set by the caller). */
int	alx_item_sign(struct alx_item *, const struct alx_signkey *author);
/*
 * Open an item object: the caller trusts `author_pk` (from a valid
 * certificate of the signer, found by fp of the object's key). Checks the
 * signature, then the body: sid, author = fp(author_pk), sizes, lists,
 * chunk count, job target.
 */
int	alx_item_open(struct alx_item *, const char *json, size_t len,
	    const uint8_t sid[ALX_SID_LEN],
	    const uint8_t author_pk[ALX_SIGN_PK_LEN]);
/*
 * The same for a relay that learns who posted an item from the item
 * itself (protocol.md section 11: an item post carries no request
 * signature): the signature is checked with the key the object names,
 * which is copied to `key_out`. Nothing is trusted yet: the caller must
 * then find a participant by it->author whose certificate's key equals
 * `key_out` (constant time) and is valid, and refuse the item otherwise.
 */
int	alx_item_open_claimed(struct alx_item *, const char *json,
	    size_t len, const uint8_t sid[ALX_SID_LEN],
	    uint8_t key_out[ALX_SIGN_PK_LEN]);
/*
 * Per-author order: `last_seq` and `last_hash` are what the reader has
 * seen from that author (0 and NULL before the first item).
 */
int	alx_item_check_chain(const struct alx_item *, int64_t last_seq,
	    const uint8_t *last_hash);
/*
 * The item against the manifest it acts on: mv must be m's version
 * (ALX_ERR_STALE_MANIFEST), the epoch m's epoch, and size within item_max
 * (ALX_ERR_TOO_LARGE). The relay and every reader check this.
 */
int	alx_item_check_manifest(const struct alx_item *,
	    const struct alx_manifest *);
/* A job past its not-after time is ALX_ERR_EXPIRED. */
int	alx_item_check_expiry(const struct alx_item *, int64_t now);
/* Job key: the wrap to `to` (fp text, or "owner") opened with `me`. */
int	alx_item_job_key(const struct alx_item *, const char *to,
	    const struct alx_kxkey *me, uint8_t kitem[ALX_KEY_LEN]);
/* 1 when the item is addressed to fp (in `to`). */
int	alx_item_is_to(const struct alx_item *, const uint8_t fp[ALX_FP_LEN]);

/*
 * The rules of protocol.md sections 6, 8 and 10 beyond signatures, chains
 * and manifest versions (alx_rules.c); the relay and every reader check
 * them.
 *
 * What is known of the job an item answers (the job its reply_to names):
 * the relay's records, or a reader's view of the log. `runners` are the
 * fingerprints the job's key is wrapped to (the author's own among them);
 * only the relay knows claims (claims_known).
 */
struct alx_jobref {
	uint8_t		  author[ALX_FP_LEN];
	int		  is_label;
	const uint8_t	(*runners)[ALX_FP_LEN];
	size_t		  nrunners;
	int		  claims_known;
	int		  claimed;
	uint8_t		  claimed_by[ALX_FP_LEN];
	int		  has_result;
};
/* 1 for a kind that answers a job: result, progress, cancel, and a
 * report with reply_to. */
int	alx_item_answers_job(const struct alx_item *);
/*
 * A job's wraps: exactly one to "owner" (ALX_ERR_NOT_RECIPIENT: the owner
 * could not read it), the others to fingerprints (a role's wrap is
 * ALX_ERR_NOT_ALLOWED), none twice (ALX_ERR_INVALID).
 */
int	alx_job_check_wraps(const struct alx_item *);
/* The fingerprints a job's key is wrapped to; *out is malloc'd (or NULL). */
int	alx_job_wrap_fps(const struct alx_item *, uint8_t (**out)[ALX_FP_LEN],
	    size_t *n);
/*
 * An item by `author` under manifest m: the permission matrix; a job's
 * wraps; an answer to a job (`job`: NULL when its reply_to names no known
 * job, ALX_ERR_NOT_FOUND) only by an approved runner the job's key was
 * wrapped to (ALX_ERR_NOT_RECIPIENT; with claims known, the claimant:
 * ALX_ERR_CLAIMED), one result per job (ALX_ERR_EXISTS), and a cancel only
 * by the job's author or the owner (ALX_ERR_WRONG_ROLE).
 */
int	alx_item_check_rules(const struct alx_manifest *m,
	    const struct alx_cert *author, const struct alx_item *it,
	    const struct alx_jobref *job);
/* 1 when fp is an approved runner of m (any runner when approval is off). */
int	alx_manifest_runner_approved(const struct alx_manifest *,
	    const uint8_t fp[ALX_FP_LEN]);
struct alx_announce;
/*
 * 1 when runner fp serves a job's target (a name, or a label): with
 * approval, the name and labels of its approval in m; without, those of
 * its own announcement `ann` (NULL: none known). Revoked runners serve
 * nothing.
 */
int	alx_runner_serves(const struct alx_manifest *m,
	    const uint8_t fp[ALX_FP_LEN], const struct alx_announce *ann,
	    int is_label, const char *name);

/*
 * Small signed objects: claim, announce, close, code-open, code-fail.
 */
struct alx_claim {
	uint8_t	 sid[ALX_SID_LEN];
	uint8_t	 job[ALX_ID_LEN];
	uint8_t	 runner[ALX_FP_LEN];
	int64_t	 time;
	struct alx_signed obj;
};
int	alx_claim_sign(struct alx_claim *, const struct alx_signkey *);
int	alx_claim_open(struct alx_claim *, const char *json, size_t len,
	    const uint8_t sid[ALX_SID_LEN], const uint8_t pk[ALX_SIGN_PK_LEN]);
void	alx_claim_free(struct alx_claim *);

struct alx_announce {
	uint8_t	  sid[ALX_SID_LEN];
	uint8_t	  runner[ALX_FP_LEN];
	char	  name[ALX_NAME_MAX + 1];
	char	**labels;
	size_t	  nlabels;
	int64_t	  slots;
	unsigned  kinds;		/* ALX_JOBKIND_* */
	char	  sandbox[16];
	char	  version[32];
	int	  network;	/* started with --network: full network possible */
	int64_t	  time;
	struct alx_signed obj;
};
int	alx_announce_sign(struct alx_announce *, const struct alx_signkey *);
int	alx_announce_open(struct alx_announce *, const char *json, size_t len,
	    const uint8_t sid[ALX_SID_LEN], const uint8_t pk[ALX_SIGN_PK_LEN]);
void	alx_announce_free(struct alx_announce *);

/* close, code-open, code-fail share one small shape. */
struct alx_notice {
	char	 type[ALX_TYPE_MAX + 1];	/* "close", "code-open", "code-fail" */
	uint8_t	 sid[ALX_SID_LEN];
	int	 role;		/* code-open */
	int64_t	 nameplate;	/* code-fail */
	int64_t	 time;
	struct alx_signed obj;
};
int	alx_notice_sign(struct alx_notice *, const struct alx_signkey *);
int	alx_notice_open(struct alx_notice *, const char *json, size_t len,
	    const char *type, const uint8_t sid[ALX_SID_LEN],
	    const uint8_t pk[ALX_SIGN_PK_LEN]);
void	alx_notice_free(struct alx_notice *);

/*
 * Signed requests (section 9).
 */
#define ALX_REQ_HDR_MAX	256
struct alx_reqauth {
	uint8_t	fp[ALX_FP_LEN];
	int64_t	time;
	uint8_t	sig[ALX_SIG_LEN];
};
/* The Authorization header value ("Airlox v=1,key=...,t=...,sig=..."). */
int	alx_req_sign(char out[ALX_REQ_HDR_MAX], const struct alx_signkey *,
	    const char *host, const char *method, const char *path,
	    const void *body, size_t bodylen, int64_t now);
/* Same, with the body's SHA-256 already computed (streamed bodies). */
int	alx_req_sign_hash(char out[ALX_REQ_HDR_MAX], const struct alx_signkey *,
	    const char *host, const char *method, const char *path,
	    const uint8_t bodyhash[ALX_HASH_LEN], int64_t now);
int	alx_req_parse(struct alx_reqauth *, const char *header);
/*
 * Verify with the key of the participant that ra->fp names: checks the
 * time against `now` (ALX_ERR_CLOCK_SKEW), then the signature.
 */
int	alx_req_verify(const struct alx_reqauth *,
	    const uint8_t pk[ALX_SIGN_PK_LEN], const char *host,
	    const char *method, const char *path,
	    const uint8_t bodyhash[ALX_HASH_LEN], int64_t now);

/*
 * Jobs: status and refusal vocabulary, job and result meta (section 8).
 */
enum alx_job_status {
	ALX_JOB_COMPLETED = 0,
	ALX_JOB_TIMEOUT,
	ALX_JOB_KILLED_OOM,
	ALX_JOB_CANCELLED,
	ALX_JOB_REFUSED,
	ALX_JOB_INTERRUPTED,
	ALX_JOB_LOST,		/* a client's verdict only */
	ALX_JOB_KILLED_DISK,	/* the workspace quota was exceeded */
	ALX_JOB_STATUS_COUNT
};
const char	*alx_job_status_name(int);
int		 alx_job_status_parse(const char *, int *);
/*
 * Refusal reasons are the names of these error codes: not_signed,
 * not_allowed, runner_busy, expired, replayed, revoked, not_recipient,
 * unsupported_version, bad_path, tree_mismatch, too_large.
 */
/* The reason a code stands for, or NULL when it is none of them. */
const char	*alx_refusal_name(int err);
/* 0 (ALX_OK) for a refusal reason of the list, else ALX_ERR_INVALID. */
int		 alx_refusal_valid(const char *);

/*
 * A job's id as a runner names it on the machine (the job item's id in
 * base64url, or a name of its own such as "verify"): 1 to ALX_JOB_ID_MAX
 * of A-Z, a-z, 0-9, '_', '-' and '.', not '.' first, so that it is safe
 * as a file name and in the job's environment (AIRLOX_JOB). 1 when it is.
 */
#define ALX_JOB_ID_MAX		64
int		 alx_job_id_valid(const char *);

/* Job kinds: "shell" and "python" <-> one ALX_JOBKIND_* bit. */
const char	*alx_job_kind_name(unsigned kind);
int		 alx_job_kind_parse(const char *, unsigned *kind);

/* Bounds of job_limits (section 8.1). */
#define ALX_JOB_TIMEOUT_MAX	(30 * 24 * 3600)	/* seconds */
#define ALX_JOB_MEMORY_MAX	(1024 * 1024)		/* MiB */
#define ALX_NET_ALLOW_MAX	256	/* network allow list entries */
#define ALX_DOMAIN_MAX		253	/* without the leading dot */

/*
 * Check a job's asked limits and kind (one ALX_JOBKIND_* bit) against the
 * session's limits: ALX_ERR_NOT_ALLOWED for a kind the session does not
 * allow, a timeout or memory above the session's, or a network mode wider
 * than the session's (none < allow < full). A timeout or memory of 0 means
 * "not asked" (the session's value applies); negative is ALX_ERR_INVALID.
 */
int	alx_job_limits_check(const struct alx_job_limits *session,
	    unsigned kind, int64_t timeout_s, int64_t memory_mb, int net_mode);
/*
 * Network allow list entry: a lower-case DNS name of at least two labels
 * (letters, digits, '-'; labels of 1..63 characters that neither start nor
 * end with '-'; at most 253 characters), optionally with one leading dot
 * (".d" allows d and every name under it). No IP literals (an all-numeric
 * last label), ports, paths, wildcards, upper case or trailing dot.
 * 0 or ALX_ERR_BAD_DOMAIN.
 */
int	alx_domain_valid(const char *);
/*
 * Normalise an allow list. Every entry must be valid (else
 * ALX_ERR_BAD_DOMAIN, list unchanged). Reorders list so that
 * list[0 .. *kept) holds the entries kept, in their original order, and
 * list[*kept .. n) the ones dropped: repeats of an earlier entry, and
 * entries that a broader ".domain" in the list covers. The caller frees
 * the dropped entries it owns.
 */
int	alx_domain_list_normalize(char **list, size_t n, size_t *kept);
/* 0 when host (a lower-case DNS name) is allowed by the list, else
 * ALX_ERR_NOT_ALLOWED. */
int	alx_domain_allowed(char *const *list, size_t n, const char *host);

#endif /* AIRLOX_PROTO_H */
