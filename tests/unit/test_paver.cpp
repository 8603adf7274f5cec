// PAVER (seed 003): locality graph, Prim order, METIS k-way and recursive bisection, MST grouping,
// the group-queue runtime with task stealing, and the policies. Cases T3-T10 of
// ../shared/specs/seed003.md §6.1 (T1/T2 on the real workloads are in tests/stimuli).
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cta_launch.h"
#include "model/graph_partition.h"
#include "model/locality_graph.h"
#include "model/paver_policy.h"
#include "reads_kernel.h"

using namespace locsim;
using locsim::test::ReadsKernel;

namespace {

using Edges = std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>>;

// Two 4-cliques {0..3}, {4..7} with internal weight 10 and one bridge w(3,4) = 1 (T5, T6).
LocalityGraph two_cliques() {
  Edges e;
  for (std::uint32_t base : {0u, 4u})
    for (std::uint32_t i = 0; i < 4; ++i)
      for (std::uint32_t j = i + 1; j < 4; ++j) e.emplace_back(base + i, base + j, 10);
  e.emplace_back(3, 4, 1);
  return LocalityGraph::from_edges(8, e);
}

std::set<std::uint32_t> as_set(const CtaGroup& g) {
  return {g.begin(), g.end()};
}

std::vector<SmView> view(const std::vector<std::uint32_t>& free) {
  std::vector<SmView> v;
  for (std::uint32_t i = 0; i < free.size(); ++i) v.push_back(SmView{i, free[i]});
  return v;
}

GpuTopology topo(std::uint32_t n) {
  GpuTopology t;
  t.num_sms = n;
  return t;
}

}  // namespace

TEST_CASE("LocalityGraph: CSR from edges, weights, sparsity score", "[paver]") {
  const LocalityGraph g = LocalityGraph::from_edges(4, {{0, 1, 5}, {1, 0, 2}, {2, 3, 1}});
  CHECK(g.num_edges() == 2);
  CHECK(g.weight(0, 1) == 7);  // listed twice: weights add
  CHECK(g.weight(1, 0) == 7);
  CHECK(g.weight(0, 2) == 0);
  CHECK(g.total_weight() == 8);
  CHECK(g.xadj == std::vector<std::uint64_t>{0, 1, 2, 3, 4});
  CHECK(g.sparsity_score() == Approx(1.0 - 4.0 / 16.0));
  CHECK_THROWS_AS(LocalityGraph::from_edges(2, {{0, 0, 1}}), std::invalid_argument);
  CHECK_THROWS_AS(LocalityGraph::from_edges(2, {{0, 2, 1}}), std::invalid_argument);
}

TEST_CASE("build_locality_graph: weights count shared elements read, not stores", "[paver]") {
  // CTA 0 reads elements 0..3 (16 B), CTA 1 reads 2..5, CTA 2 reads 5 twice and 100.
  ReadsKernel k({{{0, 4, 8, 12}}, {{8, 12, 16, 20}}, {{20, 20, 400}}}, 1);
  const LocalityGraphBuild b = build_locality_graph(k);
  CHECK(b.graph.num_vertices == 3);
  CHECK(b.graph.weight(0, 1) == 2);
  CHECK(b.graph.weight(1, 2) == 1);
  CHECK(b.graph.weight(0, 2) == 0);
  CHECK(b.read_refs == 11);
  CHECK(b.read_elements == 7);
  CHECK(b.shared_elements == 3);
  // At 16 B granularity CTA 0 and 1 share elements 0x0 (bytes 8..15) ... and 0x10.
  LocalityGraphOptions o;
  o.element_bytes = 16;
  const LocalityGraphBuild c = build_locality_graph(k, o);
  CHECK(c.graph.weight(0, 1) == 1);
  CHECK(c.graph.weight(1, 2) == 1);
  // The cap drops elements read by more than one CTA here.
  o.element_bytes = 4;
  o.max_sharers = 1;
  const LocalityGraphBuild d = build_locality_graph(k, o);
  CHECK(d.graph.num_edges() == 0);
  CHECK(d.capped_elements == 3);
  o.element_bytes = 3;
  CHECK_THROWS_AS(build_locality_graph(k, o), std::invalid_argument);
}

TEST_CASE("build_locality_graph: identical sharer sets are merged, weights stay exact", "[paver]") {
  // Four CTAs all read the same 100 elements; CTAs 0 and 3 also share 7 more.
  std::vector<Addr> common;
  for (Addr i = 0; i < 100; ++i) common.push_back(4 * i);
  ReadsKernel::Reads r(4, std::vector<std::vector<Addr>>(1, common));
  for (Addr i = 0; i < 7; ++i) {
    r[0][0].push_back(4096 + 4 * i);
    r[3][0].push_back(4096 + 4 * i);
  }
  ReadsKernel k(r, 1);
  const LocalityGraphBuild b = build_locality_graph(k);
  CHECK(b.sharer_lists == 2);
  CHECK(b.graph.num_edges() == 6);
  CHECK(b.graph.weight(1, 2) == 100);
  CHECK(b.graph.weight(0, 3) == 107);
  CHECK(b.graph.sparsity_score() == Approx(1.0 - 12.0 / 16.0));
}

