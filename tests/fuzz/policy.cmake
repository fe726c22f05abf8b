# SPDX-License-Identifier: MIT
# Policy parser (policy/): any bytes give a policy or an error naming a path;
# accepted policies are also evaluated. Seeds in corpus/fuzz_policy/.
pg_fuzz_target(fuzz_policy SOURCES fuzz_policy.c LIBS pg_policy)
