// Seed 004 on fermi: the L1 bypass path, static warp limiting and model-driven bypassing, with
// the data-integrity mode and protocol checkers. One elaboration per TEST_CASE (own process);
// comparisons between configurations are in tests/cli/test_bypass_cli.cpp.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "model/params.h"
#include "platforms/gpu_params.h"
#include "platforms/gpu_platform.h"
#include "stimuli/kernel.h"

using namespace locsim;

namespace {
struct Run {
  std::unique_ptr<Workload> wl;
  std::unique_ptr<GpuPlatform> gpu;
  RunOutcome out;
  std::uint64_t total(const char* kind, const char* name) {
    return gpu->context().stats.total(kind, name);
  }
};

Run run(const std::string& workload, const WorkloadArgs& args,
        const std::vector<std::pair<std::string, std::string>>& sets) {
  ParamRegistry p;
  declare_gpu_params(p);
  load_platform(p, "fermi");
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

void common(Run& r) {
  REQUIRE(r.out.ok);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->ctas_completed() == r.gpu->ctas_total());
  CHECK(r.gpu->context().pool.in_use() == 0);
  CHECK(r.total("noc", "requests") == r.total("noc", "replies"));
}
}  // namespace

TEST_CASE("fermi: static bypass sends every global load past the L1 with verified data",
          "[platform][bypass]") {
  Run r = run("matmul", {{"n", "64"}}, {{"l1d.bypass", "all"}});
  common(r);
  const std::uint64_t loads =
      r.total("l1d", "accesses") - r.total("l1d", "stores") - r.total("l1d", "atomics");
  CHECK(loads > 0);
  CHECK(r.total("l1d", "bypassed") == loads);
  CHECK(r.total("l1d", "hits") == 0);
  CHECK(r.total("l1d", "misses") == 0);
  CHECK(r.total("l1d", "fills") == 0);  // no line was allocated
  CHECK(r.total("l1d", "reservation_fails") == r.total("l1d", "rf_miss_queue"));
  // Every bypassed load is its own NoC request (intra-warp coalescing kept, no L1 merging).
  CHECK(r.total("noc", "read_requests") == loads);
}

TEST_CASE("fermi: static warp limiting with one warp still completes barriers", "[platform][swl]") {
  // matmul has 8 warps per CTA and two barriers per tile: with K=1 the oldest warp waits at the
  // barrier, so the next one must be allowed to issue.
  Run r = run("matmul", {{"n", "64"}}, {{"sm.warp_limit", "1"}});
  common(r);
  CHECK(r.total("sm", "warp_insts") > 0);
}
