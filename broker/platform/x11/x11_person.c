/* SPDX-License-Identifier: MIT */
/* x11_person.c - watch_person for X11: the person's own keyboard and mouse,
 * told apart from injected input by XInput 2.2 raw events.
 *
 * Contract (x11_private.h, "x11_person.c"; pg_platform.def, watch_person):
 * a watcher owns a second XCB connection to the handle's display and one
 * thread that reads its events until x11_person_stop. On root, for all
 * devices, it selects RawKeyPress, RawButtonPress, RawMotion,
 * Hierarchy and Property events, and keeps a table of the devices.
 * - Injected: a raw event whose source is one of the server's own XTEST
 *   slaves, known by three things together: attached to a master "<base>
 *   keyboard|pointer", named "<base> XTEST keyboard|pointer", and carrying
 *   the "XTEST Device" property (which the server will not let a client
 *   change on it). Every other source is the person's (physical), including
 *   a source the table does not know yet. XWarpPointer makes no raw event.
 * - Each raw event comes twice (the slave's copy and the master's); only the
 *   slave's (deviceid == sourceid) is counted.
 * - A physical press of a keycode that the core keymap gives the stop keysym
 *   is pg_person_stop_key (a press the server flags as a repeat is only
 *   activity; XKB's own autorepeat makes no raw events at all). Any other
 *   physical key press, button press or motion is pg_person_activity.
 * - Tampering, pg_person_tamper naming the device: a physical slave
 *   keyboard removed, disabled or detached (Hierarchy), or "XTEST Device"
 *   set on any device that is not one of the server's XTEST slaves
 *   (Property event, or found so when the watcher starts).
 * - pg_person_set_watching(true, key) once selected and the key is on the
 *   keymap; (false, why) when XI 2.2 is missing, the keymap has no such key,
 *   or the connection broke. x11_person_stop says nothing to the person:
 *   the broker, which closes the handle, knows.
 * Threads: start and stop run on the handle's thread; the watcher thread
 * alone touches the connection's events, the device table and the keymap
 * after start. Never: sends input, grabs, reads pixels, or waits for the
 * server without a deadline (x11_wait).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xcb/xinput.h>
#include <xkbcommon/xkbcommon.h>

#include "pg_person.h"
#include "x11_private.h"

/* Device ids are below 256 (the XI 1 protocol carries them in a byte); a
 * larger one is simply unknown, hence physical. */
#define PERSON_MAX_DEVICES 256
#define PERSON_NAME_MAX 128 /* longer names are cut: then never taken for an XTEST slave */

typedef struct {
    bool known;
    uint16_t type;        /* XCB_INPUT_DEVICE_TYPE_* */
    uint16_t attachment;  /* a slave's master, a master's paired master */
    bool keyboard;        /* a slave keyboard, or a floating slave with keys */
    bool xtest_prop;      /* carries "XTEST Device" */
    bool server_xtest;    /* one of the server's own XTEST slaves: its input is injected */
    bool cut;             /* the name was longer than name holds */
    char name[PERSON_NAME_MAX];
} person_device;

struct x11_person {
    xcb_connection_t *c;
    xcb_window_t root;
    xcb_window_t stop_win;   /* ours: a client message to it ends the thread */
    uint8_t xi_opcode;
    xcb_atom_t xtest_atom;   /* "XTEST Device" */
    pg_person *person;
    char stop_key[64];
    xkb_keysym_t stop_sym;
    bool stop_code[256];     /* keycodes the core keymap gives the stop keysym */
    bool key_on_map;         /* some keycode has it */
    person_device dev[PERSON_MAX_DEVICES];
    pthread_t thread;
};

/* ------------------------------------------------------------ round trips */

/* The reply to seq on the watcher's connection within X11_REPLY_TIMEOUT_MS,
 * or NULL (an X error, a timeout, a broken connection). */
static void *ask(xcb_connection_t *c, unsigned int seq) {
    pg_platform tmp = {.c = c}; /* x11_wait needs only the connection */
    void *r;
    xcb_generic_error_t *xe;
    if (x11_wait(&tmp, seq, &r, &xe, NULL) != PG_OK) return NULL;
    free(xe);
    return r;
}

