# Optional libraries that back strategy implementations (docs/strategy.md).
#
# strata_optional_library(NAME FOUND) records that library NAME (e.g. onednn)
# was (FOUND true) or was not found. strata_write_optional_libraries(FILE)
# writes the header the strategy registry reads (kOptionalLibrariesFound), so
# implementations backed by a library register only in a build that has it.
#
# oneDNN (Debian's libdnnl-dev): STRATA_WITH_ONEDNN = AUTO (the default: used
# when found), ON (required: configuring fails without it) or OFF (never).
# When used, STRATA_ONEDNN_FOUND is true and STRATA_ONEDNN_INCLUDE_DIR /
# STRATA_ONEDNN_LIBRARY locate it (lib/Runtime builds its oneDNN kernels,
# CpuOneDnnKernels.cpp, with them).
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

set(STRATA_WITH_ONEDNN AUTO CACHE STRING
  "oneDNN-backed Conv/MatMul kernels: AUTO (when libdnnl-dev is found), ON (required), OFF")
set_property(CACHE STRATA_WITH_ONEDNN PROPERTY STRINGS AUTO ON OFF)
set(STRATA_ONEDNN_FOUND FALSE)
if(STRATA_WITH_ONEDNN STREQUAL "AUTO" OR STRATA_WITH_ONEDNN)
  find_path(STRATA_ONEDNN_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
  find_library(STRATA_ONEDNN_LIBRARY NAMES dnnl)
  if(STRATA_ONEDNN_INCLUDE_DIR AND STRATA_ONEDNN_LIBRARY)
    set(STRATA_ONEDNN_FOUND TRUE)
  elseif(NOT STRATA_WITH_ONEDNN STREQUAL "AUTO")
    message(FATAL_ERROR "STRATA_WITH_ONEDNN=${STRATA_WITH_ONEDNN} but oneDNN "
      "(oneapi/dnnl/dnnl.hpp, libdnnl) was not found: install libdnnl-dev or "
      "configure with -DSTRATA_WITH_ONEDNN=AUTO/OFF")
  endif()
endif()
strata_optional_library(onednn ${STRATA_ONEDNN_FOUND})
