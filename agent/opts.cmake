# opts.cmake: the agent's option parser as a JVM-free static library, so the
# unit tests and the fuzzer link it without the agent. Included from the
# top-level CMakeLists.txt (before the agent and the tests).
add_library(hprof_opts STATIC ${CMAKE_CURRENT_LIST_DIR}/opts.c)
target_include_directories(hprof_opts PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(hprof_opts PRIVATE hprof_strict)
