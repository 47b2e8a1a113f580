# Compile BPF programs with clang against our kernel's vmlinux.h, and turn
# them into libbpf skeletons with bpftool, at build time.
#
#   fsiter_bpf_object(<target> SOURCE <x.bpf.c> [INCLUDES dir...]
#                     [KERNEL_DIR dir] [OUTPUT_DIR dir])
#     builds <x>.bpf.o in OUTPUT_DIR (default: the binary dir) against the
#     vmlinux.h of KERNEL_DIR (default: FSITER_KERNEL_DIR); <target> is a
#     custom target and <target>_OBJECT holds the object's path.
#   fsiter_bpf_skeleton(<target> OBJECT <obj> NAME <name> [OUTPUT_DIR dir])
#     generates <name>.skel.h in OUTPUT_DIR (default: the binary dir); an
#     INTERFACE library <target> puts it on the include path.

set(FSITER_BPF_CFLAGS -g -O2 -target bpf -D__TARGET_ARCH_x86
  -Wall -Wno-unused-function -Wno-compare-distinct-pointer-types)
# The libc headers of the host (the RFC's programs include <string.h>),
# after clang's own, as the kernel's selftests do.
if(CMAKE_LIBRARY_ARCHITECTURE)
  list(APPEND FSITER_BPF_CFLAGS -idirafter /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
endif()

function(fsiter_bpf_object target)
  cmake_parse_arguments(ARG "" "SOURCE;KERNEL_DIR;OUTPUT_DIR" "INCLUDES;DEPENDS" ${ARGN})
  if(NOT ARG_KERNEL_DIR)
    set(ARG_KERNEL_DIR "${FSITER_KERNEL_DIR}")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  get_filename_component(name "${ARG_SOURCE}" NAME_WE)
  get_filename_component(src "${ARG_SOURCE}" ABSOLUTE)
  set(obj "${ARG_OUTPUT_DIR}/${name}.bpf.o")
  set(incs -I${ARG_KERNEL_DIR} -I${CMAKE_SOURCE_DIR}/bpf)
  foreach(dir ${ARG_INCLUDES})
    list(APPEND incs -I${dir})
  endforeach()
  add_custom_command(OUTPUT "${obj}"
    COMMAND ${CLANG} ${FSITER_BPF_CFLAGS} ${incs} -c "${src}" -o "${obj}"
    DEPENDS "${src}" ${ARG_DEPENDS} "${ARG_KERNEL_DIR}/vmlinux.h"
    IMPLICIT_DEPENDS C "${src}"
    COMMENT "BPF ${name}.bpf.o")
  add_custom_target(${target} ALL DEPENDS "${obj}")
  set(${target}_OBJECT "${obj}" PARENT_SCOPE)
endfunction()

function(fsiter_bpf_skeleton target)
  cmake_parse_arguments(ARG "" "OBJECT;NAME;OUTPUT_DIR" "" ${ARGN})
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set(skel "${ARG_OUTPUT_DIR}/${ARG_NAME}.skel.h")
  add_custom_command(OUTPUT "${skel}"
    COMMAND ${BPFTOOL} gen skeleton "${ARG_OBJECT}" name ${ARG_NAME} > "${skel}"
    DEPENDS "${ARG_OBJECT}"
    COMMENT "skeleton ${ARG_NAME}.skel.h")
  add_custom_target(${target}_gen DEPENDS "${skel}")
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_gen)
  target_include_directories(${target} INTERFACE "${ARG_OUTPUT_DIR}")
endfunction()
