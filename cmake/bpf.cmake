# eBPF programs (libbpf CO-RE): the scheduler probe (src/sched/) and any
# other module's kernel-side program.
#
# Needs, at build time: clang with the BPF target, bpftool (vmlinux.h and
# skeletons), libbpf through pkg-config, and the kernel's BTF at
# /sys/kernel/btf/vmlinux (vmlinux.h is dumped from it into the build
# directory; CO-RE relocations make the object run on other kernels).
# At run time the programs need BTF and CAP_BPF+CAP_PERFMON; the module
# checks that itself and says which is missing.
#
# LATLAB_BPF=AUTO (default) builds the programs when everything is found
# and otherwise leaves LATLAB_HAVE_BPF 0 so the feature reports itself
# unavailable; ON makes a missing piece a configure error; OFF skips it.
#
# Adding a program: put it in src/<module>/bpf/<name>.bpf.c (that folder is
# outside the library's src/*/*.c glob, and outside the aarch64 cross
# build). Every such file gets a skeleton, gen/skel/<name>.skel.h, with the
# skeleton type `struct lat_<name>_bpf` (lat_<name>_bpf__open() etc.),
# generated before the library compiles. Include it under
# `#if LATLAB_HAVE_BPF`. A program elsewhere can call
# latlab_bpf_skeleton(<name> <src.bpf.c>) directly.
#
# Each .bpf.c is compiled with
#   clang -g -O2 -target bpf -D__TARGET_ARCH_<arch> -I<gen/bpf> -I<src> ...
# where gen/bpf holds vmlinux.h, so `#include "vmlinux.h"` then
# <bpf/bpf_helpers.h>, <bpf/bpf_tracing.h>, <bpf/bpf_core_read.h>.
# Headers beside the .bpf.c (and the module's *.h one level up, shared with
# user space) are dependencies of the object.

set(LATLAB_BPF AUTO CACHE STRING "Build the eBPF programs: AUTO, ON or OFF")
set_property(CACHE LATLAB_BPF PROPERTY STRINGS AUTO ON OFF)
set(LATLAB_BPF_INSTALL "apt-get install -y libbpf-dev bpftool clang")
set(LATLAB_HAVE_BPF 0)

function(latlab_bpf_missing why)
  if(LATLAB_BPF STREQUAL "ON")
    message(FATAL_ERROR "latlab: bpf: ${why} (${LATLAB_BPF_INSTALL}) and LATLAB_BPF=ON")
  endif()
  message(STATUS "latlab: bpf (eBPF scheduler probe): not found: ${why} "
                 "(${LATLAB_BPF_INSTALL}); latlab sched and pipeline --sched "
                 "report themselves unavailable")
endfunction()

# The BPF target architecture name libbpf's bpf_tracing.h expects.
function(latlab_bpf_arch out)
  set(p ${CMAKE_SYSTEM_PROCESSOR})
  if(p MATCHES "^(x86_64|AMD64|amd64|i.86)$")
    set(a x86)
  elseif(p MATCHES "^(aarch64|arm64)$")
    set(a arm64)
  elseif(p MATCHES "^arm")
    set(a arm)
  elseif(p MATCHES "^(ppc64|ppc64le|powerpc64)")
    set(a powerpc)
  elseif(p MATCHES "^s390")
    set(a s390)
  elseif(p MATCHES "^riscv")
    set(a riscv)
  elseif(p MATCHES "^loongarch")
    set(a loongarch)
  else()
    set(a "")
  endif()
  set(${out} "${a}" PARENT_SCOPE)
endfunction()

