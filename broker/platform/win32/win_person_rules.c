/* SPDX-License-Identifier: MIT */
/* win_person_rules.c - the low-level hook's decisions, pure (win_person_rules.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "win_person_rules.h"

static bool same_name(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
    return *a == *b;
}

/* "F1".."F24" exactly: no sign, no leading zero, no trailing text. */
static bool function_key(const char *name, uint32_t *n) {
    if ((name[0] != 'F' && name[0] != 'f') || name[1] < '1' || name[1] > '9') return false;
    char *end;
    unsigned long v = strtoul(name + 1, &end, 10);
    if (*end || v < 1 || v > 24) return false;
    *n = (uint32_t)v;
    return true;
}

bool win_person_stop_key(const char *name, uint32_t *vk, char *canon, size_t cap) {
    static const struct {
        const char *name, *canon;
        uint32_t vk;
    } named[] = {
        {"Pause", "Pause", WIN_VK_PAUSE},       {"Break", "Pause", WIN_VK_PAUSE},
        {"Scroll_Lock", "Scroll_Lock", WIN_VK_SCROLL}, {"ScrollLock", "Scroll_Lock", WIN_VK_SCROLL},
        {"Scroll", "Scroll_Lock", WIN_VK_SCROLL},
    };
    if (!name) return false;
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (same_name(name, named[i].name)) {
            *vk = named[i].vk;
            snprintf(canon, cap, "%s", named[i].canon);
            return true;
        }
    uint32_t f;
    if (!function_key(name, &f)) return false;
    *vk = WIN_VK_F1 + f - 1u;
    snprintf(canon, cap, "F%u", (unsigned)f);
    return true;
}

win_person_event win_person_key(win_person_rules *r, uint32_t vk, uint32_t flags) {
    /* Injected: SendInput's, ours or anyone's; the person cannot be faked. */
    if (flags & (WIN_LLKHF_INJECTED | WIN_LLKHF_LOWER_IL_INJECTED)) return WIN_PERSON_IGNORE;
    if (vk != r->stop_vk) return WIN_PERSON_ACTIVITY;
    bool down = !(flags & WIN_LLKHF_UP);
    bool was = r->stop_down;
    r->stop_down = down;
    /* Only the first key-down of a press: a held key repeats its key-down,
     * and each stop press toggles the latch. */
    return down && !was ? WIN_PERSON_STOP : WIN_PERSON_ACTIVITY;
}

win_person_event win_person_mouse(uint32_t flags) {
    return flags & (WIN_LLMHF_INJECTED | WIN_LLMHF_LOWER_IL_INJECTED) ? WIN_PERSON_IGNORE : WIN_PERSON_ACTIVITY;
}
