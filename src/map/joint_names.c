/* Reading joint names: namespaces and prefixes, the side marker, segment and end markers,
 * then the part keyword (joint_names.h). */
#include "map/joint_names.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static bool ends_with(const char *s, const char *p)
{
    size_t n = strlen(s), m = strlen(p);
    return n >= m && strcmp(s + n - m, p) == 0;
}

static void cut_front(char *s, size_t n) { memmove(s, s + n, strlen(s + n) + 1); }

static void set_convention(am_joint_name *o, const char *c)
{
    if (!o->convention[0])
        snprintf(o->convention, sizeof o->convention, "%s", c);
}

/* Remove a case-insensitive word (first occurrence); true when found. */
static bool cut_word(char *s, const char *word)
{
    size_t m = strlen(word);
    for (char *p = s; *p; p++)
        if (strncasecmp(p, word, m) == 0) {
            memmove(p, p + m, strlen(p + m) + 1);
            return true;
        }
    return false;
}

/* Namespaces, armature paths and tool prefixes. */
static void strip_prefixes(char *s, am_joint_name *o)
{
    const char *colon = strrchr(s, ':'), *bar = strrchr(s, '|');
    const char *cut = colon > bar ? colon : bar;
    if (cut) {
        bool mixamo = strncasecmp(s, "mixamorig", 9) == 0;
        cut_front(s, (size_t)(cut - s) + 1);
        if (mixamo)
            set_convention(o, "Mixamo");
    }
    static const struct {
        const char *prefix, *convention;
    } pre[] = {{"DEF-", "Rigify"}, {"ORG-", "Rigify"}, {"MCH-", "Rigify"}, {"Bip01 ", "Bip01"},
               {"Bip01_", "Bip01"}, {"Bip001 ", "Bip01"}, {"Bip001_", "Bip01"}, {"Character1_", "HumanIK"},
               {"CC_Base_", "Character Creator"}, {"J_Bip_", "VRoid"}};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (starts_with(s, pre[i].prefix)) {
            cut_front(s, strlen(pre[i].prefix));
            set_convention(o, pre[i].convention);
        }
    /* VRoid: J_Bip_L_UpperLeg, J_Bip_C_Spine: the C (centre) marker carries no side. */
    if (strcmp(o->convention, "VRoid") == 0 && starts_with(s, "C_"))
        cut_front(s, 2);
}

/* A trailing ".001" (Blender/Rigify duplicate or B-bone segment). */
static void strip_segment_suffix(char *s, am_joint_name *o)
{
    size_t n = strlen(s);
    if (n >= 5 && s[n - 4] == '.' && isdigit((unsigned char)s[n - 3]) && isdigit((unsigned char)s[n - 2]) &&
        isdigit((unsigned char)s[n - 1])) {
        s[n - 4] = '\0';
        o->segment = true;
    }
}

static void read_side(char *s, am_joint_name *o)
{
    size_t n = strlen(s);
    /* suffixes: .L .R _L _R _l _r .l .r " L" -L */
    if (n >= 3 && (s[n - 2] == '.' || s[n - 2] == '_' || s[n - 2] == ' ' || s[n - 2] == '-') &&
        (s[n - 1] == 'L' || s[n - 1] == 'R' || s[n - 1] == 'l' || s[n - 1] == 'r')) {
        o->side = (s[n - 1] == 'L' || s[n - 1] == 'l') ? 1 : -1;
        bool lower = islower((unsigned char)s[n - 1]);
        set_convention(o, s[n - 2] == '.' ? ".L/.R" : lower ? "_l/_r" : "_L/_R");
        s[n - 2] = '\0';
        return;
    }
    /* prefixes: L_ R_ l_ r_ L. R. "L " */
    if (n >= 3 && (s[0] == 'L' || s[0] == 'R' || s[0] == 'l' || s[0] == 'r') &&
        (s[1] == '_' || s[1] == '.' || s[1] == ' ')) {
        o->side = (s[0] == 'L' || s[0] == 'l') ? 1 : -1;
        set_convention(o, "L_/R_");
        cut_front(s, 2);
        return;
    }
    if (cut_word(s, "left")) {
        o->side = 1;
        set_convention(o, "Left/Right");
        return;
    }
    if (cut_word(s, "right")) {
        o->side = -1;
        set_convention(o, "Left/Right");
        return;
    }
    /* CMU "LHipJoint", "RThumb": one capital L/R then a capital. */
    if (n >= 3 && (s[0] == 'L' || s[0] == 'R') && isupper((unsigned char)s[1]) && islower((unsigned char)s[2])) {
        o->side = s[0] == 'L' ? 1 : -1;
        set_convention(o, "L/R prefix");
        cut_front(s, 1);
        return;
    }
    /* Daz / Poser "lThigh", "rShldrBend": lower-case l/r then a capital. */
    if (n >= 3 && (s[0] == 'l' || s[0] == 'r') && isupper((unsigned char)s[1])) {
        o->side = s[0] == 'l' ? 1 : -1;
        set_convention(o, "l/r prefix");
        cut_front(s, 1);
        return;
    }
    /* "ThighL", "PawR": a bare capital L/R after a lower-case letter, taken only when the
     * rest names a part (see part_of below). */
    if (n >= 4 && (s[n - 1] == 'L' || s[n - 1] == 'R') && islower((unsigned char)s[n - 2])) {
        o->side = s[n - 1] == 'L' ? 2 : -2; /* tentative: confirmed by the part */
        s[n - 1] = '\0';
    }
}

