// DynEB / DynAMAT: per-core dynamic selection between a private and a shared L1 organization
// (seed 002, Ibrahim et al., PACT 2020, §4; spec M5).
//
// Each core alternates a sampling and an execution phase (§4.1, Fig. 8), starting in sampling
// (I-6). Sampling: even sets are treated as private, odd sets as shared (by the LSB of the set
// index at the requester, R5.2), and two counter groups (0 = private/even, 1 = shared/odd) count
// L1 accesses and misses of the local L1 (including remote requests it serves as home, I-7),
// replies from L2, replies from home cores (shared group) and local accesses (requester ==
// home). Sampling ends on the local access that brings the second group to R_S = 512 local
// accesses (R5.4); the core then decides (eq. 3 or eq. 1-2, with L1MRpr, §4.2) and runs every set
// in the chosen mode for exactly R_EX = 16384 local accesses (R5.6), after which a new sampling
// phase starts with cleared counters. Counters only count during sampling.
//
// Interpretations (spec §4 / here):
//  - EB ties -> private; a zero miss rate makes EB infinite (R5.5); +inf vs +inf is a tie.
//  - DynAMAT: latencies are the averages sampled during the sampling phase (config defaults, the
//    paper's §5.2 measured 28 / 247 / 82 cycles, when no sample of a kind was taken);
//    L1_LocalMissRate = the group's miss rate (I-7); L1_RemoteMissRate = share of home replies
//    that missed at the home; L, R = the core's local accesses in the shared group and its remote
//    requests. The private group has R = 0. Lower AMAT wins, ties -> private.
//  - L1MRpr (R5.5, R5.10): private group miss rate < threshold -> private, for both metrics.
#pragma once
#include <cstdint>
#include <vector>

#include "model/types.h"

namespace locsim {

enum class DynMetric { EB, AMAT };
const char* to_string(DynMetric m);  // "eb", "amat"

struct DynamicL1Config {
  DynMetric metric = DynMetric::EB;
  std::uint64_t sampling_accesses = 512;     // R_S, local accesses per group (§4.1)
  std::uint64_t execution_accesses = 16384;  // R_EX, local accesses (§4.1)
  double l1mr_threshold = 0.10;              // L1MR_Threshold (§4.2)
  bool use_l1mrpr = true;                    // DynEB+L1MRpr is "DynEB" in §5.2 (R5.11)
  // DynAMAT fallbacks when a latency kind was never sampled (core cycles, §5.2).
  double default_l1_hit_latency = 28.0;
  double default_l2_latency = 247.0;
  double default_home_latency = 82.0;
  // Throws std::invalid_argument naming the field (R_S, R_EX == 0, threshold outside [0, 1]).
  void validate() const;
};

enum class DynPhase { Sampling, Execution };
const char* to_string(DynPhase p);  // "sampling", "execution"

// Latency kinds DynAMAT averages (eq. 1-2).
enum class DynLatency { L1Hit, L2Access, HomeAccess };

// One counter group of Fig. 8 Ⓒ.
struct DynGroupCounters {
  std::uint64_t l1_accesses = 0;
  std::uint64_t l1_misses = 0;
  std::uint64_t l2_replies = 0;
  std::uint64_t home_replies = 0;  // shared group only
  std::uint64_t local_accesses = 0;
  double miss_rate() const {  // 0 without accesses
    return l1_accesses ? static_cast<double>(l1_misses) / static_cast<double>(l1_accesses) : 0.0;
  }
};

// One end-of-sampling decision (Fig. 8 Ⓕ), for reports (Fig. 14 timelines).
struct DynDecision {
  std::uint64_t seq = 0;     // 0, 1, ... since construction
  Cycle cycle = 0;           // as passed to the on_local_access() that ended sampling
  bool shared = false;       // chosen mode for the execution phase
  bool by_l1mrpr = false;    // the metric preferred shared, L1MRpr forced private
  double private_value = 0;  // EB (higher wins) or AMAT (lower wins) of each group
  double shared_value = 0;
  double private_miss_rate = 0;
  double shared_miss_rate = 0;
};

class DynamicL1Selector {
 public:
  static constexpr unsigned kPrivateGroup = 0;  // even sets
  static constexpr unsigned kSharedGroup = 1;   // odd sets

  // Validates cfg (std::invalid_argument).
  explicit DynamicL1Selector(const DynamicL1Config& cfg = DynamicL1Config{});
  const DynamicL1Config& config() const { return cfg_; }

