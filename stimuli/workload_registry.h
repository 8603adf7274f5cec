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
};

// Registry of built-in workloads, sorted by name.
const std::vector<WorkloadInfo>& workload_registry();
// Throws ConfigError ("unknown workload 'x' (known: a, b, ...)" / "workload 'x': unknown
// parameter 'p'" / bad value).
std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadArgs& args);

}  // namespace locsim
