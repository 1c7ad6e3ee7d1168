/* The catalogue's page (batch.h: am_batch_page_write): CATALOG/index.html, one self-contained
 * file listing every creature with its thumbnail, figures, state and links, sortable and
 * filterable, with no network. The data is embedded as JSON whose '<', '>' and '&' are
 * escaped, so no name can leave its element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <sqlite3.h>

#include "batch/batch_internal.h"
#include "core/base64.h"
#include "core/io.h"
#include "texture/texture.h"

#define THUMB_WIDTH 240

am_status am_batch_thumbnail(const char *sheet_png, const char *thumb_png, am_error *err)
{
    am_tex_image sheet = {0}, thumb = {0};
    am_status s = am_tex_png_read(sheet_png, &sheet, err);
    if (s)
        return s;
    uint32_t w = sheet.width < THUMB_WIDTH ? sheet.width : THUMB_WIDTH;
    uint32_t h = (uint32_t)((uint64_t)sheet.height * w / (sheet.width ? sheet.width : 1));
    if (h < 1)
        h = 1;
    s = am_tex_resize_box(&sheet, w, h, &thumb, err);
    if (!s)
        s = am_tex_png_write(thumb_png, &thumb, err);
    am_tex_image_free(&sheet);
    am_tex_image_free(&thumb);
    return s;
}

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width\">\n<title>animesh catalogue</title>\n"
    "<style>body{font:14px system-ui,sans-serif;margin:1em;background:#fafafa}"
    "table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:4px 8px;"
    "text-align:left;vertical-align:middle}th{cursor:pointer;background:#eee;position:sticky;top:0}"
    "th.sorted::after{content:attr(data-dir)}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "img{max-width:240px;max-height:120px}.failed{color:#b00}.stale,.pending{color:#a60}"
    "#bar{display:flex;gap:1em;margin:.5em 0 1em}#count{margin-left:auto}</style>\n"
    "</head><body>\n<h1>animesh catalogue</h1>\n"
    "<div id=\"bar\"><input id=\"filter\" type=\"search\" placeholder=\"filter: name, finding, model\" size=\"40\">"
    "<select id=\"state\"><option value=\"\">every state</option><option>done</option><option>failed</option>"
    "<option>pending</option><option>stale</option></select>"
    "<label><input id=\"tris\" type=\"number\" min=\"0\" step=\"1000\" placeholder=\"min triangles\"></label>"
    "<span id=\"count\"></span></div>\n"
    "<table><thead><tr><th></th><th data-key=\"name\">creature</th><th data-key=\"state\">state</th>"
    "<th data-key=\"triangles\">triangles</th><th data-key=\"land_impact\">land impact (est.)</th>"
    "<th data-key=\"joints\">joints</th><th data-key=\"motions\">motions</th>"
    "<th data-key=\"worst\">worst finding</th><th>files</th></tr></thead><tbody id=\"rows\"></tbody></table>\n"
    "<script type=\"application/json\" id=\"data\">";

static const char page_tail[] =
    "</script>\n<script>\n"
    "'use strict';\n"
    "const data = JSON.parse(document.getElementById('data').textContent);\n"
    "const rows = document.getElementById('rows');\n"
    "let sortKey = 'name', sortDir = 1;\n"
    "function cell(tr, text, cls) { const td = document.createElement('td'); td.textContent = text;"
    " if (cls) td.className = cls; tr.appendChild(td); return td; }\n"
    "function link(td, href, text) { const a = document.createElement('a'); a.href = href; a.textContent = text;"
    " td.appendChild(a); td.appendChild(document.createTextNode(' ')); }\n"
    "function render() {\n"
    "  const q = document.getElementById('filter').value.toLowerCase();\n"
    "  const st = document.getElementById('state').value;\n"
    "  const minTris = Number(document.getElementById('tris').value) || 0;\n"
    "  const list = data.creatures.filter(c => (!st || c.state === st) && (c.triangles || 0) >= minTris &&\n"
    "    (!q || [c.name, c.worst, c.model, c.error].join(' ').toLowerCase().includes(q)));\n"
    "  list.sort((a, b) => { const x = a[sortKey], y = b[sortKey];\n"
    "    if (x === y) return 0; if (x === null || x === undefined) return 1; if (y === null || y === undefined) return -1;\n"
    "    return (x < y ? -1 : 1) * sortDir; });\n"
    "  rows.textContent = '';\n"
    "  for (const c of list) {\n"
    "    const tr = document.createElement('tr'); tr.dataset.name = c.name;\n"
    "    const t = cell(tr, ''); if (c.thumb) { const img = document.createElement('img');"
    " img.src = 'data:image/png;base64,' + c.thumb; img.alt = c.name; t.appendChild(img); }\n"
    "    cell(tr, c.name); cell(tr, c.state, c.state);\n"
    "    cell(tr, c.triangles ?? '', 'num'); cell(tr, c.land_impact != null ? c.land_impact.toFixed(1) : '', 'num');\n"
    "    cell(tr, c.joints ?? '', 'num'); cell(tr, c.motions ?? '', 'num');\n"
    "    cell(tr, c.state === 'failed' ? c.error : (c.worst || ''), c.state === 'failed' ? 'failed' : '');\n"
    "    const f = cell(tr, '');\n"
    "    if (c.preview) link(f, c.preview, 'preview'); if (c.report) link(f, c.report, 'report');"
    " if (c.log) link(f, c.log, 'log');\n"
    "    rows.appendChild(tr);\n"
    "  }\n"
    "  document.getElementById('count').textContent = list.length + ' of ' + data.creatures.length + ' creatures';\n"
    "  for (const th of document.querySelectorAll('th[data-key]')) {\n"
    "    th.classList.toggle('sorted', th.dataset.key === sortKey); th.dataset.dir = sortDir > 0 ? ' \\u25b2' : ' \\u25bc'; }\n"
    "}\n"
    "for (const th of document.querySelectorAll('th[data-key]'))\n"
    "  th.addEventListener('click', () => { sortDir = th.dataset.key === sortKey ? -sortDir : 1;"
    " sortKey = th.dataset.key; render(); });\n"
    "for (const id of ['filter', 'state', 'tris']) document.getElementById(id).addEventListener('input', render);\n"
    "/* #filter=TEXT&state=STATE&tris=N&sort=KEY&dir=desc: a view to link to (and to test). */\n"
    "const h = new URLSearchParams(location.hash.slice(1));\n"
    "for (const id of ['filter', 'state', 'tris']) if (h.has(id)) document.getElementById(id).value = h.get(id);\n"
    "if (h.has('sort')) { sortKey = h.get('sort'); sortDir = h.get('dir') === 'desc' ? -1 : 1; }\n"
    "render();\n"
    "</script>\n</body></html>\n";

