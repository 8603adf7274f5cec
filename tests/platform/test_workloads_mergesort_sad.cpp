// CUDA SDK mergeSort and Parboil sad end to end on fermi at small sizes, with the
// data-integrity mode and the protocol checkers on. One elaboration per TEST_CASE (own process).
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

Run run(const std::string& platform, const std::string& workload, const WorkloadArgs& args,
        const std::vector<std::pair<std::string, std::string>>& sets = {}) {
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

void common_checks(Run& r) {
  REQUIRE(r.out.ok);
  CHECK(r.gpu->ctas_completed() == r.gpu->ctas_total());
  CHECK(r.gpu->context().pool.in_use() == 0);
  CHECK(r.out.cycles > 0);
  CHECK(r.total("sm", "warp_insts") > 0);
  CHECK(r.total("l1d", "accesses") > 0);
  CHECK(r.total("dram", "reads") > 0);
  CHECK(r.total("noc", "requests") == r.total("noc", "replies"));
}
}  // namespace

TEST_CASE("fermi: sdk mergesort stages verify", "[platform][fermi][sdk_parboil][mergesort]") {
  Run r = run("fermi", "mergesort", {{"n", "4096"}});
  common_checks(r);
  // 4 sorting CTAs, then per stage 1 + 1 + 1 rank/limit CTAs and 32 interval CTAs.
  CHECK(r.gpu->ctas_total() == 4 + 2 * (3 + 32));
  CHECK(r.total("l1d", "hits") + r.total("l1d", "mshr_hits") > 0);  // co-accessed probes
  CHECK(r.out.verified_words > 0);
}

TEST_CASE("fermi: parboil sad three kernels verify", "[platform][fermi][sdk_parboil][sad]") {
  Run r = run("fermi", "sad", {{"width", "32"}, {"height", "32"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 8 * 8 + 2 * 2 + 2 * 2);
  CHECK(r.total("l1d", "hits") > 0);  // overlapping search windows
  CHECK(r.out.verified_words > 0);
}
