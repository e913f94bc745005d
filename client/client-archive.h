/*
 * client-archive.h: libarchive for the client, loaded when it is first
 * needed (airlox run --tree writes the tree's archive, --save reads the
 * ZIP of a job's files).
 *
 * libarchive links libxml2, ICU and libstdc++ with it: about 2 ms of
 * dynamic linking at every start of a command that never writes an
 * archive (send, read, listen ...). The client therefore opens it with
 * dlopen() on first use instead of linking it; the runner, a long-lived
 * process, links it as usual.
 */
#ifndef CLIENT_ARCHIVE_H
#define CLIENT_ARCHIVE_H

#include <archive.h>
#include <archive_entry.h>

struct car {
	__typeof__(archive_write_new)			*write_new;
	__typeof__(archive_write_set_format_pax_restricted)
							*write_set_format_pax_restricted;
	__typeof__(archive_write_set_bytes_in_last_block)
							*write_set_bytes_in_last_block;
	__typeof__(archive_write_open_fd)		*write_open_fd;
	__typeof__(archive_write_header)		*write_header;
	__typeof__(archive_write_data)			*write_data;
	__typeof__(archive_write_close)			*write_close;
	__typeof__(archive_write_free)			*write_free;
	__typeof__(archive_entry_new)			*entry_new;
	__typeof__(archive_entry_free)			*entry_free;
	__typeof__(archive_entry_set_pathname)		*entry_set_pathname;
	__typeof__(archive_entry_set_mtime)		*entry_set_mtime;
	__typeof__(archive_entry_set_filetype)		*entry_set_filetype;
	__typeof__(archive_entry_set_perm)		*entry_set_perm;
	__typeof__(archive_entry_set_symlink)		*entry_set_symlink;
	__typeof__(archive_entry_set_size)		*entry_set_size;
	/* Reading (airlox run --save: a job's files, in a ZIP). */
	__typeof__(archive_read_new)			*read_new;
	__typeof__(archive_read_support_format_zip)	*read_support_format_zip;
	__typeof__(archive_read_open_fd)		*read_open_fd;
	__typeof__(archive_read_next_header)		*read_next_header;
	__typeof__(archive_read_data)			*read_data;
	__typeof__(archive_read_free)			*read_free;
	__typeof__(archive_entry_pathname)		*entry_pathname;
	__typeof__(archive_entry_filetype)		*entry_filetype;
	__typeof__(archive_entry_size)			*entry_size;
	__typeof__(archive_error_string)		*error_string;
};

/*
 * The functions, loaded once (the library stays loaded): 0, or
 * ALX_ERR_NOT_FOUND when libarchive cannot be loaded (*why says why).
 */
int	car_load(const struct car **, const char **why);

#endif /* CLIENT_ARCHIVE_H */
