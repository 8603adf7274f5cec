// CTA clustering of the Locality Descriptor, seed 000 §4.3 (Algorithm 1, Fig. 12): the kernel's
// INTER-THREAD descriptors say which CTAs share data (a C-Tile shares a D-Tile); Algorithm 1 turns
// them into one cluster shape, and the runtime keeps each cluster on one SM. Pure algorithm; the
// dispatcher owns timing. Rules R0.3, R2.1-R2.4 and interpretations I-3, I-4, I-5, I-16 of
// ../shared/specs/seed000.md (docs/ldesc.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/cta_policy.h"
#include "model/workload/kernel.h"
#include "model/workload/locality_descriptor.h"

namespace locsim {

// R0.3: C-Tiles per dimension, ceil(grid_d / tile_d).
LDim3 tile_counts(const Dim3& grid, const LDim3& tile);
std::uint64_t tile_count(const Dim3& grid, const LDim3& tile);

// I-3: the INTER-THREAD descriptors of a kernel, highest priority first; ties keep declaration
// order (data structures in order, then their descriptors in order).
std::vector<const LocalityDescriptor*> inter_thread_descriptors(const Kernel& k);

// Algorithm 1 on the C-Tile shapes of descriptors already sorted by priority (highest first):
// step 1 halves each C-Tile along its largest dimension (rounding up, ties X, Y, Z: I-4) until
// it has at least sm_num C-Tiles or is one CTA; step 2 starts from the first descriptor's shape
// and widens it by each lower-priority shape that still leaves sm_num clusters. A C-Tile wider
// than the grid is first clipped to it (a C-Tile cannot hold CTAs that do not exist).
LDim3 cluster_shape(const Dim3& grid, const std::vector<LDim3>& ctiles, std::uint32_t sm_num);

// Parses "auto" (Algorithm 1) or "XxYxZ" / "XxY" (a fixed cluster shape, the §2.1 sweep, I-16).
// Throws std::invalid_argument naming the value.
bool parse_cluster_shape(const std::string& s, LDim3& shape);

// The runtime of Fig. 12 (R2.3, I-5). Clusters are boxes of the cluster shape, enumerated X->Y->Z,
// their CTAs launched X->Y->Z. SMs are visited round-robin, one CTA per visit: an SM launches the
// next CTA of the cluster bound to it; when that cluster has none left it binds the next unbound
// cluster; when every cluster is bound it helps the cluster with the most unlaunched CTAs (ties:
// the lowest index), spreading the last clusters for parallelism. A kernel without INTER-THREAD
// descriptors is scheduled round-robin (R2.4).
class LDescClusterPolicy final : public CtaSchedulingPolicy {
 public:
  // shape "auto" runs Algorithm 1; a fixed shape overrides it.
  explicit LDescClusterPolicy(const std::string& shape = "auto");
  const char* name() const override { return "ldesc-cluster"; }
  void begin_kernel(const KernelLaunch& launch) override;
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;
  std::uint32_t remaining() const override;
  void register_stats(StatRegistry& reg, const std::string& path) override;

  // Of the current kernel (tests and reports).
  LDim3 shape() const { return shape_; }
  std::uint32_t num_clusters() const { return static_cast<std::uint32_t>(clusters_.size()); }
  const std::vector<std::uint32_t>& cluster_ctas(std::uint32_t c) const {
    return clusters_[c].ctas;
  }
  bool clustered() const { return clustered_; }

 private:
  struct Cluster {
    std::vector<std::uint32_t> ctas;  // linear CTA ids, X->Y->Z within the box
    std::uint32_t next = 0;           // first unlaunched
    std::uint32_t left() const { return static_cast<std::uint32_t>(ctas.size()) - next; }
  };
  // The cluster SM `sm` launches from now, binding a new one if needed; -1 when nothing is left.
  int source_for(std::uint32_t sm);

  bool fixed_ = false;
  LDim3 fixed_shape_;
  bool clustered_ = false;  // false: no INTER-THREAD descriptor, round-robin
  RoundRobinPolicy rr_;
  LDim3 shape_;
  std::vector<Cluster> clusters_;
  std::vector<int> bound_;  // per SM id: bound cluster, -1 none
  std::uint32_t next_unbound_ = 0;
  std::uint32_t remaining_ = 0;
  Counter* kernels_clustered_ = nullptr;
  Counter* clusters_formed_ = nullptr;
  Counter* spread_launches_ = nullptr;
};

}  // namespace locsim
