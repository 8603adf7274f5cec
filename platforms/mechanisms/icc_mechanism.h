// Seed 001 (Wang et al., intra-cluster coalescing) as a platform mechanism: one
// IntraClusterCoalescer per cluster between the cluster's L1s and its interconnect port (§6,
// Figure 9), its parameters (icc.*), and the kernel-boundary flush of the coalesced cache.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "platforms/mechanism.h"
#include "tlm_components/intra_cluster_coalescer.h"

namespace locsim {

MechanismInfo icc_mechanism_info();

class IccMechanism final : public Mechanism {
 public:
  explicit IccMechanism(const IccConfig& cfg) : cfg_(cfg) {}
  const char* name() const override { return "icc"; }
  void create_units(PlatformBuild& b) override;
  bool fronts_cluster_ports() const override { return true; }
  void wire_l1(PlatformBuild& b, std::uint32_t sm) override;
  void wire_units(PlatformBuild& b) override;
  void kernel_begin(std::uint32_t seq, const Kernel& k) override;

  std::size_t num_units() const { return units_.size(); }
  IntraClusterCoalescer& unit(std::size_t cluster) { return *units_[cluster]; }

 private:
  IccConfig cfg_;  // cluster / first_sm filled per unit
  std::vector<std::unique_ptr<IntraClusterCoalescer>> units_;
};

}  // namespace locsim
