/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the spec header parsers (PNG chunks, JPEG segments,
 * WebP RIFF chunks, EXIF/TIFF, pHYs, JFIF density) on any bytes, and the
 * whole spec check with small limits so a decode stays cheap. */
#include <string.h>

#include "pg_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pg_spec_info info;
    pg_spec_probe(data, size, &info, NULL);
    pg_exif x;
    pg_exif_parse(data, size, &x, NULL);
    pg_spec_rules r;
    memset(&r, 0, sizeof r);
    pg_spec_range_parse("10..4000", &r.width);
    pg_spec_range_parse("72", &r.dpi);
    r.file_name = "x.png";
    pg_img_limits lim = {1u << 20, 1u << 20};
    pg_spec_report rep;
    pg_spec_check_file(data, size, &lim, &r, &rep, NULL);
    return 0;
}
