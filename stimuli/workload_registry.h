// The registry of built-in workloads: each entry names a workload, its suite, its parameters and a
// factory that builds it (the Workload interface itself is model/workload/kernel.h).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/workload/kernel.h"

namespace locsim {

// Workload parameters given as name=value strings (from --set workload.NAME=value).
using WorkloadArgs = std::map<std::string, std::string>;

struct WorkloadInfo {
  std::string name;
  std::string suite;
  std::string description;
  std::string default_size;  // human-readable default problem size
  // Declared parameters: name -> (default, description)
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> params;
  std::function<std::unique_ptr<Workload>(const WorkloadArgs&)> make;
  // Named size presets (--set workload.preset=NAME): name -> parameter values. Explicit
  // workload.X values override the preset's; e.g. "paver" gives the TB counts of PAVER's Table 2.
  std::map<std::string, WorkloadArgs> presets = {};
};

// The generic parameter that selects one of WorkloadInfo::presets.
inline constexpr const char* kPresetParam = "preset";

// Registry of built-in workloads, sorted by name.
const std::vector<WorkloadInfo>& workload_registry();
// The arguments a workload's factory receives: the named preset's values (if args has "preset"),
// overridden by the other explicit args; "preset" itself is removed. Throws ConfigError
// "workload 'w': unknown preset 'p' (known: a, b)" and for undeclared parameter names.
WorkloadArgs resolve_workload_args(const WorkloadInfo& w, const WorkloadArgs& args);
// Throws ConfigError ("unknown workload 'x' (known: a, b, ...)" / "workload 'x': unknown
// parameter 'p'" / unknown preset / bad value).
std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadArgs& args);

}  // namespace locsim
