/*
 * alx_int.h: functions shared between libairlox's own files; not part of
 * the installed API.
 */
#ifndef ALX_INT_H
#define ALX_INT_H

#include "airlox/json.h"
#include "airlox/proto.h"

/* alx_wrap.c */
/* alx_wrap_seal() with a given ephemeral secret key (test vectors). */
int	alx_wrap_seal_eph(struct alx_wrap *, const char *to,
	    const uint8_t rpk[ALX_KX_PK_LEN], const void *ctx, size_t ctxlen,
	    const uint8_t key[ALX_KEY_LEN], const uint8_t esk[ALX_KX_SK_LEN]);
int	alx_wrap_decode(const struct alx_json *, int tok, struct alx_wrap *);
int	alx_wraps_decode(const struct alx_json *, int arr, struct alx_wrap **,
	    size_t *);
void	alx_jw_wraps(struct alx_jw *, const char *key,
	    const struct alx_wrap *, size_t);

/* alx_signed.c */
int	alx_strlist_decode(const struct alx_json *, int arr, size_t max,
	    size_t maxlen, int (*valid)(const char *), char ***out, size_t *);
void	alx_be64(uint8_t out[8], uint64_t);
/*
 * An array member of fixed-size base64url values (fingerprints, keys,
 * hashes): at most max, decoded into one allocation of each-byte slots.
 */
int	alx_b64list_decode(const struct alx_json *, int obj, const char *key,
	    size_t each, size_t max, uint8_t **out, size_t *np);
/* Start a body decode: parse, check object and v = 1. */
int	alx_body_begin(struct alx_json **, const uint8_t *body, size_t len,
	    size_t max);
/* The same for a body type whose v is `version` (items, manifests). */
int	alx_body_begin_v(struct alx_json **, const uint8_t *body, size_t len,
	    size_t max, int64_t version);
/* Fixed-size base64url member of a decoded body that must equal `want`. */
int	alx_body_sid(const struct alx_json *, const uint8_t want[ALX_SID_LEN]);

#endif /* ALX_INT_H */
