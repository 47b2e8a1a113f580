# FSITER_SANITIZE: build the host code under gcc's (or clang's)
# sanitizers, for the host tests (docs/testing.md, "Sanitizers").
#
#   -DFSITER_SANITIZE=address,undefined   ASan, LeakSanitizer and UBSan
#   -DFSITER_SANITIZE=thread              TSan
#
# Every C target of the tree gets the flags (add_compile_options): src/,
# the unit tests, bench/ and the user-space part of tests/kernel. The views
# and every other BPF object do not: cmake/bpf.cmake runs clang -target bpf
# with its own flags (FSITER_BPF_CFLAGS), never CMAKE_C_FLAGS or the
# directory's compile options.
#
# fsiter_sanitize_tests() gives each test of the calling directory the
# runtime options (below); ctest then runs them as they are, and every
# program a test's script runs inherits them.
set(FSITER_SANITIZE "" CACHE STRING
  "build the host code under sanitizers: address,undefined or thread (empty: none)")
set_property(CACHE FSITER_SANITIZE PROPERTY STRINGS "" "address,undefined" "thread")

if(FSITER_SANITIZE STREQUAL "")
  function(fsiter_sanitize_tests)
  endfunction()
  return()
endif()
if(NOT FSITER_SANITIZE MATCHES "^(address,undefined|address|undefined|thread|thread,undefined)$")
  message(FATAL_ERROR "FSITER_SANITIZE='${FSITER_SANITIZE}': expected "
    "address,undefined or thread (TSan cannot be combined with ASan)")
endif()
message(STATUS "sanitizers: ${FSITER_SANITIZE}")

# A report ends the program (-fno-sanitize-recover: UBSan too, which would
# otherwise print and go on); frame pointers give whole stacks.
add_compile_options(-fsanitize=${FSITER_SANITIZE} -fno-sanitize-recover=all
  -fno-omit-frame-pointer)
add_link_options(-fsanitize=${FSITER_SANITIZE})

# ASan, LeakSanitizer and TSan write their reports to
# sanitizer-logs/log.NAME.PID in the build directory instead of stderr: the
# shell checks run fsiter-pin inside pipes and $(...) (completion-check.sh,
# install-check.sh) where neither its exit code nor its stderr need reach
# ctest. The test sanitizer-reports runs after every other one and fails,
# printing them, if any report is there; sanitizer-logs-clean makes the
# directory empty first (the sanitizers do not make it). Both are ctest
# fixtures, so they run with any -R subset too. UBSan beside ASan (gcc
# links libubsan apart) writes to stderr whatever log_path says: a test
# whose output says "runtime error:" fails (FAIL_REGULAR_EXPRESSION), as
# does one that shows another sanitizer's report there. The exit code 66
# is none that a test expects (0, 1, 2, 77), so the program's own test
# fails as well.
#
# Leaks are detected (detect_leaks=1): each command frees what it took
# before it returns, and the ctest run must stay clean of leaks. No
# suppressions.
set(FSITER_SANITIZE_LOGS ${CMAKE_BINARY_DIR}/sanitizer-logs)
set(common "halt_on_error=1:exitcode=66:log_exe_name=1:log_path=${FSITER_SANITIZE_LOGS}/log")
set(FSITER_SANITIZE_ENV
  "ASAN_OPTIONS=${common}:detect_leaks=1:detect_stack_use_after_return=1"
  "LSAN_OPTIONS=${common}"
  "UBSAN_OPTIONS=${common}:print_stacktrace=1"
  "TSAN_OPTIONS=${common}:second_deadlock_stack=1")

# The canary's modes: the bugs the chosen sanitizers must report.
set(FSITER_SANITIZE_CANARY)
if(FSITER_SANITIZE MATCHES "address")
  list(APPEND FSITER_SANITIZE_CANARY heap leak)
endif()
if(FSITER_SANITIZE MATCHES "undefined")
  list(APPEND FSITER_SANITIZE_CANARY ub)
endif()
if(FSITER_SANITIZE MATCHES "thread")
  list(APPEND FSITER_SANITIZE_CANARY race)
endif()
find_package(Threads REQUIRED)

function(fsiter_sanitize_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  if(NOT tests)
    return()
  endif()
  set_property(TEST ${tests} APPEND PROPERTY ENVIRONMENT ${FSITER_SANITIZE_ENV})
  set_property(TEST ${tests} APPEND PROPERTY FIXTURES_REQUIRED sanitizer_logs)
  set_property(TEST ${tests} PROPERTY FAIL_REGULAR_EXPRESSION
    "runtime error:" "ERROR: [A-Za-z]+Sanitizer" "WARNING: ThreadSanitizer")
  add_test(NAME sanitizer-logs-clean COMMAND
    ${PROJECT_SOURCE_DIR}/tests/unit/sanitizer-reports.sh --clean ${FSITER_SANITIZE_LOGS})
  set_tests_properties(sanitizer-logs-clean PROPERTIES FIXTURES_SETUP sanitizer_logs)
  add_test(NAME sanitizer-reports COMMAND ${PROJECT_SOURCE_DIR}/tests/unit/sanitizer-reports.sh
    ${FSITER_SANITIZE_LOGS})
  set_tests_properties(sanitizer-reports PROPERTIES FIXTURES_CLEANUP sanitizer_logs)
  # Each sanitizer reports a bug planted for it, with these options, here:
  # a clean run is worth something (tests/unit/sanitizer-canary.sh).
  add_executable(sanitizer_canary ${PROJECT_SOURCE_DIR}/tests/unit/sanitizer_canary.c)
  target_link_libraries(sanitizer_canary PRIVATE Threads::Threads)
  add_test(NAME sanitizer-canary COMMAND ${PROJECT_SOURCE_DIR}/tests/unit/sanitizer-canary.sh
    $<TARGET_FILE:sanitizer_canary> ${CMAKE_BINARY_DIR}/sanitizer-canary
    ${FSITER_SANITIZE_CANARY})
  set_tests_properties(sanitizer-canary PROPERTIES ENVIRONMENT "${FSITER_SANITIZE_ENV}")
endfunction()
