// Seed 000 Algorithm 1 on the descriptors the real workloads declare: the spec's T2 (syrk) and
// T3 (matmul) exact cases.
#include <catch2/catch.hpp>

#include "model/ldesc_clustering.h"
#include "model/numa_partition.h"
#include "model/workload/locality_tiles.h"
#include "stimuli/workload_registry.h"

using namespace locsim;

namespace {
std::vector<LDim3> ctiles(const Kernel& k) {
  std::vector<LDim3> v;
  for (const LocalityDescriptor* d : inter_thread_descriptors(k)) v.push_back(d->tile.compute_tile);
  return v;
}
bool same(const LDim3& a, const LDim3& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
}  // namespace

TEST_CASE("ldesc clustering T2: syrk n=112 keeps A's (2,1,1), A' would leave 8 clusters",
          "[ldesc][stimuli]") {
  const auto w = make_workload("syrk", {{"n", "112"}});
  const Kernel& k = *w->kernels().at(0);
  REQUIRE(k.grid().x == 4);
  REQUIRE(k.grid().y == 14);
  const auto t = ctiles(k);
  REQUIRE(t.size() == 2);
  CHECK(same(t[0], {4, 1, 1}));  // priority 2 first
  CHECK(same(t[1], {1, 14, 1}));
  const LDim3 cls = cluster_shape(k.grid(), t, 15);
  CHECK(same(cls, {2, 1, 1}));
  CHECK(tile_count(k.grid(), cls) == 28);
}

TEST_CASE("ldesc clustering T3: matmul n=256 clusters block rows", "[ldesc][stimuli]") {
  const auto w = make_workload("matmul", {{"n", "256"}});
  const Kernel& k = *w->kernels().at(0);
  const LDim3 cls = cluster_shape(k.grid(), ctiles(k), 15);
  CHECK(same(cls, {16, 1, 1}));
  CHECK(tile_count(k.grid(), cls) == 16);
}

TEST_CASE("ldesc clustering: Parboil histo splits its column C-Tiles in two (Fig. 12)",
          "[ldesc][stimuli]") {
  // grid (14,8), C-Tile (1,8,1): CT_NUM 14 < 15 SMs -> (1,4,1), 28 clusters of 4 CTAs
  const auto w = make_workload("histo", {});
  const Kernel& k = *w->kernels().at(0);
  const LDim3 cls = cluster_shape(k.grid(), ctiles(k), 15);
  CHECK(same(cls, {1, 4, 1}));
  CHECK(tile_count(k.grid(), cls) == 28);
}

TEST_CASE("ldesc: every workload's INTER-THREAD descriptors are consistent with their grid",
          "[ldesc][stimuli]") {
  // Known approximations, each with more C-Tiles than D-Tiles (some CTAs have no D-Tile of the
  // structure, so NUMA placement has nothing to place for them): heartwall's per-point arrays
  // belong to the endo or the epi points only while the grid has a CTA per point of both;
  // hotspot's CTAs overlap (a 16x16 input tile per CTA, a smaller core) so 43x43 CTAs tile a
  // 512x512 array whose 16x16 D-Tiles number 32x32.
  const auto known = [](const std::string& w, const std::string& why) {
    return (w == "heartwall" || w == "hotspot") &&
           why.find("C-Tiles but only") != std::string::npos;
  };
  for (const WorkloadInfo& info : workload_registry()) {
    const auto w = make_workload(info.name, {});
    for (const auto& k : w->kernels())
      for (const DataStructure& ds : k->data())
        for (const LocalityDescriptor& d : ds.locality) {
          const std::string why = check_tiles(k->grid(), ds, d);
          INFO(info.name << " " << k->name() << " " << ds.name << ": " << why);
          CHECK((why.empty() || known(info.name, why)));
        }
  }
}

TEST_CASE("numa: the tile maps of Parboil histo follow Fig. 9", "[numa][stimuli]") {
  const auto w = make_workload("histo", {});
  const Kernel& k = *w->kernels().at(0);
  const auto maps = numa_tile_maps(k);
  REQUIRE(maps.size() == 1);  // sm_mappings; the outputs are NO-REUSE
  CHECK(maps[0].name == "sm_mappings");
  CHECK(maps[0].num_tiles() == 14);
  CHECK(maps[0].cta_tile[0] == 0);
  CHECK(maps[0].cta_tile[14] == 0);  // CTA (0, 1): the same column band
  CHECK(maps[0].cta_tile[13] == 13);
}
