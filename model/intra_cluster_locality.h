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
#include <deque>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace locsim {

enum class RequestLocality { First, LineSharing, DataSharing };

class IntraClusterLocality {
 public:
  explicit IntraClusterLocality(Cycle window) : window_(window) {}
  IntraClusterLocality(const IntraClusterLocality&) = delete;  // the spare nodes are move-only
  IntraClusterLocality& operator=(const IntraClusterLocality&) = delete;
  IntraClusterLocality(IntraClusterLocality&&) = default;
  IntraClusterLocality& operator=(IntraClusterLocality&&) = default;

  // Records a read of `bytes` (within a line of at most 128 B) of `line` at cycle `now`; cycles
  // must not decrease between calls.
  RequestLocality observe(Addr line, const ByteMask& bytes, Cycle now);

  Cycle window() const { return window_; }
  std::uint64_t requests() const { return requests_; }
  std::uint64_t line_sharing() const { return line_sharing_; }
  std::uint64_t data_sharing() const { return data_sharing_; }
  std::uint64_t redundant() const { return line_sharing_ + data_sharing_; }
  std::size_t tracked_lines() const { return lines_.size(); }

 private:
  static constexpr Cycle kNever = ~Cycle{0};
  struct LineHistory {
    Cycle last = kNever;              // last access to the line
    std::array<Cycle, 32> word_last;  // last access to each 4-byte word
    LineHistory() { word_last.fill(kNever); }
  };
  bool recent(Cycle t, Cycle now) const { return t != kNever && now - t <= window_; }
  void expire(Cycle now);

  Cycle window_;
  std::unordered_map<Addr, LineHistory> lines_;
  // Nodes of forgotten lines, reused for new ones: a streaming kernel touches a new line with
  // almost every read, and a map node allocated and freed per read cost more than the lookup.
  std::vector<std::unordered_map<Addr, LineHistory>::node_type> spare_;
  std::deque<std::pair<Cycle, Addr>> order_;  // (access cycle, line), oldest first
  std::uint64_t requests_ = 0, line_sharing_ = 0, data_sharing_ = 0;
};

}  // namespace locsim
