/* import --preview: NAME.preview.html beside the other outputs, from the bytes the run is
 * about to write (every part's .llmesh, every motion's .anim, a PNG texture). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "import/import.h"
#include "import/import_outset.h"
#include "import/import_preview.h"
#include "preview/preview.h"

am_status am_import_preview(const am_import_plan *plan, const am_skeleton *skel, const am_buf *const *meshes,
                            const char *out_dir, am_import_outset *set, am_error *err)
{
    am_preview_part *parts = calloc(plan->part_count, sizeof *parts);
    am_preview_clip *clips = calloc(plan->motion_count ? plan->motion_count : 1, sizeof *clips);
    uint8_t **owned = calloc(plan->part_count, sizeof *owned);
    am_status s = AM_OK;
    if (!parts || !clips || !owned) {
        s = am_fail_nomem(err, "preview");
        goto done;
    }
    for (size_t i = 0; i < plan->part_count && !s; i++) {
        const am_import_part *p = &plan->parts[i];
        parts[i] = (am_preview_part){am_str(&p->name), meshes[i]->data, meshes[i]->size, NULL, 0, NULL};
        if (p->texture >= 0 && (size_t)p->texture < plan->texture_count) { /* PNG or JPEG */
            const am_import_texture *t = &plan->textures[p->texture];
            size_t n = t->size;
            if (t->path)
                s = am_read_file(t->path, &owned[i], &n, err);
            parts[i].texture_image = t->path ? owned[i] : t->data;
            parts[i].texture_size = n;
        }
    }
    for (size_t m = 0; m < plan->motion_count; m++)
        clips[m] = (am_preview_clip){am_str(&plan->motions[m].name), plan->motions[m].anim, plan->motions[m].anim_size, NULL};
    am_buf page = {0};
    if (!s) {
        am_preview_input in = {am_str(&plan->name), parts, plan->part_count, clips, plan->motion_count, skel, 0};
        s = am_preview_write(&in, &page, NULL, err);
    }
    if (!s) {
        am_string path = {0};
        if (!am_string_setf(&path, "%s/%s.preview.html", out_dir, am_str(&plan->name)))
            s = am_fail_nomem(err, "preview");
        else
            s = am_import_outset_add(set, am_str(&path), &page, err);
        am_string_free(&path);
    }
    am_buf_free(&page);
done:
    for (size_t i = 0; owned && i < plan->part_count; i++)
        free(owned[i]);
    free(owned);
    free(parts);
    free(clips);
    return s;
}