/* XInput at 2.2 or later negotiated on c: raw events reach a root listener
 * during another client's grab only from 2.1 on, and the hierarchy and
 * property events we trust are 2.x. */
static bool xi_ready(xcb_connection_t *c, uint8_t *opcode) {
    const xcb_query_extension_reply_t *q = xcb_get_extension_data(c, &xcb_input_id);
    if (!q || !q->present) return false;
    *opcode = q->major_opcode;
    xcb_input_xi_query_version_reply_t *v = ask(c, xcb_input_xi_query_version(c, 2, 2).sequence);
    bool ok = v && (v->major_version > 2 || (v->major_version == 2 && v->minor_version >= 2));
    free(v);
    return ok;
}

static xcb_atom_t intern(xcb_connection_t *c, const char *name) {
    xcb_intern_atom_reply_t *r = ask(c, xcb_intern_atom(c, 0, (uint16_t)strlen(name), name).sequence);
    xcb_atom_t a = r ? r->atom : XCB_NONE;
    free(r);
    return a;
}

/* ------------------------------------------------------------ the devices */

static bool has_key_class(xcb_input_xi_device_info_t *info) {
    for (xcb_input_device_class_iterator_t it = xcb_input_xi_device_info_classes_iterator(info); it.rem;
         xcb_input_device_class_next(&it))
        if (it.data->type == XCB_INPUT_DEVICE_CLASS_TYPE_KEY) return true;
    return false;
}

static void note_device(x11_person *w, xcb_input_xi_device_info_t *info) {
    if (info->deviceid >= PERSON_MAX_DEVICES) return;
    person_device *d = &w->dev[info->deviceid];
    memset(d, 0, sizeof *d); /* the id may be another device's now */
    d->known = true;
    d->type = info->type;
    d->attachment = info->attachment;
    d->keyboard = info->type == XCB_INPUT_DEVICE_TYPE_SLAVE_KEYBOARD ||
                  (info->type == XCB_INPUT_DEVICE_TYPE_FLOATING_SLAVE && has_key_class(info));
    int len = xcb_input_xi_device_info_name_length(info);
    d->cut = len >= PERSON_NAME_MAX;
    if (d->cut) len = PERSON_NAME_MAX - 1;
    memcpy(d->name, xcb_input_xi_device_info_name(info), (size_t)len);
    d->name[len] = 0;
}

static bool is_slave(const person_device *d) {
    return d->type == XCB_INPUT_DEVICE_TYPE_SLAVE_KEYBOARD || d->type == XCB_INPUT_DEVICE_TYPE_SLAVE_POINTER ||
           d->type == XCB_INPUT_DEVICE_TYPE_FLOATING_SLAVE;
}

/* Whether slave d is the XTEST slave the server made with its master: the
 * master is "<base> keyboard" or "<base> pointer", d is "<base> XTEST
 * keyboard" (or pointer) and carries the flag. A client cannot name a
 * device, float or re-attach an XTEST slave, or change its flag; it can put
 * the flag on another device, which is why the flag alone is not trusted. */
static bool server_xtest(const x11_person *w, const person_device *d) {
    if (!d->xtest_prop || d->cut || d->type == XCB_INPUT_DEVICE_TYPE_FLOATING_SLAVE) return false;
    if (d->attachment >= PERSON_MAX_DEVICES || !w->dev[d->attachment].known || w->dev[d->attachment].cut)
        return false;
    const char *master = w->dev[d->attachment].name;
    const char *kind = d->type == XCB_INPUT_DEVICE_TYPE_SLAVE_KEYBOARD ? "keyboard" : "pointer";
    size_t base = strlen(master), kind_len = strlen(kind);
    if (base <= kind_len + 1 || strcmp(master + base - kind_len, kind) != 0 || master[base - kind_len - 1] != ' ')
        return false;
    base -= kind_len + 1;
    char expected[PERSON_NAME_MAX + 16];
    snprintf(expected, sizeof expected, "%.*s XTEST %s", (int)base, master, kind);
    return strcmp(expected, d->name) == 0;
}

