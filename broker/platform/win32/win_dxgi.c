/* SPDX-License-Identifier: MIT */
/* win_dxgi.c - screen capture through DXGI Desktop Duplication.
 *
 * Contract: win_dxgi_capture() copies a rectangle of the virtual screen
 * (BGRA, like a top-down DIB) from one duplicator per monitor. d3d11.dll
 * and dxgi.dll are loaded at run time on first use, so a broker without
 * them (or under Wine, whose DuplicateOutput is E_NOTIMPL) still starts
 * and falls back to BitBlt; the caller reports why (pg_win_screen_fallback).
 * Each output keeps a CPU-readable copy of its last frame: duplication
 * hands out a frame only when the screen changed, and "no new frame" means
 * that copy is current. DXGI_ERROR_ACCESS_LOST (mode switch, UAC prompt,
 * desktop switch) recreates the duplicator once per call; if that fails the
 * whole state is dropped and rebuilt at the next call after
 * WIN_DXGI_RETRY_MS. E_NOTIMPL and DXGI_ERROR_UNSUPPORTED are permanent for
 * the handle's life. Rotated outputs are not handled (BitBlt is used).
 * Never: waits longer than WIN_DXGI_FIRST_FRAME_MS per output, keeps a
 * frame acquired between calls.
 */
#define COBJMACROS
#include <initguid.h> /* defines the IIDs below in this file: no dxguid import */

#include <d3d11.h>
#include <dxgi1_2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win_private.h"

#define WIN_DXGI_MAX_OUTPUTS 16
#define WIN_DXGI_FIRST_FRAME_MS 500
#define WIN_DXGI_RETRY_MS 5000

typedef HRESULT(WINAPI *create_factory_fn)(REFIID, void **);

typedef struct {
    ID3D11Device *dev;
    ID3D11DeviceContext *ctx;
    IDXGIOutput1 *output;
    IDXGIOutputDuplication *dup;
    ID3D11Texture2D *staging; /* the last frame, CPU-readable */
    RECT desk;                /* where the output sits on the virtual screen */
    bool have_frame;
} dxgi_out;

struct win_dxgi {
    HMODULE d3d11, dxgi;
    dxgi_out out[WIN_DXGI_MAX_OUTPUTS];
    size_t n;
    bool permanent;    /* failed for good (E_NOTIMPL, unsupported) */
    const char *stage; /* the call that failed last, for the reason given */
    pg_deadline retry; /* after a transient failure */
};

#define RELEASE(obj, kind)                                                              \
    do {                                                                                \
        if (obj) kind##_Release(obj);                                                   \
        (obj) = NULL;                                                                   \
    } while (0)

static void out_free(dxgi_out *o) {
    RELEASE(o->staging, ID3D11Texture2D);
    RELEASE(o->dup, IDXGIOutputDuplication);
    RELEASE(o->output, IDXGIOutput1);
    RELEASE(o->ctx, ID3D11DeviceContext);
    RELEASE(o->dev, ID3D11Device);
    o->have_frame = false;
}

static void outputs_free(win_dxgi *d) {
    for (size_t i = 0; i < d->n; i++) out_free(&d->out[i]);
    d->n = 0;
}

void win_dxgi_free(win_dxgi *d) {
    if (!d) return;
    outputs_free(d);
    if (d->d3d11) FreeLibrary(d->d3d11);
    if (d->dxgi) FreeLibrary(d->dxgi);
    free(d);
}

/* Device for adapter a plus the duplicator of output o on it. */
static HRESULT out_open(win_dxgi *d, IDXGIAdapter1 *a, IDXGIOutput *op, dxgi_out *o) {
    FARPROC f = GetProcAddress(d->d3d11, "D3D11CreateDevice");
    PFN_D3D11_CREATE_DEVICE create;
    memcpy(&create, &f, sizeof f);
    d->stage = "D3D11CreateDevice export";
    if (!create) return HRESULT_FROM_WIN32(ERROR_PROC_NOT_FOUND);
    DXGI_OUTPUT_DESC desc;
    d->stage = "GetDesc";
    HRESULT hr = IDXGIOutput_GetDesc(op, &desc);
    if (SUCCEEDED(hr) && desc.Rotation != DXGI_MODE_ROTATION_IDENTITY &&
        desc.Rotation != DXGI_MODE_ROTATION_UNSPECIFIED)
        d->stage = "rotated output", hr = DXGI_ERROR_UNSUPPORTED;
    o->desk = desc.DesktopCoordinates;
    if (SUCCEEDED(hr)) d->stage = "IDXGIOutput1";
    if (SUCCEEDED(hr)) hr = IDXGIOutput_QueryInterface(op, &IID_IDXGIOutput1, (void **)&o->output);
    /* An explicit adapter needs D3D_DRIVER_TYPE_UNKNOWN. */
    if (SUCCEEDED(hr)) d->stage = "D3D11CreateDevice";
    if (SUCCEEDED(hr))
        hr = create((IDXGIAdapter *)a, D3D_DRIVER_TYPE_UNKNOWN, NULL, 0, NULL, 0, D3D11_SDK_VERSION,
                    &o->dev, NULL, &o->ctx);
    if (SUCCEEDED(hr)) d->stage = "DuplicateOutput";
    if (SUCCEEDED(hr)) hr = IDXGIOutput1_DuplicateOutput(o->output, (IUnknown *)o->dev, &o->dup);
    if (FAILED(hr)) out_free(o);
    return hr;
}

