/* SPDX-License-Identifier: MIT */
/* win_capture.c - window and screen capture into RGBA8.
 *
 * Contract: capture_window asks the window to render itself first
 * (PrintWindow with PW_CLIENTONLY|PW_RENDERFULLCONTENT: covered and
 * GPU-composited windows render too). An all-black result is taken as the
 * failure it usually is (Wine's cross-process PrintWindow, some DirectX
 * windows) and the client rectangle is copied from the screen instead
 * (BitBlt, method "bitblt"; pg_win_capture_fallback() says why) - but only
 * when no other window covers that rectangle, since the screen would show
 * the cover's pixels under this window's name: a covered window whose
 * PrintWindow is black is PG_E_POLICY naming the cover. A minimized window
 * is PG_E_BADINPUT ("minimized"), a window that excludes itself from
 * capture (display affinity != WDA_NONE) PG_E_POLICY. capture_screen copies
 * the virtual screen (all monitors) through DXGI Desktop Duplication
 * (method "dxgi", win_dxgi.c), else with BitBlt (method "bitblt";
 * pg_win_screen_fallback() says why). Regions clip as pg_platform.h says; pixels are RGBA8, alpha
 * 255, caller frees out->rgba.
 * Never: keeps a DC or bitmap between calls, returns a black image for a
 * minimized window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win_private.h"

/* A top-down 32-bit DIB section selected into a memory DC. */
typedef struct {
    HDC dc;
    HBITMAP bmp, old;
    uint8_t *bits; /* BGRX rows of w*4 bytes */
    uint32_t w, h;
} dib;

static void dib_free(dib *d) {
    if (d->dc) {
        if (d->old) SelectObject(d->dc, d->old);
        DeleteDC(d->dc);
    }
    if (d->bmp) DeleteObject(d->bmp);
    memset(d, 0, sizeof *d);
}

static pg_err dib_new(dib *d, uint32_t w, uint32_t h, pg_error *e) {
    memset(d, 0, sizeof *d);
    BITMAPINFO bi = {0};
    bi.bmiHeader.biSize = sizeof bi.bmiHeader;
    bi.bmiHeader.biWidth = (LONG)w;
    bi.bmiHeader.biHeight = -(LONG)h; /* negative: rows top to bottom */
    bi.bmiHeader.biPlanes = 1;
    bi.bmiHeader.biBitCount = 32;
    bi.bmiHeader.biCompression = BI_RGB;
    void *bits = NULL;
    d->dc = CreateCompatibleDC(NULL);
    d->bmp = d->dc ? CreateDIBSection(d->dc, &bi, DIB_RGB_COLORS, &bits, NULL, 0) : NULL;
    if (!d->bmp || !bits) {
        DWORD err = GetLastError();
        dib_free(d);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "CreateDIBSection %ux%u failed (error %lu)",
                            (unsigned)w, (unsigned)h, err);
    }
    d->old = SelectObject(d->dc, d->bmp);
    d->bits = bits, d->w = w, d->h = h;
    return PG_OK;
}

/* Copy the sub-rectangle r of d into out as RGBA8 with alpha 255. */
static pg_err dib_to_rgba(const dib *d, const pg_rect *r, pg_capture *out, const char *method,
                          pg_error *e) {
    size_t stride = (size_t)r->w * 4;
    uint8_t *px = malloc(stride * r->h);
    if (!px) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory (%ux%u)", r->w, r->h);
    for (uint32_t y = 0; y < r->h; y++) {
        const uint8_t *s = d->bits + ((size_t)(r->y + (int32_t)y) * d->w + (size_t)r->x) * 4;
        uint8_t *o = px + y * stride;
        for (uint32_t x = 0; x < r->w; x++) { /* BGRX -> RGBA */
            o[4 * x + 0] = s[4 * x + 2];
            o[4 * x + 1] = s[4 * x + 1];
            o[4 * x + 2] = s[4 * x + 0];
            o[4 * x + 3] = 255;
        }
    }
    out->rgba = px, out->width = r->w, out->height = r->h, out->stride = stride;
    snprintf(out->method, sizeof out->method, "%s", method);
    return PG_OK;
}

static bool dib_all_black(const dib *d) {
    const uint32_t *p = (const uint32_t *)(const void *)d->bits;
    uint32_t acc = 0;
    for (size_t i = 0, n = (size_t)d->w * d->h; i < n; i++) acc |= p[i] & 0x00ffffffu;
    return acc == 0;
}

