# Profile-guided optimisation of locsim's own code (not SystemC or other libraries), GCC only.
# LOCSIM_PGO=GENERATE instruments the build: running it writes .gcda files to LOCSIM_PGO_DIR.
# LOCSIM_PGO=USE compiles with those profiles. scripts/pgo_build.sh does the three steps
# (docs/performance.md, "Profile-guided optimisation").
set(LOCSIM_PGO OFF CACHE STRING "Profile-guided optimisation (OFF, GENERATE, USE)")
set_property(CACHE LOCSIM_PGO PROPERTY STRINGS OFF GENERATE USE)
set(LOCSIM_PGO_DIR "${CMAKE_BINARY_DIR}/pgo-profile" CACHE PATH
  "Directory of the .gcda profiles LOCSIM_PGO=GENERATE writes and LOCSIM_PGO=USE reads")
set(LOCSIM_PGO_COMPILE "")
set(LOCSIM_PGO_LINK "")
if(NOT LOCSIM_PGO STREQUAL "OFF")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "LOCSIM_PGO=${LOCSIM_PGO} needs GCC (found ${CMAKE_CXX_COMPILER_ID})")
  endif()
  # Profiles are named by object path relative to the build directory, so an instrumented build
  # in one directory trains a build in another.
  set(_pgo_prefix "-fprofile-prefix-path=${CMAKE_BINARY_DIR}")
  if(LOCSIM_PGO STREQUAL "GENERATE")
    # The simulator is single-threaded (SystemC coroutines): plain counter updates suffice.
    set(LOCSIM_PGO_COMPILE -fprofile-generate=${LOCSIM_PGO_DIR} ${_pgo_prefix}
      -fprofile-update=single)
    set(LOCSIM_PGO_LINK -fprofile-generate=${LOCSIM_PGO_DIR})
  elseif(LOCSIM_PGO STREQUAL "USE")
    if(NOT IS_DIRECTORY "${LOCSIM_PGO_DIR}")
      message(FATAL_ERROR "LOCSIM_PGO=USE: no profile directory ${LOCSIM_PGO_DIR}")
    endif()
    # Partial training: code the training runs never reached keeps its normal optimisation
    # instead of being optimised for size. Generated sources have no profile.
    set(LOCSIM_PGO_COMPILE -fprofile-use=${LOCSIM_PGO_DIR} ${_pgo_prefix}
      -fprofile-partial-training -Wno-missing-profile)
  else()
    message(FATAL_ERROR "LOCSIM_PGO must be OFF, GENERATE or USE (is ${LOCSIM_PGO})")
  endif()
  message(STATUS "locsim: profile-guided optimisation ${LOCSIM_PGO} (${LOCSIM_PGO_DIR})")
endif()

# Adds the flags to one of locsim's targets; libraries pass the link flag (libgcov) on.
function(locsim_pgo target)
  if(LOCSIM_PGO_COMPILE)
    target_compile_options(${target} PRIVATE ${LOCSIM_PGO_COMPILE})
  endif()
  if(LOCSIM_PGO STREQUAL "USE")
    # Sources generated in the build directory have another path (and the version file other
    # contents) than in the instrumented build: GCC drops their profiles instead of failing.
    get_target_property(_sources ${target} SOURCES)
    foreach(_src IN LISTS _sources)
      if(_src MATCHES "^${CMAKE_BINARY_DIR}/")
        set_property(SOURCE ${_src} APPEND PROPERTY COMPILE_OPTIONS -Wno-coverage-mismatch)
      endif()
    endforeach()
  endif()
  if(LOCSIM_PGO_LINK)
    get_target_property(_type ${target} TYPE)
    if(_type STREQUAL "EXECUTABLE")
      target_link_options(${target} PRIVATE ${LOCSIM_PGO_LINK})
    else()
      target_link_options(${target} INTERFACE $<BUILD_INTERFACE:${LOCSIM_PGO_LINK}>)
    endif()
  endif()
endfunction()
