/* animesh: get rigged creatures into OpenSim and Second Life as animesh. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

/* One line per command; keep the order of the README's command table. */
static const command commands[] = {
    {"skeleton", am_cmd_skeleton, "list the viewer skeleton's bones and collision volumes"},
    {"map", am_cmd_map, "suggest a joint map from a model or BVH; check one against the skeleton"},
    {"anim", am_cmd_anim, "decode, encode, check .anim files; BVH mocap -> .anim"},
    {"mesh", am_cmd_mesh, "decode a mesh asset (.llmesh/.slm): blocks, LODs, weights, skin"},
    {"import", am_cmd_import, "import a rigged COLLADA, glTF/GLB or FBX model (+ BVH motions), benched"},
    {"skin", am_cmd_skin, "build a rig's skin: .llmesh + .dae + WorldBridge meshdata"},
    {"bind", am_cmd_bind, "bind an unrigged mesh to stock joints (bone heat), with its quality report"},
    {"report", am_cmd_report, "the rigger's quality report of a mesh asset, rig or rigged model"},
    {"bench", am_cmd_bench, "measure and render a written mesh asset (+ .anim) the viewer's way"},
    {"bendbox", am_cmd_bendbox, "build the two-bone bend box (skin, atlas, fold .anim) and bench it"},
    {"preview", am_cmd_preview, "write a browser page that plays the creature as the viewer poses it"},
    {"texture", am_cmd_texture, "encode a PNG or JPEG as a JPEG-2000 code stream (.j2c) for upload"},
    {"oar", am_cmd_oar, "write an OpenSim archive (OAR) holding the animesh object"},
    {"push", am_cmd_push, "push a creature into a region (WorldBridge, or RemoteAdmin + OAR)"},
    {"batch", am_cmd_batch, "convert a whole library on this machine, GNU parallel or Slurm; its catalogue"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: animesh <command> [options]\n"
            "       animesh --help | --version\n\n"
            "Gets rigged creatures into OpenSim and Second Life as animesh, verified before\n"
            "they reach a viewer.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\nRun 'animesh <command> --help' for a command's options.\n"
            "The viewer skeleton: --skeleton FILE, or ANIMESH_SKELETON=FILE, or\n"
            "ANIMESH_VIEWER_DIR=DIR (holding character/avatar_skeleton.xml).\n"
            "Exit codes: 0 ok, 1 invalid input or failed check, 2 usage error, 3 I/O error.\n");
}

int main(int argc, char **argv)
{
    /* The commands allocate and free buffers of a few MB again and again (a picture, a
     * posed copy of the mesh, a cell's depth buffer): kept in the heap for reuse instead
     * of mapped and unmapped each time, their pages are faulted in once (the 10k bind
     * spent 13% of its CPU in the kernel, mostly in page faults). Above 32 MB, mapped. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    if (argc < 2) {
        usage(stderr);
        return AM_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return AM_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("animesh %s\n", AM_VERSION);
        return AM_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "animesh: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return AM_EXIT_USAGE;
}
