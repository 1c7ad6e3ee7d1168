#include "world/digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <uuid/uuid.h>

am_status am_sha256(const void *data, size_t n, uint8_t out[32], am_error *err)
{
    unsigned int len = 0;
    if (EVP_Digest(data, n, out, &len, EVP_sha256(), NULL) != 1 || len != 32)
        return am_fail(err, AM_ERR_INVALID, "SHA-256 computation failed (libcrypto)");
    return AM_OK;
}

am_status am_sha256_hex(const void *data, size_t n, char out[65], am_error *err)
{
    uint8_t d[32];
    am_status s = am_sha256(data, n, d, err);
    if (s)
        return s;
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = '\0';
    return AM_OK;
}

am_status am_base64_encode(const void *data, size_t n, char **out, am_error *err)
{
    *out = NULL;
    /* EVP_EncodeBlock takes an int length: refuse what it cannot count. */
    if (n > (size_t)0x5fffffff)
        return am_fail(err, AM_ERR_INVALID, "file too large to send inline (%zu bytes)", n);
    size_t cap = 4 * ((n + 2) / 3) + 1;
    char *b = malloc(cap);
    if (!b)
        return am_fail_nomem(err, "base64");
    int w = EVP_EncodeBlock((unsigned char *)b, data, (int)n);
    if (w < 0 || (size_t)w >= cap) {
        free(b);
        return am_fail(err, AM_ERR_INVALID, "base64 encoding failed (libcrypto)");
    }
    b[w] = '\0';
    *out = b;
    return AM_OK;
}

am_status am_base64_decode(const char *text, uint8_t **out, size_t *n, am_error *err)
{
    *out = NULL;
    *n = 0;
    size_t len = strlen(text), k = 0;
    if (len > (size_t)0x5fffffff)
        return am_fail(err, AM_ERR_INVALID, "base64 text too long");
    char *clean = malloc(len + 1);
    uint8_t *bin = malloc(len / 4 * 3 + 3);
    if (!clean || !bin) {
        free(clean);
        free(bin);
        return am_fail_nomem(err, "base64");
    }
    for (size_t i = 0; i < len; i++)
        if (!strchr(" \t\r\n", text[i]))
            clean[k++] = text[i];
    clean[k] = '\0';
    size_t pad = k >= 1 && clean[k - 1] == '=' ? (k >= 2 && clean[k - 2] == '=' ? 2 : 1) : 0;
    /* '=' only as the last one or two characters (EVP_DecodeBlock would accept it inside). */
    int bad = k % 4 != 0 || strcspn(clean, "=") < k - pad;
    int w = bad ? -1 : EVP_DecodeBlock(bin, (const unsigned char *)clean, (int)k);
    free(clean);
    if (w < 0 || (size_t)w < pad) {
        free(bin);
        return am_fail(err, AM_ERR_INVALID, "not base64");
    }
    *out = bin;
    *n = (size_t)w - pad;
    return AM_OK;
}

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
