// Bypassing Parameter Generator (BPG) of model-driven warp/TB-level L1 bypassing (seed 004, Dai et
// al., DAC'16, §5-§6).
//
// Model (§5): for L of the N resident warps/TBs accessing the L1 D-cache,
//   RF_est(L)       = RF_base * (L/N)^3                          (§5.2, curve fit, R^2 = 0.88)
//   AdjustedHits(L) = Hits_est(L) - E * RF_est(L),  E = 0.5      (§5.3)
// Hardware (§6): K = 8 Adjusted-Hits calculators; calculator k owns a shadow tag array
// (ShadowTagSampler) giving Hits(k) for "warps/TBs 0..k-1 use the L1", and a Rev_Failure
// Estimator (pre-computed (L/N)^3 lookup table x one global reservation-failure counter RF_base
// fed by the L1). Every `decision_interval` accesses (1000, from all warps/TBs of the SM) the
// selector picks L_max = argmax_k AdjustedHits(k); warps/TBs of rank >= L_max bypass the L1,
// except that L_max == K means "no bypassing opportunity": everybody uses the L1 (§6). Then the
// hit counters and the RF counter are right-shifted by one bit.
//
// Granularity (§5.2): if more than one TB is resident on the SM the unit is the TB, else the warp
// (bypass_unit_is_tb()); the caller computes the requester's rank in launch order among the
// resident units and the number N of resident units.
//
// Paper ambiguities and how they are resolved here:
//  - Ties in the selector are not specified. Default: the LARGEST k among the maxima (fewest
//    bypassed units; with all counters zero at start-up or in a reuse-free, congestion-free phase
//    the baseline is kept). TieRule::PreferSmallerK selects the smallest instead.
//  - L > N: calculator k with k > N models all N units, so L = min(k, N) in RF_est.
//  - Hits come from the sampled sets only while RF_base counts failures of every set. The paper
//    does not say whether it rescales; E = 0.5 was fitted on whole-cache counts (§5.3), so the
//    platform default (mdb.scale_hits) is hit_scale = sets / sampled sets, applied after the
//    10-bit counter; hit_scale = 1 (this struct's default) compares the raw sampled counts.
//  - RF_base is the counter as observed under the bypass decision in force (the paper reads "the
//    single global reservation failure counter"), not re-normalised to the all-units baseline.
//  - Until the first decision, the decision is K (no bypassing).
//  - Counter widths (§6: "one 10-bit hit number counter for each 'Adjusted Hits' calculator, one
//    global 12-bit reservation failure counter on each SM"): the hit counters (in the shadow
//    sampler) and RF_base saturate at 2^bits - 1; the paper does not say saturate or wrap, and
//    wrapping would invert the comparison it feeds. Saturation bounds E * RF_est(L) at
//    0.5 * 4095 per interval.
//  - G-BPG (§6): one SM runs the BPG and the TB dispatcher broadcasts its decision; modelled by
//    GlobalBypassParameter (leader publishes, followers adopt()). Which SM samples is chosen by
//    the platform mechanism (platforms/mechanisms/mdb_mechanism.h, SamplingSmSelector).
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "model/shadow_tags.h"
#include "model/types.h"

namespace locsim {

// §5.2 / §6: (L/N)^3 pre-computed for 1 <= L, N <= max_n (48 warps per Fermi SM), as the hardware's
// lookup tables do. L is clamped to N; N == 0 is treated as 1; N > max_n is computed directly.
class RfEstimateTable {
 public:
  explicit RfEstimateTable(unsigned max_n = 48);
  unsigned max_n() const { return max_n_; }
  double ratio_cubed(unsigned l, unsigned n) const;
  double estimate(std::uint64_t rf_base, unsigned l, unsigned n) const {
    return static_cast<double>(rf_base) * ratio_cubed(l, n);
  }

