/* The body plan of a rig: which of its joints are the pelvis, the chest and the head, and
 * which chains hang from them (legs, arms, wings, tail, neck, fingers), read from the
 * joints' bind positions and the tree alone, in the FILE's frame and units. It is the
 * topology evidence for both the axis detection (axes.h: legs hang down, toes point
 * forward) and the joint-map suggestion (map_suggest.h).
 *
 * How it is found (no axis assumed):
 *  - a MIRROR PAIR is two branches of one joint whose joints are mirror images of each
 *    other across a plane through that joint (within 20 % of their length), or whose names
 *    differ only by side; a pair is SIGNIFICANT when each branch has >= 2 joints and reaches
 *    >= 10 % of the stature;
 *  - the LEG HUB is the joint nearest the root with a significant pair (legs hang from it);
 *    the CHEST is the next such joint outside the legs (arms, forelegs or wings); the PELVIS
 *    is the joint the legs and the chest have in common (the leg hub itself, or above it:
 *    Daz hangs the legs from "pelvis" and the spine from "hip");
 *  - the SPINE runs from the pelvis to the chest; the NECK from the chest to the HEAD (named
 *    head, else the first joint that branches, else the last weighted joint; a rig with
 *    neither legs nor a chest has a neck only when a joint is named head); a further long
 *    unpaired branch of the pelvis is the TAIL;
 *  - at the chest a pair is ARMS, or WINGS when named so or BROAD (its vertices spread
 *    across the chain over half its length); two pairs there: the broader is the wings;
 *  - at the hand (named, or the first joint with >= 2 branches of >= 2 joints) each branch
 *    is a FINGER; at the head pairs are EYES (one joint each) or EARS, a named jaw is the JAW.
 * Sides are set once the axes are known (am_body_set_sides): the member of a pair on the
 * body's +Y side after conversion is the left one, whatever its name says.
 */
#ifndef AM_MAP_BODY_H
#define AM_MAP_BODY_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "map/joint_names.h"
#include "scene/scene.h"
#include "math/am_math.h"

typedef enum am_chain_kind {
    AM_CHAIN_OTHER = 0,
    AM_CHAIN_SPINE,    /* pelvis (excl.) .. chest (incl.) */
    AM_CHAIN_NECK,     /* chest (excl.) .. head (incl.) */
    AM_CHAIN_SKULL,    /* beyond the head on the neck's path (head end) */
    AM_CHAIN_LEG,
    AM_CHAIN_HINDLIMB, /* a second pair of legs at the leg hub */
    AM_CHAIN_ARM,      /* arms or forelegs: chest (excl.) .. hand (incl.) */
    AM_CHAIN_WING,
    AM_CHAIN_TAIL,
    AM_CHAIN_FINGER,
    AM_CHAIN_EYE,
    AM_CHAIN_EAR,
    AM_CHAIN_JAW
} am_chain_kind;

typedef struct am_body_joint {
    int node;            /* scene node */
    int parent;          /* body joint, -1 at a root (nearest joint ancestor in the scene) */
    int first_child, next_sibling; /* body joints, -1 when none */
    int child_count;
    int depth;
    am_vec3 bind;        /* bind position: file frame, file units */
    bool weighted;       /* carries vertex weight in some mesh */
    double reach;        /* longest bone path from here down to a leaf */
    am_joint_name name;
    int chain;           /* index into chains, -1 (pelvis, root, unplaced) */
    int chain_index;     /* position along that chain */
} am_body_joint;

typedef struct am_body_chain {
    am_chain_kind kind;
    int hub;             /* the body joint it hangs from */
    int *joints;         /* from the hub's child down its path, body joint indices */
    size_t count;
    double length;       /* bone length from the hub to the last joint */
    int mirror;          /* the mirrored chain, -1 */
    int finger;          /* AM_CHAIN_FINGER: 0 thumb .. 4 pinky by name, -1 unknown */
    double broad;        /* spread of its vertices across the chain / length (0: none) */
    int side;            /* +1 left, -1 right, 0 middle (am_body_set_sides) */
    bool side_from_name; /* the side follows the name (no axes yet) */
} am_body_chain;

typedef struct am_body {
    am_body_joint *joints;
    size_t joint_count;
    am_body_chain *chains;
    size_t chain_count;
    int *node_joint;     /* per scene node: body joint, -1 */
    int root;            /* the top joint (of the largest tree) */
    int pelvis, leg_hub, chest, head; /* body joints, -1 when not found */
    int skin;            /* the skin whose bind pose the positions are in, -1: node rest */
    double stature;      /* largest extent of the skinned vertices and joints, file units */
    int stature_axis;    /* 1 X, 2 Y, 3 Z */
    am_vec3 lo, hi;      /* that bounding box */
    size_t vertex_count; /* skinned vertices measured */
} am_body;

/* Where a skin's bind pose sits in the scene. The inverse binds define the bind pose in the
 * frame the skin's vertices are in (vertex x bind shape): the scene for glTF, but the
 * MESH's own space for FBX through assimp (its inverse binds are relative to the mesh
 * node, which may carry a x100 scale). X = IBM_r x W_r (rest) of the skin's root-most
 * joint r places that frame where the file's own skinning puts the mesh at rest: identity
 * for glTF, the mesh node's world for FBX. It cancels in every delta (D = (B X)^-1 W X...)
 * and makes the rest pose the file's skinned rest. Identity without inverse binds. */
am_mat4 am_body_bind_placement(const am_scene *scene, int skin);
/* A skinned mesh's vertex in that placed bind frame: position x bind shape x X. */
am_vec3 am_body_bind_vertex(const am_scene *scene, const am_scene_mesh *mesh, size_t vertex);
/* Bind world matrices of every scene node (LL layout, file frame): a joint of `skin` with
 * inverse binds at the inverse of its inverse bind, placed by X (the skin's bind pose); any
 * other node keeps its rest offset from the nearest ancestor that is such a joint; without
 * one, its rest world. skin -1: the rest worlds. out: node_count entries. */
void am_body_bind_matrices(const am_scene *scene, int skin, am_mat4 *out);
/* The skin of the first skinned mesh, -1 when none. */
int am_body_primary_skin(const am_scene *scene);

/* Analyse the scene's joints (nodes marked is_joint). A scene without joints is refused
 * ("no joints: the model has no skeleton"). */
am_status am_body_analyse(const am_scene *scene, am_body *out, am_error *err);
/* Sides of every paired chain once the file -> viewer rotation is known (viewer +Y is the
 * body's left). */
void am_body_set_sides(am_body *body, am_quat file_to_viewer);
void am_body_free(am_body *body);
/* Where the upper leg starts along a leg chain: the joint whose next bone is the first
 * long one (>= 20 % of the leg), preferring one named as the upper leg; earlier joints are
 * pelvis bones (CMU's LHipJoint). */
size_t am_body_leg_hip(const am_body *body, int chain);
/* The ankle: two joints below the upper leg (further segments not counted); the chain's
 * count when the leg is shorter. */
size_t am_body_leg_ankle(const am_body *body, int chain);

const char *am_chain_kind_label(am_chain_kind kind);

#ifdef __cplusplus
}
#endif

#endif
