/* SPDX-License-Identifier: MIT */
/* pg_transport over a Windows named pipe (client side). PLATFORM SHIM (see
 * pg_transport_posix.c for the same contract over a Unix socket).
 *
 * Contract: implements pg_transport.h. The address is a local pipe name in
 * UTF-8 ("\\.\pipe\pixelgate"); remote pipes (\\host\pipe\...) are refused as
 * USAGE. The pipe is opened with SECURITY_SQOS_PRESENT|SECURITY_IDENTIFICATION
 * so the broker may identify but never act as the client. Connecting waits
 * for a busy pipe (WaitNamedPipeW) at most timeout_ms; a missing pipe is
 * UNREACHABLE at once. Reads and writes are overlapped and each call is bounded
 * by one deadline (the connection's timeout, or the caller's for
 * pg_conn_read_until): past it the I/O is cancelled and
 * the call fails with TIMEOUT (the stream position is then undefined: close
 * the connection). A closed or broken pipe is UNREACHABLE. One thread at a
 * time may read and one may write.
 * Never: impersonation-level tokens for the server, blocking without a bound.
 */
#include <windows.h>

#include <stdbool.h>
#include <stdlib.h>
#include <wchar.h>

#include "pg_time.h"
#include "pg_transport.h"

#define PIPE_PREFIX L"\\\\.\\pipe\\"
#define PIPE_NAME_MAX 256 /* characters, the documented limit */
#define IO_CHUNK ((size_t)1 << 20)

static const char *const unreachable_tip =
    "check that the pixelgate service is running ('sc query pixelgate') and that "
    "PIXELGATE_SOCKET / --socket names its pipe";

enum { IO_READ, IO_WRITE };

struct pg_conn {
    HANDLE pipe;
    HANDLE ev[2]; /* one manual-reset event per direction */
    HANDLE abort_ev; /* manual-reset, set by pg_conn_abort: every wait ends */
    uint32_t timeout_ms;
    bool limited; /* a deadline over several calls is set (pg_conn_limit) */
    pg_deadline limit;
};

const char *pg_transport_default_address(void) { return "\\\\.\\pipe\\pixelgate"; }

void pg_conn_set_timeout(pg_conn *c, uint32_t timeout_ms) { c->timeout_ms = timeout_ms; }

uint32_t pg_conn_timeout(const pg_conn *c) { return c->timeout_ms; }
void pg_conn_limit(pg_conn *c, uint32_t ms) {
    c->limited = ms > 0;
    c->limit = pg_deadline_in_ms(ms);
}

/* UTF-8 pipe name -> wide, checked to be a local pipe. *out is malloc'd. */
static pg_err pipe_name_w(const char *address, wchar_t **out, pg_error *e) {
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, address, -1, NULL, 0);
    if (n <= 0) return pg_error_set(e, PG_E_USAGE, NULL, "pipe name is not valid UTF-8");
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, address, -1, w, n);
    size_t plen = wcslen(PIPE_PREFIX);
    if (wcslen(w) <= plen || wcslen(w) > PIPE_NAME_MAX || _wcsnicmp(w, PIPE_PREFIX, plen) != 0) {
        free(w);
        return pg_error_set(e, PG_E_USAGE, "name the broker's local pipe, e.g. \\\\.\\pipe\\pixelgate",
                            "not a local named pipe: %s", address);
    }
    *out = w;
    return PG_OK;
}

/* One CreateFileW attempt. Returns PG_OK with *h set, or PG_E_TIMEOUT as
 * "busy, wait and retry", or a final error. */
static pg_err open_once(const wchar_t *name, const char *address, HANDLE *h, pg_error *e) {
    *h = CreateFileW(name, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
                     FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, NULL);
    if (*h != INVALID_HANDLE_VALUE) return PG_OK;
    DWORD err = GetLastError();
    if (err == ERROR_PIPE_BUSY) return PG_E_TIMEOUT;
    if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
        return pg_error_set(e, PG_E_UNREACHABLE, unreachable_tip,
                            "cannot connect to broker at %s: no such pipe (broker not running?)", address);
    if (err == ERROR_ACCESS_DENIED) {
        /* Starting the service fixes nothing: its pipe's DACL admits the policy's
         * clients and approvers (broker/os/win/pg_win_listener.c), no network logon. */
        pg_error_set(e, PG_E_UNREACHABLE,
                     "not a broker problem: ask the administrator to add this account to clients.users (or one of "
                     "its groups to clients.groups) in the policy, then restart the service (sc stop pixelgate, "
                     "sc start pixelgate)",
                     "permission denied on the broker's pipe %s: its ACL admits only the policy's clients, and this "
                     "account is not one of them (or is logged on over the network)",
                     address);
        SetLastError(err); /* pg_session_connect keeps this tip */
        return PG_E_UNREACHABLE;
    }
    return pg_error_set(e, PG_E_UNREACHABLE, unreachable_tip, "cannot connect to broker at %s: Windows error %lu",
                        address, (unsigned long)err);
}

