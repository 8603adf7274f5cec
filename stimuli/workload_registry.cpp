#include "stimuli/workload_registry.h"

#include <algorithm>

#include "model/params.h"
#include "stimuli/builtin_workloads.h"
#include "stimuli/workload_args.h"

namespace locsim {

namespace {

std::vector<WorkloadInfo> builtin_workload_list() {
  std::vector<WorkloadInfo> v = {histogram_workload(), laplace_workload(), storegpu_workload(),
                                 latency_chain_workload()};
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

WorkloadArgs resolve_workload_args(const WorkloadInfo& w, const WorkloadArgs& args) {
  // "preset" is accepted by every workload; the other names must be declared parameters.
  WorkloadArgs explicit_args = args;
  explicit_args.erase(kPresetParam);
  check_workload_args(w.name, w.params, explicit_args);
  auto p = args.find(kPresetParam);
  if (p == args.end()) return args;
  auto preset = w.presets.find(p->second);
  if (preset == w.presets.end()) {
    std::string known;
    for (const auto& kv : w.presets) known += (known.empty() ? "" : ", ") + kv.first;
    throw ConfigError("workload '" + w.name + "': unknown preset '" + p->second +
                      "' (known: " + (known.empty() ? "none" : known) + ")");
  }
  WorkloadArgs out = preset->second;
  for (const auto& kv : args)
    if (kv.first != kPresetParam) out[kv.first] = kv.second;  // explicit values win
  check_workload_args(w.name, w.params, out);  // a preset may only name declared parameters
  return out;
}

std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadArgs& args) {
  const auto& reg = workload_registry();
  for (const auto& w : reg) {
    if (w.name != name) continue;
    return w.make(resolve_workload_args(w, args));
  }
  std::string known;
  for (const auto& w : reg) known += (known.empty() ? "" : ", ") + w.name;
  throw ConfigError("unknown workload '" + name + "' (known: " + known + ")");
}

}  // namespace locsim
