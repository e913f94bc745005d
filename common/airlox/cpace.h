/*
 * airlox/cpace.h: the CPace balanced PAKE, suite CPACE-RISTR255-SHA512.
 *
 * Implements draft-irtf-cfrg-cpace-21 (April 2026; the newest version in
 * github.com/cfrg/draft-irtf-cfrg-cpace, tag draft-irtf-cfrg-cpace-21) with
 * the group environment G_Ristretto255 and H = SHA-512, on libsodium:
 *
 *	generator_string = lv_cat(DSI, PRS, zero_bytes(len_zpad), CI, sid)
 *	    DSI = "CPaceRistretto255", len_zpad = max(0, 128 - 1
 *	    - len(prepend_len(PRS)) - len(prepend_len(DSI)))
 *	g   = ristretto255_from_hash(SHA-512(generator_string))
 *	Y   = y * g (y uniform in [1, L-1])
 *	msg = lv_cat(Y, AD)		(what each party sends)
 *	K   = y * Y_peer; abort (ALX_ERR_PAKE) when Y_peer does not decode
 *	      or K is the identity
 *	ISK = SHA-512(lv_cat("CPaceRistretto255_ISK", sid, K) || transcript)
 *	transcript_ir = lv_cat(Ya, ADa) || lv_cat(Yb, ADb)     (A initiated)
 *	transcript_oc = "oc" || larger msg || smaller msg      (symmetric)
 *
 * lv_cat() prefixes each string with its length in LEB128. The draft leaves
 * the wire format to the application; airlox sends msg = lv_cat(Y, AD),
 * which is exactly the party's half of the transcript, and a received
 * message must use the canonical (shortest) length encoding, carry a 32-byte
 * Y and nothing after AD.
 *
 * Key confirmation (airlox's own, on top of the draft, see
 * alx_cpace_confirm()): the draft makes it optional and suggests a MAC keyed
 * from ISK. Here, with HKDF-SHA-256 (RFC 5869), salt "airlox/v1/cpace":
 *
 *	k_init = HKDF(ISK, info "airlox/v1/cpace confirm initiator")
 *	k_resp = HKDF(ISK, info "airlox/v1/cpace confirm responder")
 *	session_key = HKDF(ISK, info "airlox/v1/cpace session key")
 *	tag_init = HMAC-SHA-256(k_init, "airlox/v1/cpace initiator confirms")
 *	tag_resp = HMAC-SHA-256(k_resp, "airlox/v1/cpace responder confirms")
 *
 * Each side sends its own tag and checks the peer's with
 * alx_cpace_check_tag() (constant time) before using session_key. The tags
 * are over fixed labels, not over the messages, because ISK already hashes
 * sid, K and the whole transcript: equal ISKs mean equal views of PRS, CI,
 * sid, Ya, ADa, Yb and ADb. Distinct keys per direction stop a reflected tag
 * from passing. The session key never equals a confirmation key.
 *
 * How airlox uses it for transfer codes (policy of the callers, not of this
 * module):
 *	- the code's creator is the responder, the claimant the initiator (the
 *	  claimant speaks first);
 *	- PRS = the full code text as formatted by alx_code_format()
 *	  ("7-guitar-orbit"), after alx_code_parse() normalised it;
 *	- CI  = "airlox/v1/code" || relay host name (the prefix is fixed, so
 *	  plain concatenation is unambiguous);
 *	- sid = the relay's session id, the same bytes on both sides;
 *	- the role is bound through AD: ADa = "airlox/v1/claimant",
 *	  ADb = "airlox/v1/creator"; both are in the initiator-responder
 *	  transcript, so a party that believes it has the other role derives
 *	  another ISK. The receiver checks the peer's AD equals the expected
 *	  role label (alx_cpace_finish() returns the peer's AD for this).
 *
 * All functions return 0 or a negative ALX_ERR_* code; secrets are wiped.
 */
#ifndef AIRLOX_CPACE_H
#define AIRLOX_CPACE_H

#include <stddef.h>
#include <stdint.h>

