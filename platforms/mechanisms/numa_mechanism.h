// Seed 000 §4.6 (the Locality Descriptor's NUMA half) as a platform mechanism of the mcm topology:
// numa.policy selects the configuration of §6.2. NUMA Baseline (xor): XOR-hashed zones, CTAs
// round-robin over all SMs. FirstTouch-Distrib (first-touch): pages placed in the zone of their
// first toucher, contiguous CTA ranges per module. LDesc-Placement (ldesc-placement): Algorithm 2's
// data placement with FirstTouch's CTA split. LDesc (ldesc): Algorithm 2's placement and CTA
// partition. Data structures are placed when a workload is loaded, before any access.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "model/types.h"
#include "platforms/mechanism.h"

namespace locsim {

class NumaAddressMapper;

MechanismInfo numa_mechanism_info();

enum class NumaPolicy { Xor, FirstTouch, LDescPlacement, LDesc };
const char* to_string(NumaPolicy p);

struct NumaConfig {
  NumaPolicy policy = NumaPolicy::Xor;
  std::uint64_t page_bytes = 65536;
  std::string cta_policy;  // the dispatcher's policy, for the report
};

class NumaMechanism final : public Mechanism {
 public:
  explicit NumaMechanism(const NumaConfig& cfg) : cfg_(cfg) {}
  const char* name() const override { return "numa"; }
  void elaborate(PlatformBuild& b) override;
  void workload_loaded(const Workload& w) override;
  void report(nlohmann::json& extra) const override;

 private:
  NumaConfig cfg_;
  NumaAddressMapper* numa_ = nullptr;
  std::set<Addr> placed_;  // bases of the data structures placed so far
  nlohmann::json placements_ = nlohmann::json::array();
};

}  // namespace locsim
