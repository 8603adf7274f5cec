// Seed 000 §4.3 CTA clustering: Algorithm 1 and its runtime, the exact cases T1 and T4 of
// ../shared/specs/seed000.md (T2/T3 on the real syrk and matmul are in
// tests/stimuli/test_ldesc_workloads.cpp). No SystemC.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "desc_kernel.h"
#include "model/ldesc_clustering.h"

using namespace locsim;
using locsim::test::DescKernel;

namespace {

DataStructure ds(const std::string& name, std::vector<LocalityDescriptor> l) {
  return {name, 0x10000000, 1 << 20, 4, std::move(l)};
}

LocalityDescriptor coaccessed(LDim3 ctile, std::uint32_t priority = 1) {
  return inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {32, 1, 1}, ctile, {1, 0, 0},
                      32, priority);
}

bool same(const LDim3& a, const LDim3& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

std::vector<SmView> view(std::vector<std::uint32_t> free) {
  std::vector<SmView> v;
  for (std::uint32_t i = 0; i < free.size(); ++i) v.push_back({i, free[i]});
  return v;
}

void begin(CtaSchedulingPolicy& p, const Kernel& k, std::uint32_t sms, std::uint32_t slots) {
  LazyCtaAccessSets sets(k);
  GpuTopology topo;
  topo.num_sms = sms;
  p.begin_kernel(KernelLaunch{k, slots, sets, topo});
}

}  // namespace

TEST_CASE("ldesc clustering: C-Tile counts round up and clip to the grid (R0.3)", "[ldesc]") {
  CHECK(same(tile_counts({8, 4, 1}, {3, 4, 1}), {3, 1, 1}));
  CHECK(tile_count({8, 4, 1}, {1, 4, 1}) == 8);
  CHECK(tile_count({4, 14, 1}, {16, 1, 1}) == 14);  // wider than the grid: one tile across
  CHECK(tile_count({4, 14, 1}, {0, 0, 0}) == 1);    // undeclared: the whole grid
}

TEST_CASE("ldesc clustering T1: one descriptor halved along Y until every SM has a C-Tile",
          "[ldesc]") {
  // grid (8,4,1), C-Tile (1,4,1), 15 SMs: 8 C-Tiles < 15 -> (1,2,1), 16 C-Tiles.
  CHECK(same(cluster_shape({8, 4, 1}, {{1, 4, 1}}, 15), {1, 2, 1}));
  const DescKernel k({8, 4, 1}, {ds("A", {coaccessed({1, 4, 1})})});
  LDescClusterPolicy p;
  begin(p, k, 15, 8);
  REQUIRE(p.clustered());
  CHECK(same(p.shape(), {1, 2, 1}));
  REQUIRE(p.num_clusters() == 16);
  CHECK(p.cluster_ctas(0) == std::vector<std::uint32_t>{0, 8});
  CHECK(p.cluster_ctas(1) == std::vector<std::uint32_t>{1, 9});
  CHECK(p.cluster_ctas(8) == std::vector<std::uint32_t>{16, 24});
}

TEST_CASE("ldesc clustering: halving takes the largest dimension, ties X then Y (I-4)", "[ldesc]") {
  // (4,4,1) on grid 8x8 gives 4 tiles < 15: X first (ties) -> (2,4,1) 8 tiles, then Y -> (2,2,1).
  CHECK(same(cluster_shape({8, 8, 1}, {{4, 4, 1}}, 15), {2, 2, 1}));
  // Odd sizes round up: 7 -> 4 -> 2.
  CHECK(same(cluster_shape({1, 7, 1}, {{1, 7, 1}}, 3), {1, 2, 1}));
  // A grid smaller than the SM count ends at single CTAs.
  CHECK(same(cluster_shape({2, 2, 1}, {{2, 2, 1}}, 15), {1, 1, 1}));
}

TEST_CASE("ldesc clustering: a lower-priority shape widens the cluster while enough remain",
          "[ldesc]") {
  // A (prio 2) alone: (1,16,1) on 32x16 gives 32 clusters; B (prio 1) spans (4,1,1): MCLS
  // (4,16,1) leaves 8 clusters < 15: rejected. With 4 SMs it is accepted.
  const std::vector<LDim3> shapes = {{1, 16, 1}, {4, 1, 1}};
  CHECK(same(cluster_shape({32, 16, 1}, shapes, 15), {1, 16, 1}));
  CHECK(same(cluster_shape({32, 16, 1}, shapes, 4), {4, 16, 1}));
  // The descriptors are taken in priority order, ties in declaration order.
  const DescKernel k({32, 16, 1}, {ds("B", {coaccessed({4, 1, 1}, 1)}),
                                   ds("A", {coaccessed({1, 16, 1}, 2), no_reuse(5)})});
  const auto d = inter_thread_descriptors(k);
  REQUIRE(d.size() == 2);
  CHECK(d[0]->priority == 2);
  CHECK(d[1]->priority == 1);
}

