/* import --preview (preview/preview.h): the page of the creature the run writes, staged with
 * its other outputs (import_outset.h) as DIR/NAME.preview.html. meshes[i] is part i's
 * .llmesh as it will be written; a part's PNG or JPEG texture is drawn with its UVs. */
#ifndef AM_IMPORT_PREVIEW_H
#define AM_IMPORT_PREVIEW_H

#include "core/error.h"
#include "core/io.h"
#include "import/import.h"
#include "import/import_outset.h"

am_status am_import_preview(const am_import_plan *plan, const am_skeleton *skel, const am_buf *const *meshes,
                            const char *out_dir, am_import_outset *set, am_error *err);

#endif
