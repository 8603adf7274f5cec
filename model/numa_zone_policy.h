// CTA scheduling on a multi-module GPU (seed 000 §4.6, B4, M8): every CTA is assigned to a NUMA
// zone (a GPU module: SMs [z*S, (z+1)*S) for S = SMs per module) and runs only on that zone's
// SMs. Contiguous (FirstTouch-Distrib's split, B4, also LDesc-Placement's scheduling): Z equal
// ranges of linear CTA id, round-robin over the zone's SMs. LDesc: Algorithm 2's partition, then
// Algorithm 1 inside each zone (R8.4): clusters of the shape Algorithm 1 gives for S SMs, each
// zone running its clusters with Fig. 12's runtime restricted to its own SMs (an SM launches from
// its bound cluster, binds the zone's next one when it is done, and helps the zone's cluster
// with most CTAs left when every cluster is bound).
#pragma once
#include <cstdint>
#include <vector>

#include "model/cta_policy.h"

namespace locsim {

class NumaZonePolicy final : public CtaSchedulingPolicy {
 public:
  enum class Partition { Contiguous, LDesc };
  // cluster_inside: with the LDesc partition, Algorithm 1 inside each zone (R8.4); false runs
  // each zone round-robin (a control that separates the partition from the clustering).
  explicit NumaZonePolicy(Partition p, bool cluster_inside = true, double epsilon = 0.25)
      : partition_(p), cluster_inside_(cluster_inside), epsilon_(epsilon) {}
  const char* name() const override { return "numa-zone"; }
  void begin_kernel(const KernelLaunch& launch) override;
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;
  std::uint32_t remaining() const override { return remaining_; }
  void register_stats(StatRegistry& reg, const std::string& path) override;

  // Of the current kernel (tests): the zone of each CTA.
  const std::vector<std::uint32_t>& cta_zone() const { return cta_zone_; }
  // LDesc: Algorithm 1's cluster shape for one zone's SMs (1x1x1 when nothing clusters).
  LDim3 cluster_shape() const { return shape_; }

 private:
  Partition partition_;
  bool cluster_inside_;
  double epsilon_;
  std::uint32_t zones_ = 1, sms_per_zone_ = 1;
  std::vector<std::uint32_t> cta_zone_;
  std::vector<std::vector<std::uint32_t>> queue_;  // per zone: its CTAs, linear order
  std::vector<std::uint32_t> next_;                // per zone: first unlaunched in queue_
  std::vector<std::uint32_t> next_sm_;             // per zone: round-robin position
  std::uint32_t remaining_ = 0;
  // LDesc: per zone its clusters (CTA lists, X->Y->Z), launched by the Fig. 12 runtime.
  struct Cluster {
    std::vector<std::uint32_t> ctas;
    std::uint32_t next = 0;
    std::uint32_t left() const { return static_cast<std::uint32_t>(ctas.size()) - next; }
  };
  std::vector<std::vector<Cluster>> clusters_;
  std::vector<std::uint32_t> next_unbound_;  // per zone
  std::vector<int> bound_;                   // per SM: bound cluster of its zone, -1 none
  int source_for(std::uint32_t zone, std::uint32_t sm);
  LDim3 shape_{1, 1, 1};
  Counter* ldesc_partitions_ = nullptr;  // kernels Algorithm 2 partitioned (a driver existed)
};

}  // namespace locsim
