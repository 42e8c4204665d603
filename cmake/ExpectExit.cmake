# Run EXE with ARGS (a ;-list) and fail unless it exits with EXPECT and, when given, prints
# something matching MATCH (on stdout or stderr). Used to test exit codes (2 = bad usage).
if(NOT DEFINED EXE OR NOT DEFINED EXPECT)
  message(FATAL_ERROR "ExpectExit.cmake needs -DEXE=... -DEXPECT=...")
endif()
separate_arguments(_args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${EXE}" ${_args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("exit code ${rc}\n--- stdout ---\n${out}\n--- stderr ---\n${err}")
if(NOT "${rc}" STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit code ${EXPECT}, got ${rc}")
endif()
if(DEFINED MATCH AND NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "output does not match '${MATCH}'")
endif()
