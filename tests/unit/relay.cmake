# SPDX-License-Identifier: MIT
# relay (broker/relay): the analysis relay and content judgement.
# test_relay opens no network connection on Linux (under Wine: see below).
# test_relay_netns talks to a fake OpenAI-compatible server (tests/relay/fake_openai.py) and attempts refused
# destinations, so it runs ONLY inside a new network namespace with nothing but
# loopback (`unshare -n`, needs root as in CI): no packet can leave even if a
# check were wrong. Without unshare the test fails; it never skips.
find_package(CURL REQUIRED)
find_package(PNG REQUIRED)
add_library(test_relay_util STATIC test_relay_util.c)
target_link_libraries(test_relay_util PUBLIC pg_relay pg_common CURL::libcurl PNG::PNG)
target_compile_definitions(test_relay_util PRIVATE PG_RELAY_TEST_DIR="${PROJECT_SOURCE_DIR}/tests/relay")

pg_unit_test(test_relay SOURCES test_relay.c LIBS pg_relay test_relay_util)
set_tests_properties(unit.test_relay PROPERTIES LABELS "unit;relay" TIMEOUT 120)

if(WIN32)
  # Under Wine: the command endpoints run tests/relay/relay_testcmd_win.c (the
  # .sh fakes need a POSIX shell), and the HTTP round trip talks to the fake
  # server on the Linux side (a Wine process reaches the host's 127.0.0.1),
  # started and stopped by this fixture; the test finds its port through
  # PG_RELAY_FAKE_PORT_FILE (Z: is Wine's view of /). test_relay_netns needs
  # Linux network namespaces and stays Linux-only.
  add_executable(relay_testcmd ${PROJECT_SOURCE_DIR}/tests/relay/relay_testcmd_win.c)
  target_link_libraries(relay_testcmd PRIVATE pg_common)
  add_dependencies(test_relay relay_testcmd)
  set(_pg_fake_port ${CMAKE_CURRENT_BINARY_DIR}/relay_fake.port)
  set(_pg_fake_pid ${CMAKE_CURRENT_BINARY_DIR}/relay_fake.pid)
  add_test(NAME unit.relay_fake_server_start
           COMMAND sh -c [[rm -f "$1" "$2"; python3 "$3" --until-killed </dev/null >"$1" 2>"$1.log" & echo $! >"$2"
                          i=0; while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
                          [ -s "$1" ] || { cat "$1.log" >&2; exit 1; }]]
                   sh ${_pg_fake_port} ${_pg_fake_pid} ${PROJECT_SOURCE_DIR}/tests/relay/fake_openai.py)
  add_test(NAME unit.relay_fake_server_stop
           COMMAND sh -c [[[ -s "$1" ] && kill "$(cat "$1")"; rm -f "$1"]] sh ${_pg_fake_pid})
  set_tests_properties(unit.relay_fake_server_start PROPERTIES FIXTURES_SETUP relay_fake LABELS "unit;relay" TIMEOUT 30)
  set_tests_properties(unit.relay_fake_server_stop PROPERTIES FIXTURES_CLEANUP relay_fake LABELS "unit;relay" TIMEOUT 30)
  set_tests_properties(unit.test_relay PROPERTIES FIXTURES_REQUIRED relay_fake
                       ENVIRONMENT "PG_RELAY_FAKE_PORT_FILE=Z:${_pg_fake_port}")
  return()
endif()

add_executable(test_relay_netns test_relay_netns.c)
target_link_libraries(test_relay_netns PRIVATE pg_test_main pg_relay test_relay_util)
find_program(PG_UNSHARE unshare)
find_program(PG_IP ip PATHS /usr/sbin /sbin)
if(PG_UNSHARE AND PG_IP)
  add_test(NAME unit.test_relay_netns
           COMMAND ${PG_UNSHARE} -n sh -c "${PG_IP} link set lo up && exec \"$0\"" $<TARGET_FILE:test_relay_netns>)
else()
  add_test(NAME unit.test_relay_netns
           COMMAND sh -c "echo 'test_relay_netns needs unshare(1) and ip(8) (util-linux, iproute2) and root: refusing to run it outside a network namespace' >&2; exit 1")
endif()
set_tests_properties(unit.test_relay_netns PROPERTIES LABELS "root;relay;netns" TIMEOUT 180)
