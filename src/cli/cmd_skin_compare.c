/* animesh skin compare: our skin block against a reference (a decoded real upload). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "mesh/skin_json.h"
#include "skin/skin_compare.h"
#include "core/text.h"

static const char *help = "usage: animesh skin compare A B [--tol T] [--alt-translation-only]\n"
                          "                                [--allow-missing-alt] [--strict] [--skeleton FILE]\n\n"
                          "Compare two skin blocks joint by joint. A and B are mesh assets (.llmesh/.slm) or\n"
                          "reference skin JSON ({\"joint_names\", \"inverse_bind_matrix\",\n"
                          "\"alt_inverse_bind_matrix\", \"bind_shape_matrix\"}, as 'animesh mesh decode\n"
                          "--skin-json' writes it). For every joint both share (by canonical name: aliases are\n"
                          "resolved with the viewer skeleton when one is found) the inverse bind matrices and\n"
                          "the alternate inverse bind matrices (joint-position overrides) are compared element\n"
                          "by element; the bind shape matrix is not compared (it depends on the mesh). Prints\n"
                          "the worst difference per joint and which element it is (12..14 = translation).\n\n"
                          "  --tol T                 per-element tolerance (default 1e-4)\n"
                          "  --alt-translation-only  compare only elements 12..14 of the alternates (the only\n"
                          "                          part the viewer reads)\n"
                          "  --allow-missing-alt     alternates on one side only is not a mismatch (e.g. a\n"
                          "                          reference uploaded without joint positions)\n"
                          "  --strict                a joint on one side only is a mismatch too (by default only\n"
                          "                          the shared joints are judged: a real upload often lists\n"
                          "                          fewer joints; the one-sided ones are always listed)\n"
                          "  --skeleton FILE         the viewer's character/avatar_skeleton.xml\n\n"
                          "Exit 0 when every shared joint is within tolerance, at least one joint is shared,\n"
                          "both or neither carry alternates and (with --strict) no joint is on one side only;\n"
                          "1 otherwise (failing joints are named); 2 usage; 3 I/O.\n";

int am_cmd_skin_compare(int argc, char **argv)
{
    const char *skel_path = NULL;
    am_skin_compare_options opt = {AM_SKIN_COMPARE_DEFAULT_TOL, NULL, false, false, false};
    static const am_cli_opt opts[] = {
        {"tol", required_argument, 't', 0},
        {"alt-translation-only", no_argument, 'a', 0},
        {"allow-missing-alt", no_argument, 'm', 0},
        {"strict", no_argument, 'S', 0},
        {"skeleton", required_argument, 's', 0},
        AM_CLI_OPT_HELP};
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "skin compare", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 't':
            if (!am_cli_parse_double(op.arg, &opt.tol) || !(opt.tol > 0))
                return am_cli_usage("skin compare", "--tol needs a positive number, not '%s'", op.arg);
            break;
        case 'a': opt.alt_translation_only = true; break;
        case 'm': opt.allow_missing_alt = true; break;
        case 'S': opt.strict = true; break;
        case 's': skel_path = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 2)
        return am_cli_usage("skin compare", "expected two inputs A and B");
    const char *pa = argv[op.first], *pb = argv[op.first + 1];

    am_error err;
    am_error_clear(&err);
    am_mesh_skin a, b;
    if (am_mesh_skin_load_any(pa, &a, &err))
        return am_cli_report(&err);
    if (am_mesh_skin_load_any(pb, &b, &err)) {
        am_mesh_skin_free(&a);
        return am_cli_report(&err);
    }
    am_skeleton skel;
    bool have_skel = false;
    am_error serr;
    am_error_clear(&serr);
    if (am_cli_load_skeleton(skel_path, &skel, &serr) == AM_OK) {
        have_skel = true;
        opt.skel = &skel;
    } else if (skel_path) {
        am_mesh_skin_free(&a);
        am_mesh_skin_free(&b);
        return am_cli_report(&serr);
    }

    am_skin_comparison cmp;
    int rc = AM_EXIT_OK;
    if (am_skin_compare(&a, &b, &opt, &cmp, &err)) {
        rc = am_cli_report(&err);
        goto done;
    }
    printf("A: %s (%zu joints, alternates %s)\nB: %s (%zu joints, alternates %s)\n", pa, a.joint_count,
           cmp.alt_a ? "yes" : "no", pb, b.joint_count, cmp.alt_b ? "yes" : "no");
    if (!have_skel)
        printf("(no viewer skeleton: joints matched by exact name)\n");
    printf("%-24s %-22s %-22s\n", "joint", "inverse bind", "alt inverse bind");
    for (size_t i = 0; i < cmp.count; i++) {
        const am_skin_joint_diff *d = &cmp.joints[i];
        char ibm[40], alt[40];
        snprintf(ibm, sizeof ibm, "%.3g [%d]", d->ibm_diff, d->ibm_element);
        if (d->alt_compared)
            snprintf(alt, sizeof alt, "%.3g [%d]", d->alt_diff, d->alt_element);
        else
            snprintf(alt, sizeof alt, "-");
        char nm[128]; /* the files' joint names: control characters shown as \xNN */
        printf("%-24s %-22s %-22s %s\n", am_text_shown(d->name, nm, sizeof nm), ibm, alt, d->fail ? "FAIL" : "ok");
    }
    if (cmp.only_a_count) {
        printf("only in A (%zu):", cmp.only_a_count);
        char nm[128];
        for (size_t i = 0; i < cmp.only_a_count; i++)
            printf(" %s", am_text_shown(cmp.only_a[i], nm, sizeof nm));
        printf("\n");
    }
    if (cmp.only_b_count) {
        printf("only in B (%zu):", cmp.only_b_count);
        char nm[128];
        for (size_t i = 0; i < cmp.only_b_count; i++)
            printf(" %s", am_text_shown(cmp.only_b[i], nm, sizeof nm));
        printf("\n");
    }
    printf("%zu shared joints, worst difference %.3g (tolerance %.3g): %s\n", cmp.count, cmp.worst, cmp.tol,
           cmp.ok ? "match" : "MISMATCH");
    if (!cmp.ok) {
        if (cmp.failures) {
            fprintf(stderr, "animesh skin compare: %zu joint%s beyond tolerance:", cmp.failures,
                    cmp.failures == 1 ? "" : "s");
            for (size_t i = 0; i < cmp.count; i++)
                if (cmp.joints[i].fail)
                    fprintf(stderr, " %s", cmp.joints[i].name);
            fprintf(stderr, "\n");
        }
        if (cmp.count == 0)
            fprintf(stderr, "animesh skin compare: no joint in common\n");
        if (opt.strict && (cmp.only_a_count || cmp.only_b_count))
            fprintf(stderr, "animesh skin compare: --strict: %zu joint%s on one side only (listed above)\n",
                    cmp.only_a_count + cmp.only_b_count, cmp.only_a_count + cmp.only_b_count == 1 ? "" : "s");
        if (cmp.alt_a != cmp.alt_b && !opt.allow_missing_alt)
            fprintf(stderr, "animesh skin compare: alt_inverse_bind_matrix only in %s (joint-position overrides "
                            "present on one side only)\n",
                    cmp.alt_a ? "A" : "B");
        rc = AM_EXIT_INVALID;
    }
    am_skin_comparison_free(&cmp);
done:
    if (have_skel)
        am_skeleton_free(&skel);
    am_mesh_skin_free(&a);
    am_mesh_skin_free(&b);
    return rc;
}
