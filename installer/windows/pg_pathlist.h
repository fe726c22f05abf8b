/* SPDX-License-Identifier: MIT */
/* pg_pathlist.h - edits a Windows PATH-style list ("C:\a;C:\b"), as the
 * installer does to the system Path (pg_winpath.exe). Portable, so its rules
 * are unit-tested natively (tests/unit/test_pathlist.c).
 *
 * Two entries are the same directory when they are equal ignoring ASCII case,
 * one pair of surrounding double quotes and trailing backslashes or slashes.
 * Never: drops, reorders or rewrites another entry, or an empty one; the
 * caller's strings are not changed. */
#ifndef PG_PATHLIST_H
#define PG_PATHLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

/* Is dir one of list's entries? */
bool pg_pathlist_has(const wchar_t *list, const wchar_t *dir);

/* The list with dir appended (';' between) unless it is there already.
 * out holds cap wide characters; wcslen(list) + wcslen(dir) + 2 always
 * suffice. Returns false when out is too small. *changed: whether it was added. */
bool pg_pathlist_add(const wchar_t *list, const wchar_t *dir, wchar_t *out, size_t cap, bool *changed);

/* The list without any entry that is dir. cap >= wcslen(list) + 1 suffices.
 * *changed: whether one was removed. */
bool pg_pathlist_remove(const wchar_t *list, const wchar_t *dir, wchar_t *out, size_t cap, bool *changed);

#endif
