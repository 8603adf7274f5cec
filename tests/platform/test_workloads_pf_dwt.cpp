// Rodinia particlefilter and dwt2d end to end on fermi at small sizes, with the data-integrity
// mode and the protocol checkers on. One elaboration per TEST_CASE (own process).
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

Run run(const std::string& platform, const std::string& workload, const WorkloadArgs& args) {
  ParamRegistry p;
  declare_gpu_params(p);
  load_platform(p, platform);
  p.set("check.data", "true", "test");
  p.set("check.protocol", "true", "test");
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

TEST_CASE("fermi: rodinia particlefilter frames verify", "[platform][fermi][rodinia_b]") {
  Run r = run("fermi", "particlefilter", {{"particles", "700"}, {"frames", "3"}});
  common_checks(r);
  CHECK(r.gpu->ctas_total() == 2 * 4 * 2);  // 2 frames x 4 kernels x ceil(700 / 512) CTAs
  // Every particle's arrays, ind[], CDF and u are written and verified.
  CHECK(r.out.verified_words >= 700 * 69);
}

TEST_CASE("fermi: rodinia dwt2d levels verify", "[platform][fermi][rodinia_b]") {
  Run r = run("fermi", "dwt2d", {{"width", "96"}, {"height", "80"}, {"levels", "2"}});
  common_checks(r);
  // c_CopySrcToComponents: ceil(7680 / 256) = 30 CTAs; per component fdwt53Kernel<64, 8> on
  // 96x80 (grid 2 x 10) and on the 48x40 LL band (grid 1 x 5).
  CHECK(r.gpu->ctas_total() == 30 + 3 * (2 * 10 + 1 * 5));
  // The three components, then every coefficient of both levels, are written and verified.
  CHECK(r.out.verified_words >= 3 * 7680 + 3 * (7680 + 1920));
  CHECK(r.total("sm", "shared_mem_insts") > 0);  // the lifting runs in the TransformBuffer
}
