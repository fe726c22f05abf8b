/* The command table: names, builders, and the help text `pixelgate help CMD` prints. */
#include <string.h>

#include "cmd.h"

static const pg_cmd commands[] = {
    {"ping", pg_cmd_ping, "pixelgate ping",
     "Checks that the broker answers and shows who it thinks you are.\n"
     "Prints: {\"pong\":true,\"broker_version\":\"...\",\"protocol\":1,\"peer\":{\"uid\":N,\"user\":\"...\",\"pid\":N}}"},
    {"caps", pg_cmd_caps, "pixelgate caps",
     "What the broker's platform backend can do here. An operation it cannot do answers\n"
     "UNSUPPORTED (exit 7).\n"
     "Prints: {\"backend\":\"x11\",\"display\":\":0\",\"capabilities\":{\"capture_window\":true,...},\n"
     "         \"detail\":\"...\",\"operations\":[...]}"},
    {"windows", pg_cmd_windows, "pixelgate windows [--match REGEX]",
     "Lists top-level windows. --match keeps those whose title, class or instance matches\n"
     "REGEX (POSIX extended, case-insensitive).\n"
     "Prints: {\"windows\":[{\"id\":N,\"title\":\"...\",\"class\":\"...\",\"instance\":\"...\",\"pid\":N|null,\n"
     "         \"x\":N,\"y\":N,\"width\":N,\"height\":N,\"visible\":bool,\"focused\":bool}],\"count\":N}"},
    {"snapshot", pg_cmd_snapshot,
     "pixelgate snapshot (--window REGEX | --id ID | --screen) [--first] [--region X,Y,W,H]\n"
     "                   [--max-size WxH] [--no-settle]",
     "Captures a window (or a region of it, window-relative) or the screen into the broker's\n"
     "private spool and prints an opaque token - never a path or pixels. A REGEX matching\n"
     "several visible windows is an error listing them (exit 2) unless --first. The broker\n"
     "waits for repaints to go quiet first (\"settled\"), unless --no-settle. --max-size\n"
     "downscales to fit, keeping the aspect ratio.\n"
     "Prints: {\"token\":\"cap:...\",\"width\":N,\"height\":N,\"source_width\":N,\"source_height\":N,\n"
     "         \"method\":\"composite+shm\",\"sha256\":\"...\",\"created\":\"...\",\"expires\":\"...\",\n"
     "         \"source\":\"window\",\"window\":{...},\"settled\":true}"},
    {"info", pg_cmd_info, "pixelgate info TOKEN",
     "Metadata of a token you made: size, source window, capture method, times. Another\n"
     "user's token, an expired or unknown one: NOT_FOUND (exit 4).\n"
     "Prints: the same fields as snapshot (without \"settled\")."},
    {"focus", pg_cmd_focus, "pixelgate focus (--window REGEX | --id ID) [--first]",
     "Gives the window the input focus (and raises it).\n"
     "Prints: {\"focused\":true,\"window\":{...}}"},
    {"click", pg_cmd_click,
     "pixelgate click (--window REGEX | --id ID) (--at X,Y | --text TEXT | --template FILE|TOKEN)\n"
     "                [--offset X,Y] [--button left|right|middle] [--double]",
     "Clicks at X,Y relative to the window's top-left, or at the centre (plus --offset) of the\n"
     "text or template found in a fresh capture of the window (NOT_FOUND, exit 4, if absent).\n"
     "Refused (exit 3) when another window covers that point, naming it; a point outside the\n"
     "window is BAD_INPUT (exit 8).\n"
     "Prints: {\"clicked\":{\"x\":N,\"y\":N,\"button\":\"left\",\"count\":1},\"window\":{...}[,\"found\":{...}]}"},
    {"key", pg_cmd_key, "pixelgate key (--window REGEX | --id ID) CHORD",
     "Presses a key chord in the window: ctrl+a, Return, Tab, shift+Tab, alt+F4, ctrl+shift+z.\n"
     "Key names are X keysym names; modifiers ctrl, shift, alt, super.\n"
     "Prints: {\"key\":\"ctrl+a\",\"window\":{...}}"},
    {"type", pg_cmd_type, "pixelgate type (--window REGEX | --id ID) TEXT",
     "Types TEXT (any Unicode) into the focused widget of the window.\n"
     "Prints: {\"typed_chars\":N,\"window\":{...}}"},
    {"ocr", pg_cmd_ocr, "pixelgate ocr TOKEN [--region X,Y,W,H]",
     "Reads the text in a capture inside the broker (Tesseract). Only text comes back.\n"
     "Prints: {\"text\":\"...\",\"words\":[{\"text\":\"...\",\"x\":N,\"y\":N,\"w\":N,\"h\":N,\"conf\":F}],...}"},
    {"analyze", pg_cmd_analyze, "pixelgate analyze TOKEN --prompt TEXT [--endpoint NAME]",
     "Sends the capture to a vision endpoint the administrator approved, by NAME (never a URL),\n"
     "and prints only its text answer. Refused (exit 3) when the policy forbids it.\n"
     "Prints: {\"answer\":\"...\",\"endpoint\":\"NAME\",\"token\":\"cap:...\"}"},
    {"judge", pg_cmd_judge, "pixelgate judge TOKEN --expect TEXT [--samples N] [--endpoint NAME]",
     "Asks an approved endpoint N times whether the capture shows what you expect; majority vote.\n"
     "Exit 0 on CONTENT_MATCH, 1 on CONTENT_MISMATCH or CONTENT_UNCERTAIN; an endpoint failure\n"
     "blocks (never passes).\n"
     "Prints: {\"outcome\":\"CONTENT_MATCH\",\"reason_code\":\"...\",\"votes\":{...},\"samples\":[...],\"cached\":bool}"},
    {"release", pg_cmd_release, "pixelgate release TOKEN (--png PATH | --base64)",
     "Gets the raw image, only where the policy allows it (expose_pixels: allow), or once after an\n"
     "approver approved the request. Refused: exit 3 with details.request_id to hand to an approver.\n"
     "The client writes PATH itself, as you.\n"
     "Prints: {\"token\":\"cap:...\",\"width\":N,\"height\":N,\"mode\":\"allow\"|\"approved\",\"written\":PATH,\"bytes\":N}"},
    {"approve", pg_cmd_approve, "pixelgate approve REQUEST_ID",
     "Run by an approver (named in the policy, or root; never the requester): allows one release.\n"
     "Prints: {\"approved\":\"rel:...\",\"requester\":\"user\",\"token\":\"cap:xxxx...\"}"},
    {"hash", pg_cmd_hash, "pixelgate hash IMAGE [--algo sha256|dhash] [--region X,Y,W,H]",
     "Fingerprint of an image (a token, or a file you have). sha256 is exact over the RGBA\n"
     "rows; dhash (64-bit difference hash of a 9x8 grey reduction) tolerates rendering noise:\n"
     "two dhashes within Hamming distance 5 are \"the same\".\n"
     "Prints: {\"hash\":\"...\",\"algorithm\":\"dhash\",\"width\":N,\"height\":N}"},
    {"diff", pg_cmd_diff,
     "pixelgate diff A B [--threshold 0.1] [--include-aa] [--region R] [--mask R]... [--max-ratio F]",
     "pixelmatch-style comparison (YIQ colour distance, antialiasing excluded unless\n"
     "--include-aa, masks excluded from both counts). Images of different sizes are not\n"
     "compared (exit 1, sizes_match false). The diff image becomes a token (diff_token).\n"
     "With --max-ratio, exit 1 when more than that fraction changed.\n"
     "Prints: {\"sizes_match\":true,\"pixels_changed\":N,\"total_pixels\":N,\"changed_pct\":F,\n"
     "         \"bounds\":{...},\"region_count\":N,\"regions\":[{x,y,w,h,pixels}...],\"diff_token\":\"cap:...\"}"},
    {"assert", pg_cmd_assert,
     "pixelgate assert changed   A B [--min-pct 1.0] [--region R] [--mask R]...\n"
     "       pixelgate assert unchanged A B [--max-pct 0.5] [--region R] [--mask R]...\n"
     "       pixelgate assert template IMAGE --template FILE|TOKEN [--threshold 0.8] [--all]\n"
     "       pixelgate assert text IMAGE --expect TEXT [--exact] [--region R]",
     "Checks that run in the broker. Exit 0 when the check holds; exit 1 when it ran and said\n"
     "no, with the measurements on stdout (and an evidence bundle of tokens) and the error on\n"
     "stderr. template: normalized cross-correlation (OpenCV's TM_CCOEFF_NORMED). text: OCR,\n"
     "case-insensitive substring unless --exact (the whole text read, case-sensitive).\n"
     "Prints: the measurements plus \"passed\":true|false."},
    {"wait-stable", pg_cmd_wait_stable,
     "pixelgate wait-stable (--window REGEX | --id ID) [--region R] [--frames 2] [--interval 0.5]\n"
     "                      [--timeout 10]",
     "Captures every --interval seconds until --frames consecutive captures have the same\n"
     "dhash (distance <= 5). Timeout: exit 6 with the last hash and a token of the last frame.\n"
     "Prints: {\"stable\":true,\"frames_observed\":N,\"final_hash\":\"...\",\"token\":\"cap:...\",\"elapsed_s\":F}"},
    {"wait-for", pg_cmd_wait_for,
     "pixelgate wait-for (--window REGEX | --id ID) (--text TEXT | --template FILE|TOKEN)\n"
     "                   [--timeout 10] [--interval 0.5]",
     "Captures until the text (OCR) or template appears. Timeout: exit 6 with the last frame's token.\n"
     "Prints: {\"found\":true,\"match\":{x,y,w,h,center},\"token\":\"cap:...\",\"elapsed_s\":F}"},
    {"run", NULL, "pixelgate run FILE|-",
     "Script mode: one subcommand per line, same syntax as above; $last is the token of the\n"
     "last snapshot; stops at the first failure and exits with its code. # starts a comment.\n"
     "Prints: one {\"step\":N,\"line\":N,\"command\":\"...\",\"result\":{...}} per step."},
    {"help", NULL, "pixelgate help [COMMAND]", "Describes a command and its output."},
};

const pg_cmd *pg_cmd_find(const char *name) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(commands[i].name, name)) return &commands[i];
    return NULL;
}

const pg_cmd *pg_cmd_list(size_t *n) {
    *n = sizeof commands / sizeof commands[0];
    return commands;
}
