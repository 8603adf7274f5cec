#include "stimuli/kernel.h"

#include <algorithm>

#include "model/params.h"
#include "stimuli/builtin_workloads.h"
#include "stimuli/workload_args.h"

namespace locsim {

const char* to_string(WarpOp op) {
  switch (op) {
    case WarpOp::Compute:
      return "compute";
    case WarpOp::Load:
      return "load";
    case WarpOp::Store:
      return "store";
    case WarpOp::Atomic:
      return "atomic";
    case WarpOp::SharedLoad:
      return "shared_load";
    case WarpOp::SharedStore:
      return "shared_store";
    case WarpOp::Barrier:
      return "barrier";
    case WarpOp::Exit:
      return "exit";
  }
  return "?";
}

namespace {

std::vector<WorkloadInfo> builtin_workload_list() {
  std::vector<WorkloadInfo> v = {vecadd_workload(), matmul_workload(), histogram_workload()};
  for (auto batch :
       {polybench_workloads, rodinia_workloads, rodinia_b_workloads, sdk_parboil_workloads})
    for (WorkloadInfo& w : batch()) v.push_back(std::move(w));
  return v;
}

}  // namespace

const std::vector<WorkloadInfo>& workload_registry() {
  static const std::vector<WorkloadInfo> reg = [] {
    std::vector<WorkloadInfo> v = builtin_workload_list();
    std::sort(v.begin(), v.end(),
              [](const WorkloadInfo& a, const WorkloadInfo& b) { return a.name < b.name; });
    return v;
  }();
  return reg;
}

std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadArgs& args) {
  const auto& reg = workload_registry();
  for (const auto& w : reg) {
    if (w.name != name) continue;
    check_workload_args(w.name, w.params, args);
    return w.make(args);
  }
  std::string known;
  for (const auto& w : reg) known += (known.empty() ? "" : ", ") + w.name;
  throw ConfigError("unknown workload '" + name + "' (known: " + known + ")");
}

}  // namespace locsim
