/* The WorldBridge push sequence (world_push.h). */
#include "world/world_push.h"

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

static am_status run(am_worldbridge_client *c, am_world_push_request *rq, am_world_push_done *done, am_error *err)
{
    am_worldbridge_result res;
    memset(&res, 0, sizeof res);
    bool dry = c->opt.dry_run_dir != NULL;
    snprintf(done->step, sizeof done->step, "spawn_mesh");
    am_status st = call(c, "spawn_mesh",
                        am_worldbridge_spawn_mesh_body(rq->meshdata, rq->at, rq->texture, rq->texture_size,
                                                       rq->texture_uuid, rq->name, err),
                        &res, err);
    if (st)
        goto out;
    snprintf(done->object, sizeof done->object, "%s", dry ? AM_WORLDBRIDGE_DRY_RUN_OBJECT : res.uuid);
    am_worldbridge_result_free(&res);
    for (size_t i = 0; i < rq->anim_count; i++) {
        am_world_push_anim *pa = &rq->anims[i];
        snprintf(done->step, sizeof done->step, "store_anim %s", pa->name);
        if ((st = call(c, "store_anim", am_worldbridge_store_anim_body(pa->name, pa->data, pa->size, err), &res, err)))
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
        snprintf(done->step, sizeof done->step, "play_anim %s", rq->play);
        if ((st = call(c, "play_anim", am_worldbridge_play_anim_body(done->object, anim, rq->play, err), &res, err)))
            goto out;
        am_worldbridge_result_free(&res);
        done->played = true;
    }
    if (rq->save) {
        snprintf(done->step, sizeof done->step, "save_world");
        if ((st = call(c, "save_world", am_worldbridge_save_world_body(err), &res, err)))
            goto out;
        am_worldbridge_result_free(&res);
        done->saved = true;
    }
    snprintf(done->step, sizeof done->step, "%s", dry ? "writing the dry run's files" : "");
    if (!(st = am_worldbridge_client_finish(c, err)))
        done->step[0] = '\0';
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
    am_worldbridge_client client;
    memset(&client, 0, sizeof client);
    am_status st = am_worldbridge_client_init(&client, opt, err);
    if (st) {
        snprintf(done->step, sizeof done->step, "connecting");
        am_worldbridge_client_free(&client);
        return st;
    }
    st = run(&client, request, done, err);
    done->requests = client.sequence;
    am_worldbridge_client_free(&client);
    return st;
}
