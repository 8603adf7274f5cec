// PAVER's locality graph on the real workloads: cases T1 and T2 of ../shared/specs/seed003.md
// (Table 2's sparsity scores at 4-byte element granularity) and the Fig. 2 classes.
#include <catch2/catch.hpp>

#include "model/graph_partition.h"
#include "model/locality_graph.h"
#include "stimuli/workload_registry.h"

using namespace locsim;

TEST_CASE("T1/T2: matmul n=208 graph = Table 2 (169 TBs, SpScore 0.857988166)", "[paver]") {
  auto w = make_workload("matmul", {{"n", "208"}});
  const Kernel& k = *w->kernels().front();
  const LocalityGraphBuild b = build_locality_graph(k);
  const LocalityGraph& g = b.graph;
  CHECK(g.num_vertices == 169);
  CHECK(g.num_edges() == 2028);  // 12 row + 12 column neighbours each
  CHECK(g.sparsity_score() == Approx(0.857988166).epsilon(1e-9));
  // T2: CTAs 0 and 1 share the 16-row band of A (16 x 208 floats), CTAs 0 and 13 the 16-column
  // band of B, CTAs 0 and 14 nothing.
  CHECK(g.weight(0, 1) == 3328);
  CHECK(g.weight(0, 13) == 3328);
  CHECK(g.weight(0, 14) == 0);
  // At 128 B lines the graph is denser (spec I-1): Table 2 is not reproduced.
  LocalityGraphOptions lines;
  lines.element_bytes = 128;
  CHECK(build_locality_graph(k, lines).graph.sparsity_score() == Approx(0.715976331).epsilon(1e-9));
  CHECK(classify_references(k).locality_class() == "high");
}

TEST_CASE("T1: hotspot graph = Table 2 (1849 TBs, king-move neighbours, 0.995823097)", "[paver]") {
  auto w = make_workload("hotspot", {});
  const LocalityGraph g = build_locality_graph(*w->kernels().front()).graph;
  CHECK(g.num_vertices == 1849);
  CHECK(g.num_edges() == 7140);
  CHECK(g.sparsity_score() == Approx(0.995823097).epsilon(1e-9));
  CHECK(g.degree(44) == 8);  // an interior CTA of the 43 x 43 grid
}

TEST_CASE("T1: pathfinder cols=100000 graph = Table 2 (463 TBs, chain, 0.995689675)", "[paver]") {
  auto w = make_workload("pathfinder", {{"cols", "100000"}});
  const Kernel& k = *w->kernels().front();
  const LocalityGraph g = build_locality_graph(k).graph;
  CHECK(g.num_vertices == 463);
  CHECK(g.num_edges() == 462);
  CHECK(g.sparsity_score() == Approx(0.995689675).epsilon(1e-9));
  for (std::uint32_t v = 1; v + 1 < 463; ++v) CHECK(g.degree(v) == 2);
  // The chain's Prim order is the CTA order.
  const std::vector<std::uint32_t> order = prim_order(g);
  for (std::uint32_t v = 0; v < 463; ++v) CHECK(order[v] == v);
  CHECK(classify_references(k).locality_class() == "low");
}

TEST_CASE("Locality graph: vecadd CTAs share nothing (class none)", "[paver]") {
  auto w = make_workload("vecadd", {{"n", "65536"}});
  const Kernel& k = *w->kernels().front();
  CHECK(build_locality_graph(k).graph.num_edges() == 0);
  CHECK(classify_references(k).locality_class() == "none");
}