/* Lower case, letters and digits only; trailing digits become the number. */
static void make_core(const char *s, am_joint_name *o)
{
    size_t k = 0;
    for (const char *p = s; *p && k + 1 < sizeof o->core; p++)
        if (isalnum((unsigned char)*p))
            o->core[k++] = (char)tolower((unsigned char)*p);
    o->core[k] = '\0';
    size_t d = k;
    while (d > 0 && isdigit((unsigned char)o->core[d - 1]))
        d--;
    if (d < k && d > 0) {
        int v = 0;
        for (size_t i = d; i < k && v < 100000; i++)
            v = v * 10 + (o->core[i] - '0');
        o->number = v;
        o->core[d] = '\0';
    }
}

typedef enum { SUB, PREFIX, EXACT } match_mode;

typedef struct part_word {
    const char *word;
    match_mode mode;
    am_name_part part;
    int finger;
} part_word;

/* Order matters: longer or more specific words first ("forearm" before "arm", "upleg"
 * before "leg", "armature" before "arm", "forehead" never reaches "head"). */
static const part_word words[] = {
    {"armature", SUB, AM_NAME_ROOT, -1},   {"root", SUB, AM_NAME_ROOT, -1},      {"master", EXACT, AM_NAME_ROOT, -1},
    {"reference", EXACT, AM_NAME_ROOT, -1}, {"thumb", SUB, AM_NAME_FINGER, 0},   {"index", SUB, AM_NAME_FINGER, 1},
    {"middle", SUB, AM_NAME_FINGER, 2},    {"mid", PREFIX, AM_NAME_FINGER, 2},   {"ring", SUB, AM_NAME_FINGER, 3},
    {"pinky", SUB, AM_NAME_FINGER, 4},     {"pinkie", SUB, AM_NAME_FINGER, 4},   {"little", SUB, AM_NAME_FINGER, 4},
    {"finger", SUB, AM_NAME_FINGER, -1},   {"tail", SUB, AM_NAME_TAIL, -1},      {"wing", SUB, AM_NAME_WING, -1},
    {"forearm", SUB, AM_NAME_FOREARM, -1}, {"lowerarm", SUB, AM_NAME_FOREARM, -1}, {"loarm", SUB, AM_NAME_FOREARM, -1},
    {"elbow", SUB, AM_NAME_FOREARM, -1},   {"upperarm", SUB, AM_NAME_UPPERARM, -1}, {"uparm", SUB, AM_NAME_UPPERARM, -1},
    {"shldr", SUB, AM_NAME_UPPERARM, -1},  {"clavicle", SUB, AM_NAME_COLLAR, -1}, {"collar", SUB, AM_NAME_COLLAR, -1},
    {"clav", PREFIX, AM_NAME_COLLAR, -1},  {"shoulder", SUB, AM_NAME_SHOULDER, -1}, {"hand", SUB, AM_NAME_HAND, -1},
    {"wrist", SUB, AM_NAME_HAND, -1},      {"arm", SUB, AM_NAME_UPPERARM, -1},   {"upleg", SUB, AM_NAME_THIGH, -1},
    {"upperleg", SUB, AM_NAME_THIGH, -1},  {"thigh", SUB, AM_NAME_THIGH, -1},    {"calf", SUB, AM_NAME_SHIN, -1},
    {"shin", SUB, AM_NAME_SHIN, -1},       {"knee", SUB, AM_NAME_SHIN, -1},      {"lowerleg", SUB, AM_NAME_SHIN, -1},
    {"loleg", SUB, AM_NAME_SHIN, -1},      {"ankle", SUB, AM_NAME_FOOT, -1},     {"toe", SUB, AM_NAME_TOE, -1},
    {"ball", SUB, AM_NAME_TOE, -1},        {"foot", SUB, AM_NAME_FOOT, -1},      {"leg", SUB, AM_NAME_SHIN, -1},
    {"hips", SUB, AM_NAME_PELVIS, -1},     {"pelvis", SUB, AM_NAME_PELVIS, -1},  {"hip", SUB, AM_NAME_PELVIS, -1},
    {"abdomen", SUB, AM_NAME_SPINE, -1},   {"spine", SUB, AM_NAME_SPINE, -1},    {"torso", SUB, AM_NAME_SPINE, -1},
    {"lowerback", SUB, AM_NAME_SPINE, -1}, {"back", EXACT, AM_NAME_SPINE, -1},   {"waist", SUB, AM_NAME_SPINE, -1},
    {"ab", EXACT, AM_NAME_SPINE, -1},      {"belly", SUB, AM_NAME_SPINE, -1},    {"chest", SUB, AM_NAME_CHEST, -1},
    {"ribcage", SUB, AM_NAME_CHEST, -1},   {"thorax", SUB, AM_NAME_CHEST, -1},   {"neck", SUB, AM_NAME_NECK, -1},
    {"jaw", SUB, AM_NAME_JAW, -1},         {"chin", EXACT, AM_NAME_JAW, -1},     {"forehead", SUB, AM_NAME_UNKNOWN, -1},
    {"head", SUB, AM_NAME_HEAD, -1},       {"skull", SUB, AM_NAME_HEAD, -1},     {"eyeball", SUB, AM_NAME_EYE, -1},
    {"eye", EXACT, AM_NAME_EYE, -1},       {"ear", PREFIX, AM_NAME_EAR, -1},
};

