# Install (make install PREFIX=... / cmake --install): the headers under
# include/latlab/, liblatlab.a and liblatlab.so (SONAME liblatlab.so.0.1,
# exporting only lat_*: latlab.map), latlab.pc, the CMake package
# (find_package(latlab): latlab::latlab, latlab::latlab_static), the
# latlab command and its man pages, made at build time from each
# command's --help (help2man.sh) so they cannot drift. Included at the end
# of CMakeLists.txt, once the library and command targets exist.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# One compilation for both libraries: the static one's objects are
# position-independent and the shared one links them.
set_target_properties(latlab PROPERTIES POSITION_INDEPENDENT_CODE ON
                                        EXPORT_NAME latlab_static)
add_library(latlab_shared SHARED $<TARGET_OBJECTS:latlab>)
string(REGEX MATCH "^[0-9]+\\.[0-9]+" LATLAB_SOVERSION ${PROJECT_VERSION})
set_target_properties(latlab_shared PROPERTIES
  OUTPUT_NAME latlab EXPORT_NAME latlab
  VERSION ${PROJECT_VERSION} SOVERSION ${LATLAB_SOVERSION} # 0.x: minor = ABI
  LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/latlab.map)
target_link_options(latlab_shared PRIVATE
  -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/latlab.map)
if(LATLAB_SANITIZE STREQUAL "")
  # every symbol resolved at link time, not at a user's dlopen
  target_link_options(latlab_shared PRIVATE -Wl,--no-undefined)
endif()
target_include_directories(latlab_shared PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# whatever the static library needs (zlib, libm, threads, libbpf when
# found), the shared one links
target_link_libraries(latlab_shared PRIVATE
  $<TARGET_PROPERTY:latlab,INTERFACE_LINK_LIBRARIES>)

install(TARGETS latlab latlab_shared EXPORT latlabTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/latlab
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(TARGETS latlab_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# pkg-config: paths relative to the .pc file, so the install relocates.
file(RELATIVE_PATH LATLAB_PC_UP
     "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" LATLAB_PC_UP "${LATLAB_PC_UP}")
# Optional dependencies that cmake/*.cmake linked through pkg-config
# (libbpf, libdw, ...): their libraries go to Libs.private, and the CMake
# package recreates each PkgConfig::<X> target from the libraries found
# here (same distribution, same paths). cmake/*.cmake ran before this
# file, so the list is complete.
set(LATLAB_PC_EXTRA "")
set(LATLAB_CONFIG_DEPS "")
get_target_property(deps latlab INTERFACE_LINK_LIBRARIES)
foreach(d ${deps})
  if(NOT d MATCHES "^PkgConfig::(.+)$")
    continue()
  endif()
  get_target_property(libs ${d} INTERFACE_LINK_LIBRARIES)
  foreach(l ${libs})
    if(l MATCHES "/lib([^/]+)\\.(so|a)[.0-9]*$")
      string(APPEND LATLAB_PC_EXTRA " -l${CMAKE_MATCH_1}")
    endif()
  endforeach()
  string(APPEND LATLAB_CONFIG_DEPS
    "if(NOT TARGET ${d})\n"
    "  add_library(${d} INTERFACE IMPORTED)\n"
    "  set_target_properties(${d} PROPERTIES INTERFACE_LINK_LIBRARIES\n"
    "    \"${libs}\")\n"
    "endif()\n")
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/latlab.pc.in
               ${PROJECT_BINARY_DIR}/latlab.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/latlab.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(LATLAB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/latlab)
install(EXPORT latlabTargets NAMESPACE latlab:: DESTINATION ${LATLAB_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/latlabConfig.cmake.in
  ${PROJECT_BINARY_DIR}/latlabConfig.cmake INSTALL_DESTINATION ${LATLAB_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/latlabConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/latlabConfig.cmake
              ${PROJECT_BINARY_DIR}/latlabConfigVersion.cmake
        DESTINATION ${LATLAB_CMAKE_DIR})

# Man pages: latlab(1) and latlab-<command>(1), from the built command's
# --help (not when cross-compiling: the command cannot run here).
if(NOT CMAKE_CROSSCOMPILING)
  set(man_pages "")
  set(h2m ${CMAKE_CURRENT_LIST_DIR}/help2man.sh)
  foreach(f ${LATLAB_CMD_FILES} main)
    get_filename_component(n ${f} NAME_WE)
    string(REGEX REPLACE "^cmd_" "" n ${n})
    if(n STREQUAL "main")
      set(page ${PROJECT_BINARY_DIR}/man/latlab.1)
      set(arg "")
    else()
      set(page ${PROJECT_BINARY_DIR}/man/latlab-${n}.1)
      set(arg ${n})
    endif()
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND sh ${h2m} $<TARGET_FILE:latlab_cli> ${arg} > ${page}.tmp
      COMMAND ${CMAKE_COMMAND} -E rename ${page}.tmp ${page}
      DEPENDS latlab_cli ${h2m} VERBATIM)
    list(APPEND man_pages ${page})
  endforeach()
  add_custom_target(man ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
