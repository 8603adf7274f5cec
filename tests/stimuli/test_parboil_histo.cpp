// Parboil histo (histo_main_kernel): launch shape, the Fig. 8 column bands, and that every pixel
// is counted exactly once, by its range's CTA in shared memory or on the global path.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "model/workload/locality_tiles.h"
#include "stimuli/workload_registry.h"
#include "stimuli_test_helpers.h"

using namespace locsim;
using namespace locsim::test;

namespace {
constexpr std::uint32_t kRow = 14 * 768;  // elements per row of sm_mappings (grid-stride)
constexpr std::uint32_t kPcSharedAtomLoad = 0x028, kPcGlobalLoad = 0x040;

std::uint32_t lanes(const WarpInst& in) {
  return static_cast<std::uint32_t>(__builtin_popcount(in.active_mask));
}
}  // namespace

TEST_CASE("histo: default launch is 14 x 8 CTAs of 768 threads with 24 KB shared",
          "[stimuli][histo]") {
  auto wl = make_workload("histo", {});
  REQUIRE(wl->kernels().size() == 1);
  const Kernel& k = *wl->kernels()[0];
  CHECK(k.name() == "histo_main_kernel");
  CHECK(k.grid().x == 14);
  CHECK(k.grid().y == 8);
  CHECK(k.threads_per_cta() == 768);
  CHECK(k.shared_mem_bytes() == 24 * 1024);
  const DataStructure& sm = k.data().at(0);
  CHECK(sm.name == "sm_mappings");
  CHECK(sm.bytes == 996u * 1040 * 4);
  // Fig. 9: D-Tile (X_tile, Y_len, 1), C-Tile (1, gridDim.y, 1), map (1,0,0), stride X_len
  const std::uint32_t rows = (996 * 1040 + kRow - 1) / kRow;
  REQUIRE(sm.locality.size() == 1);
  const LocalityDescriptor& d = sm.locality[0];
  CHECK(describe(d) == "INTER-THREAD (COACCESSED, REGULAR)");
  CHECK(d.tile.data_tile.x == 768);
  CHECK(d.tile.data_tile.y == rows);
  CHECK(d.tile.compute_tile.x == 1);
  CHECK(d.tile.compute_tile.y == 8);
  CHECK(d.semantics.stride == kRow);
  CHECK(sm.shape.x == kRow);
  CHECK(check_tiles(k.grid(), sm, d).empty());
}

TEST_CASE("histo: each CTA column reads its 768-element band of every row once",
          "[stimuli][histo]") {
  // 300 x 100 = 30000 pixels: rows 0, 1 full (10752 each), row 2 has 8496 elements
  auto wl = make_workload("histo", {{"width", "300"}, {"height", "100"}, {"ranges", "3"}});
  const Kernel& k = *wl->kernels()[0];
  REQUIRE(k.grid().x == 14);
  REQUIRE(k.grid().y == 3);
  check_pcs(k);
  const Addr base = base_of(k, "sm_mappings");
  for (std::uint32_t cta : {0u, 5u, 13u, 25u, 41u}) {
    const std::uint32_t x = cta % 14;
    std::multiset<std::uint64_t> got;
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w)
      for (const WarpInst& in : only(drain(k, cta, w), WarpOp::Load)) {
        if (in.pc != 0x018) continue;  // the sm_mappings load
        for (unsigned l = 0; l < 32; ++l)
          if ((in.active_mask >> l) & 1u) got.insert((in.addr[l] - base) / 4);
      }
    std::multiset<std::uint64_t> want;
    for (std::uint64_t i = 0; i < 30000; ++i)
      if ((i % kRow) / 768 == x) want.insert(i);
    INFO("CTA " << cta);
    CHECK(got == want);
  }
}

TEST_CASE("histo: every pixel is counted exactly once, in shared memory or globally",
          "[stimuli][histo]") {
  // In-region pixels are counted by the one CTA of their column whose range they fall in;
  // the others go to the global histogram, checked by the column's blockIdx.y = 0 CTA only.
  auto wl = make_workload("histo", {{"width", "400"}, {"height", "300"}, {"ranges", "2"}});
  const Kernel& k = *wl->kernels()[0];
  std::uint64_t shared = 0, global = 0;
  for (std::uint32_t cta = 0; cta < k.num_ctas(); ++cta)
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w)
      for (const WarpInst& in : drain(k, cta, w)) {
        if (in.op == WarpOp::SharedLoad && in.pc == kPcSharedAtomLoad) shared += lanes(in);
        if (in.op == WarpOp::Load && in.pc == kPcGlobalLoad) {
          CHECK(cta < 14);  // blockIdx.y == 0
          global += lanes(in);
        }
      }
  CHECK(shared + global == 400u * 300);
  CHECK(shared > 100u * global);  // the bell curve keeps nearly all pixels in the region
  CHECK(global > 0);              // the outliers (1/128) mostly fall outside it
}

TEST_CASE("histo: copyMemory adds each CTA's 24K bins into its own range of global_subhisto",
          "[stimuli][histo]") {
  auto wl = make_workload("histo", {{"width", "64"}, {"height", "64"}, {"ranges", "3"}});
  const Kernel& k = *wl->kernels()[0];
  const Addr sub = base_of(k, "global_subhisto"), sub_end = base_of(k, "global_histo");
  const std::uint32_t range_min = (43 - 3) / 2;  // 1M bins = 43 ranges of 24K, region centred
  const std::uint32_t cta = 2 * 14 + 6;          // blockIdx = (6, 2)
  std::set<std::uint64_t> words;
  std::uint64_t atomics = 0;
  for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w)
    for (const WarpInst& in : only(drain(k, cta, w), WarpOp::Atomic))
      for (unsigned l = 0; l < 32; ++l)
        if (((in.active_mask >> l) & 1u) && in.addr[l] >= sub && in.addr[l] < sub_end) {
          words.insert((in.addr[l] - sub) / 4);
          ++atomics;
        }
  CHECK(atomics == 24u * 1024);
  REQUIRE(words.size() == 24u * 1024);
  CHECK(*words.begin() == (range_min + 2) * 24u * 1024);
  CHECK(*words.rbegin() == (range_min + 3) * 24u * 1024 - 1);
}

TEST_CASE("histo: parameter errors name the parameter", "[stimuli][histo]") {
  CHECK(error_of("histo", {{"ranges", "0"}}).find("'ranges'") != std::string::npos);
  CHECK(error_of("histo", {{"ranges", "44"}}).find("at most the 43 ranges") != std::string::npos);
  CHECK(error_of("histo", {{"width", "16384"}, {"height", "2048"}}).find("width*height") !=
        std::string::npos);
}
