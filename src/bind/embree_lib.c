/* Embree loaded on first use (embree_lib.h). */
#include "bind/embree_lib.h"

#include <string.h>

#include "core/dynlib.h"

#ifndef AM_EMBREE_SONAME
#define AM_EMBREE_SONAME "libembree3.so.3"
#endif

am_status am_embree_open(am_embree_api *api, am_error *err)
{
    memset(api, 0, sizeof *api);
    const am_dynlib_call calls[] = {
        {"rtcNewDevice", &api->new_device},
        {"rtcGetDeviceError", &api->get_device_error},
        {"rtcReleaseDevice", &api->release_device},
        {"rtcNewScene", &api->new_scene},
        {"rtcSetSceneFlags", &api->set_scene_flags},
        {"rtcSetSceneBuildQuality", &api->set_scene_build_quality},
        {"rtcCommitScene", &api->commit_scene},
        {"rtcReleaseScene", &api->release_scene},
        {"rtcNewGeometry", &api->new_geometry},
        {"rtcSetNewGeometryBuffer", &api->set_new_geometry_buffer},
        {"rtcSetGeometryIntersectFilterFunction", &api->set_geometry_intersect_filter},
        {"rtcSetGeometryOccludedFilterFunction", &api->set_geometry_occluded_filter},
        {"rtcSetGeometryBuildQuality", &api->set_geometry_build_quality},
        {"rtcCommitGeometry", &api->commit_geometry},
        {"rtcAttachGeometry", &api->attach_geometry},
        {"rtcReleaseGeometry", &api->release_geometry},
        {"rtcIntersect1", &api->intersect1},
        {"rtcOccluded1", &api->occluded1},
    };
    return am_dynlib_open(AM_EMBREE_SONAME, "Embree, the ray tests of a bind", calls, sizeof calls / sizeof calls[0],
                          NULL, err);
}
