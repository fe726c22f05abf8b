/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the jpeg loader through the decode caps. */
#include "fuzz_img_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_decode(data, size, pg_img_decode_jpeg); }
