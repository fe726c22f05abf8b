/* SPDX-License-Identifier: MIT */
/* The system Path edit of the Windows installer (installer/windows/pg_pathlist.h):
 * added once, removed whole, nothing else touched. */
#include <stdbool.h>
#include <wchar.h>

#include "pg_pathlist.h"
#include "pg_test.h"

#define DIR L"C:\\Program Files\\pixelgate"

static bool added(const wchar_t *list, const wchar_t *want, bool want_changed) {
    wchar_t out[512];
    bool changed = !want_changed;
    return pg_pathlist_add(list, DIR, out, 512, &changed) && changed == want_changed && wcscmp(out, want) == 0;
}

static bool removed(const wchar_t *list, const wchar_t *want, bool want_changed) {
    wchar_t out[512];
    bool changed = !want_changed;
    return pg_pathlist_remove(list, DIR, out, 512, &changed) && changed == want_changed && wcscmp(out, want) == 0;
}

PG_TEST(add_appends_once_with_one_separator) {
    CHECK(added(L"%SystemRoot%\\system32;%SystemRoot%", L"%SystemRoot%\\system32;%SystemRoot%;" DIR, true));
    CHECK(added(L"C:\\a;", L"C:\\a;" DIR, true)); /* a trailing ';' is not doubled */
    CHECK(added(L"", DIR, true));
    /* already there, in any spelling of the same directory: unchanged */
    CHECK(added(L"C:\\a;" DIR L";C:\\b", L"C:\\a;" DIR L";C:\\b", false));
    CHECK(added(L"c:\\program files\\PIXELGATE\\", L"c:\\program files\\PIXELGATE\\", false));
    CHECK(added(L"\"C:\\Program Files\\pixelgate\";C:\\b", L"\"C:\\Program Files\\pixelgate\";C:\\b", false));
    /* a longer name that starts with it is another directory */
    CHECK(added(L"C:\\Program Files\\pixelgate2", L"C:\\Program Files\\pixelgate2;" DIR, true));
}

PG_TEST(remove_takes_every_copy_and_nothing_else) {
    CHECK(removed(L"C:\\a;" DIR, L"C:\\a", true));
    CHECK(removed(DIR L";C:\\a", L"C:\\a", true));
    CHECK(removed(L"C:\\a;" DIR L"\\;C:\\b;" DIR, L"C:\\a;C:\\b", true));
    CHECK(removed(DIR, L"", true));
    CHECK(removed(L"C:\\a;;C:\\b;", L"C:\\a;;C:\\b;", false)); /* empty entries stay */
    CHECK(removed(L"C:\\Program Files\\pixelgate2;%PATH_X%", L"C:\\Program Files\\pixelgate2;%PATH_X%", false));
}

PG_TEST(a_long_path_is_edited_whole_and_a_small_buffer_refused) {
    /* longer than NSIS's 1024-character strings: the reason this is not NSIS script */
    static wchar_t list[3000], out[3100];
    for (size_t i = 0; i < 2900; i++) list[i] = (i % 50 == 49) ? L';' : L'x';
    list[2899] = L'x'; /* ends in a name, so a separator is added */
    list[2900] = L'\0';
    bool changed = false;
    CHECK(pg_pathlist_add(list, DIR, out, 3100, &changed) && changed);
    CHECK_EQ_INT((int)wcslen(out), 2900 + 1 + (int)wcslen(DIR));
    CHECK(wcsncmp(out, list, 2900) == 0);
    wchar_t back[3100];
    CHECK(pg_pathlist_remove(out, DIR, back, 3100, &changed) && changed && wcscmp(back, list) == 0);
    wchar_t tiny[8];
    CHECK(!pg_pathlist_add(L"C:\\a", DIR, tiny, 8, &changed));
    CHECK(!pg_pathlist_remove(list, DIR, tiny, 8, &changed));
    CHECK(pg_pathlist_has(out, DIR) && !pg_pathlist_has(list, DIR));
}
