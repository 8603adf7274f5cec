// Protecting Distance based Policy (PDP; Duong et al., "Improving Cache Management Policies Using
// Dynamic Reuse Distances", MICRO 2012) as the L1 bypassing half of the CBWT baseline of seed 004
// (Chen et al., MICRO 2014; "CBWT-best: the optimal SWL with PDP bypassing enabled", §7.1).
//
// Mechanism: every line carries a remaining protecting distance (RPD). Reuse distance (RD) and
// PD are counted in accesses to the line's set. An access to a set decrements the RPD of the
// set's lines (saturating at 0); a hit or an insertion sets the line's RPD to PD. A line with
// RPD > 0 is protected. An inserting miss takes an invalid way, else the least recently used
// unprotected way; when every way is protected (or reserved) the request bypasses the cache
// (PDP's non-inclusive variant). Hence a line reused within PD set accesses always hits.
//
// PD selection: a reuse-distance sampler on some sets builds a histogram N_i (i = 1..d_max) and a
// total N_t of sampled accesses; the PD maximises Duong's hit-rate model
//   E(d_p) = sum_{i<=d_p} N_i / ( sum_{i<=d_p} i*N_i + (N_t - sum_{i<=d_p} N_i) * (d_p + d_e) )
// (hits per unit of line occupancy: a line reused within d_p occupies its way for i set accesses,
// any other one for d_p + d_e), over d_p = S_c, 2*S_c, ..., d_max.
//
// Simplifications (documented):
//  - RD is exact: the sampler remembers, per sampled set, the set-access time of each line seen
//    in the last d_max accesses (hardware: a FIFO of sampled tags), and RPDs are exact counters
//    (hardware: 3-bit counters decremented every S_c set accesses).
//  - d_e defaults to the associativity W (Duong's approximation of the eviction distance).
//  - No reuse/no-reuse line classification, no per-thread PDs; one PD for the whole cache.
//  - Ties in E pick the smallest d_p; if E is 0 everywhere (no reuse within d_max) PD = 0, i.e.
//    no protection (plain LRU, no bypassing).
//  - PD is recomputed every recompute_interval accesses (hardware: a small PD compute unit),
//    after which the histogram and N_t are halved (history is aged, not dropped).
//  - Replacement priorities (pinning) of TagLine are ignored; reserved lines are never victims.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/tag_array.h"
#include "model/types.h"

namespace locsim {

struct PdpConfig {
  CacheGeometry geometry;                   // the cache's geometry (same as its TagArray)
  std::uint32_t max_distance = 256;         // d_max: largest recorded RD and largest PD
  std::uint32_t distance_step = 4;          // S_c: PD candidates are its multiples (0 = 1)
  std::uint32_t eviction_distance = 0;      // d_e; 0 = associativity W
  std::uint32_t sampled_sets = 0;           // RD sampler sets, evenly spaced; 0 = every set
  std::uint64_t recompute_interval = 4096;  // cache accesses between PD updates; 0 = static PD
  std::uint32_t initial_pd = 0;             // PD until the first update (0: no protection)
};

// Per-set reuse-distance histogram on a subset of sets.
class ReuseDistanceSampler {
 public:
  // sampled_sets == 0 samples every set; throws std::invalid_argument if sets or max_distance is
  // 0 or sampled_sets > sets.
  ReuseDistanceSampler(std::uint32_t sets, std::uint32_t max_distance,
                       std::uint32_t sampled_sets = 0);

  bool is_sampled(std::uint32_t set) const { return set < slot_.size() && slot_[set] >= 0; }
  // One access to `line` in `set` (ignored for non-sampled sets).
  void observe(std::uint32_t set, Addr line);
  std::uint32_t max_distance() const { return max_distance_; }
  // histogram()[d] = N_d, sampled reuses at distance d (1 <= d <= d_max); index 0 unused.
  const std::vector<std::uint64_t>& histogram() const { return hist_; }
  std::uint64_t total() const { return total_; }  // N_t: every sampled access
  void halve();
  void reset();