  DynPhase phase() const { return phase_; }
  // Mode chosen for the current execution phase; false during sampling.
  bool shared_mode() const { return phase_ == DynPhase::Execution && shared_; }
  // R5.2: sampling -> odd sets shared, even sets private; execution -> the chosen mode.
  bool treat_as_shared(unsigned set_parity) const {
    return phase_ == DynPhase::Sampling ? (set_parity & 1u) != 0 : shared_;
  }

  // --- events (group = set parity, 0 or 1; std::invalid_argument otherwise). Ignored outside
  // sampling, except on_local_access which also times the execution phase.
  // An access the local L1 serves in that group's sets, local or remote (I-7).
  void on_l1_access(unsigned group, bool miss);
  // A reply from L2 installed in (or, direct Min(H, L2), requested for) a set of that group.
  void on_l2_reply(unsigned group);
  // A reply from a home core to this core's remote request (shared group); missed_at_home feeds
  // DynAMAT's L1_RemoteMissRate.
  void on_home_reply(bool missed_at_home = false);
  // This core issued a remote request (R of eq. 1; DynAMAT only).
  void on_remote_access();
  // A latency observation in core cycles (DynAMAT averages).
  void on_latency_sample(DynLatency kind, double cycles);
  // A local access (requester == home) in that group's sets. Drives the phases: returns true iff
  // this access ended the current phase (sampling -> execution after deciding, or execution ->
  // sampling with cleared counters). `now` is recorded in the decision history.
  bool on_local_access(unsigned group, Cycle now = 0);

  // I-6: kernel boundary (L1s flushed): restart a sampling phase with cleared counters. The
  // history and the phase totals are kept.
  void reset_for_kernel();

  // --- state for tests and reports
  const DynGroupCounters& counters(unsigned group) const;
  std::uint64_t remote_accesses() const { return remote_accesses_; }
  std::uint64_t remote_misses() const { return remote_misses_; }
  // Sampled average of a latency kind, or the config default without samples.
  double mean_latency(DynLatency kind) const;
  // Local accesses so far in the current execution phase (0 during sampling).
  std::uint64_t execution_progress() const { return exec_local_; }
  const std::vector<DynDecision>& history() const { return history_; }
  // Local accesses spent in sampling / private execution / shared execution since construction.
  std::uint64_t local_accesses_sampling() const { return total_sampling_; }
  std::uint64_t local_accesses_exec_private() const { return total_exec_private_; }
  std::uint64_t local_accesses_exec_shared() const { return total_exec_shared_; }

  // What the current counters would decide (seq/cycle left 0). Used at the end of sampling.
  DynDecision evaluate() const;

  // --- pure decision functions (§4.2)
  // Eq. (3): L2_Replies / L1_MissRate + Home_Replies; miss_rate <= 0 -> +infinity.
  static double eb(double l2_replies, double miss_rate, double home_replies);
  // Eq. (2): Home_AccessLatency + L1_RemoteMissRate * L2_AccessLatency.
  static double amat_home(double home_latency, double remote_miss_rate, double l2_latency);
  // Eq. (1): L1_HitLatency + (L/(L+R) * L1_LocalMissRate) * L2_AccessLatency
  //          + R/(L+R) * AMAT_Home. L + R == 0 is taken as all-local (L/(L+R) = 1).
  static double amat(double l1_hit_latency, double l2_latency, double home_latency, double local,
                     double remote, double local_miss_rate, double remote_miss_rate);
  // Shared iff the metric prefers shared strictly (EB higher, AMAT lower) and, with L1MRpr, the
  // private group's miss rate is not below the threshold. by_l1mrpr (optional) is set when
  // L1MRpr overrode a shared preference.
  static bool choose_shared(const DynamicL1Config& cfg, double private_value, double shared_value,
                            double private_miss_rate, bool* by_l1mrpr = nullptr);

 private:
  void start_sampling();
  static void check_group(unsigned group);

  DynamicL1Config cfg_;
  DynPhase phase_ = DynPhase::Sampling;
  bool shared_ = false;
  DynGroupCounters g_[2];
  std::uint64_t remote_accesses_ = 0, remote_misses_ = 0;
  double lat_sum_[3] = {0, 0, 0};
  std::uint64_t lat_n_[3] = {0, 0, 0};
  std::uint64_t exec_local_ = 0;
  std::uint64_t total_sampling_ = 0, total_exec_private_ = 0, total_exec_shared_ = 0;
  std::vector<DynDecision> history_;
};

}  // namespace locsim
