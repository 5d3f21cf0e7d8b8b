# Installed tools find MLIR/LLVM's shared libraries (libMLIR.so) where the
# build found them.
if(NOT CMAKE_INSTALL_RPATH AND LLVM_LIBRARY_DIR)
  set(CMAKE_INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
endif()

# strata_add_library(NAME SOURCES... [DEPENDS targets...] [LINK libs...]
#                    [EXPORT_SET set])
# A static library of Strata's own, built with exceptions and RTTI, installed and
# exported as Strata::<NAME without the Strata prefix>, in the export set
# StrataTargets unless EXPORT_SET names another (the runtime's, which needs
# no MLIR, is StrataRuntimeTargets).
function(strata_add_library name)
  cmake_parse_arguments(ARG "" "EXPORT_SET" "DEPENDS;LINK" ${ARGN})
  if(NOT ARG_EXPORT_SET)
    set(ARG_EXPORT_SET StrataTargets)
  endif()
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${name} PRIVATE -fexceptions)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${STRATA_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${STRATA_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  if(ARG_LINK)
    target_link_libraries(${name} PUBLIC ${ARG_LINK})
  endif()
  string(REGEX REPLACE "^Strata" "" export_name ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${export_name})
  install(TARGETS ${name} EXPORT ${ARG_EXPORT_SET}
          ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
endfunction()

# strata_add_tool(NAME SOURCES... LINK libs...)
function(strata_add_tool name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_compile_options(${name} PRIVATE -fexceptions)
  target_link_libraries(${name} PRIVATE ${ARG_LINK})
  install(TARGETS ${name} EXPORT StrataTargets RUNTIME DESTINATION bin)
endfunction()
