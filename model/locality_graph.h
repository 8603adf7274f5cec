// PAVER's locality graph (Tripathy et al., TACO 2021, §3.2-3.3, Fig. 4-5, Table 2): per kernel,
// one vertex per CTA (thread block) and an edge between two CTAs weighted by the number of data
// elements both read. Built from the kernel's warp streams through an inverted index (element ->
// CTAs that read it), never by comparing all pairs of CTAs. Also the data-reference classes of
// §2.2 / Fig. 2 and the high/low/none benchmark classification of §6.2. Pure C++, no SystemC.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "model/workload/kernel.h"

namespace locsim {

// Undirected weighted graph in compressed sparse rows, both directions stored (the form METIS
// takes: xadj/adjncy/adjwgt). Neighbours of a vertex are in ascending order; no self loops.
struct LocalityGraph {
  std::uint32_t num_vertices = 0;
  std::vector<std::uint64_t> xadj{0};  // size num_vertices + 1
  std::vector<std::uint32_t> adjncy;
  std::vector<std::uint64_t> adjwgt;  // shared elements

  // From an undirected edge list (u, v, w), u != v, w > 0; a pair listed twice adds its weights.
  static LocalityGraph from_edges(
      std::uint32_t n,
      const std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>>& e);

  std::uint64_t num_edges() const { return adjncy.size() / 2; }  // undirected
  std::uint32_t degree(std::uint32_t v) const {
    return static_cast<std::uint32_t>(xadj[v + 1] - xadj[v]);
  }
  // Weight of edge (u, v); 0 if there is none.
  std::uint64_t weight(std::uint32_t u, std::uint32_t v) const;
  // Sum of the weights of the undirected edges.
  std::uint64_t total_weight() const;
  // Table 2's sparsity score: 1 - (non-zero entries of the N x N adjacency matrix) / N^2, both
  // (i, j) and (j, i) counted, the (empty) diagonal in the denominator (MM: 1 - 24/169).
  double sparsity_score() const;
  std::size_t memory_bytes() const;
};

struct LocalityGraphOptions {
  // Granularity of "data element" (§3.3; 4 B reproduces Table 2, 128 B lines do not). Power of two.
  std::uint32_t element_bytes = 4;
  // Elements read by more CTAs than this are left out (0 = no cap). Such elements add almost the
  // same weight to every pair; the number skipped is reported.
  std::uint32_t max_sharers = 0;
};

struct LocalityGraphBuild {
  LocalityGraph graph;
  std::uint64_t read_refs = 0;        // element reads by active lanes (with repeats)
  std::uint64_t read_elements = 0;    // distinct elements read by the kernel
  std::uint64_t shared_elements = 0;  // distinct elements read by >= 2 CTAs
  std::uint64_t capped_elements = 0;  // shared elements left out by max_sharers
  std::uint64_t sharer_lists = 0;     // distinct sets of CTAs sharing an element
  std::size_t peak_bytes = 0;         // largest working memory of the builder (estimate)
  double build_seconds = 0;           // wall time
};

// Reads only (global loads; stores and atomics are not reads in PAVER's JIT analysis, which looks
// at ld.global). Throws std::invalid_argument for a bad element size.
LocalityGraphBuild build_locality_graph(const Kernel& k, const LocalityGraphOptions& opt = {});

// ---- Data-reference classes (§2.2, Fig. 2) ----
enum class ReferenceClass : std::uint8_t { Unshared, IntraTb, InterTb, IntraAndInterTb };
const char* to_string(ReferenceClass c);

struct ReferenceClassCounts {
  std::uint32_t block_bytes = 128;
  // Global read accesses (one per warp instruction and block it touches) by the class of the
  // block they touch, in ReferenceClass order; and the blocks of each class.
  std::uint64_t accesses[4] = {0, 0, 0, 0};
  std::uint64_t blocks[4] = {0, 0, 0, 0};
  std::uint64_t total_accesses() const;
  double fraction(ReferenceClass c) const;
  // §6.2: "high" if Inter-TB + Intra-and-Inter-TB accesses are >= 50% of the global reads, "low"
  // if below but not zero, "none" if zero.
  std::string locality_class() const;
};

// A block read by one warp of one CTA is Unshared; by >= 2 warps of one CTA only, Intra-TB; by
// >= 2 CTAs with one warp each, Inter-TB; by >= 2 CTAs with >= 2 warps in some CTA, both.
ReferenceClassCounts classify_references(const Kernel& k, std::uint32_t block_bytes = 128);

}  // namespace locsim
