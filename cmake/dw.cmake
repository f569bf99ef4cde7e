# elfutils libdw/libdwfl (libdw-dev): names for the user frames of
# `latlab profile`. Without it the profiler still samples and folds every
# stack, but user frames print as "[unknown] (module)"; the symbol tests
# skip and say why.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND AND NOT LATLAB_FUZZ)
  pkg_check_modules(LATLAB_DW QUIET IMPORTED_TARGET libdw)
endif()
if(LATLAB_FUZZ)
  # The fuzz targets link the sources without the library's imported
  # dependencies; the decoders they fuzz never need symbols.
  set(LATLAB_HAVE_DW 0)
  message(STATUS "latlab: dw (elfutils libdwfl, profile symbols): off in fuzz builds")
elseif(LATLAB_DW_FOUND)
  set(LATLAB_HAVE_DW 1)
  target_link_libraries(latlab PUBLIC PkgConfig::LATLAB_DW)
  message(STATUS "latlab: dw (elfutils libdwfl, profile symbols): found ${LATLAB_DW_VERSION}")
else()
  set(LATLAB_HAVE_DW 0)
  message(STATUS "latlab: dw (elfutils libdwfl, profile symbols): not found (apt-get install -y libdw-dev); latlab profile prints user frames as [unknown] (module)")
endif()
