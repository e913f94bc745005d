/*
 * client-identity.c: the user's lasting owner identity.
 *
 * Every session has an owner key of its own (derived from the session's
 * owner seed, which its owner invites carry), so it cannot tell a relay
 * who the owner is. A relay that lets only known owners create sessions
 * (airlox-relayd --owner-keys) needs a key that stays: this one, an
 * Ed25519 key made once and kept in $XDG_CONFIG_HOME/airlox/identity
 * (else ~/.config/airlox/identity), the folder 0700, the file 0600.
 * `airlox identity` makes it and shows its public key; from then on
 * session create and machine add sign their POST /v1/sessions with it.
 * Without the file nothing is signed, so relays cannot link an owner's
 * sessions unless the owner chose to be known.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlox.h"
#include "client.h"

#define IDENTITY_FILE_MAX	1024

/* $XDG_CONFIG_HOME/airlox (else ~/.config/airlox), made 0700. */
static int
identity_dir(char *out, size_t len)
{
	return cache_xdg_dir(out, len, "XDG_CONFIG_HOME", ".config");
}

int
identity_path(char *out, size_t len)
{
	char	dir[950];
	int	r;

	if ((r = identity_dir(dir, sizeof(dir))) != 0)
		return r;
	if ((size_t)snprintf(out, len, "%s/identity", dir) >= len)
		return ALX_ERR_TOO_LARGE;
	return 0;
}

int
identity_load(struct alx_signkey *sk)
{
	struct alx_buf	 b;
	struct alx_json	*j = NULL;
	struct stat	 st;
	uint8_t		 seed[ALX_SIGN_SEED_LEN];
	char		 path[1024];
	int64_t		 v;
	int		 r;

	memset(sk, 0, sizeof(*sk));
	if ((r = identity_path(path, sizeof(path))) != 0)
		return r;
	if ((r = alxs_cache_read_file(path, &b)) != 0) {
		alx_buf_free(&b);
		return r;
	}
	/* A secret others may read is not used: it may not be ours only. */
	if (stat(path, &st) != 0 || (st.st_mode & 077) != 0 ||
	    st.st_uid != geteuid())
		r = ALX_ERR_FORBIDDEN;
	else if ((r = alx_json_parse(&j, (const char *)b.data, b.len,
	    NULL)) == 0 &&
	    (r = alx_json_get_int(j, 0, "v", &v, 1, 1)) == 0 &&
	    (r = alx_json_get_b64(j, 0, "sign", seed, sizeof(seed))) == 0)
		r = alx_sign_from_seed(sk, seed);
	alx_json_free(j);
	alx_wipe(b.data, b.len);
	alx_buf_free(&b);
	alx_wipe(seed, sizeof(seed));
	return r;
}

int
identity_create(struct alx_signkey *sk)
{
	struct alx_jw	 jw;
	uint8_t		 seed[ALX_SIGN_SEED_LEN];
	char		 path[1024], *s = NULL;
	size_t		 len;
	int		 r;

	if ((r = identity_path(path, sizeof(path))) != 0)
		return r;
	if ((r = alx_sign_keygen(sk)) != 0)
		return r;
	alx_sign_seed(sk, seed);
	alx_jw_init(&jw, IDENTITY_FILE_MAX);
	alx_jw_obj_begin(&jw);
	alx_jw_kint(&jw, "v", 1);
	alx_jw_kb64(&jw, "sign", seed, sizeof(seed));
	alx_jw_obj_end(&jw);
	alx_wipe(seed, sizeof(seed));
	if ((r = alx_jw_finish(&jw, &s, &len)) == 0) {
		/* Never over one that exists (two at once: one wins). */
		r = alxs_cache_write_new(path, s, len);
		alx_wipe(s, len);
		free(s);
	}
	alx_jw_free(&jw);
	if (r != 0)
		alx_sign_wipe(sk);
	return r;
}
