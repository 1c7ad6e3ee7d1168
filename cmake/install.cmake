# Installing animesh: the command, libanimesh (static and shared), the public headers, the
# man page, pkg-config's animesh.pc and CMake's package (find_package(animesh) ->
# animesh::animesh). A parent project that embeds animesh can turn it off.
option(AM_INSTALL "Generate the install rules" ON)
include(CMakePackageConfigHelpers)

# The man page is generated from the built command's own --help texts (scripts/manpage.sh),
# so the two never drift.
set(AM_MAN_PAGE ${CMAKE_BINARY_DIR}/animesh.1)
add_custom_command(OUTPUT ${AM_MAN_PAGE}
  COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/manpage.sh $<TARGET_FILE:animesh> ${PROJECT_VERSION} > ${AM_MAN_PAGE}.tmp
  COMMAND ${CMAKE_COMMAND} -E rename ${AM_MAN_PAGE}.tmp ${AM_MAN_PAGE}
  DEPENDS animesh ${CMAKE_SOURCE_DIR}/scripts/manpage.sh
  COMMENT "Generating animesh.1 from animesh --help")
add_custom_target(animesh_man ALL DEPENDS ${AM_MAN_PAGE})

if(NOT AM_INSTALL)
  return()
endif()

# The public headers: include/animesh/*.h, installed as they are (a program writes
# #include <animesh/animesh.h>). Module headers under src/ are never installed.
file(GLOB AM_PUBLIC_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/animesh/*.h)
install(FILES ${AM_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/animesh COMPONENT dev)

install(TARGETS animesh RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS animesh_core ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(TARGETS animesh_shared EXPORT animeshTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT dev)
install(FILES ${AM_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# pkg-config: shared by default; `--static` adds the dependencies libanimesh.a needs (those
# without a .pc file of their own in Libs.private).
file(RELATIVE_PATH AM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_SOURCE_DIR}/cmake/animesh.pc.in ${CMAKE_BINARY_DIR}/animesh.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/animesh.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# CMake: the shared library as animesh::animesh, with a version file (before 1.0, the same
# minor version is compatible).
set(AM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/animesh)
install(EXPORT animeshTargets NAMESPACE animesh:: DESTINATION ${AM_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/animeshConfig.cmake.in
  ${CMAKE_BINARY_DIR}/animeshConfig.cmake INSTALL_DESTINATION ${AM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/animeshConfigVersion.cmake
  COMPATIBILITY SameMinorVersion) # 0.x: a minor release may change the ABI
install(FILES ${CMAKE_BINARY_DIR}/animeshConfig.cmake ${CMAKE_BINARY_DIR}/animeshConfigVersion.cmake
  DESTINATION ${AM_CMAKE_DIR} COMPONENT dev)