/* Which present slaves carry "XTEST Device": asked for all at once. */
static void read_xtest_flags(x11_person *w, const bool *present) {
    unsigned int seq[PERSON_MAX_DEVICES] = {0};
    for (int id = 0; id < PERSON_MAX_DEVICES; id++)
        if (present[id] && is_slave(&w->dev[id]))
            seq[id] = xcb_input_xi_get_property(w->c, (xcb_input_device_id_t)id, 0, w->xtest_atom,
                                                XCB_GET_PROPERTY_TYPE_ANY, 0, 1).sequence;
    for (int id = 0; id < PERSON_MAX_DEVICES; id++) {
        if (!seq[id]) continue;
        xcb_input_xi_get_property_reply_t *r = ask(w->c, seq[id]);
        w->dev[id].xtest_prop = r && r->type != XCB_NONE;
        free(r);
    }
}

/* Read the devices the server has now into the table. The server may be
 * ahead of the events still queued for us (a device already removed or
 * disabled whose event is yet to come), so an event is judged by what a
 * device is (its name, kind, and whether it is an XTEST slave), never by its
 * state, and a device that is gone keeps its entry until its id is reused:
 * the event that says it went can still name it. False when the server did
 * not answer. */
static bool load_devices(x11_person *w) {
    xcb_input_xi_query_device_reply_t *r =
        ask(w->c, xcb_input_xi_query_device(w->c, XCB_INPUT_DEVICE_ALL).sequence);
    if (!r) return false;
    bool present[PERSON_MAX_DEVICES] = {0};
    for (xcb_input_xi_device_info_iterator_t it = xcb_input_xi_query_device_infos_iterator(r); it.rem;
         xcb_input_xi_device_info_next(&it)) {
        note_device(w, it.data);
        if (it.data->deviceid < PERSON_MAX_DEVICES) present[it.data->deviceid] = true;
    }
    free(r);
    read_xtest_flags(w, present);
    for (int id = 0; id < PERSON_MAX_DEVICES; id++)
        if (present[id] && is_slave(&w->dev[id])) w->dev[id].server_xtest = server_xtest(w, &w->dev[id]);
    return true;
}

/* "keyboard 6 (Xephyr virtual keyboard)", for the person's tamper reason. */
static void describe(const person_device *d, unsigned id, char *out, size_t cap) {
    const char *kind = d->keyboard ? "keyboard" : is_slave(d) ? "pointer" : "device";
    snprintf(out, cap, "%s %u (%s)", kind, id, d->known ? d->name : "unknown");
}

static void tamper(x11_person *w, const person_device *d, unsigned id, const char *what) {
    char why[PG_PERSON_WHY_MAX];
    describe(d, id, why, sizeof why);
    size_t n = strlen(why); /* a long name is cut, the verb then too: the device's id stays */
    snprintf(why + n, sizeof why - n, " %s", what);
    pg_person_tamper(w->person, why);
}

/* A device that carries the XTEST flag without being the server's XTEST
 * slave was re-flagged by some client before we looked. */
static void report_false_flags(x11_person *w) {
    for (unsigned id = 0; id < PERSON_MAX_DEVICES; id++) {
        const person_device *d = &w->dev[id];
        if (d->known && d->xtest_prop && !d->server_xtest) tamper(w, d, id, "flagged as \"XTEST Device\"");
    }
}

/* ------------------------------------------------------------ the stop key */

/* The keycodes whose core keymap row has the stop keysym in any column, and
 * the person told whether the key can be pressed at all. */
