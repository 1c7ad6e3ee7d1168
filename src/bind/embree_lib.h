/* Embree 3, loaded when a bind builds its ray scene, rather than when animesh starts.
 *
 * libembree3 brings TBB and the C++ runtime; with them it was 1.2 of the 6.7 ms every
 * command spent starting (an empty program linked with the same libraries, with and
 * without it), paid by every command although only a bind (and the report's holds) casts
 * rays.
 *
 * am_embree_open loads it (dlopen of the SONAME the build found, kept loaded once loaded)
 * and fills a table of the calls visibility.c makes. No global state: every ray scene
 * holds its own table. */
#ifndef AM_BIND_EMBREE_LIB_H
#define AM_BIND_EMBREE_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

#include <embree3/rtcore.h>

#include "core/error.h"

typedef struct am_embree_api {
    __typeof__(&rtcNewDevice) new_device;
    __typeof__(&rtcGetDeviceError) get_device_error;
    __typeof__(&rtcReleaseDevice) release_device;
    __typeof__(&rtcNewScene) new_scene;
    __typeof__(&rtcSetSceneFlags) set_scene_flags;
    __typeof__(&rtcSetSceneBuildQuality) set_scene_build_quality;
    __typeof__(&rtcCommitScene) commit_scene;
    __typeof__(&rtcReleaseScene) release_scene;
    __typeof__(&rtcNewGeometry) new_geometry;
    __typeof__(&rtcSetNewGeometryBuffer) set_new_geometry_buffer;
    __typeof__(&rtcSetGeometryIntersectFilterFunction) set_geometry_intersect_filter;
    __typeof__(&rtcSetGeometryOccludedFilterFunction) set_geometry_occluded_filter;
    __typeof__(&rtcSetGeometryBuildQuality) set_geometry_build_quality;
    __typeof__(&rtcCommitGeometry) commit_geometry;
    __typeof__(&rtcAttachGeometry) attach_geometry;
    __typeof__(&rtcReleaseGeometry) release_geometry;
    __typeof__(&rtcIntersect1) intersect1;
    __typeof__(&rtcOccluded1) occluded1;
} am_embree_api;

/* Load Embree and fill api. AM_ERR_IO naming the library and dlerror's words when it is
 * not installed or lacks a call. */
am_status am_embree_open(am_embree_api *api, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
