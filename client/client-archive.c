/*
 * client-archive.c: libarchive opened on first use (client-archive.h).
 */
#include "config.h"

#include <dlfcn.h>
#include <stddef.h>

#include "airlox.h"
#include "client-archive.h"

#ifndef CAR_SONAME
#define CAR_SONAME	"libarchive.so.13"	/* Debian's libarchive13 */
#endif

/*
 * The table is filled once and never changes after: a cache of what the
 * dynamic linker would have resolved at start.
 */
static struct car	car_fns;
static int		car_state;	/* 0 not tried, 1 loaded, -1 failed */
static const char	*car_why;

#define CAR_SYM(field, name) do {					\
	*(void **)(&car_fns.field) = dlsym(h, name);			\
	if (car_fns.field == NULL)					\
		goto fail;						\
} while (0)

static int
car_open(void)
{
	void	*h;

	if ((h = dlopen(CAR_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL &&
	    (h = dlopen("libarchive.so", RTLD_NOW | RTLD_LOCAL)) == NULL) {
		car_why = "libarchive (" CAR_SONAME ") cannot be loaded";
		return -1;
	}
	CAR_SYM(write_new, "archive_write_new");
	CAR_SYM(write_set_format_pax_restricted,
	    "archive_write_set_format_pax_restricted");
	CAR_SYM(write_set_bytes_in_last_block,
	    "archive_write_set_bytes_in_last_block");
	CAR_SYM(write_open_fd, "archive_write_open_fd");
	CAR_SYM(write_header, "archive_write_header");
	CAR_SYM(write_data, "archive_write_data");
	CAR_SYM(write_close, "archive_write_close");
	CAR_SYM(write_free, "archive_write_free");
	CAR_SYM(entry_new, "archive_entry_new");
	CAR_SYM(entry_free, "archive_entry_free");
	CAR_SYM(entry_set_pathname, "archive_entry_set_pathname");
	CAR_SYM(entry_set_mtime, "archive_entry_set_mtime");
	CAR_SYM(entry_set_filetype, "archive_entry_set_filetype");
	CAR_SYM(entry_set_perm, "archive_entry_set_perm");
	CAR_SYM(entry_set_symlink, "archive_entry_set_symlink");
	CAR_SYM(entry_set_size, "archive_entry_set_size");
	CAR_SYM(read_new, "archive_read_new");
	CAR_SYM(read_support_format_zip, "archive_read_support_format_zip");
	CAR_SYM(read_open_fd, "archive_read_open_fd");
	CAR_SYM(read_next_header, "archive_read_next_header");
	CAR_SYM(read_data, "archive_read_data");
	CAR_SYM(read_free, "archive_read_free");
	CAR_SYM(entry_pathname, "archive_entry_pathname");
	CAR_SYM(entry_filetype, "archive_entry_filetype");
	CAR_SYM(entry_size, "archive_entry_size");
	CAR_SYM(error_string, "archive_error_string");
	return 0;
fail:
	car_why = "libarchive lacks a function airlox needs";
	dlclose(h);
	return -1;
}

int
car_load(const struct car **out, const char **why)
{
	if (car_state == 0)
		car_state = car_open() == 0 ? 1 : -1;
	*out = car_state == 1 ? &car_fns : NULL;
	if (why != NULL)
		*why = car_why;
	return car_state == 1 ? 0 : ALX_ERR_NOT_FOUND;
}