static void resolve_stop_key(x11_person *w) {
    const xcb_setup_t *setup = xcb_get_setup(w->c);
    uint8_t first = setup->min_keycode, count = (uint8_t)(setup->max_keycode - setup->min_keycode + 1);
    xcb_get_keyboard_mapping_reply_t *r = ask(w->c, xcb_get_keyboard_mapping(w->c, first, count).sequence);
    if (!r) return; /* a broken connection: the thread notices and says so */
    memset(w->stop_code, 0, sizeof w->stop_code);
    w->key_on_map = false;
    const xcb_keysym_t *syms = xcb_get_keyboard_mapping_keysyms(r);
    int per = r->keysyms_per_keycode, n = xcb_get_keyboard_mapping_keysyms_length(r);
    for (int i = 0; per > 0 && i < n; i++)
        if (syms[i] == w->stop_sym) {
            w->stop_code[first + i / per] = true;
            w->key_on_map = true;
        }
    free(r);
    char why[PG_PERSON_WHY_MAX];
    snprintf(why, sizeof why, "no key on the keyboard map makes %s", w->stop_key);
    pg_person_set_watching(w->person, w->key_on_map, w->stop_key, w->key_on_map ? NULL : why);
}

/* ------------------------------------------------------------ the events */

/* A physical key press: the stop key's is a stop (it toggles the latch, so
 * a flagged repeat must not count again), any other is activity. */
static void on_key(x11_person *w, const xcb_input_raw_key_press_event_t *ev) {
    bool stop = ev->detail < 256 && w->stop_code[ev->detail];
    bool repeat = (ev->flags & XCB_INPUT_KEY_EVENT_FLAGS_KEY_REPEAT) != 0;
    if (stop && !repeat) pg_person_stop_key(w->person, pg_mono_us());
    else pg_person_activity(w->person, pg_mono_us());
}

static void on_raw(x11_person *w, const xcb_input_raw_key_press_event_t *ev) {
    if (ev->deviceid != ev->sourceid) return; /* the master's copy of the slave's event */
    if (ev->sourceid < PERSON_MAX_DEVICES && w->dev[ev->sourceid].server_xtest) return; /* injected */
    if (ev->event_type == XCB_INPUT_RAW_KEY_PRESS) on_key(w, ev);
    else pg_person_activity(w->person, pg_mono_us());
}

/* What the hierarchy change did to a physical keyboard (by the event's
 * flags: the table's state may be newer than the event). */
static const char *keyboard_loss(const person_device *d, uint32_t flags) {
    if (!d->known || !d->keyboard || d->server_xtest) return NULL;
    if (flags & XCB_INPUT_HIERARCHY_MASK_SLAVE_REMOVED) return "removed";
    if (flags & XCB_INPUT_HIERARCHY_MASK_DEVICE_DISABLED) return "disabled";
    if (flags & XCB_INPUT_HIERARCHY_MASK_SLAVE_DETACHED) return "detached";
    return NULL;
}

/* Judged by the table's description of each device (a removed one is
 * still there), then the table is read again. */
static void on_hierarchy(x11_person *w, xcb_input_hierarchy_event_t *ev) {
    xcb_input_hierarchy_info_t *info = xcb_input_hierarchy_infos(ev);
    int n = xcb_input_hierarchy_infos_length(ev);
    for (int i = 0; i < n; i++) {
        if (info[i].deviceid >= PERSON_MAX_DEVICES) continue;
        const char *loss = keyboard_loss(&w->dev[info[i].deviceid], info[i].flags);
        if (loss) tamper(w, &w->dev[info[i].deviceid], info[i].deviceid, loss);
    }
    (void)load_devices(w);
}

/* The flag on a device that is not the server's XTEST slave is a tamper;
 * the table is read again so that what is trusted is judged on the devices
 * as they are now (the name check is what keeps the re-flagged one physical). */
static void on_property(x11_person *w, const xcb_input_property_event_t *ev) {
    if (ev->property != w->xtest_atom) return;
    bool trusted = ev->deviceid < PERSON_MAX_DEVICES && w->dev[ev->deviceid].server_xtest;
    if (ev->what != XCB_INPUT_PROPERTY_FLAG_DELETED && !trusted) {
        person_device unknown = {0};
        const person_device *d = ev->deviceid < PERSON_MAX_DEVICES ? &w->dev[ev->deviceid] : &unknown;
        tamper(w, d, ev->deviceid, "flagged as \"XTEST Device\"");
    }
    (void)load_devices(w);
}

