// Seed 004 (Dai et al., model-driven warp/TB-level L1 bypassing) as a platform mechanism: the
// bypassing parameter generators (one per SM for MDB-local, SM 0's for MDB-global, §6) fed by the
// L1 load stream and reservation failures, driving each L1's bypass rank limit; parameters mdb.*
// (enabled by l1d.bypass=mdb-local|mdb-global); decision counters and history in the report.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "model/bypass_predictor.h"
#include "model/stats.h"
#include "platforms/mechanism.h"

namespace locsim {

class L1DataCache;

MechanismInfo mdb_mechanism_info();

class MdbMechanism final : public Mechanism {
 public:
  MdbMechanism(const BypassPredictorConfig& cfg, bool global) : cfg_(cfg), global_(global) {}
  const char* name() const override { return "mdb"; }
  void elaborate(PlatformBuild& b) override;
  void report(nlohmann::json& extra) const override;

  bool global() const { return global_; }
  std::size_t num_generators() const { return bpgs_.size(); }
  const BypassPredictor& generator(std::size_t i) const { return *bpgs_[i]; }

 private:
  void apply_decision(std::size_t generator);

  BypassPredictorConfig cfg_;
  bool global_;
  std::vector<L1DataCache*> l1s_;
  std::vector<std::unique_ptr<BypassPredictor>> bpgs_;
  std::vector<Counter*> choices_;  // decisions that chose k = 1..K (all generators)
};

}  // namespace locsim
