# The desktop integration as a file manager sees it: the shared-mime-info XML compiles (run
# through update-mime-database in a scratch folder) into a type for *.gguf and for files that
# start with "GGUF", and the desktop file claims that type and passes the file it is opened with.
#   cmake -DDESKTOP_FILE=... -DMIME_XML=... -DUPDATE_MIME_DATABASE=... -DWORK_DIR=... -P this
cmake_policy(VERSION 3.20)
set(type "application/x-gguf")
# A data folder of its own, named as XDG_DATA_HOME so that the tool has nothing to warn about.
set(mime "${WORK_DIR}/share/mime")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${mime}/packages")
file(COPY "${MIME_XML}" DESTINATION "${mime}/packages")
execute_process(COMMAND ${CMAKE_COMMAND} -E env "XDG_DATA_HOME=${WORK_DIR}/share" "${UPDATE_MIME_DATABASE}" "${mime}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0 OR NOT output STREQUAL "")
    message(FATAL_ERROR "update-mime-database refused ${MIME_XML} (${result}):\n${output}")
endif()
file(READ "${mime}/globs2" globs)
if(NOT globs MATCHES "\n[0-9]+:${type}:\\*\\.gguf\n")
    message(FATAL_ERROR "${MIME_XML}: no *.gguf glob for ${type} in:\n${globs}")
endif()
file(STRINGS "${mime}/magic" magic REGEX "^\\[50:${type}\\]$")
if(NOT magic)
    message(FATAL_ERROR "${MIME_XML}: no magic for ${type}")
endif()

file(STRINGS "${DESKTOP_FILE}" mime_lines REGEX "^MimeType=")
# file(STRINGS) writes each ';' of a line as '\;'.
if(NOT mime_lines MATCHES "[=;]${type}(\\\\;|$)")
    message(FATAL_ERROR "${DESKTOP_FILE} does not claim ${type}: '${mime_lines}'")
endif()
file(STRINGS "${DESKTOP_FILE}" exec_lines REGEX "^Exec=")
if(NOT exec_lines MATCHES "%[fFuU]")
    message(FATAL_ERROR "${DESKTOP_FILE}: Exec does not pass the file it opens: '${exec_lines}'")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "${type}: *.gguf and GGUF magic; ${DESKTOP_FILE} opens it")
