/* test-err.c: every error code has a unique stable name and a message. */
#include <string.h>

#include "airlox/err.h"
#include "tap.h"

static const int codes[] = {
#define X(sym, num, name, msg) sym,
	ALX_ERRORS(X)
#undef X
};

int
main(void)
{
	size_t	i, j, n = sizeof(codes) / sizeof(codes[0]);
	int	unique = 1, named = 1;

	for (i = 0; i < n; i++) {
		const char *a = alx_errname(codes[i]);
		if (strcmp(a, "unknown_error") == 0 ||
		    strcmp(alx_strerror(codes[i]), "unknown error") == 0)
			named = 0;
		if (alx_errcode(a) != codes[i])
			named = 0;
		for (j = i + 1; j < n; j++)
			if (strcmp(a, alx_errname(codes[j])) == 0 ||
			    codes[i] == codes[j])
				unique = 0;
		for (j = 0; a[j] != '\0'; j++)
			if (!((a[j] >= 'a' && a[j] <= 'z') ||
			    (a[j] >= '0' && a[j] <= '9') || a[j] == '_'))
				named = 0;
	}
	ok(named, "every code has a snake_case name and a message");
	ok(unique, "names and numbers are unique");
	is_str(alx_errname(ALX_ERR_BAD_SIGNATURE), "bad_signature",
	    "bad_signature is stable");
	is_str(alx_errname(ALX_ERR_RUNNER_BUSY), "runner_busy",
	    "runner_busy is stable");
	is_str(alx_errname(0), "ok", "0 is ok");
	is_str(alx_errname(-9999), "unknown_error", "unknown code");
	is_int(alx_errcode("no_such_name"), 0, "unknown name maps to 0");
	return tap_done();
}