static bool word_matches(const char *core, const part_word *w)
{
    switch (w->mode) {
    case EXACT: return strcmp(core, w->word) == 0;
    case PREFIX: return starts_with(core, w->word);
    default: return strstr(core, w->word) != NULL;
    }
}

void am_joint_name_parse(const char *name, am_joint_name *o)
{
    memset(o, 0, sizeof *o);
    o->finger = -1;
    o->number = -1;
    char s[128];
    snprintf(s, sizeof s, "%s", name ? name : "");
    strip_prefixes(s, o);
    strip_segment_suffix(s, o);
    read_side(s, o);
    strip_segment_suffix(s, o); /* "thigh.L.001" has the side before the segment */
    make_core(s, o);
    /* End markers ("HeadTop_End", "LeftToe_End") and segments ("Twist", "Roll"). */
    if (ends_with(o->core, "end") && strlen(o->core) > 3) {
        o->end = true;
        o->core[strlen(o->core) - 3] = '\0';
        if (ends_with(o->core, "top"))
            o->core[strlen(o->core) - 3] = '\0';
    }
    static const char *seg_words[] = {"twist", "roll"};
    for (size_t i = 0; i < 2; i++)
        if (cut_word(o->core, seg_words[i]))
            o->segment = true;
    cut_word(o->core, "bend"); /* Daz "ThighBend" is the thigh itself */
    /* Numbers left inside after cuts ("upperarm01" from "upperarm_twist_01"). */
    size_t n = strlen(o->core);
    while (n > 0 && isdigit((unsigned char)o->core[n - 1]))
        o->core[--n] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (word_matches(o->core, &words[i])) {
            o->part = words[i].part;
            o->finger = words[i].finger;
            break;
        }
    /* a bare trailing L/R counts only on a part's name ("ThighL"), not on any word */
    if (o->side == 2 || o->side == -2) {
        if (o->part == AM_NAME_UNKNOWN) {
            o->side = 0;
        } else {
            o->side /= 2;
            set_convention(o, "L/R suffix");
        }
    }
    /* "Hip" with a side is the thigh (MotionBuilder LeftHip, CMU LHipJoint). */
    if (o->part == AM_NAME_PELVIS && o->side != 0)
        o->part = AM_NAME_THIGH;
    /* A side-less "Arm"/"Leg" is still the limb part; Unreal spelling marks the convention. */
    if (strcmp(o->convention, "_l/_r") == 0 &&
        (strstr(o->core, "thigh") || strstr(o->core, "calf") || strstr(o->core, "upperarm") ||
         strstr(o->core, "lowerarm") || strstr(o->core, "clavicle") || strstr(o->core, "ball")))
        snprintf(o->convention, sizeof o->convention, "Unreal");
}

const char *am_name_part_label(am_name_part p)
{
    switch (p) {
    case AM_NAME_ROOT: return "root";
    case AM_NAME_PELVIS: return "pelvis";
    case AM_NAME_SPINE: return "spine";
    case AM_NAME_CHEST: return "chest";
    case AM_NAME_NECK: return "neck";
    case AM_NAME_HEAD: return "head";
    case AM_NAME_JAW: return "jaw";
    case AM_NAME_EYE: return "eye";
    case AM_NAME_EAR: return "ear";
    case AM_NAME_COLLAR: return "collar";
    case AM_NAME_SHOULDER: return "shoulder";
    case AM_NAME_UPPERARM: return "upper arm";
    case AM_NAME_FOREARM: return "forearm";
    case AM_NAME_HAND: return "hand";
    case AM_NAME_FINGER: return "finger";
    case AM_NAME_THIGH: return "upper leg";
    case AM_NAME_SHIN: return "lower leg";
    case AM_NAME_FOOT: return "foot";
    case AM_NAME_TOE: return "toe";
    case AM_NAME_TAIL: return "tail";
    case AM_NAME_WING: return "wing";
    default: return "unknown";
    }
}

const char *am_name_finger_label(int f)
{
    static const char *names[] = {"thumb", "index", "middle", "ring", "pinky"};
    return f >= 0 && f < 5 ? names[f] : "finger";
}
