#include "world/digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uuid/uuid.h>

void am_uuid_from_name(const char *name, am_uuid *out)
{
    uuid_t ns, u;
    uuid_parse(AM_UUID_NAMESPACE, ns);
    uuid_generate_sha1(u, ns, name, strlen(name));
    memcpy(out->b, u, 16);
}

am_status am_uuid_from_content(const char *kind, const void *data, size_t n, am_uuid *out, am_error *err)
{
    return am_uuid_from_content_salted(kind, NULL, data, n, out, err);
}

am_status am_uuid_from_content_salted(const char *kind, const char *salt, const void *data, size_t n, am_uuid *out,
                                      am_error *err)
{
    char hex[65], name[256];
    am_status s = am_sha256_hex(data, n, hex, err);
    if (s)
        return s;
    if (snprintf(name, sizeof name, "%s:%s%s%s", kind, hex, salt && salt[0] ? ":" : "", salt ? salt : "") >=
        (int)sizeof name)
        return am_fail(err, AM_ERR_INVALID, "UUID kind or salt too long");
    am_uuid_from_name(name, out);
    return AM_OK;
}

void am_uuid_format(const am_uuid *u, char out[37])
{
    uuid_unparse_lower(u->b, out);
}

int am_uuid_parse(const char *s, am_uuid *out)
{
    if (!s || strlen(s) != 36)
        return 0;
    uuid_t u;
    if (uuid_parse(s, u) != 0)
        return 0;
    if (out)
        memcpy(out->b, u, 16);
    return 1;
}
