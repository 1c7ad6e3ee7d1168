/* The library names its options ("the normalize_binds option"), never a flag: a program that
 * embeds it has none. The command line's user gives flags, so what the CLI prints of the
 * library's text says the flag instead. One table: the library's phrase, the flag it means. */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *phrase; /* as the library writes it */
    const char *flag;   /* as the command line takes it */
} option_flags[] = {
    /* longer phrases first where one begins another */
    {"the loop option off", "--no-loop"},
    {"the loop option", "--loop"},
    {"the loop_tolerance_deg option", "--loop-tolerance"},
    {"the map option", "--map"},
    {"the clips option", "--clip"},
    {"the priority option", "--priority"},
    {"the corrections option", "--rest-correction"},
    {"the place option", "--place"},
    {"the up option", "--up"},
    {"the up and forward options", "--up AXIS --forward AXIS"},
    {"the up, forward and scale options", "--up / --forward / --scale"},
    {"the forward option", "--forward"},
    {"the scale option", "--scale"},
    {"the unit_m option", "--unit"},
    {"because of the allow_body_mismatch option", "because --allow-body-mismatch"},
    {"the allow_body_mismatch option", "--allow-body-mismatch"},
    {"set the normalize_binds option", "pass --normalize-binds"},
    {"set the bvh_align_rest option", "pass --align-rest"},
    {"the normalize_binds option", "--normalize-binds"},
    {"the bench option", "--bench"},
    {"the preview option", "--preview"},
    {"the merge option", "--merge"},
    {"the faithful_only option", "--faithful"},
    {"the bvh_align_rest option", "--align-rest"},
    {"the align_rest option", "--align-rest"},
    {"the meshdata_required option", "--meshdata"},
    {"the require_meshdata option", "--meshdata"},
    {"set the max_tris option to", "pass --max-tris"},
    {"set the region_max_tris option to", "pass --region-max-tris"},
    {"or the region_max_tris option to", "or --region-max-tris"},
    {"the max_tris option", "--max-tris"},
    {"the region_max_tris option", "--region-max-tris"},
    {"the face_vertex_limit option", "--face-vertex-limit"},
    {"the anim_paths option", "--anim"},
    {"the oar_path option", "--oar"},
    {"the play option", "--play"},
    {"a new salt (the uuid_salt option)", "animesh oar --salt NEW"},
    {"the uuid_salt option", "--salt"},
    {"the allow_unknown_joints option", "--allow-unknown-joints"},
    {"the dir option", "--verify-dir"},
    {"the region_uid option", "--verify-uid"},
    {"the base_url option", "--bridge URL"},
    {"the resize option", "animesh texture --resize"},
    {"the remove option", "batch spawn --remove"},
    {"the slurm engine with the submit option", "animesh batch run --engine slurm --submit"},
    {"the skeleton path given", "--skeleton"},
    {"give the skeleton path", "point animesh at your viewer's skeleton with --skeleton FILE"},
    {"the full report text", "--verbose"},
};

void am_cli_write_flags(FILE *f, const char *text, size_t len)
{
    if (!text || !len)
        return;
    size_t run = 0; /* start of the text not yet written */
    for (size_t i = 0; i < len; i++) {
        for (size_t k = 0; k < sizeof option_flags / sizeof option_flags[0]; k++) {
            size_t pl = strlen(option_flags[k].phrase);
            if (text[i] == option_flags[k].phrase[0] && pl <= len - i &&
                memcmp(text + i, option_flags[k].phrase, pl) == 0) {
                fwrite(text + run, 1, i - run, f);
                fputs(option_flags[k].flag, f);
                run = i + pl;
                i = run - 1;
                break;
            }
        }
    }
    fwrite(text + run, 1, len - run, f);
}

void am_cli_print_flags(FILE *f, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    am_cli_write_flags(f, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}
