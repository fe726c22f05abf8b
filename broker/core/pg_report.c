/* SPDX-License-Identifier: MIT */
/* The offline HTML report; see pg_report.h. */
#include "pg_report.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_crypto.h"

typedef struct {
    char *p;
    size_t len, cap;
    bool oom;
} buf;

static void put(buf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n + 1) cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

static void printf_(buf *b, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Text into HTML: the five characters that matter, escaped. */
static void text(buf *b, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '<': puts_(b, "&lt;"); break;
        case '>': puts_(b, "&gt;"); break;
        case '&': puts_(b, "&amp;"); break;
        case '"': puts_(b, "&quot;"); break;
        case '\'': puts_(b, "&#39;"); break;
        default: put(b, s, 1);
        }
    }
}

static void data_url(buf *b, const uint8_t *png, size_t len) {
    puts_(b, "data:image/png;base64,");
    char *enc = malloc(pg_b64_len(len) + 1);
    if (!enc) {
        b->oom = true;
        return;
    }
    pg_b64_encode(png, len, enc);
    puts_(b, enc);
    free(enc);
}

static const char STYLE[] =
    "<style>\n"
    "body{font:14px system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}\n"
    "h1{font-size:20px}h2{font-size:16px;margin:0 0 8px}\n"
    ".item{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px;margin:12px 0}\n"
    ".status{display:inline-block;padding:2px 8px;border-radius:4px;color:#fff;font-weight:600}\n"
    ".passed{background:#2e7d32}.failed{background:#c62828}.blocked{background:#6d4c41}"
    ".needs_approval{background:#1565c0}\n"
    ".pair{display:flex;gap:12px;flex-wrap:wrap;align-items:flex-start}\n"
    ".pair figure{margin:0}.pair img{max-width:560px;border:1px solid #ccc;image-rendering:pixelated}\n"
    ".overlay{position:relative;display:inline-block}\n"
    ".overlay img{display:block;max-width:560px;border:1px solid #ccc}\n"
    ".overlay img.top{position:absolute;left:0;top:0}\n"
    "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}\n"
    "#filter label{margin-right:12px}\n"
    "</style>\n";

static const char SCRIPT[] =
    "<script>\n"
    "function pgFilter(){var on={};document.querySelectorAll('#filter input').forEach(function(c){on[c.value]=c.checked;});"
    "document.querySelectorAll('.item').forEach(function(it){it.style.display=on[it.dataset.status]?'':'none';});}\n"
    "function pgOpacity(el){var img=document.getElementById(el.dataset.target);img.style.opacity=el.value/100;"
    "document.getElementById(el.dataset.target+'-v').textContent=el.value+'%';}\n"
    /* #opacity=N in the URL sets the sliders (a link to a view; the browser test uses it) */
    "document.addEventListener('DOMContentLoaded',function(){var m=/opacity=(\\d+)/.exec(location.hash);"
    "document.querySelectorAll('input.opacity').forEach(function(el){if(m)el.value=m[1];pgOpacity(el);});});\n"
    "</script>\n";

static void figure(buf *b, const char *label, const uint8_t *png, size_t len, const char *id) {
    puts_(b, "<figure><figcaption>");
    text(b, label);
    puts_(b, "</figcaption>");
    if (png) {
        printf_(b, "<img id=\"%s\" alt=\"", id);
        text(b, label);
        puts_(b, "\" src=\"");
        data_url(b, png, len);
        puts_(b, "\">");
    } else {
        puts_(b, "<p>(none)</p>");
    }
    puts_(b, "</figure>\n");
}

static void metrics_table(buf *b, const cJSON *m) {
    if (!cJSON_IsObject(m)) return;
    puts_(b, "<table class=\"metrics\"><tr><th>metric</th><th>value</th></tr>\n");
    const cJSON *it;
    cJSON_ArrayForEach(it, m) {
        puts_(b, "<tr><td>");
        text(b, it->string);
        puts_(b, "</td><td>");
        if (cJSON_IsString(it)) text(b, it->valuestring);
        else {
            char *s = cJSON_PrintUnformatted(it);
            text(b, s);
            free(s);
        }
        puts_(b, "</td></tr>\n");
    }
    puts_(b, "</table>\n");
}