#define ALX_CPACE_DSI		"CPaceRistretto255"
#define ALX_CPACE_POINT_LEN	32	/* encoded ristretto255 element */
#define ALX_CPACE_SCALAR_LEN	32	/* little-endian scalar */
#define ALX_CPACE_ISK_LEN	64	/* SHA-512 */
#define ALX_CPACE_HASH_BLOCK	128	/* SHA-512 input block, s_in_bytes */
#define ALX_CPACE_TAG_LEN	32	/* HMAC-SHA-256 */
#define ALX_CPACE_KEY_LEN	32	/* session key */

/* Input bounds (bytes); longer inputs fail with ALX_ERR_TOO_LARGE. */
#define ALX_CPACE_PRS_MAX	256
#define ALX_CPACE_CI_MAX	512
#define ALX_CPACE_SID_MAX	256
#define ALX_CPACE_AD_MAX	512

/* Longest message: 1 + 32 + 2 (LEB128 of <= 512) + AD. */
#define ALX_CPACE_MSG_MAX	(1 + ALX_CPACE_POINT_LEN + 2 + ALX_CPACE_AD_MAX)
/*
 * Longest generator string: DSI, PRS and padding fill max(128, 21 + PRS)
 * bytes, then CI and sid with their lengths (2 bytes each at most).
 */
#define ALX_CPACE_GENSTR_MAX	(ALX_CPACE_HASH_BLOCK + ALX_CPACE_PRS_MAX \
	    + ALX_CPACE_CI_MAX + ALX_CPACE_SID_MAX + 16)
/* Longest transcript: "oc" and two messages. */
#define ALX_CPACE_TRANSCRIPT_MAX	(2 + 2 * ALX_CPACE_MSG_MAX)

/* Roles. Initiator and responder use transcript_ir, symmetric transcript_oc. */
#define ALX_CPACE_RESPONDER	0
#define ALX_CPACE_INITIATOR	1
#define ALX_CPACE_SYMMETRIC	2

/* State of one party between its message and the peer's. */
struct alx_cpace {
	int	 role;
	int	 started;
	uint8_t	 y[ALX_CPACE_SCALAR_LEN];	/* secret scalar */
	uint8_t	 sid[ALX_CPACE_SID_MAX];
	size_t	 sidlen;
	uint8_t	 msg[ALX_CPACE_MSG_MAX];	/* own lv_cat(Y, AD) */
	size_t	 msglen;
	uint8_t	 peer_ad[ALX_CPACE_AD_MAX];	/* set by alx_cpace_finish() */
	size_t	 peer_adlen;
};

/*
 * Start a run: derive the generator from PRS, CI and sid, draw the secret
 * scalar and write this party's message (up to ALX_CPACE_MSG_MAX bytes) to
 * msg, its length to *msglen. role is ALX_CPACE_INITIATOR (A, the party
 * whose message comes first in the transcript), ALX_CPACE_RESPONDER (B) or
 * ALX_CPACE_SYMMETRIC. ad is this party's associated data (ADa or ADb, sent
 * in clear); ci, sid and ad may be empty. *msglen is the size of msg on
 * entry.
 */
int	alx_cpace_start(struct alx_cpace *, int role, const uint8_t *prs,
	    size_t prslen, const uint8_t *ci, size_t cilen, const uint8_t *sid,
	    size_t sidlen, const uint8_t *ad, size_t adlen, uint8_t *msg,
	    size_t *msglen);
/*
 * The same with a given secret scalar y (canonical, non-zero), for test
 * vectors; applications use alx_cpace_start().
 */
int	alx_cpace_start_scalar(struct alx_cpace *, int role,
	    const uint8_t y[ALX_CPACE_SCALAR_LEN], const uint8_t *prs,
	    size_t prslen, const uint8_t *ci, size_t cilen, const uint8_t *sid,
	    size_t sidlen, const uint8_t *ad, size_t adlen, uint8_t *msg,
	    size_t *msglen);
