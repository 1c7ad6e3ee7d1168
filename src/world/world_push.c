/* The WorldBridge push sequence (world_push.h). */
#include "world/world_push.h"

#include "world/meshdata.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* One command: build its body (NULL: err is set), send it, keep the result in *res. */
static am_status call(am_worldbridge_client *c, const char *command, json_t *body, am_worldbridge_result *res,
                      am_error *err)
{
    if (!body)
        return err && err->code ? err->code : AM_ERR_NOMEM;
    am_status st = am_worldbridge_call(c, command, body, res, err);
    json_decref(body);
    return st;
}

/* Name the step about to run in done->step: the command and its argument, if any
 * (AM_ERR_NOMEM when the text cannot be kept). */
static am_status name_step(am_world_push_done *done, am_error *err, const char *command, const char *arg)
{
    if (!am_string_setf(&done->step, "%s%s%s", command, arg ? " " : "", arg ? arg : ""))
        return am_fail_nomem(err, "the push's step");
    return AM_OK;
}

void am_world_push_done_free(am_world_push_done *done)
{
    if (done)
        am_string_free(&done->step);
}

static am_status run(am_worldbridge_client *c, am_world_push_request *rq, json_t *meshdata, const char *name,
                     am_world_push_done *done, am_error *err)
{
    am_worldbridge_result res;
    memset(&res, 0, sizeof res);
    bool dry = c->opt.dry_run_dir != NULL;
    am_status st = name_step(done, err, "spawn_mesh", NULL);
    if (st)
        goto out;
    st = call(c, "spawn_mesh",
              am_worldbridge_spawn_mesh_body(meshdata, rq->at, rq->texture, rq->texture_size, rq->texture_uuid,
                                             name, err),
              &res, err);
    if (st)
        goto out;
    snprintf(done->object, sizeof done->object, "%s", dry ? AM_WORLDBRIDGE_DRY_RUN_OBJECT : res.uuid);
    am_worldbridge_result_free(&res);
    for (size_t i = 0; i < rq->anim_count; i++) {
        am_world_push_anim *pa = &rq->anims[i];
        if ((st = name_step(done, err, "store_anim", pa->name)) ||
            (st = call(c, "store_anim", am_worldbridge_store_anim_body(pa->name, pa->data, pa->size, err), &res, err)))
            goto out;
        snprintf(pa->uuid, sizeof pa->uuid, "%s", res.uuid);
        done->stored++;
        am_worldbridge_result_free(&res);
    }
    if (rq->play) {
        const char *anim = rq->play; /* an asset UUID, or one stored above (a dry run keeps its name) */
        for (size_t i = 0; i < rq->anim_count; i++)
            if (strcmp(rq->anims[i].name, rq->play) == 0 && rq->anims[i].uuid[0])
                anim = rq->anims[i].uuid;
        if ((st = name_step(done, err, "play_anim", rq->play)) ||
            (st = call(c, "play_anim", am_worldbridge_play_anim_body(done->object, anim, rq->play, err), &res, err)))
            goto out;
        am_worldbridge_result_free(&res);
        done->played = true;
    }
    if (rq->save) {
        if ((st = name_step(done, err, "save_world", NULL)) ||
            (st = call(c, "save_world", am_worldbridge_save_world_body(err), &res, err)))
            goto out;
        am_worldbridge_result_free(&res);
        done->saved = true;
    }
    am_string_free(&done->step);
    if (dry && (st = name_step(done, err, "writing the dry run's files", NULL)))
        goto out;
    if (!(st = am_worldbridge_client_finish(c, err)))
        am_string_free(&done->step);
out:
    am_worldbridge_result_free(&res);
    return st;
}

am_status am_world_push(const am_worldbridge_options *opt, am_world_push_request *request, am_world_push_done *done,
                        am_error *err)
{
    memset(done, 0, sizeof *done);
    for (size_t i = 0; i < request->anim_count; i++)
        request->anims[i].uuid[0] = '\0';
    json_t *meshdata = NULL;
    am_meshdata_summary sum;
    am_status st = am_meshdata_load(request->meshdata_path, request->skeleton, &meshdata, &sum, err);
    if (st) {
        am_status named = name_step(done, err, "reading the meshdata", NULL);
        return named ? named : st;
    }
    am_worldbridge_client client;
    memset(&client, 0, sizeof client);
    st = am_worldbridge_client_init(&client, opt, err);
    if (st) {
        am_worldbridge_client_free(&client);
        json_decref(meshdata);
        am_status named = name_step(done, err, "connecting", NULL);
        return named ? named : st;
    }
    st = run(&client, request, meshdata, request->name ? request->name : sum.name, done, err);
    done->requests = client.sequence;
    am_worldbridge_client_free(&client);
    json_decref(meshdata);
    return st;
}