 private:
  unsigned max_n_;
  std::vector<double> table_;  // [(n-1) * max_n + (l-1)]
};

enum class TieRule { PreferLargerK, PreferSmallerK };

struct BypassPredictorConfig {
  ShadowTagConfig shadow;                  // L1 geometry, K (= shadow.max_k, 8), set sampling
  std::uint64_t decision_interval = 1000;  // accesses per decision (§6)
  double rf_weight = 0.5;                  // E (§5.3)
  double hit_scale = 1.0;                  // multiplies sampled hits (see header note)
  unsigned rf_counter_bits = 12;           // RF_base counter width, saturating (§6), 1..64
  TieRule tie = TieRule::PreferLargerK;
  unsigned table_max_n = 48;
  std::size_t history_limit = 4096;  // most recent decisions kept (0 = keep none)
};

struct BypassDecision {
  std::uint64_t at_access = 0;      // predictor access count when the decision was made
  unsigned k = 0;                   // L_max: units of rank < k use the L1 (k == K: all of them)
  unsigned active = 0;              // N at decision time
  std::uint64_t rf_base = 0;        // RF counter value used (before halving)
  std::vector<std::uint64_t> hits;  // Hits(k) per k, index k-1 (before halving)
  std::vector<double> rf_est;       // RF_est(k), index k-1
  std::vector<double> adjusted;     // AdjustedHits(k), index k-1
};

// Whether the unit of rank `rank` bypasses the L1 under decision k with K calculators.
inline bool bypass_rank(unsigned k, unsigned max_k, unsigned rank) {
  return k < max_k && rank >= k;
}
// §5.2: the bypass unit is the TB when more than one TB is resident on the SM, else the warp.
inline bool bypass_unit_is_tb(unsigned resident_tbs) {
  return resident_tbs > 1;
}

class BypassPredictor {
 public:
  // Throws std::invalid_argument for a bad shadow configuration or decision_interval == 0.
  explicit BypassPredictor(const BypassPredictorConfig& cfg);

  const BypassPredictorConfig& config() const { return cfg_; }
  unsigned max_k() const { return shadow_.max_k(); }

  // One L1 access by the unit of rank `rank`, bypassed ones included (the shadow arrays model
  // what the L1 would see). Returns true when this access completed an interval and a new
  // decision was made (then counters were halved).
  bool on_access(Addr addr, unsigned rank);
  // The L1 reports reservation failures (line / MSHR / miss queue) here (§2.2, Fig. 1). The
  // counter saturates at rf_limit() (12 bits, §6).
  void on_reservation_failure(std::uint64_t n = 1) {
    rf_ = rf_limit_ - rf_ < n ? rf_limit_ : rf_ + n;
  }
  std::uint64_t rf_limit() const { return rf_limit_; }
  // N: resident warps/TBs at the chosen granularity.
  void set_active(unsigned n) { active_ = n; }
  unsigned active() const { return active_; }

  unsigned decision() const { return k_; }
  bool bypass(unsigned rank) const { return bypass_rank(k_, max_k(), rank); }

  // Model terms from the current counters (k in 1..K; throws std::out_of_range otherwise).
  double hits_estimate(unsigned k) const;  // hit_scale * Hits(k)
  double rf_estimate(unsigned k) const;    // RF_base * (min(k,N)/N)^3
  double adjusted_hits(unsigned k) const;  // hits_estimate - rf_weight * rf_estimate
  std::uint64_t rf_base() const { return rf_; }
  std::uint64_t accesses() const { return accesses_; }
  const ShadowTagSampler& shadow() const { return shadow_; }
  const RfEstimateTable& rf_table() const { return table_; }

  // Makes a decision from the current counters now, records it, then halves every counter.
  // on_access() calls this every decision_interval accesses.
  const BypassDecision& decide();
  // G-BPG follower: takes a decision made elsewhere (clamped to 1..K). Counted in choice_counts
  // but not in history().
  void adopt(unsigned k);

