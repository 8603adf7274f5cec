// Seed 004 (Dai et al., model-driven warp/TB-level L1 bypassing) as a platform mechanism: the
// bypassing parameter generators (one per SM for MDB-local, one for MDB-global whose sampling SM
// is chosen by activity, §6) fed by the L1 load stream and reservation failures, driving each
// L1's bypass rank limit; parameters mdb.* (enabled by l1d.bypass=mdb-local|mdb-global); decision
// counters, per-kernel sampling SMs and decision history in the report. Every generator and every
// L1's limit is reset at each kernel start (a new kernel has new warps/TBs and a cold L1).
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
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
  void kernel_begin(std::uint32_t seq, const Kernel& k) override;
  void cta_launched(std::uint32_t sm, std::uint32_t cta) override;
  void cta_finished(std::uint32_t sm, std::uint32_t cta) override;
  void report(nlohmann::json& extra) const override;

  bool global() const { return global_; }
  std::size_t num_generators() const { return bpgs_.size(); }
  // Generator i's state in the current (or last) kernel; it is reset at each kernel start.
  const BypassPredictor& generator(std::size_t i) const { return *bpgs_[i]; }
  // Decisions generator i made over the whole run.
  std::uint64_t run_decisions(std::size_t i) const { return run_decisions_[i]; }
  // The SM whose L1 the G-BPG samples now (MDB-local: the SM whose decisions the history
  // reports); SamplingSmSelector::kNone before the kernel's first CTA launch.
  std::uint32_t sampling_sm() const { return selector_.sampler(); }

  struct KernelRecord {
    std::uint32_t seq = 0;
    std::string name;
    std::vector<std::uint32_t> sampling_sms;  // in order: first-CTA SM, then each hand-over
    std::uint64_t decisions = 0;              // all generators
  };
  const std::vector<KernelRecord>& kernels() const { return kernels_; }

 private:
  void on_access(std::size_t g, std::uint32_t sm, Addr line, unsigned rank, unsigned population);
  void apply_decision(std::size_t generator);

  BypassPredictorConfig cfg_;
  bool global_;
  std::vector<L1DataCache*> l1s_;
  std::vector<std::unique_ptr<BypassPredictor>> bpgs_;
  std::vector<std::uint64_t> run_decisions_;
  std::vector<Counter*> choices_;  // decisions that chose k = 1..K (all generators)
  SamplingSmSelector selector_;
  std::vector<KernelRecord> kernels_;
  struct HistoryEntry {
    std::uint32_t kernel, sm;
    BypassDecision d;
  };
  std::deque<HistoryEntry> history_;  // the sampling SM's decisions, most recent 4096
};

}  // namespace locsim
