/* Base64 (core/base64.h) on libcrypto's block coder, with the strictness it lacks. */
#include "core/base64.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

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
