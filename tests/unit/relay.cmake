# relay (broker/relay): the analysis relay and content judgement.
# test_relay opens no network connection. test_relay_netns talks to a fake
# OpenAI-compatible server (tests/relay/fake_openai.py) and attempts refused
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
set_tests_properties(unit.test_relay_netns PROPERTIES LABELS "unit;relay;netns" TIMEOUT 180)
