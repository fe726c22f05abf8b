# SPDX-License-Identifier: MIT
pg_unit_test(test_audit SOURCES test_audit.c LIBS pg_audit)
pg_unit_test(test_audit_journal SOURCES test_audit_journal.c LIBS pg_audit)
