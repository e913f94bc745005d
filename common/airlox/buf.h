/*
 * airlox/buf.h: a growable byte buffer with a hard size cap.
 *
 * Every buffer that holds untrusted input has a cap (max); appending past it
 * fails with ALX_ERR_TOO_LARGE and leaves the buffer unchanged. The data is
 * always followed by a NUL byte (not counted in len) so text can be used as
 * a C string. alx_buf_free() wipes the bytes before freeing them.
 */
#ifndef AIRLOX_BUF_H
#define AIRLOX_BUF_H

#include <stddef.h>
#include <stdint.h>

struct alx_buf {
	uint8_t	*data;
	size_t	 len;
	size_t	 cap;
	size_t	 max;	/* 0: the default cap, ALX_BUF_DEFAULT_MAX */
};

#define ALX_BUF_DEFAULT_MAX	((size_t)64 * 1024 * 1024)

void	alx_buf_init(struct alx_buf *, size_t max);
void	alx_buf_free(struct alx_buf *);	/* wipes, frees, re-inits */
void	alx_buf_reset(struct alx_buf *);	/* len = 0, keeps memory */
int	alx_buf_reserve(struct alx_buf *, size_t more);
int	alx_buf_add(struct alx_buf *, const void *, size_t);
int	alx_buf_addstr(struct alx_buf *, const char *);
int	alx_buf_addc(struct alx_buf *, uint8_t);
int	alx_buf_printf(struct alx_buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Hand the bytes to the caller (NUL-terminated); the buffer is re-inited. */
uint8_t	*alx_buf_steal(struct alx_buf *, size_t *lenp);

#endif /* AIRLOX_BUF_H */