TEST_CASE("T3: Prim's maximum spanning tree order, ties and restarts", "[paver]") {
  const LocalityGraph g =
      LocalityGraph::from_edges(4, {{0, 1, 5}, {0, 2, 1}, {1, 3, 4}, {2, 3, 6}});
  CHECK(prim_order(g) == std::vector<std::uint32_t>{0, 1, 3, 2});
  const LocalityGraph h =
      LocalityGraph::from_edges(5, {{0, 1, 5}, {0, 2, 1}, {1, 3, 4}, {2, 3, 6}});
  CHECK(prim_order(h) == std::vector<std::uint32_t>{0, 1, 3, 2, 4});
  // Equal weights: the lowest id first.
  const LocalityGraph t = LocalityGraph::from_edges(4, {{0, 3, 2}, {0, 2, 2}, {0, 1, 2}});
  CHECK(prim_order(t) == std::vector<std::uint32_t>{0, 1, 2, 3});
  // On an induced subgraph: edges leaving the subset are ignored; it starts at its lowest id.
  CHECK(prim_order(g, {3, 2, 1}) == std::vector<std::uint32_t>{1, 3, 2});
}

TEST_CASE("MST-TS first groups shrink so that every SM gets one when TBs < N*x", "[paver]") {
  // 10 TBs without edges (Prim order 0..9), 4 SMs x 8 CTAs: groups of x = 8 would feed only two
  // SMs; groups of floor(10/4) = 2 feed all four, the remaining TBs are groups of one.
  const LocalityGraph g = LocalityGraph::from_edges(10, {});
  CHECK(mst_groups(g, 4, 8) == std::vector<CtaGroup>{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8}, {9}});
  // Enough TBs: the paper's size x.
  CHECK(mst_groups(g, 2, 3) == std::vector<CtaGroup>{{0, 1, 2}, {3, 4, 5}, {6}, {7}, {8}, {9}});
  // Fewer TBs than SMs: groups of one.
  CHECK(mst_groups(LocalityGraph::from_edges(3, {}), 4, 8) == std::vector<CtaGroup>{{0}, {1}, {2}});
}

TEST_CASE("T4: MST-TS grouping and its issue order", "[paver]") {
  const std::vector<CtaGroup> groups = mst_grouping({0, 4, 1, 5, 2, 3, 7, 6}, 2, 2);
  CHECK(groups == std::vector<CtaGroup>{{0, 4}, {1, 5}, {2}, {3}, {7}, {6}});
  TbGroupRuntime rt;
  rt.reset(groups, 2, false);
  std::uint32_t c = 0;
  REQUIRE(rt.next_for(0, c));
  CHECK(c == 0);
  REQUIRE(rt.next_for(1, c));
  CHECK(c == 1);
  REQUIRE(rt.next_for(0, c));
  CHECK(c == 4);
  REQUIRE(rt.next_for(1, c));
  CHECK(c == 5);
  REQUIRE(rt.next_for(1, c));  // whichever SM frees a context first takes (2)
  CHECK(c == 2);
  REQUIRE(rt.next_for(0, c));
  CHECK(c == 3);
  CHECK(rt.remaining() == 2);
}