function(latlab_bpf_detect)
  if(LATLAB_BPF STREQUAL "OFF")
    message(STATUS "latlab: bpf (eBPF scheduler probe): off (LATLAB_BPF=OFF)")
    return()
  endif()
  if(LATLAB_FUZZ)
    # The fuzz targets link the sources without the library's imported
    # dependencies; the decoders they fuzz never touch BPF.
    message(STATUS "latlab: bpf (eBPF scheduler probe): off in fuzz builds")
    return()
  endif()
  if(CMAKE_CROSSCOMPILING)
    latlab_bpf_missing("cross-compiling (vmlinux.h comes from the build host's kernel)")
    return()
  endif()
  latlab_bpf_arch(arch)
  if(arch STREQUAL "")
    latlab_bpf_missing("no BPF arch name for ${CMAKE_SYSTEM_PROCESSOR}")
    return()
  endif()
  find_program(LATLAB_BPF_CLANG NAMES clang clang-19 clang-18 clang-17 clang-16
               clang-15 clang-14 clang-13 clang-12 clang-11)
  find_program(LATLAB_BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin /usr/local/sbin)
  find_program(LATLAB_BPF_STRIP NAMES llvm-strip llvm-strip-19 llvm-strip-18
               llvm-strip-17 llvm-strip-16 llvm-strip-15 llvm-strip-14)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(LATLAB_LIBBPF QUIET IMPORTED_TARGET GLOBAL libbpf>=0.7)
  endif()
  set(btf /sys/kernel/btf/vmlinux)
  if(NOT LATLAB_BPF_CLANG)
    latlab_bpf_missing("no clang")
    return()
  endif()
  if(NOT LATLAB_BPFTOOL)
    latlab_bpf_missing("no bpftool")
    return()
  endif()
  if(NOT LATLAB_LIBBPF_FOUND)
    latlab_bpf_missing("no libbpf >= 0.7 (pkg-config libbpf)")
    return()
  endif()
  if(NOT EXISTS ${btf})
    latlab_bpf_missing("no ${btf} (kernel without CONFIG_DEBUG_INFO_BTF)")
    return()
  endif()
  # clang must have the BPF back end (a distribution clang always does; a
  # custom build may not).
  file(WRITE ${PROJECT_BINARY_DIR}/gen/bpf/probe.c "int x;\n")
  execute_process(COMMAND ${LATLAB_BPF_CLANG} -target bpf -c
                          ${PROJECT_BINARY_DIR}/gen/bpf/probe.c
                          -o ${PROJECT_BINARY_DIR}/gen/bpf/probe.o
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    latlab_bpf_missing("${LATLAB_BPF_CLANG} cannot target bpf")
    return()
  endif()
  # clang -target bpf does not search the host's multiarch include
  # directory, which libbpf's headers (via linux/types.h) may need: pass
  # the host compiler's system directories as -idirafter, the libbpf-tools
  # way.
  execute_process(COMMAND ${LATLAB_BPF_CLANG} -v -E -x c /dev/null
                  OUTPUT_QUIET ERROR_VARIABLE verbose)
  string(REGEX MATCH "#include <...> search starts here:\n(.*)\nEnd of search list"
         _ "${verbose}")
  string(REGEX REPLACE "\n" ";" dirs "${CMAKE_MATCH_1}")
  set(idirs "")
  foreach(d ${dirs})
    string(STRIP "${d}" d)
    if(d)
      list(APPEND idirs -idirafter ${d})
    endif()
  endforeach()
  set(LATLAB_BPF_SYS_INCLUDES "${idirs}" CACHE INTERNAL "")
  set(LATLAB_BPF_ARCH ${arch} CACHE INTERNAL "")
  set(LATLAB_HAVE_BPF 1 PARENT_SCOPE)
  message(STATUS "latlab: bpf (eBPF scheduler probe): found clang ${LATLAB_BPF_CLANG}, "
                 "bpftool ${LATLAB_BPFTOOL}, libbpf ${LATLAB_LIBBPF_VERSION}, BTF ${btf}")
endfunction()

latlab_bpf_detect()

if(LATLAB_HAVE_BPF)
  set(LATLAB_BPF_GEN ${PROJECT_BINARY_DIR}/gen/bpf)
  set(LATLAB_BPF_VMLINUX ${LATLAB_BPF_GEN}/vmlinux.h)
  # vmlinux.h: every kernel type, from the running kernel's BTF. Written to
  # a temporary and renamed so an interrupted dump never leaves half a
  # header behind.
  add_custom_command(
    OUTPUT ${LATLAB_BPF_VMLINUX}
    COMMAND ${LATLAB_BPFTOOL} btf dump file /sys/kernel/btf/vmlinux format c
            > ${LATLAB_BPF_VMLINUX}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${LATLAB_BPF_VMLINUX}.tmp ${LATLAB_BPF_VMLINUX}
    COMMENT "bpf: vmlinux.h from /sys/kernel/btf/vmlinux"
    VERBATIM)
  target_link_libraries(latlab PUBLIC PkgConfig::LATLAB_LIBBPF)
endif()

# latlab_bpf_skeleton(<name> <src.bpf.c>): compile the program and generate
# gen/skel/<name>.skel.h (skeleton `struct lat_<name>_bpf`), a source of the
# library so it exists before any library file includes it.
function(latlab_bpf_skeleton name src)
  if(NOT LATLAB_HAVE_BPF)
    return()
  endif()
  get_filename_component(srcdir ${src} DIRECTORY)
  get_filename_component(moddir ${srcdir} DIRECTORY)
  file(GLOB deps CONFIGURE_DEPENDS ${srcdir}/*.h ${moddir}/*.h)
  set(obj ${LATLAB_BPF_GEN}/${name}.bpf.o)
  set(skel ${PROJECT_BINARY_DIR}/gen/skel/${name}.skel.h)
  # The -g object embeds DWARF (a 2 MB skeleton); llvm-strip -g keeps
  # .BTF/.BTF.ext, which is all libbpf needs. Without llvm-strip the
  # skeleton is only larger.
  if(LATLAB_BPF_STRIP)
    set(strip COMMAND ${LATLAB_BPF_STRIP} -g ${obj}.tmp -o ${obj})
  else()
    set(strip COMMAND ${CMAKE_COMMAND} -E copy ${obj}.tmp ${obj})
  endif()
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/gen/skel
    COMMAND ${LATLAB_BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${LATLAB_BPF_ARCH}
            -Wall -Werror -I${LATLAB_BPF_GEN} -I${PROJECT_SOURCE_DIR}/src
            ${LATLAB_BPF_SYS_INCLUDES} -c ${src} -o ${obj}.tmp
    ${strip}
    COMMAND ${LATLAB_BPFTOOL} gen skeleton ${obj} name lat_${name}_bpf > ${skel}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
    DEPENDS ${src} ${deps} ${LATLAB_BPF_VMLINUX}
    COMMENT "bpf: ${name}.bpf.c -> skel/${name}.skel.h"
    VERBATIM)
  target_sources(latlab PRIVATE ${skel})
endfunction()

# Every src/<module>/bpf/<name>.bpf.c gets its skeleton.
file(GLOB LATLAB_BPF_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/*/bpf/*.bpf.c)
foreach(f ${LATLAB_BPF_SOURCES})
  get_filename_component(n ${f} NAME)
  string(REGEX REPLACE "\\.bpf\\.c$" "" n ${n})
  latlab_bpf_skeleton(${n} ${f})
endforeach()

# test_sched_threads holds a CPU with a SCHED_FIFO thread for tens of
# milliseconds: run it alone, so that it neither starves another test's
# threads nor gets its windows disturbed by them.
function(latlab_bpf_test_props)
  if(TARGET test_sched_threads)
    set_tests_properties(test_sched_threads PROPERTIES RUN_SERIAL TRUE)
  endif()
endfunction()
cmake_language(DEFER CALL latlab_bpf_test_props)
