/* Example: a rigged glTF creature and a Mixamo motion into Second Life / OpenSim animesh files.
 *
 *   retarget_gltf SKELETON MODEL MOTION OUT_DIR
 *   retarget_gltf avatar_skeleton.xml rpm_avatar.glb Walking.fbx out/
 *
 * loads the viewer skeleton, imports MODEL (a glTF/GLB on a skeleton of its own: the retarget
 * route maps its joints onto the viewer's), retargets MOTION (a Mixamo "without skin" FBX, or
 * any FILE[:CLIP] import takes) onto it, and writes OUT_DIR/NAME_PART.llmesh (a mesh asset per
 * skinned mesh; opts.merge would make one NAME.llmesh) and OUT_DIR/MOTION.anim beside the
 * import's other outputs (.dae, rig, textures), printing every file written.
 *
 * Only the umbrella header, and every options struct zeroed: zero is the defaults. Written in
 * the common subset of C11 and C++17 (tests/install/install.sh builds it as both). */
#include <stdio.h>
#include <string.h>

#include <animesh/animesh.h>

static int fail(const char *what, const am_error *err)
{
    char msg[AM_ERROR_TEXT_MAX];
    fprintf(stderr, "retarget_gltf: %s: %s\n", what, am_error_format(err, msg, sizeof msg));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: retarget_gltf SKELETON MODEL MOTION OUT_DIR\n"
                        "  e.g. retarget_gltf avatar_skeleton.xml rpm_avatar.glb Walking.fbx out\n");
        return 2;
    }
    const char *skeleton_path = argv[1], *model = argv[2], *motion = argv[3], *out_dir = argv[4];

    am_error err;
    am_skeleton skel;
    if (am_skeleton_load(skeleton_path, &skel, &err) != AM_OK)
        return fail("the viewer skeleton", &err);

    /* Zeroed: the defaults (retarget route for a foreign skeleton, no bench, no preview).
     * `= {0}` in C; memset is the same in C++, where g++ -Wextra warns on `= {0}`. */
    am_import_options opts;
    memset(&opts, 0, sizeof opts);
    const char *const motions[1] = {motion};
    opts.anim_paths = motions;
    opts.anim_count = 1;

    am_import_report report;
    memset(&report, 0, sizeof report);
    int status = 0;
    if (am_import_file(model, &skel, &opts, out_dir, &report, &err) != AM_OK) {
        status = fail(model, &err);
    } else {
        printf("%s: %s route, %zu part(s), %zu motion(s)\n", model, am_import_route_name(report.route),
               report.part_count, report.motion_count);
        for (size_t i = 0; i < report.written_count; i++)
            printf("wrote %s\n", am_str(&report.written[i]));
    }
    am_import_report_free(&report);
    am_skeleton_free(&skel);
    return status;
}