static void on_xi_event(x11_person *w, xcb_ge_generic_event_t *ev) {
    switch (ev->event_type) {
    case XCB_INPUT_RAW_KEY_PRESS:
    case XCB_INPUT_RAW_BUTTON_PRESS:
    case XCB_INPUT_RAW_MOTION: on_raw(w, (xcb_input_raw_key_press_event_t *)ev); break;
    case XCB_INPUT_HIERARCHY: on_hierarchy(w, (xcb_input_hierarchy_event_t *)ev); break;
    case XCB_INPUT_PROPERTY: on_property(w, (xcb_input_property_event_t *)ev); break;
    default: break;
    }
}

static bool is_stop(const x11_person *w, const xcb_generic_event_t *ev) { return x11_is_self_message(ev, w->stop_win); }

static void *person_main(void *arg) {
    x11_person *w = arg;
    for (;;) {
        xcb_generic_event_t *ev = xcb_wait_for_event(w->c);
        if (!ev) { /* the display went away: nothing watches the person now */
            pg_person_set_watching(w->person, false, w->stop_key, "the X connection of the person watcher was lost");
            return NULL;
        }
        uint8_t type = ev->response_type & 0x7f;
        bool stop = is_stop(w, ev);
        if (type == XCB_GE_GENERIC && ((xcb_ge_generic_event_t *)ev)->extension == w->xi_opcode)
            on_xi_event(w, (xcb_ge_generic_event_t *)ev);
        else if (type == XCB_MAPPING_NOTIFY && ((xcb_mapping_notify_event_t *)ev)->request == XCB_MAPPING_KEYBOARD)
            resolve_stop_key(w); /* the stop key may sit on another keycode now */
        free(ev);
        if (stop) return NULL;
    }
}

/* ------------------------------------------------------------ start, stop */

static pg_err select_person_events(x11_person *w, pg_error *e) {
    struct {
        xcb_input_event_mask_t head;
        uint32_t bits;
    } mask = {{XCB_INPUT_DEVICE_ALL, 1},
              XCB_INPUT_XI_EVENT_MASK_RAW_KEY_PRESS | XCB_INPUT_XI_EVENT_MASK_RAW_BUTTON_PRESS | XCB_INPUT_XI_EVENT_MASK_RAW_MOTION |
                  XCB_INPUT_XI_EVENT_MASK_HIERARCHY | XCB_INPUT_XI_EVENT_MASK_PROPERTY};
    pg_platform tmp = {.c = w->c};
    xcb_generic_error_t *xe = NULL;
    pg_err rc = x11_check(&tmp, xcb_input_xi_select_events_checked(w->c, w->root, 1, &mask.head), &xe, e);
    if (rc == PG_OK && xe)
        rc = pg_error_set(e, PG_E_UNSUPPORTED, NULL, "the X server refused XInput raw events (%s)",
                          x11_error_name(xe->error_code));
    free(xe);
    return rc;
}

static void make_stop_window(x11_person *w) {
    const xcb_screen_t *scr = xcb_setup_roots_iterator(xcb_get_setup(w->c)).data;
    w->root = scr->root;
    w->stop_win = x11_self_window(w->c, scr->root);
}

/* Connect, check XInput 2.2, select, read devices and keymap: everything
 * before the thread, so a failure is the caller's answer. */
static pg_err person_connect(x11_person *w, const char *display, pg_error *e) {
    w->c = xcb_connect(display, NULL);
    if (xcb_connection_has_error(w->c))
        return pg_error_set(e, PG_E_UNREACHABLE, "check that the X server is still running",
                            "the person watcher cannot connect to the X display");
    if (!xi_ready(w->c, &w->xi_opcode)) {
        pg_person_set_watching(w->person, false, w->stop_key,
                               "the X server lacks XInput 2.2: a person's keys cannot be told from injected ones");
        return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "the X server lacks XInput 2.2");
    }
    make_stop_window(w);
    w->xtest_atom = intern(w->c, "XTEST Device");
    if (!w->xtest_atom) return pg_error_set(e, PG_E_UNREACHABLE, NULL, "the X server did not answer InternAtom");
    pg_err rc = select_person_events(w, e); /* before the table: a change in between is an event */
    if (rc != PG_OK) return rc;
    if (!load_devices(w)) return pg_error_set(e, PG_E_UNREACHABLE, NULL, "the X server did not list its devices");
    return PG_OK;
}

