/* libarchive, loaded when an OpenSim archive is written or read rather than when animesh starts.
 *
 * libarchive brings libraries of its own (nettle, acl, zstd, lz4, bz2; lzma too, which libxml2
 * loads anyway); loading them was 1.8 ms of start-up, paid by every command although only the
 * OAR writer (world/oar.h) and its reader and check (world/oar_check.h) touch a tar.
 * am_archive_open loads it (dlopen of the SONAME the build found, kept loaded once loaded) and
 * fills a table of the calls those make, each typed as <archive.h> and <archive_entry.h>
 * declare it. No global state: every caller holds its own table, and the callbacks it gives
 * libarchive reach the table through their own user data. */
#ifndef AM_WORLD_ARCHIVE_LIB_H
#define AM_WORLD_ARCHIVE_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

#include <archive.h>
#include <archive_entry.h>

#include "core/error.h"

typedef struct am_archive_api {
    /* any archive */
    __typeof__(archive_error_string) *error_string;
    __typeof__(archive_set_error) *set_error;
    /* writing: ustar through gzip into a callback */
    __typeof__(archive_write_new) *write_new;
    __typeof__(archive_write_set_format_ustar) *write_set_format_ustar;
    __typeof__(archive_write_add_filter_gzip) *write_add_filter_gzip;
    __typeof__(archive_write_set_filter_option) *write_set_filter_option;
    __typeof__(archive_write_set_bytes_in_last_block) *write_set_bytes_in_last_block;
    __typeof__(archive_write_open2) *write_open2;
    __typeof__(archive_write_header) *write_header;
    __typeof__(archive_write_data) *write_data;
    __typeof__(archive_write_close) *write_close;
    __typeof__(archive_write_free) *write_free;
    /* reading: a tar from a callback (the caller inflates) */
    __typeof__(archive_read_new) *read_new;
    __typeof__(archive_read_support_format_tar) *read_support_format_tar;
    __typeof__(archive_read_open) *read_open;
    __typeof__(archive_read_next_header) *read_next_header;
    __typeof__(archive_read_data) *read_data;
    __typeof__(archive_read_free) *read_free;
    /* entries */
    __typeof__(archive_entry_new) *entry_new;
    __typeof__(archive_entry_free) *entry_free;
    __typeof__(archive_entry_set_pathname) *entry_set_pathname;
    __typeof__(archive_entry_set_size) *entry_set_size;
    __typeof__(archive_entry_set_filetype) *entry_set_filetype;
    __typeof__(archive_entry_set_perm) *entry_set_perm;
    __typeof__(archive_entry_set_mtime) *entry_set_mtime;
    __typeof__(archive_entry_set_uid) *entry_set_uid;
    __typeof__(archive_entry_set_gid) *entry_set_gid;
    __typeof__(archive_entry_pathname) *entry_pathname;
    __typeof__(archive_entry_size) *entry_size;
    __typeof__(archive_entry_filetype) *entry_filetype;
} am_archive_api;

/* Load libarchive and fill api. AM_ERR_IO naming the library and dlerror's words when it is
 * not installed or lacks a call ("cannot load libarchive.so.13 (libarchive, for OpenSim
 * archives): ..."); then every call is NULL. */
am_status am_archive_open(am_archive_api *api, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
