/* SPDX-License-Identifier: MIT */
/* win_person_rules.h - what one low-level keyboard or mouse event means to
 * the person's controls (pg_person.h): injected (ignored), a press of the
 * stop key, or the person's own activity.
 *
 * Contract: pure and portable, no windows.h: the hook (win_person.c) passes
 * KBDLLHOOKSTRUCT's vkCode and flags and MSLLHOOKSTRUCT's flags as plain
 * integers, whose bits are spelled below with their Windows values, so the
 * rules are unit-tested on every OS (tests/unit/test_win_person_rules.c).
 *   - An event flagged injected (LLKHF_INJECTED, LLKHF_LOWER_IL_INJECTED,
 *     LLMHF_INJECTED, LLMHF_LOWER_IL_INJECTED) is IGNORE: SendInput from any
 *     process, the broker's helper included, never stops the agent or counts
 *     as the person, and does not change the rules' state.
 *   - A physical key-down of the stop key is STOP once per press: the
 *     auto-repeat key-downs of a held key are ACTIVITY until its key-up.
 *   - Any other physical key or mouse event is ACTIVITY.
 * Stop key names (the X11 keysym spellings, case-insensitive, plus the
 * Windows names people type): "Pause" (also "Break"), "Scroll_Lock" (also
 * "ScrollLock", "Scroll"), "F1".."F24". Anything else is refused, so a
 * misspelt key never leaves the person without a stop.
 * Never: allocates, reads the clock or calls the OS.
 */
#ifndef WIN_PERSON_RULES_H
#define WIN_PERSON_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* KBDLLHOOKSTRUCT.flags (winuser.h values). */
#define WIN_LLKHF_EXTENDED 0x01u
#define WIN_LLKHF_LOWER_IL_INJECTED 0x02u
#define WIN_LLKHF_INJECTED 0x10u
#define WIN_LLKHF_ALTDOWN 0x20u
#define WIN_LLKHF_UP 0x80u
/* MSLLHOOKSTRUCT.flags. */
#define WIN_LLMHF_INJECTED 0x01u
#define WIN_LLMHF_LOWER_IL_INJECTED 0x02u
/* The virtual keys a stop key may be. */
#define WIN_VK_PAUSE 0x13u
#define WIN_VK_SCROLL 0x91u
#define WIN_VK_F1 0x70u
#define WIN_VK_F24 0x87u

typedef enum { WIN_PERSON_IGNORE = 0, WIN_PERSON_ACTIVITY, WIN_PERSON_STOP } win_person_event;

typedef struct {
    uint32_t stop_vk; /* the stop key's virtual key */
    bool stop_down;   /* the person holds it down now (its repeats are not presses) */
} win_person_rules;

/* name -> the stop key's virtual key and its name as reported (canon, e.g.
 * "Pause", "Scroll_Lock", "F12"); false for a name it does not know. */
bool win_person_stop_key(const char *name, uint32_t *vk, char *canon, size_t cap);

/* One WH_KEYBOARD_LL event. */
win_person_event win_person_key(win_person_rules *r, uint32_t vk, uint32_t flags);
/* One WH_MOUSE_LL event (motion, a button, the wheel). */
win_person_event win_person_mouse(uint32_t flags);

#endif