  std::uint64_t decisions() const { return decisions_; }
  // Most recent decisions (at most history_limit), oldest first.
  const std::deque<BypassDecision>& history() const { return history_; }
  // How often each k was chosen or adopted, index k-1.
  const std::vector<std::uint64_t>& choice_counts() const { return choices_; }

  // Kernel boundary: drops shadow tags, counters and history; decision back to K.
  void reset();
  // Drops shadow tags and counters (hits, RF, accesses since the last decision) but keeps the
  // decision in force, the decision count and history: G-BPG moving to another SM's L1, whose
  // stream the shadow tags have not seen.
  void clear_counters();

 private:
  BypassPredictorConfig cfg_;
  ShadowTagSampler shadow_;
  RfEstimateTable table_;
  std::uint64_t rf_limit_;
  unsigned k_;
  unsigned active_ = 0;
  std::uint64_t rf_ = 0;
  std::uint64_t accesses_ = 0;
  std::uint64_t decisions_ = 0;
  std::deque<BypassDecision> history_;
  std::vector<std::uint64_t> choices_;
  BypassDecision last_;
};

// G-BPG (§6): the bypassing parameter one SM's BPG produces, broadcast through the TB dispatcher
// to every SM. Usage: the leader SM's predictor.on_access() returns true ->
// global.publish(predictor.decision()); each other SM either calls global.bypass(rank) directly or
// its predictor.adopt(global.k()) when global.version() changed.
class GlobalBypassParameter {
 public:
  explicit GlobalBypassParameter(unsigned max_k = 8) : max_k_(std::max(1u, max_k)), k_(max_k_) {}
  void publish(unsigned k);  // clamped to 1..K; bumps version()
  unsigned k() const { return k_; }
  unsigned max_k() const { return max_k_; }
  std::uint64_t version() const { return version_; }
  bool bypass(unsigned rank) const { return bypass_rank(k_, max_k_, rank); }
  void reset() {
    k_ = max_k_;
    version_ = 0;
  }

 private:
  unsigned max_k_;
  unsigned k_;
  std::uint64_t version_ = 0;
};

// G-BPG's sampling SM (§6 says the global BPG "monitors application behaviors on one SM" but not
// which). Rule, by activity, per kernel:
//  1. the first SM to receive a CTA of the kernel samples it: it is active from the kernel's first
//     cycle, so it sees the start-up phase where the first decisions are made (with GPGPU-Sim's
//     round-robin dispatcher, whose pointer carries over between kernels, this is not SM 0 for a
//     kernel following one with few CTAs: a fixed SM 0 would sample an idle L1 and never decide);
//  2. when the sampling SM has retired its last CTA and the kernel has no CTA left to dispatch
//     (it will stay idle until the kernel ends), sampling moves to the SM with the most resident
//     CTAs (lowest id on ties), which is what the TB dispatcher that broadcasts the parameter
//     knows. A sampling SM that is idle only between two of its CTAs keeps the role, so the
//     shadow tags are not thrown away at every CTA boundary.
class SamplingSmSelector {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  // A kernel of `ctas` CTAs starts on `sms` SMs (every SM idle).
  void begin_kernel(std::uint32_t sms, std::uint64_t ctas);
  // Return true when the sampling SM changed (rule 1 at the first launch, rule 2 at a retire).
  bool cta_launched(std::uint32_t sm);
  bool cta_finished(std::uint32_t sm);
  std::uint32_t sampler() const { return sampler_; }
  std::uint32_t resident(std::uint32_t sm) const {
    return sm < resident_.size() ? resident_[sm] : 0;
  }
  std::uint64_t undispatched() const { return ctas_ - launched_; }

 private:
  std::vector<std::uint32_t> resident_;
  std::uint64_t ctas_ = 0, launched_ = 0;
  std::uint32_t sampler_ = kNone;
};

}  // namespace locsim