/* Every output of every adapter; the first failure ends it. */
static HRESULT outputs_open(win_dxgi *d) {
    FARPROC f = GetProcAddress(d->dxgi, "CreateDXGIFactory1");
    create_factory_fn create;
    memcpy(&create, &f, sizeof f);
    IDXGIFactory1 *fac = NULL;
    d->stage = "CreateDXGIFactory1";
    HRESULT hr = create ? create(&IID_IDXGIFactory1, (void **)&fac) : HRESULT_FROM_WIN32(ERROR_PROC_NOT_FOUND);
    IDXGIAdapter1 *a = NULL;
    for (UINT ai = 0; SUCCEEDED(hr) && IDXGIFactory1_EnumAdapters1(fac, ai, &a) == S_OK; ai++) {
        IDXGIOutput *op = NULL;
        for (UINT oi = 0; SUCCEEDED(hr) && IDXGIAdapter1_EnumOutputs(a, oi, &op) == S_OK; oi++) {
            hr = d->n < WIN_DXGI_MAX_OUTPUTS ? out_open(d, a, op, &d->out[d->n]) : DXGI_ERROR_UNSUPPORTED;
            if (SUCCEEDED(hr)) d->n++;
            IDXGIOutput_Release(op);
        }
        IDXGIAdapter1_Release(a);
    }
    if (fac) IDXGIFactory1_Release(fac);
    if (SUCCEEDED(hr) && d->n == 0) d->stage = "no outputs", hr = DXGI_ERROR_NOT_FOUND;
    if (FAILED(hr)) outputs_free(d);
    return hr;
}

/* Make o->staging hold the current screen: take a new frame if there is one. */
static HRESULT out_refresh(dxgi_out *o) {
    DXGI_OUTDUPL_FRAME_INFO info;
    IDXGIResource *res = NULL;
    HRESULT hr = IDXGIOutputDuplication_AcquireNextFrame(o->dup, o->have_frame ? 0 : WIN_DXGI_FIRST_FRAME_MS,
                                                         &info, &res);
    if (hr == DXGI_ERROR_WAIT_TIMEOUT && o->have_frame) return S_OK; /* unchanged */
    if (FAILED(hr)) return hr;
    ID3D11Texture2D *tex = NULL;
    hr = IDXGIResource_QueryInterface(res, &IID_ID3D11Texture2D, (void **)&tex);
    if (SUCCEEDED(hr) && !o->staging) {
        D3D11_TEXTURE2D_DESC td;
        ID3D11Texture2D_GetDesc(tex, &td);
        td.Usage = D3D11_USAGE_STAGING, td.BindFlags = 0, td.MiscFlags = 0;
        td.CPUAccessFlags = D3D11_CPU_ACCESS_READ, td.MipLevels = 1, td.ArraySize = 1;
        hr = td.Format == DXGI_FORMAT_B8G8R8A8_UNORM
                 ? ID3D11Device_CreateTexture2D(o->dev, &td, NULL, &o->staging)
                 : DXGI_ERROR_UNSUPPORTED; /* HDR (FP16) desktops: BitBlt converts for us */
    }
    if (SUCCEEDED(hr)) {
        ID3D11DeviceContext_CopyResource(o->ctx, (ID3D11Resource *)o->staging, (ID3D11Resource *)tex);
        o->have_frame = true;
    }
    if (tex) ID3D11Texture2D_Release(tex);
    IDXGIResource_Release(res);
    IDXGIOutputDuplication_ReleaseFrame(o->dup);
    return hr;
}

