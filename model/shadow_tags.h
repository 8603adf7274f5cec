// Shadow tag arrays of the model-driven warp/TB-level bypassing scheme (seed 004, Dai et al.,
// DAC'16, §6): the "online monitor" of each Adjusted-Hits calculator.
//
// Shadow array k (k = 1..K, K = 8 in the paper) has the same structure as the L1 D-cache tag store
// (same sets, ways, line size, set-index function incl. XOR, LRU replacement) and counts the hits
// the L1 would see if only the first k warps/TBs (in launch order) used it: an access by the
// requester of rank r (its index among the resident warps/TBs) is inserted into every array k
// with r < k. Only a few sets are simulated (set sampling, Qureshi's UCP; the paper samples 4 of
// 32 sets, ratio 1:8); accesses to other sets are ignored.
//
// Simplifications (documented):
//  - Shadow entries are tag + valid + LRU only (paper: "1 valid bit + 2 LRU bits + up to 32 bits
//    tag"): a line is present or not, sectors are not tracked, fills are instantaneous.
//  - Hit counters are `hit_counter_bits` wide (§6: "one 10-bit hit number counter for each
//    'Adjusted Hits' calculator") and saturate at 2^bits - 1: the paper gives the width, not the
//    overflow behaviour, and a wrapping counter would turn the most-hit calculator into the
//    least-hit one. The per-array access counters are statistics only (no hardware counterpart)
//    and are 64-bit.
#pragma once
#include <cstdint>
#include <vector>

#include "model/tag_array.h"
#include "model/types.h"

namespace locsim {

struct ShadowTagConfig {
  CacheGeometry geometry;  // the L1 D-cache tag store's geometry (sets, ways, line, indexing)
  unsigned max_k = 8;      // K: arrays for k = 1..K (8 Adjusted-Hits calculators, §6)
  // Number of evenly spaced sampled sets (set i * sets / n for i = 0..n-1); 0 = sets / 8 (at
  // least 1), the paper's 1:8 ratio, i.e. sets 0, 8, 16, 24 of a 32-set L1 (§6).
  std::uint32_t sampled_sets = 0;
  // Explicit list of sampled sets; overrides sampled_sets when non-empty.
  std::vector<std::uint32_t> set_list;
  // Width of each calculator's hit counter (§6: 10 bits); 1..64, saturating.
  unsigned hit_counter_bits = 10;
};

// Largest value of a `bits`-wide unsigned counter (bits >= 64: the full 64-bit range).
inline std::uint64_t saturation_limit(unsigned bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

class ShadowTagSampler {
 public:
  // Throws std::invalid_argument for a bad geometry, max_k == 0, more sampled sets than sets, or
  // an explicit set out of range / repeated.
  explicit ShadowTagSampler(const ShadowTagConfig& cfg);

  unsigned max_k() const { return max_k_; }
  const CacheGeometry& geometry() const { return arrays_.front().geometry(); }
  // Same set-index function as the L1 (TagArray::set_index: linear or XOR).
  std::uint32_t set_index(Addr a) const { return arrays_.front().set_index(a); }
  const std::vector<std::uint32_t>& sampled_sets() const { return sets_; }
  bool is_sampled_set(std::uint32_t set) const { return set < sampled_.size() && sampled_[set]; }
  bool is_sampled(Addr a) const { return is_sampled_set(set_index(a)); }

  // One L1 access (any byte of the line) by the requester of rank `rank`. Ignored unless the line
  // maps to a sampled set; otherwise looked up in (and on a miss inserted into, LRU victim) every
  // array k with rank < k. Ranks >= K touch nothing.
  void access(Addr line_addr, unsigned rank);

  // Counters of array k (1 <= k <= K; throws std::out_of_range otherwise).
  // hits(k) saturates at hit_limit() (the hardware counter's width).
  std::uint64_t hits(unsigned k) const { return hits_.at(index(k)); }
  std::uint64_t hit_limit() const { return hit_limit_; }
  std::uint64_t accesses(unsigned k) const { return accesses_.at(index(k)); }
  // Whether array k currently holds the line.
  bool contains(unsigned k, Addr a) const { return arrays_.at(index(k)).find(a) >= 0; }
  const TagArray& array(unsigned k) const { return arrays_.at(index(k)); }

  // Right-shifts every hit/access counter by one (§6: done at each new bypassing parameter so
  // that history is not completely lost). Tags are kept.
  void halve();
  // Drops every tag and zeroes the counters.
  void reset();

 private:
  std::size_t index(unsigned k) const;
  unsigned max_k_;
  std::uint64_t hit_limit_;
  std::vector<TagArray> arrays_;  // arrays_[k-1]; full geometry, only sampled sets used
  std::vector<std::uint32_t> sets_;
  std::vector<bool> sampled_;
  std::vector<std::uint64_t> hits_, accesses_;
};

}  // namespace locsim
