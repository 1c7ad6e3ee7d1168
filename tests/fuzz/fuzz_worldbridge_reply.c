/* libFuzzer target for what a WorldBridge peer replies, judged for each command: any bytes
 * give a result or a clean error, and the bearer token, wherever and however the reply
 * echoes it, never appears in the error text. Seeds: corpus/worldbridge_reply/; dictionary
 * worldbridge_reply.dict (which holds the token, so mutations splice it in). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "world/worldbridge.h"

#define TOKEN "Zq9-Tok/en\"Zq9"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const commands[] = {"spawn_mesh", "store_anim", "play_anim", "save_world"};
    for (size_t i = 0; i < 4; i++) {
        am_error err;
        am_fuzz_dirty_error(&err);
        am_worldbridge_result r;
        memset(&r, 0, sizeof r);
        if (am_worldbridge_judge_reply(commands[i], 200, data, size, TOKEN, &r, &err) != AM_OK) {
            char text[AM_ERROR_TEXT_MAX];
            am_error_format(&err, text, sizeof text);
            /* the whole token, as is or as JSON spells it (a part of it is not the secret) */
            if (strstr(text, TOKEN) || strstr(text, "Zq9-Tok/en\\\"Zq9") || strstr(text, "Zq9-Tok\\/en\\\"Zq9"))
                abort(); /* the token leaked */
        }
        am_worldbridge_result_free(&r);
    }
    return 0;
}