/* Opens the pipe, waiting for a free instance until the deadline. */
static pg_err open_pipe(const wchar_t *name, const char *address, uint32_t timeout_ms, HANDLE *h,
                        pg_error *e) {
    pg_deadline deadline = pg_deadline_in_ms(timeout_ms);
    for (;;) {
        pg_err rc = open_once(name, address, h, e);
        if (rc != PG_E_TIMEOUT) return rc;
        DWORD left = pg_deadline_left_ms(deadline);
        /* WaitNamedPipeW(0) would mean "the server's default wait": never pass 0. */
        if (left == 0 || (!WaitNamedPipeW(name, left) && GetLastError() == ERROR_SEM_TIMEOUT))
            return pg_error_set(e, PG_E_TIMEOUT, NULL, "broker pipe %s stayed busy for %u ms", address,
                                timeout_ms);
    }
}

static pg_err conn_new(pg_conn **out, HANDLE pipe, uint32_t timeout_ms, pg_error *e) {
    pg_conn *c = calloc(1, sizeof *c);
    if (c) {
        c->pipe = pipe;
        c->timeout_ms = timeout_ms;
        c->ev[IO_READ] = CreateEventW(NULL, TRUE, FALSE, NULL);
        c->ev[IO_WRITE] = CreateEventW(NULL, TRUE, FALSE, NULL);
        c->abort_ev = CreateEventW(NULL, TRUE, FALSE, NULL);
    }
    if (!c || !c->ev[IO_READ] || !c->ev[IO_WRITE] || !c->abort_ev) {
        if (c) pg_conn_close(c);
        else CloseHandle(pipe);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory or handles");
    }
    *out = c;
    return PG_OK;
}

pg_err pg_conn_from_handle(pg_conn **out, void *pipe, uint32_t timeout_ms, pg_error *e) {
    return conn_new(out, (HANDLE)pipe, timeout_ms, e);
}

pg_err pg_conn_connect(pg_conn **out, const char *address, uint32_t timeout_ms, pg_error *e) {
    wchar_t *name = NULL;
    pg_err rc = pipe_name_w(address, &name, e);
    if (rc) return rc;
    HANDLE h;
    rc = open_pipe(name, address, timeout_ms, &h, e);
    DWORD last = GetLastError();
    free(name);
    SetLastError(last); /* the open's: ERROR_ACCESS_DENIED is told apart (pg_transport.h) */
    return rc ? rc : conn_new(out, h, timeout_ms, e);
}

/* Maps a failed pipe I/O to the transport's codes. */
static pg_err io_error(DWORD err, int dir, pg_error *e) {
    const char *what = dir == IO_READ ? "read" : "write";
    switch (err) {
    case ERROR_OPERATION_ABORTED:
        return pg_error_set(e, PG_E_TIMEOUT, NULL, "pipe %s timed out", what);
    case ERROR_BROKEN_PIPE:
    case ERROR_NO_DATA:
    case ERROR_PIPE_NOT_CONNECTED:
    case ERROR_HANDLE_EOF:
        return pg_error_set(e, PG_E_UNREACHABLE, unreachable_tip, "broker closed the pipe (%s)", what);
    default:
        return pg_error_set(e, PG_E_UNREACHABLE, unreachable_tip, "pipe %s failed: Windows error %lu", what,
                            (unsigned long)err);
    }
}

/* Starts one overlapped read or write of len bytes. */
static BOOL io_start(pg_conn *c, int dir, void *p, DWORD len, OVERLAPPED *ov) {
    if (dir == IO_READ) return ReadFile(c->pipe, p, len, NULL, ov);
    return WriteFile(c->pipe, p, len, NULL, ov);
}

