/* Fuzz the RemoteAdmin XML-RPC reply parser: any bytes give a reply or a clean error. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "world/remoteadmin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_remoteadmin_reply reply;
    am_error err;
    am_fuzz_dirty_error(&err);
    if (am_remoteadmin_parse_reply(data, size, &reply, &err) != AM_OK)
        am_fuzz_format(&err);
    am_remoteadmin_reply_free(&reply);
    return 0;
}
