/* SPDX-License-Identifier: MIT */
/* The Windows stop hook's decisions (broker/platform/win32/win_person_rules.h),
 * pure, on every OS: injected keys and mouse events are ignored whatever they
 * are, a physical stop key press stops once however long it is held, anything
 * else physical is the person's activity, and only known stop key names are
 * accepted. Under Wine, test_win_person checks the same hook end to end. */
#include <string.h>

#include "pg_test.h"
#include "win_person_rules.h"

static win_person_rules pause_rules(void) {
    win_person_rules r = {0};
    char canon[32];
    win_person_stop_key("Pause", &r.stop_vk, canon, sizeof canon);
    return r;
}

PG_TEST(stop_key_names) {
    static const struct {
        const char *name, *canon;
        uint32_t vk;
    } ok[] = {
        {"Pause", "Pause", 0x13}, {"pause", "Pause", 0x13}, {"Break", "Pause", 0x13},
        {"Scroll_Lock", "Scroll_Lock", 0x91}, {"ScrollLock", "Scroll_Lock", 0x91}, {"scroll", "Scroll_Lock", 0x91},
        {"F1", "F1", 0x70}, {"F12", "F12", 0x7b}, {"f12", "F12", 0x7b}, {"F24", "F24", 0x87},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        uint32_t vk = 0;
        char canon[32] = "";
        CHECK(win_person_stop_key(ok[i].name, &vk, canon, sizeof canon));
        CHECK_EQ_INT(vk, ok[i].vk);
        CHECK_STR(canon, ok[i].canon);
    }
    static const char *bad[] = {"", "F0", "F25", "F012", "F1x", "F+1", "Pausex", "a", "Escape", "space", "F", "Print"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint32_t vk = 0;
        char canon[32] = "";
        CHECK(!win_person_stop_key(bad[i], &vk, canon, sizeof canon));
    }
    uint32_t vk = 0;
    char canon[32];
    CHECK(!win_person_stop_key(NULL, &vk, canon, sizeof canon));
}

PG_TEST(injected_keys_are_ignored) {
    win_person_rules r = pause_rules();
    static const uint32_t flags[] = {WIN_LLKHF_INJECTED, WIN_LLKHF_LOWER_IL_INJECTED,
                                     WIN_LLKHF_INJECTED | WIN_LLKHF_LOWER_IL_INJECTED,
                                     WIN_LLKHF_INJECTED | WIN_LLKHF_UP, WIN_LLKHF_INJECTED | WIN_LLKHF_EXTENDED,
                                     WIN_LLKHF_LOWER_IL_INJECTED | WIN_LLKHF_ALTDOWN};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, flags[i]), WIN_PERSON_IGNORE);
        CHECK_EQ_INT(win_person_key(&r, 'A', flags[i]), WIN_PERSON_IGNORE);
    }
    CHECK(!r.stop_down); /* injected key-downs left no trace */
    /* So the person's first press after an injected one still stops. */
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, 0), WIN_PERSON_STOP);
}

PG_TEST(a_physical_press_stops_once) {
    win_person_rules r = pause_rules();
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, 0), WIN_PERSON_STOP);
    /* Held: the keyboard repeats the key-down; still one press. */
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, 0), WIN_PERSON_ACTIVITY);
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, 0), WIN_PERSON_ACTIVITY);
    /* An injected key-up does not end the person's press. */
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, WIN_LLKHF_INJECTED | WIN_LLKHF_UP), WIN_PERSON_IGNORE);
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, 0), WIN_PERSON_ACTIVITY);
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, WIN_LLKHF_UP), WIN_PERSON_ACTIVITY);
    /* The next press is a press again (the latch toggles back). */
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, 0), WIN_PERSON_STOP);
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, WIN_LLKHF_UP), WIN_PERSON_ACTIVITY);
    /* Modifiers held with it do not hide it. */
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_PAUSE, WIN_LLKHF_ALTDOWN), WIN_PERSON_STOP);
}

PG_TEST(other_physical_input_is_activity) {
    win_person_rules r = pause_rules();
    CHECK_EQ_INT(win_person_key(&r, 'A', 0), WIN_PERSON_ACTIVITY);
    CHECK_EQ_INT(win_person_key(&r, 'A', WIN_LLKHF_UP), WIN_PERSON_ACTIVITY);
    CHECK_EQ_INT(win_person_key(&r, WIN_VK_SCROLL, 0), WIN_PERSON_ACTIVITY); /* not the stop key here */
    CHECK_EQ_INT(win_person_key(&r, 0x7b, WIN_LLKHF_EXTENDED), WIN_PERSON_ACTIVITY);
    CHECK(!r.stop_down);
    win_person_rules f12 = {0};
    char canon[8];
    CHECK(win_person_stop_key("F12", &f12.stop_vk, canon, sizeof canon));
    CHECK_EQ_INT(win_person_key(&f12, WIN_VK_PAUSE, 0), WIN_PERSON_ACTIVITY);
    CHECK_EQ_INT(win_person_key(&f12, 0x7b, 0), WIN_PERSON_STOP);
}

PG_TEST(mouse_events) {
    CHECK_EQ_INT(win_person_mouse(0), WIN_PERSON_ACTIVITY);
    CHECK_EQ_INT(win_person_mouse(WIN_LLMHF_INJECTED), WIN_PERSON_IGNORE);
    CHECK_EQ_INT(win_person_mouse(WIN_LLMHF_LOWER_IL_INJECTED), WIN_PERSON_IGNORE);
    CHECK_EQ_INT(win_person_mouse(WIN_LLMHF_INJECTED | WIN_LLMHF_LOWER_IL_INJECTED), WIN_PERSON_IGNORE);
    CHECK_EQ_INT(win_person_mouse(0x100), WIN_PERSON_ACTIVITY); /* unknown bits: not injected */
}
