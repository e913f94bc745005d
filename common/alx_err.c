/* alx_err.c: names and messages of libairlox error codes. */
#include <string.h>

#include "airlox/err.h"

struct alx_errdesc {
	int		 code;
	const char	*name;
	const char	*msg;
};

static const struct alx_errdesc alx_errtab[] = {
#define ALX_ERR_DESC(sym, num, name, msg) { num, name, msg },
	ALX_ERRORS(ALX_ERR_DESC)
#undef ALX_ERR_DESC
};

static const struct alx_errdesc *
alx_err_find(int err)
{
	size_t	i;

	for (i = 0; i < sizeof(alx_errtab) / sizeof(alx_errtab[0]); i++)
		if (alx_errtab[i].code == err)
			return &alx_errtab[i];
	return NULL;
}

const char *
alx_errname(int err)
{
	const struct alx_errdesc *d;

	if (err == 0)
		return "ok";
	d = alx_err_find(err);
	return d != NULL ? d->name : "unknown_error";
}

const char *
alx_strerror(int err)
{
	const struct alx_errdesc *d;

	if (err == 0)
		return "success";
	d = alx_err_find(err);
	return d != NULL ? d->msg : "unknown error";
}

int
alx_errcode(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(alx_errtab) / sizeof(alx_errtab[0]); i++)
		if (strcmp(alx_errtab[i].name, name) == 0)
			return alx_errtab[i].code;
	return 0;
}
