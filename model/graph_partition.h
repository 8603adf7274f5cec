// Graph algorithms of PAVER's CTA schedulers (Tripathy et al., TACO 2021, §4): Prim's maximum
// spanning tree order (MST-TS, §4.1), METIS k-way partitioning with a Prim re-order of every part
// (k-way-TS, §4.2) and recursive bisection with METIS (RB-TS, §4.3, Alg. 1). METIS 5 is called for
// real (METIS_PartGraphKway / METIS_PartGraphRecursive) with a fixed seed, so runs are repeatable.
#pragma once
#include <cstdint>
#include <vector>

#include "model/locality_graph.h"

namespace locsim {

// A group of CTAs the runtime hands to one SM, in issue order.
using CtaGroup = std::vector<std::uint32_t>;

// Prim's maximum spanning tree over the subgraph induced by `vertices` (all vertices if empty):
// the order in which vertices join the tree, starting at the lowest id; among equally heavy edges
// the lowest vertex id wins; when no edge leads out of the tree, Prim restarts at the lowest
// unvisited id (§4.1, interpretation I-5 of the spec: a tree is not a path, its insertion order
// is the schedule).
std::vector<std::uint32_t> prim_order(const LocalityGraph& g,
                                      const std::vector<std::uint32_t>& vertices = {});

// METIS k-way partition (edge-cut objective, balanced vertex counts) of the whole graph into k
// parts: the part of every vertex. k >= number of vertices: one vertex per part; a graph without
// edges: contiguous ranges. Edge weights above 2^31-1 saturate (METIS idx_t is 32-bit).
std::vector<std::uint32_t> metis_kway(const LocalityGraph& g, std::uint32_t k, int seed = 0);

// METIS bisection (METIS_PartGraphRecursive, nparts = 2) of the subgraph induced by `vertices`
// (ascending ids); returns the two halves, each ascending. A subgraph without edges is split into
// its lower and upper half.
std::pair<CtaGroup, CtaGroup> metis_bisect(const LocalityGraph& g, const CtaGroup& vertices,
                                           int seed = 0);

// MST-TS grouping (§4.1): the first num_sms groups are consecutive runs of x CTAs of `order`;
// every later CTA is a group of one (paper: N = 2, x = 2, [0,4,1,5,2,3,7,6] -> (0,4), (1,5), (2),
// (3), (7), (6)).
std::vector<CtaGroup> mst_grouping(const std::vector<std::uint32_t>& order, std::uint32_t num_sms,
                                   std::uint32_t x);
// mst_grouping of the Prim order of g.
std::vector<CtaGroup> mst_groups(const LocalityGraph& g, std::uint32_t num_sms, std::uint32_t x);

// k-way-TS (§4.2): k = num_sms METIS parts, part p = group p, each re-ordered by Prim.
std::vector<CtaGroup> kway_groups(const LocalityGraph& g, std::uint32_t num_sms, int seed = 0);

// RB-TS (Alg. 1): breadth-first bisection until a part has fewer than max_tb CTAs (at most
// max_tb with leq); leaves in the order Alg. 1 moves them to its list L, CTAs ascending inside.
// A part of one CTA is never split.
std::vector<CtaGroup> rb_groups(const LocalityGraph& g, std::uint32_t max_tb, bool leq = false,
                                int seed = 0);

// Locality captured by a grouping (§6.3): sum of the weights of edges inside groups.
std::uint64_t captured_weight(const LocalityGraph& g, const std::vector<CtaGroup>& groups);

}  // namespace locsim
