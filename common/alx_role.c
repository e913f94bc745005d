/*
 * alx_role.c: roles, modes, the permission matrix, names, and the keys
 * derived from owner and role seeds (protocol.md sections 1, 2 and 10).
 */
#include <string.h>

#include "airlox/err.h"
#include "airlox/json.h"
#include "airlox/crypto.h"
#include "airlox/proto.h"

static const char *alx_role_names[ALX_ROLE_COUNT] = {
	"owner", "sender", "observer", "runner"
};

const char *
alx_role_name(int role)
{
	if (role < 0 || role >= ALX_ROLE_COUNT)
		return "unknown";
	return alx_role_names[role];
}

int
alx_role_parse(const char *s, int *role)
{
	int	i;

	for (i = 0; i < ALX_ROLE_COUNT; i++) {
		if (strcmp(s, alx_role_names[i]) == 0) {
			*role = i;
			return ALX_OK;
		}
	}
	return ALX_ERR_WRONG_ROLE;
}

const char *
alx_mode_name(int mode)
{
	return mode == ALX_MODE_EXECUTE ? "execute" : "chat";
}

/*
 * The permission matrix for posting items: one row per kind. A kind is
 * member-readable (sealed under the epoch key), or sealed to a job's
 * readers: a job itself (its own wraps), and the replies to a job (its
 * result and progress, and a report that replies to it), under a key
 * derived from the job's (alx_item_key_reply).
 */
struct alx_kindperm {
	const char	*kind;
	unsigned	 roles;		/* bit per role */
	int		 member_readable;
	int		 job_reply;	/* with reply_to: the job's readers */
};
#define R(x)	(1U << (x))
static const struct alx_kindperm alx_kindperms[] = {
	{ "text",	R(ALX_ROLE_OWNER) | R(ALX_ROLE_SENDER),	1, 0 },
	{ "file",	R(ALX_ROLE_OWNER) | R(ALX_ROLE_SENDER),	1, 0 },
	{ "job",	R(ALX_ROLE_OWNER) | R(ALX_ROLE_SENDER),	0, 0 },
	{ "cancel",	R(ALX_ROLE_OWNER) | R(ALX_ROLE_SENDER),	1, 0 },
	{ "input",	R(ALX_ROLE_OWNER) | R(ALX_ROLE_SENDER),	0, 0 },
	{ "result",	R(ALX_ROLE_RUNNER),			0, 1 },
	{ "progress",	R(ALX_ROLE_RUNNER),			0, 1 },
	{ "report",	R(ALX_ROLE_RUNNER),			1, 1 },
};
#undef R

static const struct alx_kindperm *
alx_kind_find(const char *kind)
{
	size_t	i;

	for (i = 0; i < sizeof(alx_kindperms) / sizeof(alx_kindperms[0]); i++)
		if (strcmp(alx_kindperms[i].kind, kind) == 0)
			return &alx_kindperms[i];
	return NULL;
}

int
alx_role_may_post(int role, const char *kind)
{
	const struct alx_kindperm *p;

	if (role < 0 || role >= ALX_ROLE_COUNT)
		return ALX_ERR_WRONG_ROLE;
	if ((p = alx_kind_find(kind)) == NULL)
		return ALX_ERR_NOT_ALLOWED;
	if ((p->roles & (1U << role)) == 0)
		return ALX_ERR_WRONG_ROLE;
	return ALX_OK;
}

int
alx_kind_member_readable(const char *kind)
{
	const struct alx_kindperm *p;

	return (p = alx_kind_find(kind)) != NULL && p->member_readable;
}

int
alx_kind_job_reply(const char *kind)
{
	const struct alx_kindperm *p;

	return (p = alx_kind_find(kind)) != NULL && p->job_reply;
}

int
alx_name_valid(const char *s)
{
	size_t	i, len = strlen(s);

	if (len == 0 || len > ALX_NAME_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		char c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			continue;
		if (i > 0 && (c == '.' || c == '_' || c == '-'))
			continue;
		return 0;
	}
	return 1;
}

int
alx_display_valid(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 len = strlen(s), i, chars = 0;

	if (len == 0 || len > ALX_DISPLAY_MAX)
		return 0;
	if (alx_utf8_valid(p, len) != ALX_OK)
		return 0;
	for (i = 0; i < len; i++) {
		if (p[i] < 0x20 || p[i] == 0x7f)
			return 0;
		/* C1 controls U+0080..U+009F are encoded as C2 80..C2 9F. */
		if (p[i] == 0xc2 && i + 1 < len && p[i + 1] <= 0x9f)
			return 0;
		if ((p[i] & 0xc0) != 0x80)
			chars++;
	}
	return chars <= 64;
}

int
alx_seed_keys(const uint8_t seed[ALX_SEED_LEN], struct alx_signkey *sk,
    struct alx_kxkey *kx)
{
	uint8_t	tmp[32];
	int	r;

	if (sk != NULL) {
		if ((r = alx_hkdf_sha256(tmp, sizeof(tmp), seed, ALX_SEED_LEN,
		    NULL, 0, "airlox/v1/sign", 14)) != ALX_OK)
			return r;
		r = alx_sign_from_seed(sk, tmp);
		alx_wipe(tmp, sizeof(tmp));
		if (r != ALX_OK)
			return r;
	}
	if (kx != NULL) {
		if ((r = alx_hkdf_sha256(tmp, sizeof(tmp), seed, ALX_SEED_LEN,
		    NULL, 0, "airlox/v1/kx", 12)) != ALX_OK)
			return r;
		r = alx_kx_from_secret(kx, tmp);
		alx_wipe(tmp, sizeof(tmp));
		if (r != ALX_OK)
			return r;
	}
	return ALX_OK;
}

int
alx_participant_keys(const void *secret, size_t len,
    const uint8_t sid[ALX_SID_LEN], int role, struct alx_signkey *sk,
    struct alx_kxkey *kx)
{
	static const char	 info[] = "airlox/v1/participant";
	uint8_t			 salt[ALX_SID_LEN + 16], seed[ALX_SEED_LEN];
	const char		*rn;
	int			 r;

	if (len < ALX_KEY_SECRET_MIN || len > ALX_KEY_SECRET_MAX ||
	    role < 0 || role >= ALX_ROLE_COUNT)
		return ALX_ERR_INVALID;
	rn = alx_role_name(role);
	memcpy(salt, sid, ALX_SID_LEN);
	memcpy(salt + ALX_SID_LEN, rn, strlen(rn));
	if ((r = alx_hkdf_sha256(seed, sizeof(seed), secret, len, salt,
	    ALX_SID_LEN + strlen(rn), info, sizeof(info) - 1)) == ALX_OK)
		r = alx_seed_keys(seed, sk, kx);
	alx_wipe(seed, sizeof(seed));
	return r;
}