static void person_free(x11_person *w) {
    if (w->c) xcb_disconnect(w->c);
    free(w);
}

/* The watcher of handle p's display, reporting into person. */
static pg_err person_start(pg_platform *p, pg_person *person, const char *stop_key, xkb_keysym_t sym,
                           x11_person **out, pg_error *e) {
    x11_person *w = calloc(1, sizeof *w);
    if (!w) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    w->person = person;
    w->stop_sym = sym;
    snprintf(w->stop_key, sizeof w->stop_key, "%s", stop_key);
    pg_err rc = person_connect(w, p->display, e);
    if (rc != PG_OK) {
        person_free(w);
        return rc;
    }
    resolve_stop_key(w);
    report_false_flags(w);
    if (pthread_create(&w->thread, NULL, person_main, w) != 0) {
        pg_person_set_watching(person, false, stop_key, "no thread to watch the person's input");
        person_free(w);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot start the person watcher's thread");
    }
    *out = w;
    return PG_OK;
}

void x11_person_stop(x11_person *w) {
    if (!w) return;
    x11_self_message(w->c, w->stop_win, 0); /* a broken connection has ended the thread already */
    pthread_join(w->thread, NULL);
    person_free(w);
}

pg_err x11_watch_person(pg_platform *p, pg_person *person, const char *stop_key, pg_error *e) {
    if (!p || !person || !stop_key || !stop_key[0])
        return pg_error_set(e, PG_E_BADINPUT, NULL, "watch_person needs a handle, a person and a key name");
    xkb_keysym_t sym = xkb_keysym_from_name(stop_key, XKB_KEYSYM_NO_FLAGS);
    if (sym == XKB_KEY_NoSymbol)
        return pg_error_set(e, PG_E_BADINPUT, "name an X keysym, e.g. Pause or Scroll_Lock",
                            "no key is named '%s'", stop_key);
    x11_person *running = p->person_watch;
    if (running && running->person == person && running->stop_sym == sym) return PG_OK; /* watching already */
    /* One watcher per handle: another key replaces the first. The old one
     * goes first, so that no press is counted by two watchers. */
    x11_person_stop(running);
    p->person_watch = NULL;
    return person_start(p, person, stop_key, sym, &p->person_watch, e);
}

/* pixelgate-session on an X11 session: the broker asks for counts, the
 * watcher reports into a pg_person of this handle's own (freed at close). */
pg_err x11_person_poll(pg_platform *p, const char *stop_key, uint32_t *watching, uint32_t *stop_presses,
                       uint32_t *tampers, uint32_t *human_events, uint32_t *idle_ms, pg_error *e) {
    *watching = *stop_presses = *tampers = *human_events = 0;
    *idle_ms = UINT32_MAX;
    if (!p->polled && !(p->polled = pg_person_new(NULL, NULL)))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (!p->polled_key[0] || strcmp(p->polled_key, stop_key ? stop_key : "") != 0) {
        pg_err rc = x11_watch_person(p, p->polled, stop_key, e);
        if (rc) return rc;
        snprintf(p->polled_key, sizeof p->polled_key, "%s", stop_key ? stop_key : "");
    }
    pg_person_seen s;
    pg_person_read(p->polled, &s);
    *watching = s.watching;
    *stop_presses = (uint32_t)s.stop_presses; /* the proxy takes differences modulo 2^32 */
    *tampers = (uint32_t)s.tampers;
    *human_events = (uint32_t)s.human_events;
    if (s.last_human_us) {
        int64_t ms = (pg_mono_us() - s.last_human_us) / 1000;
        *idle_ms = ms < 0 ? 0 : ms >= UINT32_MAX ? UINT32_MAX - 1 : (uint32_t)ms;
    }
    return PG_OK;
}
