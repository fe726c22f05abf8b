/* SPDX-License-Identifier: MIT */
/* The in-memory desktop of pg_fake.h. */
#include "pg_fake.h"
#include "pg_person.h"
#include "pg_time.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAX_WINDOWS 64
#define FAKE_MAX_FRAMES 16
#define FAKE_MAX_INPUT 256
#define FAKE_BACKGROUND 0x404040ffu
#define PG_FAKE_FRAME_RGBA 0x3355aaffu /* title bars and borders */

typedef struct {
    pg_window w;
    uint8_t *frames[FAKE_MAX_FRAMES]; /* frame 0 is the window's pixels */
    size_t n_frames, next_frame;
    bool loop;
    bool frozen; /* its program does not answer (responding() says NO, or SILENT) */
    bool silent; /* it never promised to answer: frozen is SILENT */
} fake_window;

typedef struct {
    char op[32];
    pg_err code;
    unsigned times; /* 0: always */
} fake_failure;

struct pg_platform {
    int32_t sx, sy;
    uint32_t sw, sh;
    fake_window win[FAKE_MAX_WINDOWS];
    size_t n;
    uint64_t next_id;
    char *input[FAKE_MAX_INPUT];
    size_t n_input;
    unsigned captures;
    fake_failure fail[8];
    size_t n_fail;
    pg_indicator indicated; /* the sign as last drawn (window 0: hidden) */
    unsigned indications;   /* indicate calls */
    void (*on_capture)(pg_fake *f, void *ctx);
    void *on_capture_ctx;
    void (*after_capture)(pg_fake *f, void *ctx);
    void *after_capture_ctx;
    void (*on_list)(pg_fake *f, void *ctx);
    void *on_list_ctx;
    pg_monitor monitors[4]; /* none set: the whole screen, "fake" */
    size_t n_monitors;
    size_t list_limit; /* list_all stops after this many windows (0: no limit) */
    char lost[128]; /* the display went away: every call fails, lost() says why */
    bool no_wm;     /* responding() cannot ask: UNKNOWN */
    int32_t px, py; /* the pointer, in screen coordinates */
    char refused_chord[64]; /* key_check refuses exactly this chord ("" none) */
    uint64_t sel_window[2]; /* the owners of CLIPBOARD [0] and PRIMARY [1] (pg_fake_set_selection) */
    uint32_t sel_pid[2];
    unsigned unconfirm_next; /* the next inputs recorded are sent but unconfirmed (pg_fake_unconfirm) */
    uint32_t unconfirmed;    /* such inputs since unconfirmed() last read */
    pg_person *polled;       /* person_poll's (pg_fake_polled_person), NULL until the first */
    char polled_key[64];
};

static bool display_down; /* opening fails while set: the display is gone (pg_fake_display_down) */

/* ---- helpers ---- */

static fake_window *find(pg_fake *f, uint64_t id) {
    for (size_t i = 0; i < f->n; i++)
        if (f->win[i].w.id == id) return &f->win[i];
    return NULL;
}

static void put_px(uint8_t *p, uint32_t rgba) {
    p[0] = (uint8_t)(rgba >> 24), p[1] = (uint8_t)(rgba >> 16), p[2] = (uint8_t)(rgba >> 8), p[3] = (uint8_t)rgba;
}

