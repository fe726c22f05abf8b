/* SPDX-License-Identifier: MIT */
/* pg_held.h - the keys and buttons held down on the display, and who holds them.
 *
 * What it does: keeps the one set of held input (key-down, mouse-down) and
 * the connection it belongs to: the input lock. While one connection holds
 * anything, input from every other connection is refused BUSY (its keys
 * would land with those modifiers down); everything held is released when
 * the holder lets go of it, when its connection ends (pg_broker_release_held),
 * or when the hold outlives its limits (pg_held_expired): idle_ms without a
 * new input request from the holder, or max_ms from its first press, which
 * nothing the holder sends extends; so the person's keyboard never stays
 * modified for longer, whatever an agent keeps alive.
 * It also builds the chord a key makes with what is held, so that the
 * keyguard judges "ctrl+alt+Delete" whether it was sent as one chord or
 * built from key-down ctrl, key-down alt, key Delete.
 * Never: talks to the platform (the broker does, under plat_lock, which
 * guards this state too), or keeps more than PG_HELD_MAX keys.
 */
#ifndef PG_HELD_H
#define PG_HELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PG_HELD_MAX 8

typedef struct {
    const void *holder;   /* the connection holding it while anything is held (NULL in tests without one) */
    uint32_t uid;         /* whose it is, for the audit record of a release */
    char user[64];
    int64_t pid;
    uint64_t window;      /* the window the first press went to */
    char keys[PG_HELD_MAX][64]; /* in the order they went down */
    size_t n_keys;
    unsigned buttons;     /* bit b set: button b (pg_button) down */
    int64_t since_us;     /* pg_mono_us of the first press */
    int64_t last_us;      /* pg_mono_us of the holder's last input request */
    uint32_t idle_ms;     /* limits the holder's policy set at the first press */
    uint32_t max_ms;
} pg_held;

/* Is anything held (a key or a button)? */
static inline bool pg_held_any(const pg_held *h) { return h->n_keys > 0 || h->buttons != 0; }
/* Is name one of the chord's modifier names (ctrl, control, shift, alt, super, meta)? */
bool pg_held_is_modifier(const char *name);
/* Is the key (compared case-insensitively for modifiers, exactly otherwise) held? */
bool pg_held_has_key(const pg_held *h, const char *name);
/* Another connection than conn holds input. */
bool pg_held_by_other(const pg_held *h, const void *conn);
/* The chord "mod+...+key": the held modifiers (in the order pressed, each
 * once) before chord's own; out of room: false. */
bool pg_held_chord(const pg_held *h, const char *chord, char *out, size_t cap);
/* chord's parts: the modifiers as written, then the key (the last part);
 * at most max. */
size_t pg_held_split(const char *chord, char parts[][64], size_t max);
/* chord without the modifiers that are held already (they stay down: a
 * second press and its release would let go of the held one). */
void pg_held_strip(const pg_held *h, const char *chord, char *out, size_t cap);
/* Bookkeeping after the platform pressed or released. */
/* The first press: conn (whose uid, user, pid) holds the display's input
 * now, from now_us, for at most max_ms and idle_ms between its requests
 * (0: that limit off). A later press of the same holder changes nothing. */
void pg_held_claim(pg_held *h, const void *conn, uint32_t uid, const char *user, int64_t pid, uint64_t window,
                   int64_t now_us, uint32_t idle_ms, uint32_t max_ms);
/* The holder sent an input request at now_us: the idle limit starts again
 * (the total limit does not). */
void pg_held_touch(pg_held *h, int64_t now_us);
/* Has the hold outlived a limit at now_us? why[n] says which. */
bool pg_held_expired(const pg_held *h, int64_t now_us, char *why, size_t n);
bool pg_held_add_key(pg_held *h, const char *name);
void pg_held_remove_key(pg_held *h, const char *name);
void pg_held_add_button(pg_held *h, unsigned button);
void pg_held_remove_button(pg_held *h, unsigned button);
/* Everything held, one name each: the keys in the order they went down,
 * then "left button", "middle button", "right button"; at most max. */
#define PG_HELD_NAMES_MAX (PG_HELD_MAX + 3)
size_t pg_held_names(const pg_held *h, char names[][64], size_t max);
/* The same joined, as "shift, a, left button" for messages. */
void pg_held_describe(const pg_held *h, char *out, size_t cap);

#endif
