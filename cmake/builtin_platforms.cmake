# Compiles platforms/*.json into the library (builtin_platforms()), so an installed locsim finds
# its platforms without the source tree. Re-runs when a platform file changes.
file(GLOB LOCSIM_PLATFORM_JSON CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/platforms/*.json)
set(LOCSIM_PLATFORM_ENTRIES "")
foreach(f ${LOCSIM_PLATFORM_JSON})
  get_filename_component(n ${f} NAME_WE)
  file(READ ${f} text)
  string(APPEND LOCSIM_PLATFORM_ENTRIES "      {\"${n}\", R\"locsim_json(${text})locsim_json\"},\n")
  set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${f})
endforeach()
configure_file(${CMAKE_SOURCE_DIR}/cmake/builtin_platforms.cpp.in
  ${CMAKE_BINARY_DIR}/generated/builtin_platforms.cpp @ONLY)
