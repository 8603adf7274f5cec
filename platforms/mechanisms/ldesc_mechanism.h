// Seed 000 (Vijaykumar et al., the Locality Descriptor), cache side, as a platform mechanism:
// ldesc.mode selects the paper's configuration (§6.1); at every kernel begin the technique
// selection of Fig. 11 (model/ldesc_selection.h) is pushed to every L1 (NO-REUSE bypass, hard and
// soft pinning with the unpin timer), and LDesc-Sched makes ldesc-cluster the CTA policy.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/ldesc_selection.h"
#include "platforms/mechanism.h"

namespace locsim {

class L1DataCache;

MechanismInfo ldesc_mechanism_info();

struct LDescConfig {
  LDescMode mode = LDescMode::Off;
  std::uint64_t unpin_period = 100000;  // core cycles (I-7)
  std::string cta_policy;               // the dispatcher's policy, for the report
  bool stats = false;                   // ldesc.stats: on even with mode off
  bool one_stride = false;              // ldesc.stride_distance=one (a control, not the paper)
};

class LDescMechanism final : public Mechanism {
 public:
  explicit LDescMechanism(const LDescConfig& cfg) : cfg_(cfg) {}
  const char* name() const override { return "ldesc"; }
  void elaborate(PlatformBuild& b) override;
  void kernel_begin(std::uint32_t seq, const Kernel& k) override;
  void kernel_end(std::uint32_t seq, const Kernel& k) override;
  void cta_launched(std::uint32_t sm, std::uint32_t cta) override;
  void cta_finished(std::uint32_t sm, std::uint32_t cta) override;
  void report(nlohmann::json& extra) const override;

  LDescMode mode() const { return cfg_.mode; }

 private:
  LDescConfig cfg_;
  void track(std::uint32_t sm, std::uint32_t cta, int delta);

  std::vector<L1DataCache*> l1s_;
  // Stride-prefetched data structures of the current kernel: their C-Tile (clipped to the grid)
  // and, per SM, how many resident CTAs touch each of their D-Tiles (C-Tile k <-> D-Tile k).
  struct StrideDs {
    std::uint16_t ds;
    LDim3 ctile;
  };
  Dim3 grid_;
  std::vector<StrideDs> stride_;
  std::vector<std::vector<std::map<std::uint64_t, std::uint32_t>>> resident_tiles_;
  nlohmann::json kernels_ = nlohmann::json::array();  // what was applied, per kernel
};

}  // namespace locsim