/* One overlapped transfer of up to len bytes, bounded by deadline. */
static pg_err io_once(pg_conn *c, int dir, void *p, DWORD len, pg_deadline deadline, DWORD *got, pg_error *e) {
    OVERLAPPED ov = {.hEvent = c->ev[dir]};
    ResetEvent(ov.hEvent);
    *got = 0;
    if (WaitForSingleObject(c->abort_ev, 0) == WAIT_OBJECT_0)
        return pg_error_set(e, PG_E_UNREACHABLE, NULL, "the call was cancelled");
    if (!io_start(c, dir, p, len, &ov)) {
        DWORD err = GetLastError(); /* MORE_DATA: a message read in part, reaped below */
        if (err != ERROR_IO_PENDING && err != ERROR_MORE_DATA) return io_error(err, dir, e);
    }
    HANDLE waits[2] = {ov.hEvent, c->abort_ev};
    DWORD w = WaitForMultipleObjects(2, waits, FALSE, pg_deadline_left_ms(deadline));
    if (w != WAIT_OBJECT_0) CancelIoEx(c->pipe, &ov);
    /* Always reap the operation: ov and p must outlive it. */
    BOOL done = GetOverlappedResult(c->pipe, &ov, got, TRUE);
    if (w == WAIT_OBJECT_0 + 1 && !done) return pg_error_set(e, PG_E_UNREACHABLE, NULL, "the call was cancelled");
    if (done || GetLastError() == ERROR_MORE_DATA) return PG_OK;
    return io_error(GetLastError(), dir, e);
}

/* Moves exactly n bytes in one direction, or fails. */
static pg_err io_full(pg_conn *c, int dir, uint8_t *p, size_t n, pg_deadline deadline, pg_error *e) {
    if (c->limited && c->limit.us < deadline.us) deadline = c->limit; /* the request's whole limit */
    while (n > 0) {
        if (pg_deadline_passed(deadline))
            return pg_error_set(e, PG_E_TIMEOUT, NULL, "peer did not respond within %u ms", c->timeout_ms);
        DWORD got;
        pg_err rc = io_once(c, dir, p, (DWORD)(n < IO_CHUNK ? n : IO_CHUNK), deadline, &got, e);
        if (rc == PG_E_TIMEOUT) return pg_error_set(e, rc, NULL, "peer did not respond within %u ms", c->timeout_ms);
        if (rc) return rc;
        p += got;
        n -= got;
    }
    return PG_OK;
}

pg_err pg_conn_read_full(pg_conn *c, void *buf, size_t n, pg_error *e) {
    return io_full(c, IO_READ, buf, n, pg_deadline_in_ms(c->timeout_ms), e);
}

pg_err pg_conn_read_until(pg_conn *c, void *buf, size_t n, pg_deadline until, pg_error *e) {
    return io_full(c, IO_READ, buf, n, until, e);
}

pg_err pg_conn_write_full(pg_conn *c, const void *buf, size_t n, pg_error *e) {
    /* WriteFile does not modify the buffer; the cast drops const only. */
    return io_full(c, IO_WRITE, (uint8_t *)(uintptr_t)buf, n, pg_deadline_in_ms(c->timeout_ms), e);
}

/* A pipe has no half close: the peer reads what was written as long as the
 * server end stays open, so read (and drop) until the peer hangs up or the
 * drain time is over, then close (FlushFileBuffers would wait without bound
 * for a peer that never reads). */
void pg_conn_finish(pg_conn *c, uint32_t drain_ms) {
    if (!c) return;
    pg_deadline d = pg_deadline_in_ms(drain_ms);
    uint8_t sink[4096];
    for (size_t total = 0; total < ((size_t)1 << 20) && !pg_deadline_passed(d);) {
        DWORD got = 0;
        pg_error ignored;
        if (io_once(c, IO_READ, sink, sizeof sink, d, &got, &ignored) != PG_OK || got == 0) break;
        total += got;
    }
    pg_conn_close(c);
}

void pg_conn_close(pg_conn *c) {
    if (!c) return;
    if (c->pipe && c->pipe != INVALID_HANDLE_VALUE) CloseHandle(c->pipe);
    for (int i = 0; i < 2; i++)
        if (c->ev[i]) CloseHandle(c->ev[i]);
    if (c->abort_ev) CloseHandle(c->abort_ev);
    free(c);
}

void pg_conn_abort(pg_conn *c) {
    if (c) SetEvent(c->abort_ev);
}

/* A broken pipe is the client gone; bytes waiting (or none yet) are not. */
bool pg_conn_peer_gone(pg_conn *c) {
    DWORD avail = 0;
    if (PeekNamedPipe(c->pipe, NULL, 0, NULL, &avail, NULL)) return false;
    DWORD err = GetLastError();
    return err == ERROR_BROKEN_PIPE || err == ERROR_PIPE_NOT_CONNECTED || err == ERROR_NO_DATA;
}
