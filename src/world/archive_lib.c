/* libarchive loaded on first use (archive_lib.h). */
#include "world/archive_lib.h"

#include <string.h>

#include "core/dynlib.h"

#ifndef AM_ARCHIVE_SONAME
#define AM_ARCHIVE_SONAME "libarchive.so.13"
#endif

am_status am_archive_open(am_archive_api *api, am_error *err)
{
    memset(api, 0, sizeof *api);
    const am_dynlib_call calls[] = {
        {"archive_error_string", &api->error_string},
        {"archive_set_error", &api->set_error},
        {"archive_write_new", &api->write_new},
        {"archive_write_set_format_ustar", &api->write_set_format_ustar},
        {"archive_write_add_filter_gzip", &api->write_add_filter_gzip},
        {"archive_write_set_filter_option", &api->write_set_filter_option},
        {"archive_write_set_bytes_in_last_block", &api->write_set_bytes_in_last_block},
        {"archive_write_open2", &api->write_open2},
        {"archive_write_header", &api->write_header},
        {"archive_write_data", &api->write_data},
        {"archive_write_close", &api->write_close},
        {"archive_write_free", &api->write_free},
        {"archive_read_new", &api->read_new},
        {"archive_read_support_format_tar", &api->read_support_format_tar},
        {"archive_read_open", &api->read_open},
        {"archive_read_next_header", &api->read_next_header},
        {"archive_read_data", &api->read_data},
        {"archive_read_free", &api->read_free},
        {"archive_entry_new", &api->entry_new},
        {"archive_entry_free", &api->entry_free},
        {"archive_entry_set_pathname", &api->entry_set_pathname},
        {"archive_entry_set_size", &api->entry_set_size},
        {"archive_entry_set_filetype", &api->entry_set_filetype},
        {"archive_entry_set_perm", &api->entry_set_perm},
        {"archive_entry_set_mtime", &api->entry_set_mtime},
        {"archive_entry_set_uid", &api->entry_set_uid},
        {"archive_entry_set_gid", &api->entry_set_gid},
        {"archive_entry_pathname", &api->entry_pathname},
        {"archive_entry_size", &api->entry_size},
        {"archive_entry_filetype", &api->entry_filetype},
    };
    return am_dynlib_open(AM_ARCHIVE_SONAME, "libarchive, for OpenSim archives", calls, sizeof calls / sizeof calls[0],
                          NULL, err);
}
