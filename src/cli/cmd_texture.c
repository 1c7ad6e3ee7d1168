#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "texture/texture.h"

static const char *help =
    "usage: animesh texture IN.png|IN.jpg -o OUT.j2c [--lossless] [--resize]\n\n"
    "Encode a PNG or JPEG as the JPEG-2000 code stream (.j2c) Second Life and OpenSim store\n"
    "textures as (OpenJPEG: raw J2K code stream, 64x64 code blocks, RPCL progression,\n"
    "up to 6 resolution levels).\n\n"
    "  -o, --output FILE  the .j2c to write (written atomically: nothing on failure)\n"
    "  --lossless         reversible 5/3 wavelet: decodes to exactly the input's pixels\n"
    "                     (default: irreversible 9/7, quality layers 40:1 .. 5:1)\n"
    "  --resize           accept a side that is not a power of two or is over 1024: scale\n"
    "                     each side DOWN to the largest power of two <= it (max 1024)\n"
    "                     with a box filter (area average); never upscales\n\n"
    "Without --resize, a side that is not a power of two (1, 2, 4 .. 1024) is refused.\n"
    "Grey and palette PNGs and every JPEG become RGB; a PNG's alpha channel is kept (RGBA).\n"
    "The type is read from the file's first bytes, not its name.\n"
    "Exit codes: 0 written, 1 not a PNG or JPEG / bad size, 2 usage, 3 file not readable/writable.\n";

int am_cmd_texture(int argc, char **argv)
{
    const char *out_path = NULL;
    am_texture_options opt = {false, false};
    static const am_cli_opt opts[] = {
        {"output", required_argument, 'o', 'o'},
        {"lossless", no_argument, 'l', 0},
        {"resize", no_argument, 'r', 0},
        AM_CLI_OPT_HELP};
    if (am_cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return AM_EXIT_OK;
    }
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "texture", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 'o': out_path = op.arg; break;
        case 'l': opt.lossless = true; break;
        case 'r': opt.resize = true; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("texture", "expected exactly one input image (PNG or JPEG)");
    if (!out_path)
        return am_cli_usage("texture", "missing -o OUT.j2c");
    const char *in_path = argv[op.first];

    am_error err;
    am_error_clear(&err);
    am_texture_result res;
    if (am_texture_convert(in_path, out_path, &opt, &res, &err))
        return am_cli_report(&err);
    if (res.resized)
        printf("%s: %ux%u resized to %ux%u (box filter)\n", in_path, res.in_width, res.in_height, res.out_width,
               res.out_height);
    printf("wrote %s: %ux%u %s, %s, %zu bytes\n", out_path, res.out_width, res.out_height,
           res.channels == 4 ? "RGBA" : "RGB", opt.lossless ? "lossless" : "lossy", res.j2c_bytes);
    return AM_EXIT_OK;
}
