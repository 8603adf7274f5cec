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
#include <vector>

#include "model/ring_buffer.h"
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
  std::size_t tracked_lines() const { return live_; }

 private:
  static constexpr Cycle kNever = ~Cycle{0};
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  struct LineHistory {
    Addr line = 0;
    Cycle last = kNever;              // last access to the line; kNever: the slot is free
    std::array<Cycle, 32> word_last;  // last access to each 4-byte word
    LineHistory() { word_last.fill(kNever); }
  };
  bool recent(Cycle t, Cycle now) const { return t != kNever && now - t <= window_; }
  void expire(Cycle now);
  // The index position holding `line`, else the empty position where it would go.
  std::uint32_t probe(Addr line) const {
    std::uint32_t i = home(line);
    while (index_[i].slot != kEmpty && index_[i].line != line) i = (i + 1) & index_mask_;
    return i;
  }
  std::uint32_t home(Addr line) const {
    return static_cast<std::uint32_t>((line * 0x9E3779B97F4A7C15ull) >> index_shift_);
  }
  void erase(Addr line);
  void grow();

  Cycle window_;
  // The lines of the last W cycles: histories in reused slots (a streaming kernel touches a new
  // line with almost every read), found through an open-addressing index (linear probing,
  // backward-shift deletion).
  std::vector<LineHistory> slots_;
  std::vector<std::uint32_t> free_;  // slots of forgotten lines
  struct IndexEntry {
    Addr line;
    std::uint32_t slot;  // kEmpty: an empty position
  };
  std::vector<IndexEntry> index_;
  std::uint32_t index_mask_ = 0, index_shift_ = 64;
  std::size_t live_ = 0;
  struct Access {
    Cycle at;
    std::uint32_t slot;  // the line's slot (held by it until the line is forgotten)
  };
  RingBuffer<Access> order_;  // oldest first
  std::uint64_t requests_ = 0, line_sharing_ = 0, data_sharing_ = 0;
};

}  // namespace locsim
