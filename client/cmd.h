/* cmd.h - the request builders, one per command (client/cmd_*.c). */
#ifndef PG_CMD_H
#define PG_CMD_H

#include "pg_cli.h"

pg_err pg_cmd_ping(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_caps(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_info(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_windows(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_snapshot(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_focus(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_click(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_key(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_type(int argc, char **argv, pg_cli_request *out, pg_error *e);

pg_err pg_cmd_release(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_approve(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_analyze(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_ocr(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_judge(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_hash(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_diff(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_assert(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_wait_stable(int argc, char **argv, pg_cli_request *out, pg_error *e);
pg_err pg_cmd_wait_for(int argc, char **argv, pg_cli_request *out, pg_error *e);

#endif
