// PAVER's CTA schedulers (Tripathy et al., TACO 2021): at kernel start a locality graph of the
// kernel is built (§3) and cut into groups of CTAs by one of three algorithms (§4: MST-TS,
// k-way-TS, RB-TS); a runtime (§5) then issues the groups: a global queue of groups, per SM a
// `next`/`tail` pair into its current group, and task stealing (§5.2, Alg. 2) when the queue runs
// dry.
#pragma once
#include <cstdint>
#include <vector>

#include "model/cta_policy.h"
#include "model/graph_partition.h"

namespace locsim {

// The PAVER runtime (§5.1, Fig. 8-9): pure state machine, no timing. Loading nextTB is off the
// critical path (the paper calls the penalty "very rare"), so no latency is modelled here.
class TbGroupRuntime {
 public:
  // Groups in global-queue order; empty groups are skipped.
  void reset(const std::vector<CtaGroup>& groups, std::uint32_t num_sms, bool steal);
  // The next CTA for `sm`, which has a free context: from its group while next != tail, else
  // from the next group of the global queue, else (stealing on) from the SM with the most
  // waiting CTAs (Alg. 2). False when there is nothing to give.
  bool next_for(std::uint32_t sm, std::uint32_t& cta);
  std::uint32_t remaining() const { return remaining_; }
  // CTAs waiting in sm's current group (tail - next).
  std::uint32_t waiting(std::uint32_t sm) const { return sms_.at(sm).tail - sms_.at(sm).next; }

  // Alg. 2 over the current per-SM state: the donor (first SM with the most waiting CTAs) and
  // MaxWaitingTB - AverageWaitingTB (integer average over all SMs, 16-bit registers). Count 0 if
  // no SM has waiting CTAs.
  struct StealPlan {
    std::uint32_t donor = 0, count = 0;
  };
  StealPlan plan_steal() const;

  std::uint64_t groups_dequeued = 0;
  std::uint64_t steals = 0;
  std::uint64_t stolen_ctas = 0;

 private:
  struct SmState {
    std::uint32_t next = 0, tail = 0;  // [next, tail) of tbs_ (tail exclusive, spec I-7)
  };
  std::vector<std::uint32_t> tbs_;    // the groups back to back (the paper's array of arrays)
  std::vector<std::uint32_t> group_;  // start of each group in tbs_, then tbs_.size()
  std::uint32_t queue_head_ = 0;      // next group of the global queue
  std::vector<SmState> sms_;
  bool steal_ = true;
  std::uint32_t remaining_ = 0;
};

enum class PaverAlgorithm { Mst, Kway, Rb };

struct PaverOptions {
  PaverAlgorithm algorithm = PaverAlgorithm::Rb;
  bool steal = true;    // k-way-TS and RB-TS (§5.2); MST-TS groups are single CTAs
  bool rb_leq = false;  // RB-TS leaf test `size <= maxTB` instead of Alg. 1's `<` (spec I-6)
  std::uint32_t graph_bytes = 4;  // data-element size of the locality graph (§3.3, spec I-1)
  std::uint32_t max_sharers = 0;  // leave out elements read by more CTAs (0 = none)
  int seed = 0;                   // METIS_OPTION_SEED
};

// "paver-mst", "paver-kway", "paver-rb".
class PaverPolicy final : public CtaSchedulingPolicy {
 public:
  explicit PaverPolicy(const PaverOptions& o) : opt_(o) {}
  const char* name() const override;
  void begin_kernel(const KernelLaunch& launch) override;
  // Round-robin passes over the SMs, one CTA per SM with a free context per pass, so that at
  // kernel start group i goes to SM i (§5.1) and siblings of RB-TS run side by side.
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;
  std::uint32_t remaining() const override { return runtime_.remaining(); }
  void register_stats(StatRegistry& reg, const std::string& path) override;
  double analysis_seconds() const override { return analysis_s_; }

  // The groups of the current kernel in queue order (for tests and `locsim analyze`).
  const std::vector<CtaGroup>& groups() const { return groups_; }

 private:
  PaverOptions opt_;
  TbGroupRuntime runtime_;
  std::vector<CtaGroup> groups_;
  std::vector<std::uint32_t> free_;
  double analysis_s_ = 0;
  struct Stats {
    Counter *vertices = nullptr, *edges = nullptr, *weight = nullptr, *captured = nullptr,
            *groups = nullptr, *dequeues = nullptr, *steals = nullptr, *stolen = nullptr,
            *capped = nullptr;
  } st_;
  std::uint64_t dequeues_seen_ = 0, steals_seen_ = 0, stolen_seen_ = 0;
};

// Groups of a kernel's graph for an algorithm (shared by the policy and `locsim analyze`).
std::vector<CtaGroup> paver_groups(const LocalityGraph& g, const PaverOptions& o,
                                   std::uint32_t num_sms, std::uint32_t ctas_per_sm);

}  // namespace locsim
