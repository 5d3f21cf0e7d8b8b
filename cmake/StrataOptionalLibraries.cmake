# Optional libraries that back strategy implementations (docs/strategy.md).
#
# strata_optional_library(NAME FOUND) records that library NAME (e.g. onednn)
# was (FOUND true) or was not found. strata_write_optional_libraries(FILE)
# writes the header the strategy registry reads (kOptionalLibrariesFound), so
# implementations backed by a library register only in a build that has it.
# No library is wired in yet; oneDNN (Debian's libdnnl-dev) is the planned
# first one, behind an option such as STRATA_WITH_ONEDNN.
set_property(GLOBAL PROPERTY STRATA_OPTIONAL_LIBRARIES_FOUND "")

function(strata_optional_library name found)
  if(found)
    set_property(GLOBAL APPEND PROPERTY STRATA_OPTIONAL_LIBRARIES_FOUND ${name})
    message(STATUS "Strata optional library ${name}: found")
  else()
    message(STATUS "Strata optional library ${name}: not found")
  endif()
endfunction()

function(strata_write_optional_libraries file)
  get_property(libs GLOBAL PROPERTY STRATA_OPTIONAL_LIBRARIES_FOUND)
  set(STRATA_OPTIONAL_LIBRARIES_INIT "")
  foreach(lib ${libs})
    string(APPEND STRATA_OPTIONAL_LIBRARIES_INIT "\"${lib}\", ")
  endforeach()
  configure_file(${STRATA_SOURCE_DIR}/include/strata/Strategy/OptionalLibraries.h.in
                 ${file} @ONLY)
endfunction()
