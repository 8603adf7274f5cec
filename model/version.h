// The simulator's identity, recorded with every result (the `host` block of the statistics and
// `locsim version`), so that a number can be traced to the code that produced it.
#pragma once

namespace locsim {

// The project version (CMake's project(VERSION)).
const char* locsim_version();

// The git commit the binary was built from ("<hash>+dirty" with uncommitted changes to tracked
// files, "unknown" outside a git checkout). Generated at build time (cmake/locsim_version.cmake).
const char* locsim_commit();

}  // namespace locsim