/* JSON text made safe inside a <script> element: '<', '>' and '&' as \u escapes (valid JSON,
 * the same string once parsed). */
static am_status append_escaped(am_buf *out, const char *json, am_error *err)
{
    am_status s = AM_OK;
    const char *run = json;
    for (const char *p = json; *p && !s; p++) {
        const char *esc = *p == '<' ? "\\u003c" : *p == '>' ? "\\u003e" : *p == '&' ? "\\u0026" : NULL;
        if (!esc)
            continue;
        s = am_buf_append(out, run, (size_t)(p - run), err);
        if (!s)
            s = am_buf_append(out, esc, 6, err);
        run = p + 1;
    }
    if (!s)
        s = am_buf_append(out, run, strlen(run), err);
    return s;
}

/* "creatures/NAME/NAME<suffix>" when that file exists, else NULL (json null). */
static json_t *creature_file(const am_batch_plan *plan, const char *name, const char *suffix)
{
    char rel[400], path[AM_BATCH_PATH_MAX];
    snprintf(rel, sizeof rel, AM_BATCH_CREATURES_DIR "/%s/%s%s", name, name, suffix);
    struct stat st;
    if (!am_batch_path(path, sizeof path, plan->catalog, rel, NULL) || stat(path, &st) != 0)
        return json_null();
    return json_string(rel);
}

