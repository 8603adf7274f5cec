include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# locsim::locsim: one target for users, carrying the three libraries in link order.
add_library(locsim_all INTERFACE)
target_link_libraries(locsim_all INTERFACE locsim_tlm locsim_stimuli locsim_model)
set_target_properties(locsim_all PROPERTIES EXPORT_NAME locsim)
set_target_properties(locsim_model PROPERTIES EXPORT_NAME model)
set_target_properties(locsim_stimuli PROPERTIES EXPORT_NAME stimuli)
set_target_properties(locsim_tlm PROPERTIES EXPORT_NAME tlm)
# Optional libraries (the Verilated RTL blocks) register themselves in this list.
set(LOCSIM_EXPORTED locsim_all locsim_model locsim_stimuli locsim_tlm ${LOCSIM_EXTRA_EXPORTS})

install(TARGETS ${LOCSIM_EXPORTED} EXPORT locsimTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION include/locsim)
install(TARGETS locsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Headers keep their source-tree paths ("model/types.h", "platforms/gpu_device.h").
foreach(dir model stimuli tlm_components platforms)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir}/ DESTINATION include/locsim/${dir}
    FILES_MATCHING PATTERN "*.h")
endforeach()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/platforms/ DESTINATION ${CMAKE_INSTALL_DATADIR}/locsim/platforms
  FILES_MATCHING PATTERN "*.json")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/locsim/examples)

install(EXPORT locsimTargets NAMESPACE locsim:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/locsim)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/locsimConfig.cmake.in
  ${CMAKE_BINARY_DIR}/locsimConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/locsim)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/locsimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/locsimConfig.cmake ${CMAKE_BINARY_DIR}/locsimConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/locsim)
