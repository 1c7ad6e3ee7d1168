/* Axis and unit detection and the file -> viewer conversion (axes.h). */
#include "map/axes.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static am_vec3 axis_vec(int a)
{
    double s = a < 0 ? -1 : 1;
    int k = a < 0 ? -a : a;
    return am_v3(k == 1 ? s : 0, k == 2 ? s : 0, k == 3 ? s : 0);
}

const char *am_axis_name(int a)
{
    static const char *n[] = {"-Z", "-Y", "-X", "?", "+X", "+Y", "+Z"};
    return a >= -3 && a <= 3 ? n[a + 3] : "?";
}

am_status am_axes_parse(const char *t, int *axis, am_error *err)
{
    int sign = 1;
    const char *p = t ? t : "";
    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    int c = tolower((unsigned char)*p);
    if (!(c == 'x' || c == 'y' || c == 'z') || p[1] != '\0')
        return am_fail(err, AM_ERR_USAGE, "axis '%s': expected +X, -X, +Y, -Y, +Z or -Z", t ? t : "");
    *axis = sign * (c - 'x' + 1);
    return AM_OK;
}

bool am_axes_rotation(int up, int forward, am_quat *out)
{
    if (up == 0 || forward == 0 || abs(up) == abs(forward) || abs(up) > 3 || abs(forward) > 3)
        return false;
    am_vec3 u = axis_vec(up), f = axis_vec(forward), l = am_v3_cross(u, f);
    /* row r of the LL matrix = image of file basis r = (f_r, l_r, u_r) */
    double rows[9] = {f.x, l.x, u.x, f.y, l.y, u.y, f.z, l.z, u.z};
    *out = am_quat_from_rows(rows);
    return true;
}

am_vec3 am_axes_point(const am_axes *a, am_vec3 p) { return am_v3_scale(am_quat_rotate(a->rot, p), a->scale); }

am_mat4 am_axes_matrix(const am_axes *a)
{
    return am_mat4_from_trs(am_v3(0, 0, 0), a->rot, am_v3(a->scale, a->scale, a->scale));
}

static const char *format_name(am_scene_format f)
{
    switch (f) {
    case AM_SCENE_FORMAT_COLLADA: return "COLLADA";
    case AM_SCENE_FORMAT_GLTF: return "glTF";
    case AM_SCENE_FORMAT_FBX: return "FBX";
    case AM_SCENE_FORMAT_BVH: return "BVH";
    case AM_SCENE_FORMAT_OBJ: return "OBJ";
    default: return "the file";
    }
}

/* The file axis nearest to a direction, and the cosine of the angle to it. */
static int snap(am_vec3 d, double *cosine)
{
    d = am_v3_normalize(d);
    double c[3] = {d.x, d.y, d.z};
    int best = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(c[k]) > fabs(c[best]))
            best = k;
    *cosine = fabs(c[best]);
    return (best + 1) * (c[best] < 0 ? -1 : 1);
}

/* The two axes a direction lies between (for messages). */
static void between(am_vec3 d, int *a, int *b)
{
    double c[3] = {d.x, d.y, d.z};
    int i0 = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(c[k]) > fabs(c[i0]))
            i0 = k;
    int i1 = i0 == 0 ? 1 : 0;
    for (int k = 0; k < 3; k++)
        if (k != i0 && fabs(c[k]) > fabs(c[i1]))
            i1 = k;
    *a = (i0 + 1) * (c[i0] < 0 ? -1 : 1);
    *b = (i1 + 1) * (c[i1] < 0 ? -1 : 1);
}

