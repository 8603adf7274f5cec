// Functional replay of a workload on a platform's cache hierarchy (model/functional_hierarchy):
// no SystemC simulation, no timing. Used by 'locsim replay' and as the speed ceiling of the timed
// model (docs/replay.md).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/functional_hierarchy.h"
#include "model/workload/kernel.h"
#include "platforms/gpu_params.h"

namespace locsim {

// The functional view of a platform configuration (SM count, occupancy limits, L1/L2 geometry,
// l1d.enabled). The address map is the caller's AddressMap built from c.address_map. Timing, MSHR
// and queue parameters have no effect here.
FunctionalConfig functional_config(const GpuConfig& c);

struct ReplayResult {
  std::string platform, workload;
  std::vector<FunctionalHierarchy::KernelRecord> kernels;
  StatSnapshot end;
  double wall_s = 0;
  double peak_rss_mb = 0;
  double cta_policy_analysis_s = 0;
  std::uint64_t warp_insts = 0;
  double warp_insts_per_s() const {
    return wall_s > 0 ? static_cast<double>(warp_insts) / wall_s : 0;
  }
};

// Runs every kernel of w on h (L1s invalidated at each kernel start) and times it.
ReplayResult run_replay(FunctionalHierarchy& h, const Workload& w, const std::string& platform);

// Readable table: statistics per kind (sum over instances), derived miss rates, host speed and a
// line per kernel.
std::string replay_table(const FunctionalHierarchy& h, const ReplayResult& r);
// The timed model's JSON layout (docs/stats.md) without cycles / ipc, plus "mode": "replay".
nlohmann::json replay_json(const FunctionalHierarchy& h, const ReplayResult& r);

}  // namespace locsim