static void regions_table(buf *b, const cJSON *r) {
    if (!cJSON_IsArray(r)) return;
    printf_(b, "<table class=\"regions\"><tr><th>#</th><th>x</th><th>y</th><th>w</th><th>h</th><th>pixels</th></tr>\n");
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, r) {
        const char *k[] = {"x", "y", "w", "h", "pixels"};
        printf_(b, "<tr><td>%d</td>", ++i);
        for (int j = 0; j < 5; j++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, k[j]);
            printf_(b, "<td>%.0f</td>", cJSON_IsNumber(v) ? v->valuedouble : 0.0);
        }
        puts_(b, "</tr>\n");
    }
    puts_(b, "</table>\n");
}

static void item(buf *b, const pg_report_item *it, size_t idx) {
    const char *l = it->left_label ? it->left_label : "baseline", *r = it->right_label ? it->right_label : "capture";
    printf_(b, "<section class=\"item\" data-status=\"");
    text(b, it->status);
    puts_(b, "\"><h2>");
    text(b, it->title);
    puts_(b, " <span class=\"status ");
    text(b, it->status);
    puts_(b, "\">");
    text(b, it->status);
    puts_(b, "</span></h2><p class=\"reason\">");
    text(b, it->reason);
    puts_(b, "</p>\n<div class=\"pair sidebyside\">\n");
    char id[32];
    snprintf(id, sizeof id, "left%zu", idx);
    figure(b, l, it->baseline_png, it->baseline_len, id);
    snprintf(id, sizeof id, "right%zu", idx);
    figure(b, r, it->actual_png, it->actual_len, id);
    puts_(b, "</div>\n");
    if (it->baseline_png && it->actual_png) {
        printf_(b, "<h3>overlay: %s over %s</h3>\n<div><label>opacity <input type=\"range\" class=\"opacity\" "
                   "min=\"0\" max=\"100\" value=\"50\" data-target=\"ov%zu\" oninput=\"pgOpacity(this)\"> <span "
                   "id=\"ov%zu-v\">50%%</span></label></div>\n<div><div class=\"overlay\" id=\"overlay%zu\">"
                   "<img alt=\"under\" src=\"",
                r, l, idx, idx, idx);
        data_url(b, it->baseline_png, it->baseline_len);
        printf_(b, "\"><img class=\"top\" id=\"ov%zu\" alt=\"over\" style=\"opacity:0.5\" src=\"", idx);
        data_url(b, it->actual_png, it->actual_len);
        puts_(b, "\"></div></div>\n");
    }
    if (it->diff_png) {
        snprintf(id, sizeof id, "diff%zu", idx);
        puts_(b, "<div class=\"pair\">");
        figure(b, "diff (red: changed, yellow: antialiasing, blue: masked, cyan: shifted)", it->diff_png, it->diff_len,
               id);
        puts_(b, "</div>\n");
    }
    metrics_table(b, it->metrics);
    regions_table(b, it->regions);
    puts_(b, "</section>\n");
}

pg_err pg_report_html(const char *heading, const pg_report_item *items, size_t n, char **out, size_t *len,
                      pg_error *e) {
    buf b = {0};
    puts_(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
              "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>");
    text(&b, heading);
    puts_(&b, "</title>\n");
    puts_(&b, STYLE);
    puts_(&b, SCRIPT);
    puts_(&b, "</head><body>\n<h1>");
    text(&b, heading);
    puts_(&b, "</h1>\n<div id=\"filter\">show: ");
    const char *st[] = {"passed", "failed", "blocked", "needs_approval"};
    for (int i = 0; i < 4; i++)
        printf_(&b, "<label><input type=\"checkbox\" value=\"%s\" checked onchange=\"pgFilter()\"> %s</label>", st[i],
                st[i]);
    puts_(&b, "</div>\n");
    for (size_t i = 0; i < n; i++) item(&b, &items[i], i);
    puts_(&b, "</body></html>\n");
    if (b.oom) {
        free(b.p);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for the report");
    }
    *out = b.p;
    *len = b.len;
    return PG_OK;
}
