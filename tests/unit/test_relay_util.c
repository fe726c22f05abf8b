/* SPDX-License-Identifier: MIT */
/* Helpers for the relay tests; see test_relay_util.h. */
#include "test_relay_util.h"

#include <curl/curl.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <cJSON.h>

typedef struct {
    uint8_t *p;
    size_t n, cap;
} membuf;

static void png_mem_write(png_structp png, png_bytep data, png_size_t len) {
    membuf *m = png_get_io_ptr(png);
    if (m->n + len > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 65536;
        while (nc < m->n + len) nc *= 2;
        uint8_t *np = realloc(m->p, nc);
        if (!np) png_error(png, "oom");
        m->p = np;
        m->cap = nc;
    }
    memcpy(m->p + m->n, data, len);
    m->n += len;
}

static void png_mem_flush(png_structp png) {
    (void)png;
}

uint8_t *trl_make_png(uint32_t w, uint32_t h, uint32_t split, const uint8_t c1[3], const uint8_t c2[3], int noise,
                      size_t *len) {
    membuf m = {0};
    uint8_t *row = malloc((size_t)w * 3);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!row || !png || !info) goto fail;
    if (setjmp(png_jmpbuf(png))) goto fail;
    png_set_write_fn(png, &m, png_mem_write, png_mem_flush);
    png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_filter(png, 0, PNG_ALL_FILTERS); /* the fake server undoes all five */
    png_write_info(png, info);
    uint32_t seed = 12345;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *c = x < split ? c1 : c2;
            for (int k = 0; k < 3; k++) {
                int v = c[k];
                if (noise) {
                    seed = seed * 1103515245u + 12345u;
                    int d = (int)((seed >> 16) % 41) - 20;
                    v = v + d < 0 ? 0 : v + d > 255 ? 255 : v + d;
                }
                row[(size_t)x * 3 + (size_t)k] = (uint8_t)v;
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    *len = m.n;
    return m.p;
fail:
    if (png) png_destroy_write_struct(&png, info ? &info : NULL);
    free(row);
    free(m.p);
    *len = 0;
    return NULL;
}

const char *trl_path(const char *file) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", PG_RELAY_TEST_DIR, file);
    return buf;
}

#ifndef _WIN32
int trl_server_start(trl_server *s, const char *unix_path) {
    int in_p[2], out_p[2];
    memset(s, 0, sizeof *s);
    s->pid = -1;
    s->stdin_fd = -1;
    if (pipe(in_p) || pipe(out_p)) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(in_p[0], 0);
        dup2(out_p[1], 1);
        close(in_p[0]);
        close(in_p[1]);
        close(out_p[0]);
        close(out_p[1]);
        const char *script = trl_path("fake_openai.py");
        if (unix_path) execlp("python3", "python3", script, "--unix", unix_path, (char *)NULL);
        else execlp("python3", "python3", script, (char *)NULL);
        perror("exec python3");
        _exit(127);
    }
    close(in_p[0]);
    close(out_p[1]);
    char line[32];
    size_t n = 0;
    while (n + 1 < sizeof line) {
        ssize_t r = read(out_p[0], line + n, 1);
        if (r <= 0 || line[n] == '\n') break;
        n++;
    }
    line[n] = 0;
    close(out_p[0]);
    s->pid = pid;
    s->stdin_fd = in_p[1];
    s->port = (unsigned)strtoul(line, NULL, 10);
    if (s->port == 0) {
        fprintf(stderr, "fake server did not report a port (got '%s')\n", line);
        trl_server_stop(s);
        return -1;
    }
    return 0;
}

void trl_server_stop(trl_server *s) {
    if (s->stdin_fd >= 0) close(s->stdin_fd);
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        waitpid(s->pid, NULL, 0);
    }
    s->pid = -1;
    s->stdin_fd = -1;
}
#else
unsigned trl_server_port_from_env(void) {
    const char *file = getenv("PG_RELAY_FAKE_PORT_FILE");
    if (!file || !*file) {
        fprintf(stderr, "     PG_RELAY_FAKE_PORT_FILE is not set: run this through ctest (tests/unit/relay.cmake starts "
                        "tests/relay/fake_openai.py)\n");
        return 0;
    }
    FILE *f = fopen(file, "r");
    unsigned port = 0;
    if (!f || fscanf(f, "%u", &port) != 1) port = 0;
    if (f) fclose(f);
    if (!port) fprintf(stderr, "     no port in %s: the fake server did not start\n", file);
    return port;
}
#endif

static size_t get_write(char *d, size_t sz, size_t nm, void *ud) {
    membuf *m = ud;
    size_t len = sz * nm;
    uint8_t *np = realloc(m->p, m->n + len + 1);
    if (!np) return 0;
    m->p = np;
    memcpy(m->p + m->n, d, len);
    m->n += len;
    m->p[m->n] = 0;
    return len;
}

char *trl_http_get(unsigned port, const char *path) {
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", port, path);
    membuf m = {0};
    CURL *h = curl_easy_init();
    if (!h) return NULL;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROXY, "");
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, get_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &m);
    CURLcode rc = curl_easy_perform(h);
    curl_easy_cleanup(h);
    if (rc != CURLE_OK) {
        free(m.p);
        return NULL;
    }
    return (char *)m.p;
}

int trl_server_hits(unsigned port, const char *mode) {
    char *body = trl_http_get(port, "/stats");
    if (!body) return -1;
    cJSON *root = cJSON_Parse(body);
    free(body);
    if (!root) return -1;
    cJSON *hits = cJSON_GetObjectItemCaseSensitive(root, "hits");
    cJSON *n = cJSON_GetObjectItemCaseSensitive(hits, mode);
    int v = cJSON_IsNumber(n) ? n->valueint : 0;
    cJSON_Delete(root);
    return v;
}

int trl_resolver(void *ctx, const char *host, struct sockaddr_storage *out, int max) {
    const char *const *table = ctx;
    size_t hl = strlen(host);
    for (; table && *table; table++) {
        if (strncmp(*table, host, hl) != 0 || (*table)[hl] != '=') continue;
        char buf[512];
        snprintf(buf, sizeof buf, "%s", *table + hl + 1);
        int n = 0;
        for (char *tok = buf, *next; tok && n < max; tok = next) {
            next = strchr(tok, ',');
            if (next) *next++ = '\0';
            memset(&out[n], 0, sizeof out[n]);
            struct sockaddr_in *s4 = (struct sockaddr_in *)&out[n];
            struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&out[n];
            if (inet_pton(AF_INET, tok, &s4->sin_addr) == 1) {
                s4->sin_family = AF_INET;
                n++;
            } else if (inet_pton(AF_INET6, tok, &s6->sin6_addr) == 1) {
                s6->sin6_family = AF_INET6;
                n++;
            }
        }
        return n > 0 ? n : -1;
    }
    return -1;
}