/* Intersect region (relative to a w x h area; NULL = all) with the area. */
static pg_err clip(const pg_rect *region, uint32_t w, uint32_t h, pg_rect *out, pg_error *e) {
    int64_t x0 = 0, y0 = 0, x1 = w, y1 = h;
    if (region) {
        x0 = region->x > 0 ? region->x : 0;
        y0 = region->y > 0 ? region->y : 0;
        int64_t rx1 = (int64_t)region->x + region->w, ry1 = (int64_t)region->y + region->h;
        x1 = rx1 < x1 ? rx1 : x1;
        y1 = ry1 < y1 ? ry1 : y1;
    }
    if (x1 <= x0 || y1 <= y0)
        return pg_error_set(e, PG_E_BADINPUT, "give a region that overlaps the target",
                            "region does not intersect the %ux%u area", (unsigned)w, (unsigned)h);
    *out = (pg_rect){(int32_t)x0, (int32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
    return PG_OK;
}

HWND win_covering(HWND h, const RECT *r) {
    /* GW_HWNDPREV walks up the z-order: every window met is above h. */
    for (HWND o = GetWindow(h, GW_HWNDPREV); o; o = GetWindow(o, GW_HWNDPREV)) {
        RECT wr, both;
        /* The indicator is no cover: it rings the window, click-through. */
        if (!IsWindowVisible(o) || IsIconic(o) || win_is_indicator(o) || win_is_cloaked(o) || !GetWindowRect(o, &wr))
            continue;
        if (IntersectRect(&both, &wr, r)) return o;
    }
    return NULL;
}

/* Copy screen rectangle (x, y, w, h) in virtual-screen coordinates. */
static pg_err screen_blt(int32_t x, int32_t y, uint32_t w, uint32_t h, dib *d, pg_error *e) {
    pg_err rc = dib_new(d, w, h, e);
    if (rc != PG_OK) return rc;
    HDC screen = GetDC(NULL);
    /* CAPTUREBLT: include layered (translucent) windows, as the user sees. */
    BOOL ok = screen && BitBlt(d->dc, 0, 0, (int)w, (int)h, screen, x, y, SRCCOPY | CAPTUREBLT);
    DWORD err = GetLastError();
    if (screen) ReleaseDC(NULL, screen);
    GdiFlush(); /* the DIB's bits are current only after GDI's batch ran */
    if (!ok) {
        dib_free(d);
        return pg_error_set(e, PG_E_INTERNAL, "is the broker on the interactive desktop?",
                            "BitBlt from the screen failed (error %lu)", err);
    }
    return PG_OK;
}

static pg_err refuse_checks(HWND h, pg_error *e) {
    if (IsIconic(h))
        return pg_error_set(e, PG_E_BADINPUT, "restore the window first (pixelgate focus)",
                            "window %llu is minimized", (unsigned long long)(uintptr_t)h);
    DWORD aff = 0;
    if (GetWindowDisplayAffinity(h, &aff) && aff != WDA_NONE) {
        char who[400];
        win_describe(h, who, sizeof who);
        return pg_error_set(e, PG_E_POLICY, "the application protects its content; capture is refused",
                            "window %s excludes itself from capture (display affinity 0x%lx)", who,
                            (unsigned long)aff);
    }
    return PG_OK;
}

/* PrintWindow into a w x h DIB; true when it drew something not all black,
 * else why not in why. PrintWindow sends WM_PRINT without a timeout, so a
 * window that does not answer a WM_NULL within WIN_PRINT_PROBE_MS is not
 * asked. */
static bool try_printwindow(HWND h, uint32_t w, uint32_t ht, dib *d, char *why, size_t cap) {
    DWORD_PTR ignored;
    if (!SendMessageTimeoutW(h, WM_NULL, 0, 0, SMTO_ABORTIFHUNG | SMTO_BLOCK, WIN_PRINT_PROBE_MS,
                             &ignored)) {
        snprintf(why, cap, "window not responding: printwindow skipped");
        return false;
    }
    pg_err rc = dib_new(d, w, ht, NULL);
    BOOL ok = rc == PG_OK && PrintWindow(h, d->dc, PW_CLIENTONLY | PW_RENDERFULLCONTENT);
    DWORD err = GetLastError();
    if (rc == PG_OK) GdiFlush();
    if (ok && !dib_all_black(d)) return true;
    if (ok) snprintf(why, cap, "printwindow returned an all-black image");
    else snprintf(why, cap, "printwindow failed (error %lu)", err);
    if (rc == PG_OK) dib_free(d);
    return false;
}

static pg_err blt_uncovered(HWND h, const RECT *c, const pg_rect *sub, const char *why, dib *d,
                            pg_error *e) {
    RECT want = {c->left + sub->x, c->top + sub->y, c->left + sub->x + (LONG)sub->w,
                 c->top + sub->y + (LONG)sub->h};
    HWND cover = win_covering(h, &want);
    if (cover) {
        char who[400];
        win_describe(cover, who, sizeof who);
        return pg_error_set(e, PG_E_POLICY, "bring the window to the front (pixelgate focus) and retry",
                            "%s and window %s covers the area, so the screen would show its "
                            "pixels instead", why, who);
    }
    return screen_blt(want.left, want.top, sub->w, sub->h, d, e);
}

pg_err win_capture_window(pg_platform *p, uint64_t id, const pg_rect *region, pg_capture *out,
                          pg_error *e) {
    memset(out, 0, sizeof *out);
    HWND h;
    RECT c;
    pg_rect sub;
    pg_err rc = win_resolve(id, &h, e);
    if (rc == PG_OK) rc = refuse_checks(h, e);
    if (rc == PG_OK) rc = win_client_rect(h, &c, e);
    if (rc != PG_OK) return rc;
    uint32_t w = (uint32_t)(c.right - c.left), ht = (uint32_t)(c.bottom - c.top);
    if (w == 0 || ht == 0)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "window %llu has an empty client area",
                            (unsigned long long)id);
    if ((rc = clip(region, w, ht, &sub, e)) != PG_OK) return rc;
    out->origin_x = c.left + sub.x;
    out->origin_y = c.top + sub.y;
    dib d;
    char why[sizeof p->fallback];
    if (try_printwindow(h, w, ht, &d, why, sizeof why)) {
        p->fallback[0] = 0;
        rc = dib_to_rgba(&d, &sub, out, "printwindow", e);
        dib_free(&d);
        return rc;
    }
    if ((rc = blt_uncovered(h, &c, &sub, why, &d, e)) != PG_OK) return rc;
    memcpy(p->fallback, why, sizeof why);
    rc = dib_to_rgba(&d, &(pg_rect){0, 0, sub.w, sub.h}, out, "bitblt", e);
    dib_free(&d);
    return rc;
}

pg_err win_capture_screen(pg_platform *p, const pg_rect *region, pg_capture *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    if (!p) return pg_error_set(e, PG_E_INTERNAL, NULL, "win32 backend: no handle");
    int32_t vx = GetSystemMetrics(SM_XVIRTUALSCREEN), vy = GetSystemMetrics(SM_YVIRTUALSCREEN);
    uint32_t vw = (uint32_t)GetSystemMetrics(SM_CXVIRTUALSCREEN);
    uint32_t vh = (uint32_t)GetSystemMetrics(SM_CYVIRTUALSCREEN);
    pg_rect rel, sub;
    const pg_rect *r = NULL;
    if (region) { /* screen coordinates -> relative to the virtual screen */
        rel = (pg_rect){region->x - vx, region->y - vy, region->w, region->h};
        r = &rel;
    }
    pg_err rc = clip(r, vw, vh, &sub, e);
    if (rc != PG_OK) return rc;
    pg_rect all = {0, 0, sub.w, sub.h};
    RECT want = {vx + sub.x, vy + sub.y, vx + sub.x + (LONG)sub.w, vy + sub.y + (LONG)sub.h};
    out->origin_x = want.left; /* negative when a monitor sits left of or above the primary */
    out->origin_y = want.top;
    uint8_t *px = malloc((size_t)sub.w * 4 * sub.h);
    if (px && win_dxgi_capture(&p->dxgi, &want, px, (size_t)sub.w * 4, p->screen_fallback,
                               sizeof p->screen_fallback)) {
        p->screen_fallback[0] = 0;
        dib view = {.bits = px, .w = sub.w, .h = sub.h}; /* same BGRA layout as a DIB */
        rc = dib_to_rgba(&view, &all, out, "dxgi", e);
        free(px);
        return rc;
    }
    free(px);
    dib d;
    if ((rc = screen_blt(want.left, want.top, sub.w, sub.h, &d, e)) != PG_OK) return rc;
    rc = dib_to_rgba(&d, &all, out, "bitblt", e);
    dib_free(&d);
    return rc;
}
