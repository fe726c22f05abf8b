/* SPDX-License-Identifier: MIT */
/* pg_posix_logind.c - the display of seat0's active graphical session, from
 * logind (see pg_posix_logind.h). sd-bus, as every systemd-era daemon asks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "pg_log.h"
#include "pg_posix_logind.h"

#define LOGIND "org.freedesktop.login1"

static pg_err bus_error(const char *what, int r, const sd_bus_error *err, pg_error *e) {
    return pg_error_set(e, PG_E_UNREACHABLE, "give the display with --display, or check that systemd-logind runs",
                        "logind: %s: %s", what, err && err->message ? err->message : strerror(-r));
}

static pg_err get_string(sd_bus *bus, const char *path, const char *iface, const char *prop, char **out,
                         pg_error *e) {
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int r = sd_bus_get_property_string(bus, LOGIND, path, iface, prop, &err, out);
    pg_err rc = r < 0 ? bus_error(prop, r, &err, e) : PG_OK;
    sd_bus_error_free(&err);
    return rc;
}

/* seat0's ActiveSession: (so) -> the session's object path. */
static pg_err active_session(sd_bus *bus, char *path, size_t cap, pg_error *e) {
    sd_bus_error err = SD_BUS_ERROR_NULL;
    sd_bus_message *m = NULL;
    const char *id = NULL, *obj = NULL;
    int r = sd_bus_get_property(bus, LOGIND, "/org/freedesktop/login1/seat/seat0", LOGIND ".Seat", "ActiveSession",
                                &err, &m, "(so)");
    if (r >= 0) r = sd_bus_message_read(m, "(so)", &id, &obj);
    pg_err rc = r < 0 ? bus_error("seat0 has no active session", r, &err, e) : PG_OK; /* no seat0 either */
    if (!rc && (!id || !id[0] || !obj || !strcmp(obj, "/")))
        rc = pg_error_set(e, PG_E_UNREACHABLE, "log in on the machine's screen, or give the display with --display",
                          "logind: seat0 has no active session");
    if (!rc) snprintf(path, cap, "%s", obj);
    sd_bus_message_unref(m);
    sd_bus_error_free(&err);
    return rc;
}

pg_err pg_posix_logind_display(char *out, size_t cap, pg_error *e) {
    sd_bus *bus = NULL;
    int r = sd_bus_open_system(&bus);
    if (r < 0) return bus_error("the system bus", r, NULL, e);
    char path[256];
    char *type = NULL, *display = NULL, *name = NULL;
    pg_err rc = active_session(bus, path, sizeof path, e);
    if (!rc) rc = get_string(bus, path, LOGIND ".Session", "Type", &type, e);
    if (!rc) rc = get_string(bus, path, LOGIND ".Session", "Display", &display, e);
    if (!rc) rc = get_string(bus, path, LOGIND ".Session", "Name", &name, e);
    if (!rc && strcmp(type, "x11") != 0)
        rc = pg_error_set(e, PG_E_UNREACHABLE,
                          !strcmp(type, "wayland") ? "a Wayland session is reached through pixelgate-session"
                                                   : "give the display with --display",
                          "logind: the active session (%s, user %s) is of type \"%s\", not x11", path, name, type);
    if (!rc && !display[0])
        rc = pg_error_set(e, PG_E_UNREACHABLE, "give the display with --display",
                          "logind: the active session (%s, user %s) names no display", path, name);
    if (!rc) snprintf(out, cap, "%s", display);
    free(type), free(display), free(name);
    sd_bus_flush_close_unref(bus);
    return rc;
}

/* ------------------------------------------------- the "auto" display */

static pg_platform_ops auto_ops;

static pg_err auto_open(pg_platform **out, const char *display, pg_error *e) {
    char found[64];
    *out = NULL;
    if (display && display[0] && strcmp(display, PG_DISPLAY_AUTO) != 0)
        return pg_platform_default()->open(out, display, e);
    pg_err rc = pg_posix_logind_display(found, sizeof found, e);
    if (rc) return rc;
    pg_log(PG_LOG_INFO, "display auto: logind's active session is on %s", found);
    return pg_platform_default()->open(out, found, e);
}

const pg_platform_ops *pg_posix_logind_auto_ops(void) {
    if (!auto_ops.open) {
        auto_ops = *pg_platform_default();
        auto_ops.open = auto_open;
    }
    return &auto_ops;
}
