/* SPDX-License-Identifier: MIT */
/* sRGB -> CIELAB and CIEDE2000 (see pg_color.h for the constants). */
#include "pg_color.h"

#include <math.h>

#include "pg_dmath.h"

#define DEG (180.0 / PG_DM_PI)
#define RAD (PG_DM_PI / 180.0)

void pg_color_ctx_init(pg_color_ctx *c) {
    for (int i = 0; i < 256; i++) {
        double v = i / 255.0;
        c->lin[i] = v > 0.04045 ? pg_dm_pow((v + 0.055) / 1.055, 2.4) : v / 12.92;
    }
}

static double lab_f(double t) { return t > 0.008856 ? pg_dm_cbrt(t) : 7.787 * t + 16.0 / 116.0; }

pg_lab pg_color_lab_linear(double r, double g, double b) {
    double x = 0.412453 * r + 0.357580 * g + 0.180423 * b;
    double y = 0.212671 * r + 0.715160 * g + 0.072169 * b;
    double z = 0.019334 * r + 0.119193 * g + 0.950227 * b;
    double fx = lab_f(x / 0.95047), fy = lab_f(y), fz = lab_f(z / 1.08883);
    return (pg_lab){116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)};
}

pg_lab pg_color_lab(const pg_color_ctx *c, uint8_t r, uint8_t g, uint8_t b) {
    return pg_color_lab_linear(c->lin[r], c->lin[g], c->lin[b]);
}

static double pow7(double v) {
    double v2 = v * v, v3 = v2 * v;
    return v3 * v3 * v;
}

/* Hue angle in degrees, [0, 360); 0 for a neutral colour. */
static double hue_deg(double b, double ap) {
    if (b == 0 && ap == 0) return 0.0;
    double h = pg_dm_atan2(b, ap) * DEG;
    return h < 0 ? h + 360.0 : h;
}

typedef struct {
    double c1, c2, h1, h2; /* C' and h' of both colours */
    double a1, b1, a2, b2; /* a' and b */
} prime;

static prime primes(const pg_lab *x, const pg_lab *y) {
    double cbar = (sqrt(x->a * x->a + x->b * x->b) + sqrt(y->a * y->a + y->b * y->b)) / 2.0;
    double c7 = pow7(cbar);
    double g = 0.5 * (1.0 - sqrt(c7 / (c7 + 6103515625.0))); /* 25^7 */
    double a1 = (1.0 + g) * x->a, a2 = (1.0 + g) * y->a;
    return (prime){sqrt(a1 * a1 + x->b * x->b), sqrt(a2 * a2 + y->b * y->b), hue_deg(x->b, a1), hue_deg(y->b, a2),
                   a1, x->b, a2, y->b};
}

/* Hue difference h2' - h1' folded into [-180, 180], 0 when a chroma is 0.
 * Taken as the angle between the two (a', b) vectors rather than by
 * subtracting two rounded hue angles: for opposite hues (Sharma's pair 14)
 * the cross product is exactly 0 and the difference exactly +180, which
 * is the branch the published data takes; subtraction would land on
 * either side of 180 by rounding. */
static double hue_diff(const prime *p) {
    if (p->c1 * p->c2 == 0) return 0.0;
    double cross = p->a1 * p->b2 - p->a2 * p->b1, dot = p->a1 * p->a2 + p->b1 * p->b2;
    if (cross == 0 && dot < 0) return p->h2 >= p->h1 ? 180.0 : -180.0; /* opposite: |h2 - h1| is 180 */
    return pg_dm_atan2(cross, dot) * DEG;
}

/* Mean hue: (h1' + h2') / 2, moved by 180 when the hues are more than 180
 * apart (i.e. when h2' - h1' is not the folded difference itself). */
static double hue_mean(const prime *p, double dh) {
    double s = p->h1 + p->h2;
    if (p->c1 * p->c2 == 0) return s;
    if (fabs((p->h2 - p->h1) - dh) < 180.0) return s / 2.0;
    return s < 360.0 ? (s + 360.0) / 2.0 : (s - 360.0) / 2.0;
}

double pg_color_de2000(const pg_lab *x, const pg_lab *y) {
    prime p = primes(x, y);
    double dl = y->L - x->L, dc = p.c2 - p.c1;
    double dhue = hue_diff(&p);
    double dh = 2.0 * sqrt(p.c1 * p.c2) * pg_dm_sin(dhue * RAD / 2.0);
    double lbar = (x->L + y->L) / 2.0, cbar = (p.c1 + p.c2) / 2.0, hbar = hue_mean(&p, dhue);
    double t = 1.0 - 0.17 * pg_dm_cos((hbar - 30.0) * RAD) + 0.24 * pg_dm_cos(2.0 * hbar * RAD) +
               0.32 * pg_dm_cos((3.0 * hbar + 6.0) * RAD) - 0.20 * pg_dm_cos((4.0 * hbar - 63.0) * RAD);
    double q = (hbar - 275.0) / 25.0;
    double dtheta = 30.0 * pg_dm_exp(-q * q);
    double c7 = pow7(cbar);
    double rc = 2.0 * sqrt(c7 / (c7 + 6103515625.0));
    double l50 = (lbar - 50.0) * (lbar - 50.0);
    double sl = 1.0 + 0.015 * l50 / sqrt(20.0 + l50), sc = 1.0 + 0.045 * cbar, sh = 1.0 + 0.015 * cbar * t;
    double rt = -pg_dm_sin(2.0 * dtheta * RAD) * rc;
    double tl = dl / sl, tc = dc / sc, th = dh / sh;
    double s = tl * tl + tc * tc + th * th + rt * tc * th;
    return s > 0 ? sqrt(s) : 0.0;
}

void pg_color_hex(uint8_t r, uint8_t g, uint8_t b, char out[8]) {
    static const char d[] = "0123456789abcdef";
    uint8_t v[3] = {r, g, b};
    out[0] = '#';
    for (int i = 0; i < 3; i++) out[1 + 2 * i] = d[v[i] >> 4], out[2 + 2 * i] = d[v[i] & 15];
    out[7] = '\0';
}
