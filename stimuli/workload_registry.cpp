#include "stimuli/workload_registry.h"

#include <algorithm>

#include "model/params.h"
#include "stimuli/builtin_workloads.h"
#include "stimuli/workload_args.h"

namespace locsim {

namespace {

std::vector<WorkloadInfo> builtin_workload_list() {
  std::vector<WorkloadInfo> v = {histogram_workload(), laplace_workload()};
  for (auto suite : {polybench_workloads, rodinia_workloads, cuda_sdk_workloads, parboil_workloads})
    for (WorkloadInfo& w : suite()) v.push_back(std::move(w));
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
