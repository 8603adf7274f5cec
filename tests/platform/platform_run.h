// Shared by the platform tests: elaborate one platform (data-integrity mode and protocol
// checkers on), run one workload to completion and read its statistics. One per test process.
#pragma once
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/params.h"
#include "platforms/gpu_params.h"
#include "platforms/gpu_platform.h"
#include "stimuli/workload_registry.h"

namespace locsim::test {

struct Run {
  std::unique_ptr<Workload> wl;
  std::unique_ptr<GpuPlatform> gpu;
  RunOutcome out;
  std::uint64_t total(const char* kind, const char* name) {
    return gpu->context().stats.total(kind, name);
  }
};

using Settings = std::vector<std::pair<std::string, std::string>>;

inline Run run(const std::string& platform, const std::string& workload, const WorkloadArgs& args,
               const Settings& sets = {}) {
  ParamRegistry p;
  declare_gpu_params(p);
  load_platform(p, platform);
  p.set("check.data", "true", "test");
  p.set("check.protocol", "true", "test");
  for (auto& kv : sets) p.set(kv.first, kv.second, "test");
  Run r;
  r.wl = make_workload(workload, args);
  r.gpu = std::make_unique<GpuPlatform>("gpu", make_gpu_config(p));
  r.gpu->load(*r.wl);
  r.out = r.gpu->simulate();
  for (auto& f : r.out.failures) UNSCOPED_INFO(f);
  return r;
}

// What every completed run must satisfy.
inline void common_checks(Run& r) {
  REQUIRE(r.out.ok);
  CHECK(r.gpu->ctas_completed() == r.gpu->ctas_total());
  CHECK(r.gpu->context().pool.in_use() == 0);
  CHECK(r.out.cycles > 0);
  CHECK(r.total("sm", "warp_insts") > 0);
  CHECK(r.total("l1d", "accesses") > 0);
  CHECK(r.total("dram", "reads") > 0);
  CHECK(r.total("noc", "requests") == r.total("noc", "replies"));
}

}  // namespace locsim::test