 private:
  struct SetState {
    std::uint64_t now = 0;                         // accesses to this set so far
    std::unordered_map<Addr, std::uint64_t> last;  // line -> time of its last access
  };
  std::uint32_t max_distance_;
  std::vector<int> slot_;  // set -> index into states_, -1 if not sampled
  std::vector<SetState> states_;
  std::vector<std::uint64_t> hist_;
  std::uint64_t total_ = 0;
};

// Duong's E(d_p) for a histogram as produced by ReuseDistanceSampler (hist[d], d >= 1). Returns 0
// when nothing was sampled or nothing is reused within d_p.
double pdp_hit_rate_model(const std::vector<std::uint64_t>& hist, std::uint64_t total,
                          std::uint32_t dp, std::uint32_t de);
// argmax of E over d_p = step, 2*step, ... <= max_distance (and max_distance itself); ties -> the
// smallest d_p; 0 if E is 0 everywhere.
std::uint32_t pdp_best_distance(const std::vector<std::uint64_t>& hist, std::uint64_t total,
                                std::uint32_t de, std::uint32_t step, std::uint32_t max_distance);

// RPD state and decisions beside a TagArray of the same geometry. Per access the cache does:
//   on_access(set, line); probe; hit -> protect(set, way);
//   miss -> w = victim(tags, set); w < 0 -> bypass; else allocate way w, protect(set, w).
class ProtectingDistancePolicy {
 public:
  explicit ProtectingDistancePolicy(const PdpConfig& cfg);

  const PdpConfig& config() const { return cfg_; }
  std::uint32_t pd() const { return pd_; }
  void set_pd(std::uint32_t pd) { pd_ = pd; }
  std::uint32_t eviction_distance() const;

  // An access to `set` (call before the lookup): decrements the set's RPDs, samples the RD and
  // recomputes PD every recompute_interval accesses.
  void on_access(std::uint32_t set, Addr line_addr);
  // Hit on or insertion into (set, way): RPD = PD.
  void protect(std::uint32_t set, int way) { rpd_[index(set, way)] = pd_; }
  std::uint32_t rpd(std::uint32_t set, int way) const { return rpd_[index(set, way)]; }
  bool is_protected(std::uint32_t set, int way) const { return rpd(set, way) > 0; }
  // Way to fill for an inserting miss: an invalid way, else the LRU unprotected non-reserved way;
  // -1 means every way is protected or reserved: bypass.
  int victim(const TagArray& tags, std::uint32_t set) const;
  // PD from the sampler's histogram (pdp_best_distance), then the histogram is halved.
  std::uint32_t recompute();
  const ReuseDistanceSampler& sampler() const { return sampler_; }
  std::uint64_t recomputations() const { return recomputations_; }
  // Clears RPDs and the sampler, PD back to initial_pd.
  void reset();

 private:
  std::size_t index(std::uint32_t set, int way) const {
    return std::size_t(set) * cfg_.geometry.ways + static_cast<std::size_t>(way);
  }
  PdpConfig cfg_;
  ReuseDistanceSampler sampler_;
  std::vector<std::uint32_t> rpd_;
  std::uint32_t pd_;
  std::uint64_t accesses_ = 0;
  std::uint64_t recomputations_ = 0;
};

enum class PdpOutcome { Hit, Miss, Bypass };

// Functional PDP cache: a TagArray managed by a ProtectingDistancePolicy, fills immediate and
// whole lines (for functional models and tests; the timed L1 drives the two parts itself).
class PdpCache {
 public:
  explicit PdpCache(const PdpConfig& cfg);
  PdpOutcome access(Addr addr);
  const TagArray& tags() const { return tags_; }
  ProtectingDistancePolicy& policy() { return policy_; }
  const ProtectingDistancePolicy& policy() const { return policy_; }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  std::uint64_t bypasses() const { return bypasses_; }

 private:
  TagArray tags_;
  ProtectingDistancePolicy policy_;
  std::uint64_t hits_ = 0, misses_ = 0, bypasses_ = 0;
};

}  // namespace locsim