static void conflict(am_axes *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void conflict(am_axes *a, const char *fmt, ...)
{
    if (a->conflict_count >= AM_AXES_MAX_CONFLICTS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->conflicts[a->conflict_count++], sizeof a->conflicts[0], fmt, ap);
    va_end(ap);
}

/* The reason for an axis the data settles: what shows it, and whether the file's
 * declaration agrees (said) or not (a conflict: the data wins). */
static void found_axis(am_axes *a, const char *role, int ax, int declared, const char *evidence, const char *fmt,
                       char *why, size_t n)
{
    if (declared == ax) {
        snprintf(why, n, "declared by %s; %s", fmt, evidence);
    } else if (declared) {
        conflict(a, "%s declares %s %s, but %s: %s %s taken from the data (override with the %s option)", fmt, role,
                 am_axis_name(declared), evidence, role, am_axis_name(ax), role);
        snprintf(why, n, "%s; %s declares %s", evidence, fmt, am_axis_name(declared));
    } else {
        snprintf(why, n, "%s", evidence);
    }
}

/* An ambiguous direction: the declared axis when there is one (said), else refused naming
 * the two axes it lies between and the option that settles it. */
static am_status ambiguous(const char *role, am_vec3 d, double c, int declared, const char *evidence, const char *fmt,
                           int *axis, char *why, size_t n, am_error *err)
{
    int p, q;
    between(d, &p, &q);
    char pn[4], qn[4];
    snprintf(pn, sizeof pn, "%s", am_axis_name(p));
    snprintf(qn, sizeof qn, "%s", am_axis_name(q));
    double off = acos(c) * AM_RAD2DEG;
    if (declared) {
        *axis = declared;
        snprintf(why, n, "declared by %s; %s between %s and %s, %.0f deg off any axis", fmt, evidence, pn, qn, off);
        return AM_OK;
    }
    return am_fail(err, AM_ERR_INVALID,
                   "ambiguous %s axis: %s between %s and %s (%.0f deg from the nearest axis) and %s declares none; give "
                   "the %s option", role, evidence, pn, qn, off, fmt, role);
}

/* Mean direction from the leg hub to the leg ends (file frame); false without legs. */
static bool leg_direction(const am_body *b, am_vec3 *out)
{
    am_vec3 sum = am_v3(0, 0, 0);
    int n = 0;
    for (size_t i = 0; i < b->chain_count; i++) {
        const am_body_chain *c = &b->chains[i];
        if ((c->kind != AM_CHAIN_LEG && c->kind != AM_CHAIN_HINDLIMB) || c->count == 0)
            continue;
        sum = am_v3_add(sum, am_v3_normalize(am_v3_sub(b->joints[c->joints[c->count - 1]].bind, b->joints[c->hub].bind)));
        n++;
    }
    if (n == 0 || am_v3_len(sum) < 1e-9)
        return false;
    *out = am_v3_normalize(sum);
    return true;
}

static am_vec3 across(am_vec3 d, am_vec3 up) { return am_v3_sub(d, am_v3_scale(up, am_v3_dot(d, up))); }

static am_status detect_up(const am_scene *s, const am_body *b, am_axes *a, am_error *err)
{
    const char *fmt = format_name(s->format);
    am_vec3 legs;
    int declared = s->declared.up;
    if (!leg_direction(b, &legs)) {
        if (declared) {
            a->up = declared;
            snprintf(a->up_why, sizeof a->up_why, "declared by %s; no legs hang from a pelvis to check it", fmt);
            return AM_OK;
        }
        return am_fail(err, AM_ERR_INVALID,
                       "cannot tell which way is up: no pair of legs hangs from a pelvis and %s declares no up axis; "
                       "give the up option (e.g. +Y)", fmt);
    }
    am_vec3 up = am_v3_scale(legs, -1);
    double c;
    int ax = snap(up, &c);
    if (c < 0.8) /* more than 37 deg from every axis */
        return ambiguous("up", legs, c, declared, "the legs hang", fmt, &a->up, a->up_why, sizeof a->up_why, err);
    a->up = ax;
    char evidence[48];
    snprintf(evidence, sizeof evidence, "legs hang along %s", am_axis_name(-ax));
    found_axis(a, "up", ax, declared, evidence, fmt, a->up_why, sizeof a->up_why);
    return AM_OK;
}

/* Forward evidence across up: *what names it; false when there is none. */
static bool forward_evidence(const am_body *b, am_vec3 up, am_vec3 *dir, const char **what, bool *upright)
{
    *upright = false;
    int top = b->head >= 0 ? b->head : b->chest;
    if (b->pelvis >= 0 && top >= 0 && top != b->pelvis) {
        am_vec3 sp = am_v3_sub(b->joints[top].bind, b->joints[b->pelvis].bind);
        if (am_v3_len(sp) > 0)
            *upright = am_v3_dot(am_v3_normalize(sp), up) >= cos(45 * AM_DEG2RAD);
        if (!*upright) {
            am_vec3 f = across(sp, up);
            if (am_v3_len(f) > 0.3 * am_v3_len(sp)) {
                *dir = f;
                *what = "the head is forward of the pelvis along the long axis";
                return true;
            }
        }
    }
    /* toes forward of ankles */
    am_vec3 sum = am_v3(0, 0, 0);
    double foot = 0;
    for (size_t i = 0; i < b->chain_count; i++) {
        const am_body_chain *c = &b->chains[i];
        if (c->kind != AM_CHAIN_LEG)
            continue;
        size_t ankle = am_body_leg_ankle(b, (int)i);
        if (ankle + 1 >= c->count)
            continue;
        am_vec3 d = am_v3_sub(b->joints[c->joints[c->count - 1]].bind, b->joints[c->joints[ankle]].bind);
        sum = am_v3_add(sum, across(d, up));
        foot += am_v3_len(d);
    }
    if (foot > 0 && am_v3_len(sum) > 0.25 * foot) {
        *dir = sum;
        *what = "toes forward of ankles";
        return true;
    }
    /* eyes forward of the head */
    sum = am_v3(0, 0, 0);
    int eyes = 0;
    for (size_t i = 0; i < b->chain_count; i++) {
        const am_body_chain *c = &b->chains[i];
        if (c->kind != AM_CHAIN_EYE || c->count == 0)
            continue;
        sum = am_v3_add(sum, across(am_v3_sub(b->joints[c->joints[0]].bind, b->joints[c->hub].bind), up));
        eyes++;
    }
    if (eyes && am_v3_len(sum) > 1e-9) {
        *dir = sum;
        *what = "the eyes are forward of the head";
        return true;
    }
    return false;
}

static am_status detect_forward(const am_scene *s, const am_body *b, am_axes *a, bool given, am_error *err)
{
    const char *fmt = format_name(s->format);
    am_vec3 up = axis_vec(a->up), dir;
    const char *what = NULL;
    bool have = forward_evidence(b, up, &dir, &what, &a->upright);
    if (given)
        return AM_OK;
    int declared = s->declared.forward;
    if (declared && abs(declared) == abs(a->up)) { /* cannot face along up */
        conflict(a, "%s declares forward %s, along the up axis %s: not used", fmt, am_axis_name(declared),
                 am_axis_name(a->up));
        declared = 0;
    }
    if (!have) {
        if (declared) {
            a->forward = declared;
            snprintf(a->forward_why, sizeof a->forward_why, "declared by %s; no toes, eyes or horizontal body to check it",
                     fmt);
            return AM_OK;
        }
        return am_fail(err, AM_ERR_INVALID,
                       "cannot tell which way the model faces: no feet with toes, no eyes and no horizontal body, and %s "
                       "declares no forward axis; give the forward option (e.g. +Z)", fmt);
    }
    double c;
    int ax = snap(dir, &c);
    if (c < 0.8)
        return ambiguous("forward", dir, c, declared, what, fmt, &a->forward, a->forward_why,
                         sizeof a->forward_why, err);
    a->forward = ax;
    found_axis(a, "forward", ax, declared, what, fmt, a->forward_why, sizeof a->forward_why);
    return AM_OK;
}

double am_axes_unit_from_stature(double s)
{
    if (s >= 0.2 && s <= 10)
        return 1;
    if (s >= 30 && s <= 1000)
        return 0.01;
    if (s > 1000 && s <= 20000)
        return 0.001;
    return 0;
}

static void unit_text(double u, char *out, size_t n)
{
    if (u == 1)
        snprintf(out, n, "1 m");
    else if (u == 0.01)
        snprintf(out, n, "0.01 m");
    else if (u == 0.001)
        snprintf(out, n, "0.001 m");
    else
        snprintf(out, n, "%.4g m", u);
}

static am_status detect_unit(const am_scene *s, const am_body *b, am_axes *a, am_error *err)
{
    const char *fmt = format_name(s->format);
    double S = b->stature, d = s->declared.unit_m, guess = am_axes_unit_from_stature(S);
    /* a motion-only file has no mesh: its size is its skeleton's */
    const char *size = b->vertex_count ? "stature" : "skeleton height";
    char dt[32], gt[32];
    unit_text(d, dt, sizeof dt);
    unit_text(guess, gt, sizeof gt);
    if (d > 0 && S * d >= 0.02 && S * d <= 100) {
        a->scale = d;
        if (guess == d || guess == 0)
            snprintf(a->unit_why, sizeof a->unit_why, "declared by %s; %s %.4g units = %.3g m", fmt, size, S, S * d);
        else
            snprintf(a->unit_why, sizeof a->unit_why,
                     "declared by %s; %s %.4g units = %.3g m (the %s alone would read as %s)", fmt, size, S, S * d, size,
                     gt);
        return AM_OK;
    }
    if (guess > 0) {
        a->scale = guess;
        if (d > 0) {
            char st[48];
            snprintf(st, sizeof st, "%.4g units (%.3g m)", S, S * d);
            conflict(a,
                     "%s declares the unit %s, but the %s is %s: %s taken from the %s (override with the scale option)",
                     fmt, dt, size, st, gt, size);
            snprintf(a->unit_why, sizeof a->unit_why, "%s %.4g units; %s declares %s", size, S, fmt, dt);
        } else {
            snprintf(a->unit_why, sizeof a->unit_why, "%s %.4g units", size, S);
        }
        return AM_OK;
    }
    return am_fail(err, AM_ERR_INVALID,
                   "ambiguous unit: the model is %.4g units tall (%.4g m if metres, %.4g m if centimetres)%s; give the "
                   "scale option (metres per unit, e.g. 0.01)",
                   S, S, S * 0.01,
                   d > 0 ? " and the unit the file declares gives an implausible size"
                         : " and the file declares no unit");
}

am_status am_axes_resolve(const am_scene *s, const am_body *b, const am_axes_options *opts, am_axes *a, am_error *err)
{
    memset(a, 0, sizeof *a);
    am_axes_options o = {0};
    if (opts)
        o = *opts;
    if (o.up && (abs(o.up) > 3))
        return am_fail(err, AM_ERR_USAGE, "the up option: axis code %d", o.up);
    if (o.up && o.forward && abs(o.up) == abs(o.forward))
        return am_fail(err, AM_ERR_USAGE, "the up option %s and the forward option %s are on the same axis",
                       am_axis_name(o.up), am_axis_name(o.forward));
    if (o.scale < 0 || !isfinite(o.scale))
        return am_fail(err, AM_ERR_USAGE, "the scale option must be a positive number of metres per unit");
    a->stature_units = b->stature;
    am_status st;
    if (o.up) {
        a->up = o.up;
        snprintf(a->up_why, sizeof a->up_why, "given");
        am_vec3 legs;
        double c;
        if (leg_direction(b, &legs)) {
            int hang = snap(legs, &c);
            if (hang != -o.up && c >= 0.8)
                conflict(a, "the up option %s given, but the legs hang along %s", am_axis_name(o.up),
                         am_axis_name(hang));
        }
    } else if ((st = detect_up(s, b, a, err))) {
        return st;
    }
    if (o.forward) {
        if (abs(o.forward) == abs(a->up))
            return am_fail(err, AM_ERR_USAGE, "the forward option %s is along the up axis %s", am_axis_name(o.forward),
                           am_axis_name(a->up));
        a->forward = o.forward;
        snprintf(a->forward_why, sizeof a->forward_why, "given");
        if ((st = detect_forward(s, b, a, true, err)))
            return st;
    } else if ((st = detect_forward(s, b, a, false, err))) {
        return st;
    }
    if (o.scale > 0) {
        a->scale = o.scale;
        snprintf(a->unit_why, sizeof a->unit_why, "given; %s %.4g units = %.3g m",
                 b->vertex_count ? "stature" : "skeleton height", b->stature, b->stature * o.scale);
    } else if ((st = detect_unit(s, b, a, err))) {
        return st;
    }
    a->stature_m = b->stature * a->scale;
    am_axes_rotation(a->up, a->forward, &a->rot);
    char ut[32];
    unit_text(a->scale, ut, sizeof ut);
    snprintf(a->report, sizeof a->report, "up %s (%s), forward %s (%s), unit %s (%s)", am_axis_name(a->up), a->up_why,
             am_axis_name(a->forward), a->forward_why, ut, a->unit_why);
    return AM_OK;
}