/*
 * Process the peer's message and derive ISK. ALX_ERR_PAKE when the message
 * is malformed (ALX_ERR_PAKE too: wrong length, bad LEB128), the point does
 * not decode or the shared point is the identity; ALX_ERR_INVALID when the
 * run was not started. The secret scalar is wiped in every case: a state
 * finishes at most once. On success the peer's AD is in peer_ad.
 */
int	alx_cpace_finish(struct alx_cpace *, const uint8_t *peer_msg,
	    size_t peer_len, uint8_t isk[ALX_CPACE_ISK_LEN]);
void	alx_cpace_wipe(struct alx_cpace *);

/*
 * Key confirmation and session key from ISK (see the top of this file).
 * role is ALX_CPACE_INITIATOR or ALX_CPACE_RESPONDER (a symmetric run must
 * give its parties distinct roles here, e.g. by comparing their messages).
 * my_tag is sent to the peer, expected_peer_tag is what the peer must send.
 */
int	alx_cpace_confirm(const uint8_t isk[ALX_CPACE_ISK_LEN], int role,
	    uint8_t my_tag[ALX_CPACE_TAG_LEN],
	    uint8_t expected_peer_tag[ALX_CPACE_TAG_LEN],
	    uint8_t session_key[ALX_CPACE_KEY_LEN]);
/* 0 when the tags are equal (constant time), ALX_ERR_PAKE otherwise. */
int	alx_cpace_check_tag(const uint8_t expected[ALX_CPACE_TAG_LEN],
	    const uint8_t *got, size_t gotlen);

/*
 * The draft's building blocks, exported for the test vectors and fuzzing.
 *
 * alx_cpace_lv_add: append prepend_len(data) at buf[*pos], buf holding cap
 * bytes; ALX_ERR_TOO_LARGE (buffer unchanged) when it does not fit.
 */
int	alx_cpace_lv_add(uint8_t *buf, size_t cap, size_t *pos,
	    const void *data, size_t len);
/* generator_string(DSI, PRS, CI, sid, 128) into out (cap bytes). */
int	alx_cpace_generator_string(uint8_t *out, size_t cap, size_t *outlen,
	    const uint8_t *prs, size_t prslen, const uint8_t *ci, size_t cilen,
	    const uint8_t *sid, size_t sidlen);
/* calculate_generator: encoded g; hash (may be NULL) gets SHA-512 of the
 * generator string. */
int	alx_cpace_generator(uint8_t g[ALX_CPACE_POINT_LEN],
	    uint8_t hash[ALX_CPACE_ISK_LEN], const uint8_t *prs, size_t prslen,
	    const uint8_t *ci, size_t cilen, const uint8_t *sid, size_t sidlen);
/* scalar_mult_vfy(y, X): ALX_ERR_PAKE when X does not decode or y*X = I. */
int	alx_cpace_scalar_mult_vfy(uint8_t out[ALX_CPACE_POINT_LEN],
	    const uint8_t y[ALX_CPACE_SCALAR_LEN],
	    const uint8_t x[ALX_CPACE_POINT_LEN]);
/*
 * Split a message lv_cat(Y, AD) strictly: Y points into msg, *ad and *adlen
 * to the AD bytes. ALX_ERR_PAKE when it is not exactly that.
 */
int	alx_cpace_msg_parse(const uint8_t *msg, size_t len, const uint8_t **y,
	    const uint8_t **ad, size_t *adlen);
/* transcript_ir (role != ALX_CPACE_SYMMETRIC) or transcript_oc of msga and
 * msgb (each an lv_cat(Y, AD)). */
int	alx_cpace_transcript(uint8_t *out, size_t cap, size_t *outlen,
	    int symmetric, const uint8_t *msga, size_t la, const uint8_t *msgb,
	    size_t lb);
/* Optional sid_output = SHA-512("CPaceSidOutput" || transcript). */
int	alx_cpace_sid_output(uint8_t out[ALX_CPACE_ISK_LEN], int symmetric,
	    const uint8_t *msga, size_t la, const uint8_t *msgb, size_t lb);

#endif /* AIRLOX_CPACE_H */