TEST_CASE("T5: RB-TS recursive bisection on two cliques", "[paver]") {
  const LocalityGraph g = two_cliques();
  const std::vector<CtaGroup> five = rb_groups(g, 5);
  REQUIRE(five.size() == 2);
  std::set<std::set<std::uint32_t>> got{as_set(five[0]), as_set(five[1])};
  CHECK(got == std::set<std::set<std::uint32_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
  // Strict '<' (Alg. 1): a part of exactly maxTB = 4 is split once more.
  const std::vector<CtaGroup> four = rb_groups(g, 4);
  REQUIRE(four.size() == 4);
  for (const CtaGroup& leaf : four) {
    CHECK(leaf.size() == 2);
    CHECK(std::is_sorted(leaf.begin(), leaf.end()));
    const bool low = leaf[0] < 4;
    for (std::uint32_t v : leaf) CHECK((v < 4) == low);  // no leaf crosses the bridge
  }
  // leq: 4-TB parts are leaves.
  CHECK(rb_groups(g, 4, true).size() == 2);
  // A one-CTA part is never split, even with maxTB = 1.
  CHECK(rb_groups(g, 1).size() == 8);
  CHECK(captured_weight(g, five) == 120);
}

TEST_CASE("T6: k-way-TS cuts the bridge and re-orders each part by Prim", "[paver]") {
  const LocalityGraph g = two_cliques();
  const std::vector<std::uint32_t> part = metis_kway(g, 2);
  for (std::uint32_t v = 1; v < 4; ++v) CHECK(part[v] == part[0]);
  for (std::uint32_t v = 5; v < 8; ++v) CHECK(part[v] == part[4]);
  CHECK(part[0] != part[4]);
  const std::vector<CtaGroup> groups = kway_groups(g, 2);
  REQUIRE(groups.size() == 2);
  CHECK(captured_weight(g, groups) == g.total_weight() - 1);  // edge cut 1
  for (const CtaGroup& grp : groups) CHECK(grp == prim_order(g, grp));
  // More parts than vertices: one vertex each; no edges: contiguous ranges.
  CHECK(metis_kway(g, 8) == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  const LocalityGraph empty = LocalityGraph::from_edges(6, {});
  CHECK(metis_kway(empty, 3) == std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2});
  // Deterministic: the same seed gives the same parts.
  CHECK(metis_kway(g, 2, 7) == metis_kway(g, 2, 7));
}

TEST_CASE("T7: runtime dispatch order with a global group queue", "[paver]") {
  TbGroupRuntime rt;
  rt.reset({{0, 1, 2}, {3, 4}, {5}}, 2, false);
  std::uint32_t c = 0;
  REQUIRE(rt.next_for(0, c));
  CHECK(c == 0);
  REQUIRE(rt.next_for(1, c));
  CHECK(c == 3);
  REQUIRE(rt.next_for(1, c));  // SM1 finished 3
  CHECK(c == 4);
  REQUIRE(rt.next_for(1, c));  // SM1 finished 4: group (3,4) exhausted, dequeues (5)
  CHECK(c == 5);
  REQUIRE(rt.next_for(0, c));
  CHECK(c == 1);
  REQUIRE(rt.next_for(0, c));
  CHECK(c == 2);
  CHECK_FALSE(rt.next_for(1, c));
  CHECK(rt.remaining() == 0);
  CHECK(rt.groups_dequeued == 3);
}

TEST_CASE("T8: task stealing (Alg. 2)", "[paver]") {
  // Waiting [4, 0, 1, 3]: donor SM0 (TB0..TB3), average 8/4 = 2, count 2.
  TbGroupRuntime rt;
  rt.reset({{10, 0, 1, 2, 3}, {20}, {30, 31}, {40, 41, 42, 43}}, 4, true);
  std::uint32_t c = 0;
  for (std::uint32_t sm = 0; sm < 4; ++sm) REQUIRE(rt.next_for(sm, c));  // 10, 20, 30, 40
  CHECK(rt.waiting(0) == 4);
  CHECK(rt.waiting(1) == 0);
  CHECK(rt.waiting(2) == 1);
  CHECK(rt.waiting(3) == 3);
  const TbGroupRuntime::StealPlan p = rt.plan_steal();
  CHECK(p.donor == 0);
  CHECK(p.count == 2);
  REQUIRE(rt.next_for(1, c));  // SM1: group exhausted, queue empty -> steals TB2, TB3
  CHECK(c == 2);
  REQUIRE(rt.next_for(1, c));
  CHECK(c == 3);
  CHECK(rt.steals == 1);
  CHECK(rt.stolen_ctas == 2);
  REQUIRE(rt.next_for(0, c));  // the donor keeps TB0, TB1
  CHECK(c == 0);
  REQUIRE(rt.next_for(0, c));
  CHECK(c == 1);

  // Waiting [1, 0, 0, 0]: average 0, count 1.
  TbGroupRuntime one;
  one.reset({{0, 1}, {2}, {3}, {4}}, 4, true);
  for (std::uint32_t sm = 0; sm < 4; ++sm) REQUIRE(one.next_for(sm, c));
  CHECK(one.plan_steal().count == 1);
  REQUIRE(one.next_for(3, c));
  CHECK(c == 1);
  CHECK(one.plan_steal().count == 0);
  CHECK_FALSE(one.next_for(2, c));

  // Stealing off: an SM with an exhausted group stays idle.
  TbGroupRuntime off;
  off.reset({{0, 1, 2}, {3}}, 2, false);
  REQUIRE(off.next_for(0, c));
  REQUIRE(off.next_for(1, c));
  CHECK_FALSE(off.next_for(1, c));
  CHECK(off.remaining() == 2);
}

TEST_CASE("T9: BCS issues pairs only, throttling x = 3 to 2 resident CTAs", "[paver]") {
  std::unique_ptr<CtaSchedulingPolicy> bcs = make_cta_policy("bcs");
  test::begin(*bcs, 6, 3, topo(1));
  std::vector<CtaAssignment> out;
  bcs->select(view({3}), out);
  CHECK(out.size() == 2);
  out.clear();
  bcs->select(view({1}), out);  // one context freed: its partner is still running
  CHECK(out.empty());
}

TEST_CASE("T10: data-reference classes of Fig. 2 and the benchmark class", "[paver]") {
  const Addr X = 0, Y = 128, Z = 256;
  // TB0: warp 0 reads X and Y, warp 1 reads X. TB1: warp 0 reads X and Z, warp 1 reads Z.
  ReadsKernel k({{{X, Y}, {X}}, {{X, Z}, {Z}}}, 2);
  const ReferenceClassCounts r = classify_references(k);
  CHECK(r.blocks[static_cast<int>(ReferenceClass::IntraAndInterTb)] == 1);  // X
  CHECK(r.blocks[static_cast<int>(ReferenceClass::Unshared)] == 1);         // Y
  CHECK(r.blocks[static_cast<int>(ReferenceClass::IntraTb)] == 1);          // Z
  CHECK(r.blocks[static_cast<int>(ReferenceClass::InterTb)] == 0);
  CHECK(r.accesses[static_cast<int>(ReferenceClass::IntraAndInterTb)] == 3);
  CHECK(r.total_accesses() == 6);
  CHECK(r.locality_class() == "high");  // 3 of 6 accesses are inter-TB: >= 50%
  // One warp per TB reading a common block: Inter-TB.
  ReadsKernel inter({{{X}}, {{X}}, {{Y}}, {{Z}}, {{Z + 128}}}, 1);
  const ReferenceClassCounts q = classify_references(inter);
  CHECK(q.blocks[static_cast<int>(ReferenceClass::InterTb)] == 1);
  CHECK(q.locality_class() == "low");  // 2 of 5
  ReadsKernel none({{{X}}, {{Y}}}, 1);
  CHECK(classify_references(none).locality_class() == "none");
}

TEST_CASE("PaverPolicy: groups from the kernel's graph, round-robin first issue", "[paver]") {
  // Eight CTAs in two sharing cliques (0-3 and 4-7); 2 SMs, 4 contexts each.
  ReadsKernel::Reads r(8);
  for (std::uint32_t c = 0; c < 8; ++c) {
    const Addr base = c < 4 ? 0 : 4096;
    r[c] = {{base, base + 4, base + 8, 8192 + 4 * c}};
  }
  ReadsKernel k(r, 1);
  LazyCtaAccessSets sets(k);
  for (const char* name : {"paver-kway", "paver-rb"}) {
    CAPTURE(name);
    const CtaPolicyArgs args =
        std::string(name) == "paver-rb" ? CtaPolicyArgs{{"leq", "true"}} : CtaPolicyArgs{};
    std::unique_ptr<CtaSchedulingPolicy> p = make_cta_policy(name, args);
    p->begin_kernel(KernelLaunch{k, 4, sets, topo(2)});
    std::vector<CtaAssignment> out;
    p->select(view({4, 4}), out);
    REQUIRE(out.size() == 8);
    std::set<std::uint32_t> sm0, sm1;
    for (const CtaAssignment& a : out) (a.sm == 0 ? sm0 : sm1).insert(a.cta);
    const std::set<std::uint32_t> lo{0, 1, 2, 3}, hi{4, 5, 6, 7};
    CHECK(((sm0 == lo && sm1 == hi) || (sm1 == lo && sm0 == hi)));
    CHECK(out[0].sm == 0);
    CHECK(out[1].sm == 1);  // group 1 goes to SM 1 before SM 0 takes a second CTA
    CHECK(p->remaining() == 0);
  }
}

TEST_CASE("PaverPolicy: table entries and parameter errors", "[paver]") {
  CHECK(std::string(make_cta_policy("paver-mst")->name()) == "paver-mst");
  CHECK(std::string(make_cta_policy("paver-kway")->name()) == "paver-kway");
  CHECK(std::string(make_cta_policy("paver-rb")->name()) == "paver-rb");
  CHECK_THROWS_WITH(make_cta_policy("paver-rb", {{"graph_bytes", "3"}}),
                    Catch::Matchers::Contains("graph_bytes"));
  CHECK_THROWS_WITH(make_cta_policy("paver-kway", {{"steal", "maybe"}}),
                    Catch::Matchers::Contains("steal"));
  CHECK_THROWS_WITH(make_cta_policy("paver-mst", {{"steal", "true"}}),
                    Catch::Matchers::Contains("steal"));
}