/* Refresh, recreating the duplicator once when access was lost. */
static HRESULT out_current(dxgi_out *o) {
    HRESULT hr = out_refresh(o);
    if (hr != DXGI_ERROR_ACCESS_LOST) return hr;
    RELEASE(o->dup, IDXGIOutputDuplication);
    RELEASE(o->staging, ID3D11Texture2D); /* the mode may have changed */
    o->have_frame = false;
    hr = IDXGIOutput1_DuplicateOutput(o->output, (IUnknown *)o->dev, &o->dup);
    return SUCCEEDED(hr) ? out_refresh(o) : hr;
}

/* Copy the part of want (virtual-screen coordinates) on o into bgra,
 * whose top-left is want's. */
static HRESULT out_copy(dxgi_out *o, const RECT *want, uint8_t *bgra, size_t stride) {
    RECT part;
    if (!IntersectRect(&part, want, &o->desk)) return S_OK;
    D3D11_MAPPED_SUBRESOURCE m;
    HRESULT hr = ID3D11DeviceContext_Map(o->ctx, (ID3D11Resource *)o->staging, 0, D3D11_MAP_READ, 0, &m);
    if (FAILED(hr)) return hr;
    size_t row = (size_t)(part.right - part.left) * 4;
    for (LONG y = part.top; y < part.bottom; y++) {
        const uint8_t *s = (const uint8_t *)m.pData + (size_t)(y - o->desk.top) * m.RowPitch +
                           (size_t)(part.left - o->desk.left) * 4;
        memcpy(bgra + (size_t)(y - want->top) * stride + (size_t)(part.left - want->left) * 4, s, row);
    }
    ID3D11DeviceContext_Unmap(o->ctx, (ID3D11Resource *)o->staging, 0);
    return S_OK;
}

static bool set_up(win_dxgi **pd, char *why, size_t cap) {
    win_dxgi *d = *pd;
    if (!d && !(d = *pd = calloc(1, sizeof *d))) return snprintf(why, cap, "dxgi: out of memory"), false;
    if (d->permanent || (d->n == 0 && !pg_deadline_passed(d->retry))) return false; /* why kept */
    if (d->n) return true;
    if (!d->d3d11) d->d3d11 = LoadLibraryW(L"d3d11.dll");
    if (!d->dxgi) d->dxgi = LoadLibraryW(L"dxgi.dll");
    d->stage = "LoadLibrary d3d11/dxgi";
    HRESULT hr = d->d3d11 && d->dxgi ? outputs_open(d) : HRESULT_FROM_WIN32(ERROR_MOD_NOT_FOUND);
    if (SUCCEEDED(hr)) return true;
    d->permanent = hr == E_NOTIMPL || hr == DXGI_ERROR_UNSUPPORTED ||
                   hr == HRESULT_FROM_WIN32(ERROR_PROC_NOT_FOUND) || hr == HRESULT_FROM_WIN32(ERROR_MOD_NOT_FOUND);
    d->retry = pg_deadline_in_ms(WIN_DXGI_RETRY_MS);
    snprintf(why, cap, "dxgi: %s: 0x%08lx%s", d->stage, (unsigned long)hr,
             hr == E_NOTIMPL ? " E_NOTIMPL" : "");
    return false;
}

bool win_dxgi_capture(win_dxgi **pd, const RECT *want, uint8_t *bgra, size_t stride, char *why,
                      size_t cap) {
    if (!set_up(pd, why, cap)) return false;
    win_dxgi *d = *pd;
    memset(bgra, 0, stride * (size_t)(want->bottom - want->top)); /* gaps between monitors */
    HRESULT hr = S_OK;
    for (size_t i = 0; i < d->n && SUCCEEDED(hr); i++) {
        RECT part;
        if (!IntersectRect(&part, want, &d->out[i].desk)) continue;
        hr = out_current(&d->out[i]);
        if (SUCCEEDED(hr)) hr = out_copy(&d->out[i], want, bgra, stride);
    }
    if (SUCCEEDED(hr)) return true;
    /* Anything else (desktop switch, session change): rebuild later. */
    outputs_free(d);
    d->retry = pg_deadline_in_ms(WIN_DXGI_RETRY_MS);
    snprintf(why, cap, "dxgi frame failed (0x%08lx); rebuilt in %d ms", (unsigned long)hr, WIN_DXGI_RETRY_MS);
    return false;
}
