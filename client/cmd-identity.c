/*
 * cmd-identity.c: "airlox identity": show the user's lasting owner
 * identity, made on first use (client-identity.c). Its public key is the
 * line a relay operator adds to airlox-relayd --owner-keys.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "airlox.h"
#include "client.h"

static const struct cmd_opt cmd_identity_opts[] = {
	{ NULL, NULL, 0, NULL }
};

static int
cmd_identity_exec(struct client_ctx *ctx)
{
	struct alx_signkey	 sk;
	struct alx_jw		 jw;
	char			 pk[ALX_B64_ENCLEN(ALX_SIGN_PK_LEN) + 1];
	char			 fp[ALX_FP_STRLEN + 1], path[1024];
	int			 r, created = 0;

	if ((r = identity_path(path, sizeof(path))) != 0)
		return out_fail(r, "no configuration directory for the "
		    "identity");
	if ((r = identity_load(&sk)) == ALX_ERR_NOT_FOUND) {
		if ((r = identity_create(&sk)) == 0)
			created = 1;
		else if (r == ALX_ERR_EXISTS)
			r = identity_load(&sk);
	}
	if (r == ALX_ERR_FORBIDDEN)
		return out_fail(r, "%s may be read by others: it is not used; "
		    "make it mode 0600 (or remove it for a new identity)", path);
	if (r != 0)
		return out_fail(r, "cannot read or make the identity in %s",
		    path);
	alx_b64_encode(pk, sk.pk, ALX_SIGN_PK_LEN);
	alx_fingerprint_str(fp, sk.pk, ALX_SIGN_PK_LEN);
	alx_sign_wipe(&sk);
	if (ctx->json) {
		out_obj_begin(&jw);
		alx_jw_kstr(&jw, "event", "identity");
		alx_jw_kstr(&jw, "key", pk);
		alx_jw_kstr(&jw, "fp", fp);
		alx_jw_kstr(&jw, "file", path);
		alx_jw_kbool(&jw, "created", created);
		return out_obj_end(&jw) == 0 ? EXIT_OK : EXIT_FAIL;
	}
	if (created)
		printf("made a new identity in %s\n", path);
	printf("owner key  %s\nfingerprint %s\n\nA relay that creates sessions "
	    "for known owners only lists this key\nin its --owner-keys file; "
	    "session create and machine add sign with it.\n", pk, fp);
	return EXIT_OK;
}

const struct cmd_entry cmd_identity_entry = {
	"identity", "", 0, 0, cmd_identity_opts, 0, cmd_identity_exec,
	"show this user's lasting owner key (made on first use) for relays "
	"that create sessions for known owners only"
};
