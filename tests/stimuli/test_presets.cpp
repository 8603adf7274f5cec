// Named size presets (--set workload.preset=NAME): resolution, overrides, errors, and the CTA
// counts of the "paver" preset against PAVER's Table 2 (Tripathy et al., TACO 2021, §6.2).
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/params.h"
#include "stimuli/workload_registry.h"
#include "stimuli_test_helpers.h"

using namespace locsim;
using locsim::test::error_of;

namespace {

// Per kernel name, the CTA count of every launch of that name.
struct PaverRow {
  const char* workload;
  std::map<std::string, std::uint64_t> ctas;
};

}  // namespace

TEST_CASE("paver preset: CTA counts of PAVER's Table 2", "[stimuli][presets]") {
  // Table 2's TB count is the first figure of each row; where locsim cannot reach it the
  // closest count is used (docs/workloads.md, "Size presets").
  const std::vector<PaverRow> rows = {
      {"matmul", {{"MatrixMulCUDA", 169}}},
      {"hotspot", {{"calculate_temp", 1849}}},
      {"pathfinder", {{"dynproc_kernel", 463}}},
      {"srad", {{"srad_cuda_1", 16384}, {"srad_cuda_2", 16384}}},
      {"btree", {{"findK", 10000}, {"findRangeK", 6000}}},
      {"syrk", {{"syrk_kernel", 256}}},
      {"syr2k", {{"syr2k_kernel", 256}}},
      {"heartwall", {{"kernel", 51}}},
      // Table 2: 32768 (4M keys); the library stops at 1M keys (8192 merge CTAs).
      {"mergesort",
       {{"mergeSortSharedKernel", 1024},
        {"generateSampleRanksKernel", 16},
        {"mergeRanksAndIndicesKernel", 16},
        {"mergeElementaryIntervalsKernel", 8192}}},
      {"dwt2d", {{"c_CopySrcToComponents", 4096}}},
      {"spmv", {{"spmv_csr_scalar_kernel", 765}}},
      {"sad", {{"mb_sad_calc", 1584}, {"larger_sad_calc_8", 99}, {"larger_sad_calc_16", 99}}},
      {"blackscholes", {{"BlackScholesGPU", 480}}},
      {"backprop", {{"bpnn_layerforward_CUDA", 4096}, {"bpnn_adjust_weights_cuda", 4096}}},
      {"bfs", {{"Kernel", 3907}, {"Kernel2", 3907}}},
      {"storegpu", {{"sha1_overlap", 384}}},
      {"tpacf", {{"gen_hists", 201}}},
  };
  for (const auto& row : rows) {
    INFO(row.workload);
    auto wl = make_workload(row.workload, {{"preset", "paver"}});
    REQUIRE_FALSE(wl->kernels().empty());
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < wl->kernels().size(); ++i) {
      const Kernel& k = *wl->kernels()[i];
      INFO("kernel " << i << " " << k.name());
      auto it = row.ctas.find(k.name());
      if (row.workload == std::string("dwt2d") && k.name() == "fdwt53Kernel") {
        // 1024x1024, 3 levels: 90, 52, 44 CTAs per component (sliding 64x8*steps windows)
        static const std::uint64_t kLevels[3] = {90, 52, 44};
        CHECK(k.num_ctas() == kLevels[(i - 1) % 3]);
        ++seen[k.name()];
        continue;
      }
      REQUIRE(it != row.ctas.end());
      CHECK(k.num_ctas() == it->second);
      ++seen[k.name()];
    }
    for (const auto& kv : row.ctas) CHECK(seen[kv.first] > 0);
  }
}

TEST_CASE("presets: every declared preset builds", "[stimuli][presets]") {
  for (const auto& w : workload_registry())
    for (const auto& p : w.presets) {
      INFO(w.name << " preset " << p.first);
      CHECK_NOTHROW(make_workload(w.name, {{"preset", p.first}}));
    }
}

TEST_CASE("presets: explicit values override the preset's", "[stimuli][presets]") {
  auto wl = make_workload("matmul", {{"preset", "paver"}, {"n", "32"}});
  REQUIRE(wl->kernels().size() == 1);
  CHECK(wl->kernels()[0]->num_ctas() == 4);
  // resolve_workload_args: the preset's values, explicit ones on top, "preset" removed
  const WorkloadInfo* info = nullptr;
  for (const auto& w : workload_registry())
    if (w.name == "pathfinder") info = &w;
  REQUIRE(info != nullptr);
  const WorkloadArgs a = resolve_workload_args(*info, {{"preset", "paver"}, {"rows", "7"}});
  CHECK(a == WorkloadArgs{{"cols", "100000"}, {"rows", "7"}, {"pyramid_height", "20"}});
  CHECK(resolve_workload_args(*info, {{"rows", "7"}}) == WorkloadArgs{{"rows", "7"}});
}

TEST_CASE("presets: unknown preset names the workload, the preset and the known ones",
          "[stimuli][presets]") {
  CHECK(error_of("matmul", {{"preset", "huge"}}) ==
        "workload 'matmul': unknown preset 'huge' (known: paver)");
  CHECK(error_of("vecadd", {{"preset", "paver"}}) ==
        "workload 'vecadd': unknown preset 'paver' (known: none)");
  // other names are still checked against the declared parameters, with or without a preset
  CHECK(error_of("matmul", {{"preset", "paver"}, {"size", "3"}}) ==
        "workload 'matmul': unknown parameter 'size' (known: n)");
  // bad explicit values are still reported against the parameter
  CHECK_THAT(error_of("matmul", {{"preset", "paver"}, {"n", "17"}}),
             Catch::Contains("parameter 'n': bad value '17'"));
}

TEST_CASE("bfs: threads parameter sets MAX_THREADS_PER_BLOCK", "[stimuli][presets][bfs]") {
  auto wl = make_workload("bfs", {{"nodes", "1000"}, {"threads", "256"}});
  REQUIRE(wl->kernels().size() >= 2);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.num_ctas() == 4);
  CHECK(k.threads_per_cta() == 256);
  // tid = blockIdx.x * 256 + threadIdx.x: CTA 3's first load (g_graph_mask[tid]) is at tid 768
  const auto v = locsim::test::drain(k, 3, 0);
  const auto loads = locsim::test::only(v, WarpOp::Load);
  REQUIRE_FALSE(loads.empty());
  const Addr mask_base = k.data()[2].base;
  CHECK(loads[0].addr[0] == mask_base + 768);
  CHECK(loads[0].addr[5] == mask_base + 773);
  CHECK_THAT(error_of("bfs", {{"threads", "100"}}), Catch::Contains("parameter 'threads'"));
}
