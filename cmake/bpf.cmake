# Compile BPF programs with clang against our kernel's vmlinux.h, and turn
# them into libbpf skeletons with bpftool, at build time.
#
#   fsiter_bpf_object(<target> SOURCE <x.bpf.c> [INCLUDES dir...])
#     builds <x>.bpf.o in the binary dir; <target> is a custom target and
#     <target>_OBJECT holds the object's path.
#   fsiter_bpf_skeleton(<target> OBJECT_TARGET <t> NAME <name>)
#     generates <name>.skel.h; an INTERFACE library <target> puts it on the
#     include path.

set(FSITER_BPF_CFLAGS -g -O2 -target bpf -D__TARGET_ARCH_x86
  -Wall -Wno-unused-function -Wno-compare-distinct-pointer-types)
# The libc headers of the host (the RFC's programs include <string.h>),
# after clang's own, as the kernel's selftests do.
if(CMAKE_LIBRARY_ARCHITECTURE)
  list(APPEND FSITER_BPF_CFLAGS -idirafter /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
endif()

function(fsiter_bpf_object target)
  cmake_parse_arguments(ARG "" "SOURCE" "INCLUDES;DEPENDS" ${ARGN})
  get_filename_component(name "${ARG_SOURCE}" NAME_WE)
  get_filename_component(src "${ARG_SOURCE}" ABSOLUTE)
  set(obj "${CMAKE_CURRENT_BINARY_DIR}/${name}.bpf.o")
  set(incs -I${FSITER_KERNEL_DIR} -I${CMAKE_SOURCE_DIR}/bpf)
  foreach(dir ${ARG_INCLUDES})
    list(APPEND incs -I${dir})
  endforeach()
  add_custom_command(OUTPUT "${obj}"
    COMMAND ${CLANG} ${FSITER_BPF_CFLAGS} ${incs} -c "${src}" -o "${obj}"
    DEPENDS "${src}" ${ARG_DEPENDS} "${FSITER_KERNEL_DIR}/vmlinux.h"
    IMPLICIT_DEPENDS C "${src}"
    COMMENT "BPF ${name}.bpf.o")
  add_custom_target(${target} ALL DEPENDS "${obj}")
  set(${target}_OBJECT "${obj}" PARENT_SCOPE)
endfunction()

function(fsiter_bpf_skeleton target)
  cmake_parse_arguments(ARG "" "OBJECT;NAME" "" ${ARGN})
  set(skel "${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}.skel.h")
  add_custom_command(OUTPUT "${skel}"
    COMMAND ${BPFTOOL} gen skeleton "${ARG_OBJECT}" name ${ARG_NAME} > "${skel}"
    DEPENDS "${ARG_OBJECT}"
    COMMENT "skeleton ${ARG_NAME}.skel.h")
  add_custom_target(${target}_gen DEPENDS "${skel}")
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_gen)
  target_include_directories(${target} INTERFACE "${CMAKE_CURRENT_BINARY_DIR}")
endfunction()