static json_t *thumbnail(const am_batch_plan *plan, const char *name)
{
    char rel[400], path[AM_BATCH_PATH_MAX];
    snprintf(rel, sizeof rel, AM_BATCH_CREATURES_DIR "/%s/%s.thumb.png", name, name);
    if (!am_batch_path(path, sizeof path, plan->catalog, rel, NULL))
        return json_null();
    uint8_t *data = NULL;
    size_t size = 0;
    am_error ignored;
    if (am_read_file(path, &data, &size, &ignored))
        return json_null();
    char *b64 = NULL;
    json_t *out = am_base64_encode(data, size, &b64, &ignored) ? json_null() : json_string(b64);
    free(b64);
    free(data);
    return out;
}

static json_t *column(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: return json_real(sqlite3_column_double(st, i));
    case SQLITE_TEXT: return json_string((const char *)sqlite3_column_text(st, i));
    default: return json_null();
    }
}

am_status am_batch_page_write(const am_batch_plan *plan, const am_batch_status *status, am_error *err)
{
    char db_path[AM_BATCH_PATH_MAX], page_path[AM_BATCH_PATH_MAX];
    if (!am_batch_path(db_path, sizeof db_path, plan->catalog, AM_BATCH_DB_FILE, NULL) ||
        !am_batch_path(page_path, sizeof page_path, plan->catalog, "index.html", NULL))
        return am_fail_where(err, AM_ERR_INVALID, plan->catalog, "the catalogue's path is too long");
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT triangles, land_impact, joints, motions, worst_finding, model FROM creatures "
                           "WHERE name=?1",
                           -1, &st, NULL) != SQLITE_OK) {
        am_status s = am_fail_where(err, AM_ERR_IO, db_path, "the catalogue database: %s", sqlite3_errmsg(db));
        sqlite3_close(db);
        return s;
    }
    json_t *root = json_object(), *list = json_array();
    bool ok = root && list;
    for (size_t i = 0; ok && i < plan->job_count; i++) {
        const am_batch_job *j = &plan->jobs[i];
        am_batch_state state = status->states ? status->states[i] : AM_BATCH_PENDING;
        json_t *c = json_pack("{s:s,s:s,s:s}", "name", j->name, "state", am_batch_state_name(state), "model", j->model);
        ok = c != NULL;
        sqlite3_bind_text(st, 1, j->name, -1, SQLITE_STATIC);
        if (ok && sqlite3_step(st) == SQLITE_ROW) {
            json_object_set_new(c, "triangles", column(st, 0));
            json_object_set_new(c, "land_impact", column(st, 1));
            json_object_set_new(c, "joints", column(st, 2));
            json_object_set_new(c, "motions", column(st, 3));
            json_object_set_new(c, "worst", column(st, 4));
        }
        sqlite3_reset(st);
        if (ok && status->errors && status->errors[i])
            json_object_set_new(c, "error", json_string(status->errors[i]));
        if (ok && state != AM_BATCH_PENDING) {
            json_object_set_new(c, "preview", creature_file(plan, j->name, ".preview.html"));
            json_object_set_new(c, "report", creature_file(plan, j->name, ".report.json"));
            json_object_set_new(c, "log", creature_file(plan, j->name, ".log"));
            json_object_set_new(c, "thumb", thumbnail(plan, j->name));
        }
        if (ok)
            ok = json_array_append_new(list, c) == 0;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    ok = ok && json_object_set_new(root, "creatures", list) == 0;
    if (!ok)
        json_decref(list);
    char *text = ok ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!text)
        return am_fail_nomem(err, "the catalogue's page");
    am_buf page = {0};
    am_status s = am_buf_append(&page, page_head, strlen(page_head), err);
    if (!s)
        s = append_escaped(&page, text, err);
    if (!s)
        s = am_buf_append(&page, page_tail, strlen(page_tail), err);
    free(text);
    if (!s)
        s = am_write_file_atomic(page_path, page.data, page.size, err);
    am_buf_free(&page);
    return s;
}
