/* Shared by the fuzz targets (a header, so the fuzz_*.c glob stays one program each). */
#ifndef AM_TESTS_FUZZ_COMMON_H
#define AM_TESTS_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "skeleton/skeleton.h"

/* An error struct as a careless caller leaves it (never cleared, no terminator): every
 * library call must cope (core/error.h contract), and the message it formats must stay
 * inside its buffer. */
static inline void am_fuzz_dirty_error(am_error *e)
{
    memset(e, 0xA5, sizeof *e);
}

/* Format the error (reads every field the CLI would print). */
static inline void am_fuzz_format(const am_error *e)
{
    char text[AM_ERROR_TEXT_MAX];
    am_error_format(e, text, sizeof text);
    if (strlen(text) >= sizeof text)
        abort();
}

/* The viewer skeleton from ../shared (NULL when it is not there: the targets then skip
 * what needs it). Loaded once per process, before fuzzing starts. */
static am_skeleton am_fuzz_skel_storage;
static const am_skeleton *am_fuzz_skel;

static inline void am_fuzz_load_skeleton(void)
{
    am_error err;
    if (am_skeleton_load(AM_SHARED_DIR "/viewer/avatar_skeleton.xml", &am_fuzz_skel_storage, &err) == AM_OK)
        am_fuzz_skel = &am_fuzz_skel_storage;
    else
        fprintf(stderr, "fuzz: no viewer skeleton under %s: skeleton checks skipped\n", AM_SHARED_DIR);
}

/* Defines LLVMFuzzerInitialize for a target that uses am_fuzz_skel. */
#define AM_FUZZ_INIT_WITH_SKELETON                                                                                     \
    int LLVMFuzzerInitialize(int *argc, char ***argv);                                                                 \
    int LLVMFuzzerInitialize(int *argc, char ***argv)                                                                  \
    {                                                                                                                  \
        (void)argc;                                                                                                    \
        (void)argv;                                                                                                    \
        am_fuzz_load_skeleton();                                                                                       \
        return 0;                                                                                                      \
    }

#endif