TEST_CASE(
    "ldesc clustering T4: clusters stay on their SM, the next binds to the SM that runs "
    "out first, the last spreads",
    "[ldesc]") {
  // 3 clusters of 4 CTAs (grid 12, fixed shape 4), 2 SMs with 2 slots each.
  const DescKernel k({12, 1, 1}, {});
  LDescClusterPolicy p("4x1");
  begin(p, k, 2, 2);
  std::vector<CtaAssignment> out;
  p.select(view({2, 2}), out);
  CHECK(out == std::vector<CtaAssignment>{{0, 0}, {1, 4}, {0, 1}, {1, 5}});
  out.clear();
  p.select(view({1, 1}), out);  // one CTA finished on each SM
  CHECK(out == std::vector<CtaAssignment>{{0, 2}, {1, 6}});
  out.clear();
  p.select(view({0, 2}), out);  // SM 1 empties first: cluster 1 done, it binds cluster 2
  CHECK(out == std::vector<CtaAssignment>{{1, 7}, {1, 8}});
  out.clear();
  p.select(view({1, 0}), out);
  CHECK(out == std::vector<CtaAssignment>{{0, 3}});
  out.clear();
  // Cluster 0 is done and no cluster is unbound: SM 0 helps cluster 2 (the most left).
  p.select(view({2, 0}), out);
  CHECK(out == std::vector<CtaAssignment>{{0, 9}, {0, 10}});
  CHECK(p.remaining() == 1);
  out.clear();
  p.select(view({0, 1}), out);
  CHECK(out == std::vector<CtaAssignment>{{1, 11}});
  CHECK(p.remaining() == 0);
  out.clear();
  p.select(view({2, 2}), out);
  CHECK(out.empty());
}

TEST_CASE("ldesc clustering: the spreading SM helps the cluster with the most CTAs left",
          "[ldesc]") {
  StatRegistry reg;
  const DescKernel k({8, 1, 1}, {});
  LDescClusterPolicy p("4x1");
  p.register_stats(reg, "dispatcher");
  begin(p, k, 3, 1);
  std::vector<CtaAssignment> out;
  p.select(view({1, 1, 1}), out);
  // Clusters 0 and 1 bound to SMs 0 and 1; SM 2 has none left to bind: it takes cluster 0's
  // next CTA (both have 3 left: the lower index wins).
  CHECK(out == std::vector<CtaAssignment>{{0, 0}, {1, 4}, {2, 1}});
  out.clear();
  p.select(view({0, 1, 1}), out);
  // SM 1 takes its own cluster's CTA 5 first; then clusters 0 and 1 both have two left and SM 2
  // helps the lower index.
  CHECK(out == std::vector<CtaAssignment>{{1, 5}, {2, 2}});
  out.clear();
  p.select(view({0, 0, 1}), out);  // now cluster 1 has more left
  CHECK(out == std::vector<CtaAssignment>{{2, 6}});
  CHECK(reg.total("ldesc", "spread_launches") == 3);
}

TEST_CASE("ldesc clustering: a kernel without INTER-THREAD descriptors is scheduled round-robin",
          "[ldesc]") {
  const DescKernel k({6, 1, 1}, {ds("C", {no_reuse()})});
  LDescClusterPolicy p;
  begin(p, k, 3, 2);
  CHECK_FALSE(p.clustered());
  std::vector<CtaAssignment> out;
  p.select(view({2, 2, 2}), out);
  CHECK(out == std::vector<CtaAssignment>{{0, 0}, {1, 1}, {2, 2}, {0, 3}, {1, 4}, {2, 5}});
  CHECK(p.remaining() == 0);
}

TEST_CASE("ldesc clustering: every CTA is launched exactly once whatever the shape", "[ldesc]") {
  for (const char* shape : {"auto", "1x1", "3x2", "5x5x2", "64x64"}) {
    const DescKernel k({13, 7, 2}, {ds("A", {coaccessed({13, 1, 1})})});
    LDescClusterPolicy p(shape);
    begin(p, k, 15, 3);
    std::vector<int> seen(13 * 7 * 2, 0);
    std::vector<CtaAssignment> out;
    for (int round = 0; round < 100 && p.remaining(); ++round) {
      out.clear();
      p.select(view(std::vector<std::uint32_t>(15, 3)), out);
      for (const CtaAssignment& a : out) ++seen[a.cta];
    }
    INFO(shape);
    CHECK(p.remaining() == 0);
    CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(seen.size()));
  }
}

TEST_CASE("ldesc clustering: shape parameter", "[ldesc]") {
  LDim3 s;
  CHECK_FALSE(parse_cluster_shape("auto", s));
  REQUIRE(parse_cluster_shape("4x2", s));
  CHECK(same(s, {4, 2, 1}));
  REQUIRE(parse_cluster_shape("1x8x2", s));
  CHECK(same(s, {1, 8, 2}));
  for (const char* bad : {"", "0x1", "4x", "x4", "4x2x1x1", "-1x2", "4*2", "1234567x1"})
    CHECK_THROWS_WITH(parse_cluster_shape(bad, s), Catch::Contains("shape '"));
  CHECK_THROWS(make_cta_policy("ldesc-cluster", {{"shape", "2y2"}}));
  CHECK(std::string(make_cta_policy("ldesc-cluster", {{"shape", "2x2"}})->name()) ==
        "ldesc-cluster");
}
