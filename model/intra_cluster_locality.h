// Intra-cluster locality (ICL), seed 001 §3.3 equation (1): the fraction of a cluster's read
// requests leaving the L1s (i.e. L1 misses, before any ICC coalescing) that access a line already
// accessed by a request of the same cluster within the last W cycles. Redundant requests are split
// as in the paper's Figure 3:
//  - data sharing: the request needs at least one 4-byte word that a windowed request also read
//    (CTAs reading the same element),
//  - cache-line sharing: same line, disjoint words (neighbouring elements in one line).
// The word granularity is our definition (the paper does not give one); 4 B is the access size of
// every float/int workload in the library.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/types.h"

namespace locsim {

enum class RequestLocality { First, LineSharing, DataSharing };

class IntraClusterLocality {
 public:
  explicit IntraClusterLocality(Cycle window) : window_(window) {}

  // Records a read of `bytes` (within a line of at most 128 B) of `line` at cycle `now`; cycles
  // must not decrease between calls.
  RequestLocality observe(Addr line, const ByteMask& bytes, Cycle now);

  Cycle window() const { return window_; }
  std::uint64_t requests() const { return requests_; }
  std::uint64_t line_sharing() const { return line_sharing_; }
  std::uint64_t data_sharing() const { return data_sharing_; }
  std::uint64_t redundant() const { return line_sharing_ + data_sharing_; }
  // Lines held: those of the last W cycles and forgotten ones not yet dropped, at most half the
  // table, which is rebuilt from the windowed lines alone when it would pass that (so memory
  // stays bounded by a multiple of the lines of the last W cycles).
  std::size_t tracked_lines() const { return used_; }

 private:
  static constexpr Cycle kNever = ~Cycle{0};
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  bool recent(Cycle t, Cycle now) const { return t != kNever && now - t <= window_; }
  std::uint32_t home(Addr line) const {
    return static_cast<std::uint32_t>((line * 0x9E3779B97F4A7C15ull) >> index_shift_);
  }
  void rebuild(Cycle now);

  Cycle window_;
  // The lines seen, in an open-addressing table (linear probing). A line whose last read is more
  // than W cycles old is forgotten without being removed: it counts as absent (its words are
  // older still), and its position (with its word history) is reused by the next new line whose
  // probe passes it. Positions never become empty again until rebuild() drops the forgotten
  // lines, so lookups need no deletion and no record of the access order.
  // Word w of a line was last read at the later of `full` (its last whole-line read, which every
  // coalesced float/int warp load is) and its time in `words` (partial reads, kept apart so that
  // lines read only whole need no per-word history).
  // Empty positions are those not marked in `occupied_` (their entries are left uninitialised:
  // a new table costs a bit per position, not an entry's stores).
  struct Entry {
    Addr line;
    Cycle last;           // last read of the line; kNever: none
    Cycle full;           // last whole-line read; kNever: none
    std::uint32_t words;  // index in words_ of its per-word history; kNone: none yet
  };
  std::unique_ptr<Entry[]> index_;
  std::vector<std::uint64_t> occupied_;  // one bit per position
  bool occupied(std::uint32_t i) const { return (occupied_[i >> 6] >> (i & 63)) & 1; }
  void occupy(std::uint32_t i) { occupied_[i >> 6] |= std::uint64_t{1} << (i & 63); }
  std::size_t size_ = 0;  // positions
  std::uint32_t index_mask_ = 0, index_shift_ = 64;
  std::size_t used_ = 0;                      // non-empty positions
  std::vector<std::array<Cycle, 32>> words_;  // last partial read of each 4-byte word
  std::vector<std::uint32_t> free_;           // histories of lines dropped by rebuild()
  std::uint64_t requests_ = 0, line_sharing_ = 0, data_sharing_ = 0;
};

}  // namespace locsim