static void record(pg_fake *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void record(pg_fake *f, const char *fmt, ...) {
    if (f->n_input == FAKE_MAX_INPUT) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t len = strlen(line) + 1;
    char *copy = malloc(len);
    if (!copy) return;
    memcpy(copy, line, len);
    f->input[f->n_input++] = copy;
    if (f->unconfirm_next) f->unconfirm_next--, f->unconfirmed++; /* recorded: it was sent */
}

/* A title longer than pg_window.title holds is cut on a character boundary
 * and says so, as the real backends do. */
static void set_title(pg_window *w, const char *title) {
    size_t n = strlen(title);
    w->title_cut = n >= sizeof w->title;
    if (w->title_cut) {
        n = sizeof w->title - 1;
        while (n > 0 && ((unsigned char)title[n] & 0xC0) == 0x80) n--;
    }
    memcpy(w->title, title, n);
    w->title[n] = '\0';
}

/* PG_OK, or the injected failure of op. */
static pg_err injected(pg_fake *f, const char *op, pg_error *e) {
    if (f->lost[0]) return pg_error_set(e, PG_E_UNREACHABLE, NULL, "%s", f->lost);
    for (size_t i = 0; i < f->n_fail; i++) {
        fake_failure *x = &f->fail[i];
        if (strcmp(x->op, op) || x->code == PG_OK) continue;
        pg_err code = x->code;
        if (x->times && --x->times == 0) x->code = PG_OK;
        return pg_error_set(e, code, NULL, "fake backend: %s fails as the test asked", op);
    }
    return PG_OK;
}

/* A target: like the X11 backend, a popup is no window one can name. */
static pg_err resolve(pg_fake *f, uint64_t id, fake_window **out, pg_error *e) {
    *out = find(f, id);
    if (!*out || ((*out)->w.kind == PG_WINDOW_POPUP && !(*out)->w.visible))
        return pg_error_set(e, PG_E_NOTFOUND, NULL, "no window with id %llu", (unsigned long long)id);
    return PG_OK;
}

/* The intersection of region (or the whole w x h) with [0,w) x [0,h). */
static pg_err clip(const pg_rect *region, uint32_t w, uint32_t h, pg_rect *out, pg_error *e) {
    int64_t x0 = 0, y0 = 0, x1 = w, y1 = h;
    if (region) {
        x0 = region->x > 0 ? region->x : 0;
        y0 = region->y > 0 ? region->y : 0;
        if ((int64_t)region->x + region->w < x1) x1 = (int64_t)region->x + region->w;
        if ((int64_t)region->y + region->h < y1) y1 = (int64_t)region->y + region->h;
    }
    if (x1 <= x0 || y1 <= y0) return pg_error_set(e, PG_E_BADINPUT, NULL, "region does not overlap the target");
    *out = (pg_rect){(int32_t)x0, (int32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
    return PG_OK;
}

static pg_err copy_out(const uint8_t *src, uint32_t src_w, const pg_rect *r, pg_capture *out, const char *method,
                       pg_error *e) {
    size_t stride = (size_t)r->w * 4;
    out->rgba = malloc(stride * r->h);
    if (!out->rgba) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (uint32_t y = 0; y < r->h; y++)
        memcpy(out->rgba + y * stride, src + ((size_t)(r->y + (int32_t)y) * src_w + (size_t)r->x) * 4, stride);
    out->width = r->w, out->height = r->h, out->stride = stride;
    snprintf(out->method, sizeof out->method, "%s", method);
    return PG_OK;
}

/* ---- the backend ---- */

static pg_err fake_open(pg_platform **out, const char *display, pg_error *e) {
    (void)display;
    if (display_down) return pg_error_set(e, PG_E_UNREACHABLE, NULL, "fake display is down");
    pg_fake *f = calloc(1, sizeof *f);
    if (!f) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    f->sw = 1280, f->sh = 800;
    f->next_id = 1000;
    *out = f;
    return PG_OK;
}

static void fake_close(pg_platform *f) {
    if (!f) return;
    for (size_t i = 0; i < f->n; i++)
        for (size_t k = 0; k < f->win[i].n_frames; k++) free(f->win[i].frames[k]);
    for (size_t i = 0; i < f->n_input; i++) free(f->input[i]);
    pg_person_free(f->polled);
    free(f);
}

static pg_err fake_caps(pg_platform *f, pg_caps *out, pg_error *e) {
    (void)f;
    (void)e;
    *out = (pg_caps){.list_windows = true, .capture_window = true, .capture_covered = true, .capture_screen = true,
                     .input_pointer = true, .input_keys = true, .input_text_unicode = true, .settle = true};
    snprintf(out->backend, sizeof out->backend, "fake");
    snprintf(out->detail, sizeof out->detail, "in-memory desktop %ux%u", f->sw, f->sh);
    return PG_OK;
}

/* The windows in stacking order (bottom first), popups only when asked;
 * at most max of them (0: all), *cut when some were left out. */
static pg_err list(pg_fake *f, bool popups, size_t max, pg_window **out, size_t *n, bool *cut, pg_error *e) {
    *out = calloc(f->n ? f->n : 1, sizeof **out);
    *n = 0;
    *cut = false;
    if (!*out) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (size_t i = 0; i < f->n; i++) {
        if (!popups && f->win[i].w.kind == PG_WINDOW_POPUP) continue;
        if (max && *n == max) {
            *cut = true;
            break;
        }
        (*out)[(*n)++] = f->win[i].w;
    }
    return PG_OK;
}

static pg_err fake_list_windows(pg_platform *f, pg_window **out, size_t *n, pg_error *e) {
    pg_err rc = injected(f, "list_windows", e);
    if (!rc && f->on_list) f->on_list(f, f->on_list_ctx);
    bool cut;
    return rc ? rc : list(f, false, 0, out, n, &cut, e);
}

static pg_err fake_list_all(pg_platform *f, pg_window **out, size_t *n, bool *complete, pg_error *e) {
    pg_err rc = injected(f, "list_all", e);
    bool cut = false;
    if (!rc) rc = list(f, true, f->list_limit, out, n, &cut, e);
    *complete = !cut;
    return rc;
}

/* One window as the listing has it, parent left out as the contract says. */
static pg_err fake_describe_window(pg_platform *f, uint64_t id, pg_window *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    fake_window *fw;
    pg_err rc = injected(f, "describe_window", e);
    if (!rc) rc = resolve(f, id, &fw, e);
    if (rc) return rc;
    *out = fw->w;
    out->parent = 0;
    return PG_OK;
}

static void before_capture(pg_fake *f) {
    f->captures++;
    if (f->on_capture) f->on_capture(f, f->on_capture_ctx);
}

static void after_capture(pg_fake *f) {
    if (f->after_capture) f->after_capture(f, f->after_capture_ctx);
}

static pg_err fake_capture_window(pg_platform *f, uint64_t id, const pg_rect *region, pg_capture *out,
                                  pg_error *e) {
    memset(out, 0, sizeof *out);
    before_capture(f);
    fake_window *fw;
    pg_err rc = injected(f, "capture_window", e);
    if (!rc) rc = resolve(f, id, &fw, e);
    if (rc) return rc;
    if (!fw->w.visible) return pg_error_set(e, PG_E_NOTFOUND, NULL, "window %llu is not mapped", (unsigned long long)id);
    pg_rect r;
    if ((rc = clip(region, fw->w.width, fw->w.height, &r, e))) return rc;
    size_t k = fw->next_frame;
    if (fw->n_frames > 1) fw->next_frame = fw->loop ? (k + 1) % fw->n_frames : (k + 1 < fw->n_frames ? k + 1 : k);
    rc = copy_out(fw->frames[k], fw->w.width, &r, out, "fake", e);
    out->origin_x = fw->w.x + r.x;
    out->origin_y = fw->w.y + r.y;
    after_capture(f);
    return rc;
}

/* Paints the screen rectangle (x, y, w, h) of s (screen coordinates) with rgba. */
static void paint_rect(pg_fake *f, uint8_t *s, const pg_rect *r, uint32_t rgba) {
    for (uint32_t y = 0; y < r->h; y++) {
        int64_t sy = (int64_t)r->y + y - f->sy;
        if (sy < 0 || sy >= f->sh) continue;
        for (uint32_t x = 0; x < r->w; x++) {
            int64_t sx = (int64_t)r->x + x - f->sx;
            if (sx >= 0 && sx < f->sw) put_px(s + ((size_t)sy * f->sw + (size_t)sx) * 4, rgba);
        }
    }
}

/* The virtual screen as the visible windows paint it, bottom to top. */
static uint8_t *compose(pg_fake *f) {
    uint8_t *s = malloc((size_t)f->sw * f->sh * 4);
    if (!s) return NULL;
    for (size_t i = 0; i < (size_t)f->sw * f->sh; i++) put_px(s + 4 * i, FAKE_BACKGROUND);
    for (size_t i = 0; i < f->n; i++) {
        const fake_window *fw = &f->win[i];
        if (!fw->w.visible) continue;
        paint_rect(f, s, &fw->w.frame, PG_FAKE_FRAME_RGBA); /* decorations, under the content */
        const uint8_t *px = fw->frames[fw->next_frame < fw->n_frames ? fw->next_frame : 0];
        for (uint32_t y = 0; y < fw->w.height; y++) {
            int64_t sy = (int64_t)fw->w.y + y - f->sy;
            if (sy < 0 || sy >= f->sh) continue;
            for (uint32_t x = 0; x < fw->w.width; x++) {
                int64_t sx = (int64_t)fw->w.x + x - f->sx;
                if (sx >= 0 && sx < f->sw)
                    memcpy(s + ((size_t)sy * f->sw + (size_t)sx) * 4, px + ((size_t)y * fw->w.width + x) * 4, 4);
            }
        }
    }
    return s;
}

static pg_err fake_capture_screen(pg_platform *f, const pg_rect *region, pg_capture *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    before_capture(f);
    pg_err rc = injected(f, "capture_screen", e);
    if (rc) return rc;
    pg_rect rel, r;
    if (region) rel = (pg_rect){region->x - f->sx, region->y - f->sy, region->w, region->h};
    if ((rc = clip(region ? &rel : NULL, f->sw, f->sh, &r, e))) return rc;
    uint8_t *s = compose(f);
    if (!s) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    rc = copy_out(s, f->sw, &r, out, "fake-screen", e);
    free(s);
    out->origin_x = f->sx + r.x;
    out->origin_y = f->sy + r.y;
    after_capture(f);
    return rc;
}

static pg_err fake_focus(pg_platform *f, uint64_t id, pg_error *e) {
    fake_window *fw;
    pg_err rc = injected(f, "focus", e);
    if (!rc) rc = resolve(f, id, &fw, e);
    if (rc) return rc;
    for (size_t i = 0; i < f->n; i++) f->win[i].w.focused = f->win[i].w.id == id;
    record(f, "focus %llu", (unsigned long long)id);
    return PG_OK;
}


/* The visible window above fw covering window-relative (x, y), or NULL. */
static const fake_window *cover_at(const pg_fake *f, const fake_window *fw, int32_t x, int32_t y) {
    int64_t sx = (int64_t)fw->w.x + x, sy = (int64_t)fw->w.y + y;
    for (size_t i = (size_t)(fw - f->win) + 1; i < f->n; i++) {
        const pg_window *o = &f->win[i].w;
        if (o->visible && sx >= o->x && sx < (int64_t)o->x + o->width && sy >= o->y && sy < (int64_t)o->y + o->height)
            return &f->win[i];
    }
    return NULL;
}

/* A pointer action's checks, as a real backend makes them: inside, uncovered. */
static pg_err fake_point_ok(const pg_fake *f, const fake_window *fw, int32_t x, int32_t y, pg_error *e) {
    if (x < 0 || y < 0 || (uint32_t)x >= fw->w.width || (uint32_t)y >= fw->w.height)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "point %d,%d is outside the window", x, y);
    const fake_window *cover = cover_at(f, fw, x, y);
    if (cover)
        return pg_error_set(e, PG_E_POLICY, "bring the window to the front first",
                            "window %llu covers that point", (unsigned long long)cover->w.id);
    return PG_OK;
}

static pg_err fake_aim(pg_platform *f, const char *op, uint64_t id, int32_t x, int32_t y, pg_error *e) {
    fake_window *fw;
    pg_err rc = injected(f, op, e);
    if (!rc) rc = resolve(f, id, &fw, e);
    return rc ? rc : fake_point_ok(f, fw, x, y, e);
}

static const char *const button_names[] = {"?", "left", "middle", "right"};

/* A button is judged by the backend, as x11 and win32 judge it. */
static pg_err button_ok(pg_button b, pg_error *e) {
    if (b >= PG_BTN_LEFT && b <= PG_BTN_RIGHT) return PG_OK;
    return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown button %d", (int)b);
}

/* The pointer rests where the last pointer action aimed. */
static void pointer_to(pg_fake *f, uint64_t id, int32_t x, int32_t y) {
    const fake_window *fw = find(f, id);
    if (fw) f->px = fw->w.x + x, f->py = fw->w.y + y;
}

static pg_err fake_pointer_move(pg_platform *f, uint64_t id, int32_t x, int32_t y, pg_error *e) {
    pg_err rc = fake_aim(f, "move", id, x, y, e);
    if (!rc) record(f, "move %llu %d,%d", (unsigned long long)id, x, y), pointer_to(f, id, x, y);
    return rc;
}

static pg_err fake_click(pg_platform *f, uint64_t id, int32_t x, int32_t y, pg_button b, int count, pg_error *e) {
    pg_err rc = button_ok(b, e);
    if (!rc) rc = fake_aim(f, "click", id, x, y, e);
    if (!rc) pointer_to(f, id, x, y);
    if (!rc) record(f, "click %llu %d,%d %s x%d", (unsigned long long)id, x, y, button_names[b], count);
    return rc;
}

static pg_err fake_scroll(pg_platform *f, uint64_t id, int32_t x, int32_t y, int32_t dx, int32_t dy, pg_error *e) {
    pg_err rc = fake_aim(f, "scroll", id, x, y, e);
    if (!rc) record(f, "scroll %llu %d,%d by %d,%d", (unsigned long long)id, x, y, dx, dy);
    return rc;
}

/* Recorded as "drag ID X0,Y0 -> XN,YN BUTTON N points hold H step S". */
static pg_err fake_drag(pg_platform *f, uint64_t id, const pg_point *path, size_t n, pg_button b, uint32_t hold_ms,
                        uint32_t step_ms, pg_error *e) {
    fake_window *fw;
    pg_err rc = button_ok(b, e);
    if (!rc) rc = injected(f, "drag", e);
    if (!rc) rc = resolve(f, id, &fw, e);
    if (!rc && !pg_drag_shape_ok(n, hold_ms, step_ms))
        rc = pg_error_set(e, PG_E_BADINPUT, NULL, "bad drag shape: %zu points", n);
    for (size_t i = 0; i < n && !rc; i++) rc = fake_point_ok(f, fw, path[i].x, path[i].y, e);
    if (!rc)
        record(f, "drag %llu %d,%d -> %d,%d %s %u points hold %u step %u", (unsigned long long)id, path[0].x,
               path[0].y, path[n - 1].x, path[n - 1].y, button_names[b], (unsigned)n, hold_ms, step_ms);
    return rc;
}

static pg_err fake_monitors(pg_platform *f, pg_monitor **out, size_t *n, pg_error *e) {
    size_t k = f->n_monitors ? f->n_monitors : 1;
    *out = calloc(k, sizeof **out);
    if (!*out) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (f->n_monitors) memcpy(*out, f->monitors, k * sizeof **out);
    else (*out)[0] = (pg_monitor){"fake", {f->sx, f->sy, f->sw, f->sh}, true};
    *n = k;
    return PG_OK;
}

/* The last (topmost) visible window containing the screen point. */
static pg_err fake_top_at(pg_platform *f, int32_t x, int32_t y, uint64_t *id, pg_error *e) {
    pg_err rc = injected(f, "top_at", e);
    *id = 0;
    for (size_t i = f->n; !rc && i-- > 0;) {
        const pg_window *o = &f->win[i].w;
        if (o->visible && x >= o->x && y >= o->y && x < (int64_t)o->x + o->width && y < (int64_t)o->y + o->height) {
            *id = o->id;
            break;
        }
    }
    return rc;
}

/* Recorded as "hold ID key NAME down|up" or "hold ID button NAME down|up[ at X,Y]". */
static pg_err fake_hold(pg_platform *f, const pg_hold *h, pg_error *e) {
    fake_window *fw = NULL;
    pg_err rc = h->is_key ? PG_OK : button_ok(h->button, e);
    if (!rc) rc = injected(f, "hold", e);
    if (!rc && (h->id || h->down)) rc = resolve(f, h->id, &fw, e);
    if (!rc && !h->is_key && fw && (h->down || h->at)) {
        int32_t x = h->at ? h->x : f->px - fw->w.x, y = h->at ? h->y : f->py - fw->w.y;
        rc = fake_point_ok(f, fw, x, y, e);
        if (!rc) pointer_to(f, h->id, x, y);
    }
    if (rc) return rc;
    if (h->is_key)
        record(f, "hold %llu key %s %s", (unsigned long long)h->id, h->key, h->down ? "down" : "up");
    else if (h->at)
        record(f, "hold %llu button %s %s at %d,%d", (unsigned long long)h->id, button_names[h->button],
               h->down ? "down" : "up", h->x, h->y);
    else
        record(f, "hold %llu button %s %s", (unsigned long long)h->id, button_names[h->button], h->down ? "down" : "up");
    return PG_OK;
}

static pg_err fake_key_check(pg_platform *f, const char *chord, pg_error *e) {
    pg_err rc = injected(f, "key_check", e);
    if (!rc) record(f, "key_check %s", chord);
    if (!rc && f->refused_chord[0] && strcmp(chord, f->refused_chord) == 0)
        rc = pg_error_set(e, PG_E_POLICY, "that chord is a server action", "chord %s is never sent", chord);
    return rc;
}

static pg_err fake_pointer_at(pg_platform *f, int32_t *x, int32_t *y, pg_error *e) {
    pg_err rc = injected(f, "pointer_at", e);
    *x = f->px, *y = f->py;
    return rc;
}

void pg_fake_refuse_chord(pg_fake *f, const char *chord) { snprintf(f->refused_chord, sizeof f->refused_chord, "%s", chord); }

void pg_fake_set_pointer(pg_fake *f, int32_t x, int32_t y) { f->px = x, f->py = y; }

void pg_fake_unconfirm(pg_fake *f, unsigned times) { f->unconfirm_next = times; }

static pg_err fake_unconfirmed(pg_platform *f, uint32_t *n, pg_error *e) {
    pg_err rc = injected(f, "unconfirmed", e);
    *n = rc ? 0 : f->unconfirmed;
    if (!rc) f->unconfirmed = 0;
    return rc;
}

void pg_fake_set_selection(pg_fake *f, const char *selection, uint64_t window, uint32_t pid) {
    int i = strcmp(selection, "CLIPBOARD") ? 1 : 0;
    f->sel_window[i] = window, f->sel_pid[i] = pid;
}

/* The owner pg_fake_set_selection configured (none: 0, 0). */
static pg_err fake_selection_owner(pg_platform *f, const char *selection, uint64_t *window, uint32_t *pid,
                                   pg_error *e) {
    *window = 0, *pid = 0;
    pg_err rc = injected(f, "selection_owner", e);
    if (rc) return rc;
    if (strcmp(selection, "CLIPBOARD") && strcmp(selection, "PRIMARY"))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "no selection \"%.32s\"", selection);
    int i = strcmp(selection, "CLIPBOARD") ? 1 : 0;
    *window = f->sel_window[i], *pid = f->sel_pid[i];
    return PG_OK;
}

/* The frame pg_fake_set_frame configured (none: 0 on every side). */
static pg_err fake_window_frame(pg_platform *f, uint64_t id, uint32_t *left, uint32_t *right, uint32_t *top,
                                uint32_t *bottom, pg_error *e) {
    fake_window *fw;
    *left = *right = *top = *bottom = 0;
    pg_err rc = injected(f, "window_frame", e);
    if (!rc) rc = resolve(f, id, &fw, e);
    if (rc) return rc;
    const pg_window *w = &fw->w;
    *left = (uint32_t)(w->x - w->frame.x), *top = (uint32_t)(w->y - w->frame.y);
    *right = (uint32_t)((int64_t)w->frame.x + w->frame.w - w->x - w->width);
    *bottom = (uint32_t)((int64_t)w->frame.y + w->frame.h - w->y - w->height);
    return PG_OK;
}

static pg_err fake_responding(pg_platform *f, uint64_t id, uint32_t max_ms, pg_responding *out, pg_error *e) {
    (void)max_ms;
    fake_window *fw;
    pg_err rc = injected(f, "responding", e);
    if (!rc) rc = resolve(f, id, &fw, e);
    if (rc) return rc;
    *out = f->no_wm    ? PG_RESPONDING_UNKNOWN
           : !fw->frozen ? PG_RESPONDING_YES
           : fw->silent  ? PG_RESPONDING_SILENT
                         : PG_RESPONDING_NO;
    return PG_OK;
}

static bool fake_lost(pg_platform *f, char *why, size_t n) {
    if (!f->lost[0]) return false;
    snprintf(why, n, "%s", f->lost);
    return true;
}

/* ---- the mechanical stubs, from pg_platform.def ---- */

/* Appends " value" to line[cap]. */
static void fmt_arg(char *line, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fmt_arg(char *line, size_t cap, const char *fmt, ...) {
    size_t used = strlen(line);
    if (used + 1 >= cap) return;
    line[used++] = ' ', line[used] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + used, cap - used, fmt, ap);
    va_end(ap);
}

/* What a stub does with each parameter, by its kind: a window id must name a
 * target; values are recorded in order. A kind without a line here is not
 * mechanical: a stub over it does not compile, and gets written by hand. */
#define FAKE_RESOLVE_SELF(pn)
#define FAKE_RESOLVE_ERR(pn)
#define FAKE_RESOLVE_TEXT(pn)
#define FAKE_RESOLVE_U32(pn)
#define FAKE_RESOLVE_WAIT_MS(pn)
#define FAKE_RESOLVE_ID(pn)                     \
    if (!rc) {                                  \
        fake_window *fw_;                       \
        rc = resolve(p, pn, &fw_, e);           \
    }
#define FAKE_FORMAT_SELF(pn)
#define FAKE_FORMAT_ERR(pn)
#define FAKE_FORMAT_TEXT(pn) fmt_arg(line, sizeof line, "%s", pn);
#define FAKE_FORMAT_U32(pn) fmt_arg(line, sizeof line, "%u", (unsigned)pn);
#define FAKE_FORMAT_WAIT_MS(pn) FAKE_FORMAT_U32(pn)
#define FAKE_FORMAT_ID(pn) fmt_arg(line, sizeof line, "%llu", (unsigned long long)pn);
#define FAKE_RESOLVE_(kind, pn) FAKE_RESOLVE_##kind(pn)
#define FAKE_FORMAT_(kind, pn) FAKE_FORMAT_##kind(pn)

/* A stub: the failure a test injected under the primitive's name, then its
 * target resolved; recorded as "VERB value..." when it did not fail. */
#define FAKE_STUB_RECORDED(name, verb)                  \
    static pg_err fake_##name(PG_PARAMS(name)) {        \
        pg_err rc = injected(p, #name, e);              \
        PG_ARGS_##name(FAKE_RESOLVE_)                   \
        char line[512] = "";                            \
        PG_ARGS_##name(FAKE_FORMAT_)                    \
        if (!rc) record(p, "%s%s", verb, line);         \
        return rc;                                      \
    }
/* The same, recording nothing (waits, not input). */
#define FAKE_STUB_CHECKED(name)                         \
    static pg_err fake_##name(PG_PARAMS(name)) {        \
        pg_err rc = injected(p, #name, e);              \
        PG_ARGS_##name(FAKE_RESOLVE_)                   \
        return rc;                                      \
    }

FAKE_STUB_RECORDED(key, "key")
FAKE_STUB_RECORDED(type_text, "type")
FAKE_STUB_CHECKED(settle)

/* ---- the person's controls ---- */

static pg_err fake_watch_person(pg_platform *p, pg_person *person, const char *stop_key, pg_error *e) {
    pg_err rc = injected(p, "watch_person", e);
    if (rc) return rc;
    pg_person_set_watching(person, true, stop_key, NULL); /* tests report into it themselves */
    return PG_OK;
}

static pg_err fake_indicate(pg_platform *p, const pg_indicator *how, pg_error *e) {
    pg_err rc = injected(p, "indicate", e);
    if (rc) return rc;
    p->indicated = *how; /* not input: tests read it with pg_fake_indicated */
    p->indications++;
    return PG_OK;
}

/* As the Win32 backend answers it in the session helper: the counts of a
 * pg_person the fake owns, which tests report into (pg_fake_polled_person);
 * a watch (re)started is recorded, the polls themselves are not. */
static pg_err fake_person_poll(pg_platform *p, const char *stop_key, uint32_t *watching, uint32_t *stop_presses,
                               uint32_t *tampers, uint32_t *human_events, uint32_t *idle_ms, pg_error *e) {
    *watching = *stop_presses = *tampers = *human_events = 0;
    *idle_ms = UINT32_MAX;
    pg_err rc = injected(p, "person_poll", e);
    if (rc) return rc;
    if (!p->polled && !(p->polled = pg_person_new(NULL, NULL)))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (strcmp(p->polled_key, stop_key) != 0) {
        snprintf(p->polled_key, sizeof p->polled_key, "%s", stop_key);
        pg_person_set_watching(p->polled, true, stop_key, NULL);
        record(p, "watch_person %s (polled)", stop_key);
    }
    pg_person_seen s;
    pg_person_read(p->polled, &s);
    *watching = s.watching;
    *stop_presses = (uint32_t)s.stop_presses;
    *tampers = (uint32_t)s.tampers;
    *human_events = (uint32_t)s.human_events;
    if (s.last_human_us) *idle_ms = (uint32_t)((pg_mono_us() - s.last_human_us) / 1000);
    return PG_OK;
}

pg_person *pg_fake_polled_person(pg_fake *f) { return f->polled; }

/* As the X11 backend checks it, without a grab: the composed screen at
 * g->rect against g->ref, and the window on top at g->point. */
static pg_err fake_guard_begin(pg_platform *p, pg_guard *g, pg_error *e) {
    pg_err rc = injected(p, "guard_begin", e);
    if (rc) return rc;
    uint64_t top = 0;
    if ((rc = fake_top_at(p, g->point.x, g->point.y, &top, e))) return rc;
    if (top != g->window)
        return pg_error_set(e, PG_E_TARGET_CHANGED, NULL, "another window is on top at %d,%d now", g->point.x,
                            g->point.y);
    pg_capture cap = {0};
    if ((rc = fake_capture_screen(p, &g->rect, &cap, e))) return rc;
    uint64_t sum = 0;
    for (uint32_t y = 0; y < cap.height; y++)
        for (uint32_t x = 0; x < cap.width * 4; x++) {
            if (x % 4 == 3) continue;
            int d = (int)cap.rgba[y * cap.stride + x] - (int)g->ref[((size_t)y * g->rect.w) * 4 + x];
            sum += (uint64_t)(d < 0 ? -d : d);
        }
    size_t n = (size_t)cap.width * cap.height * 3;
    free(cap.rgba);
    g->difference = n ? (double)sum / (double)n : 0;
    if (g->difference > g->tolerance)
        return pg_error_set(e, PG_E_TARGET_CHANGED, NULL, "the target changed: difference %.1f > %.1f",
                            g->difference, g->tolerance);
    record(p, "guard %llu %d,%d", (unsigned long long)g->window, g->point.x, g->point.y);
    return PG_OK;
}

static void fake_guard_end(pg_platform *p) { record(p, "unguard"); }

/* The table: fake_<primitive> for each primitive pg_platform.def gives the fake. */
#define PG_PRIM(name, ret, bk, ...) .name = ((bk) & PG_BK_FAKE) ? fake_##name : NULL,
const pg_platform_ops pg_fake_ops = {
    .name = "fake",
#include "pg_platform.def"
};
#undef PG_PRIM

void pg_fake_freeze(pg_fake *f, uint64_t id, bool frozen) {
    fake_window *w = find(f, id);
    if (w) w->frozen = frozen;
}

void pg_fake_set_wm(pg_fake *f, bool running) { f->no_wm = !running; }

const pg_indicator *pg_fake_indicated(pg_fake *f, unsigned *calls) {
    if (calls) *calls = f->indications;
    return &f->indicated;
}

void pg_fake_set_silent(pg_fake *f, uint64_t id, bool silent) {
    fake_window *w = find(f, id);
    if (w) w->silent = silent;
}

void pg_fake_set_pid(pg_fake *f, uint64_t id, int64_t pid) {
    fake_window *w = find(f, id);
    if (w) w->w.pid = pid;
}

void pg_fake_lose_display(pg_fake *f, const char *why) { snprintf(f->lost, sizeof f->lost, "%s", why); }
void pg_fake_display_down(bool down) { display_down = down; }

/* ---- scripting ---- */

void pg_fake_add_monitor(pg_fake *f, const char *name, int32_t x, int32_t y, uint32_t w, uint32_t h, bool primary) {
    if (f->n_monitors == sizeof f->monitors / sizeof f->monitors[0]) return;
    pg_monitor *m = &f->monitors[f->n_monitors++];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->r = (pg_rect){x, y, w, h};
    m->primary = primary;
}

void pg_fake_set_screen(pg_fake *f, int32_t origin_x, int32_t origin_y, uint32_t w, uint32_t h) {
    f->sx = origin_x, f->sy = origin_y, f->sw = w, f->sh = h;
}

uint64_t pg_fake_add_window(pg_fake *f, const char *title, const char *cls, int64_t pid, int32_t x, int32_t y,
                            uint32_t w, uint32_t h, uint32_t rgba) {
    if (f->n == FAKE_MAX_WINDOWS || !w || !h) return 0;
    fake_window *fw = &f->win[f->n];
    memset(fw, 0, sizeof *fw);
    fw->frames[0] = malloc((size_t)w * h * 4);
    if (!fw->frames[0]) return 0;
    for (size_t i = 0; i < (size_t)w * h; i++) put_px(fw->frames[0] + 4 * i, rgba);
    fw->n_frames = 1;
    fw->w = (pg_window){.id = f->next_id++, .pid = pid, .x = x, .y = y, .width = w, .height = h, .visible = true,
                        .frame = {x, y, w, h}};
    set_title(&fw->w, title);
    snprintf(fw->w.class_name, sizeof fw->w.class_name, "%s", cls);
    snprintf(fw->w.instance, sizeof fw->w.instance, "%s", cls);
    f->n++;
    return fw->w.id;
}

uint64_t pg_fake_add_owned(pg_fake *f, pg_window_kind kind, uint64_t parent, int64_t pid, const char *title,
                           int32_t x, int32_t y, uint32_t w, uint32_t h, uint32_t rgba) {
    uint64_t id = pg_fake_add_window(f, title, "", pid, x, y, w, h, rgba);
    fake_window *fw = id ? find(f, id) : NULL;
    if (fw) fw->w.kind = kind, fw->w.parent = parent;
    return id;
}

void pg_fake_set_frame(pg_fake *f, uint64_t id, uint32_t left, uint32_t top, uint32_t right, uint32_t bottom) {
    fake_window *fw = find(f, id);
    if (fw)
        fw->w.frame = (pg_rect){fw->w.x - (int32_t)left, fw->w.y - (int32_t)top, fw->w.width + left + right,
                                fw->w.height + top + bottom};
}

void pg_fake_list_limit(pg_fake *f, size_t max) { f->list_limit = max; }

void pg_fake_on_list(pg_fake *f, void (*fn)(pg_fake *f, void *ctx), void *ctx) {
    f->on_list = fn;
    f->on_list_ctx = ctx;
}

void pg_fake_after_capture(pg_fake *f, void (*fn)(pg_fake *f, void *ctx), void *ctx) {
    f->after_capture = fn;
    f->after_capture_ctx = ctx;
}

void pg_fake_fill(pg_fake *f, uint64_t id, int32_t x, int32_t y, uint32_t w, uint32_t h, uint32_t rgba) {
    fake_window *fw = find(f, id);
    if (!fw) return;
    for (int64_t yy = y; yy < (int64_t)y + h; yy++)
        for (int64_t xx = x; xx < (int64_t)x + w; xx++)
            if (xx >= 0 && yy >= 0 && xx < fw->w.width && yy < fw->w.height)
                put_px(fw->frames[0] + ((size_t)yy * fw->w.width + (size_t)xx) * 4, rgba);
}

void pg_fake_set_pixels(pg_fake *f, uint64_t id, const uint8_t *rgba) {
    fake_window *fw = find(f, id);
    if (fw) memcpy(fw->frames[0], rgba, (size_t)fw->w.width * fw->w.height * 4);
}

void pg_fake_add_frame(pg_fake *f, uint64_t id, const uint8_t *rgba, bool loop) {
    fake_window *fw = find(f, id);
    if (!fw || fw->n_frames == FAKE_MAX_FRAMES) return;
    size_t bytes = (size_t)fw->w.width * fw->w.height * 4;
    uint8_t *px = malloc(bytes);
    if (!px) return;
    memcpy(px, rgba, bytes);
    fw->frames[fw->n_frames++] = px;
    fw->loop = loop;
}

void pg_fake_set_title(pg_fake *f, uint64_t id, const char *title) {
    fake_window *fw = find(f, id);
    if (!fw) return;
    set_title(&fw->w, title);
}

void pg_fake_set_visible(pg_fake *f, uint64_t id, bool visible) {
    fake_window *fw = find(f, id);
    if (fw) fw->w.visible = visible;
}

void pg_fake_set_listed_size(pg_fake *f, uint64_t id, uint32_t w, uint32_t h) {
    fake_window *fw = find(f, id);
    if (fw) fw->w.width = w, fw->w.height = h, fw->w.frame.w = w, fw->w.frame.h = h;
}

void pg_fake_set_minimized(pg_fake *f, uint64_t id, bool minimized) {
    fake_window *fw = find(f, id);
    if (fw) fw->w.minimized = minimized, fw->w.visible = !minimized; /* as Windows lists them */
}

void pg_fake_set_shared(pg_fake *f, uint64_t id, bool shared) {
    fake_window *fw = find(f, id);
    if (fw) fw->w.shared = shared;
}

void pg_fake_move(pg_fake *f, uint64_t id, int32_t x, int32_t y) {
    fake_window *fw = find(f, id);
    if (!fw) return;
    fw->w.frame.x += x - fw->w.x, fw->w.frame.y += y - fw->w.y; /* the frame moves along */
    fw->w.x = x, fw->w.y = y;
}

void pg_fake_remove(pg_fake *f, uint64_t id) {
    fake_window *fw = find(f, id);
    if (!fw) return;
    for (size_t k = 0; k < fw->n_frames; k++) free(fw->frames[k]);
    size_t i = (size_t)(fw - f->win);
    memmove(&f->win[i], &f->win[i + 1], (f->n - i - 1) * sizeof f->win[0]);
    f->n--;
}

void pg_fake_on_capture(pg_fake *f, void (*fn)(pg_fake *f, void *ctx), void *ctx) {
    f->on_capture = fn;
    f->on_capture_ctx = ctx;
}

void pg_fake_fail(pg_fake *f, const char *op, pg_err code, unsigned times) {
    if (f->n_fail == sizeof f->fail / sizeof f->fail[0]) return;
    fake_failure *x = &f->fail[f->n_fail++];
    snprintf(x->op, sizeof x->op, "%s", op);
    x->code = code;
    x->times = times;
}

size_t pg_fake_input_count(const pg_fake *f) { return f->n_input; }
const char *pg_fake_input(const pg_fake *f, size_t i) { return i < f->n_input ? f->input[i] : NULL; }
unsigned pg_fake_captures(const pg_fake *f) { return f->captures; }
