/* Entry names read as OpenSim reads them (OpenSim/Framework/Serialization/TarArchiveReader.cs),
 * beside libarchive's reading, so that the archive check never vouches for an archive the
 * region would load differently.
 *
 * OpenSim's reader, header by header (512 bytes each):
 * - a header whose first byte is 0 ends the archive (whatever follows);
 * - the name is the 100-byte name field decoded as ASCII (bytes over 0x7F become '?') with
 *   NULs trimmed from both ends only: an embedded NUL stays in the name; the ustar prefix
 *   field (byte 345) is never read;
 * - type 'L' (a GNU long name): the name is its data as ASCII, untrimmed (a terminating NUL
 *   stays), and the next header gives the size and type;
 * - every other type is an entry with its data, pax headers ('x', 'g') included: OpenSim
 *   never applies a pax `path=`, it sees a file of its own;
 * - the size is the 11 bytes at 124, leading spaces trimmed, each character c folded as
 *   d = d << 3 | (c - '0') in a 32-bit int, without any check.
 * libarchive applies the prefix, pax `path=`, cuts names at a NUL and reads sizes properly.
 * am_oar_tar_names_compare refuses any archive where the two readings' entry lists differ. */
#ifndef AM_WORLD_OAR_TARNAMES_H
#define AM_WORLD_OAR_TARNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct am_tar_name {
    char *name;      /* may hold NULs: name_len says how long */
    size_t name_len;
    int64_t size;    /* as the reader computed it (OpenSim's: a 32-bit int, possibly negative) */
    char type;       /* the header's type byte ('0', '5', 'x', ...; libarchive's: '0' file, '5' folder, '?') */
} am_tar_name;

typedef struct am_tar_names {
    am_tar_name *e;
    size_t count, cap;
    bool nomem;
    /* the streaming state of OpenSim's reading (am_oar_tar_names_feed) */
    uint8_t block[512];
    size_t block_n;
    uint64_t skip;      /* data and padding bytes to pass over */
    uint8_t *long_name; /* an 'L' entry's data being collected */
    size_t long_len, long_have;
    bool after_long;    /* the next header completes a long-named entry */
    bool ended;         /* a header starting with 0 was seen */
} am_tar_names;

/* OpenSim's reading of the inflated tar bytes, fed as they come (any chunk sizes). */
void am_oar_tar_names_feed(am_tar_names *t, const uint8_t *p, size_t n);
/* Record one entry (libarchive's reading). false when out of memory. */
bool am_oar_tar_names_add(am_tar_names *t, const char *name, size_t name_len, int64_t size, char type);
/* AM_OK when both readings list the same entries (same names byte for byte, same sizes, a
 * folder where the other has a folder); otherwise AM_ERR_INVALID naming the first entry where
 * they part and why (ustar prefix, pax header, NUL in the name, long name, size field). */
am_status am_oar_tar_names_compare(const am_tar_names *opensim, const am_tar_names *libarchive, am_error *err);
void am_oar_tar_names_free(am_tar_names *t);

#endif
