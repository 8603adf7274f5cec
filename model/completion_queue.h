// Items released at a given cycle, in (cycle, insertion) order, like TimedQueue, for pushes that
// arrive almost sorted: a DRAM channel's completions, each a fixed time after its command by kind
// (read or write). A push goes in after the last item whose cycle is not later than its own,
// found from the back of a power-of-two ring (usually at once), so the order among equal cycles
// is the order of the pushes; pop takes the front.
#pragma once
#include <cstdint>
#include <vector>

#include "model/types.h"

namespace locsim {

template <class T>
class CompletionQueue {
 public:
  bool empty() const { return head_ == tail_; }
  std::uint32_t size() const { return tail_ - head_; }
  // Precondition for next_cycle() and pop(): !empty().
  Cycle next_cycle() const { return buf_[head_ & mask_].when; }
  bool ready(Cycle now) const { return !empty() && next_cycle() <= now; }
  T pop() { return buf_[head_++ & mask_].v; }
  void push(Cycle when, T v) {
    if (size() == buf_.size()) grow();
    std::uint32_t i = tail_++;
    for (; i != head_ && buf_[(i - 1) & mask_].when > when; --i)
      buf_[i & mask_] = buf_[(i - 1) & mask_];
    buf_[i & mask_] = Item{when, std::move(v)};
  }

 private:
  struct Item {
    Cycle when;
    T v;
  };
  void grow() {
    std::vector<Item> b(buf_.empty() ? 8 : buf_.size() * 2);
    for (std::uint32_t i = 0; i < size(); ++i) b[i] = buf_[(head_ + i) & mask_];
    tail_ = size();
    head_ = 0;
    buf_.swap(b);
    mask_ = static_cast<std::uint32_t>(buf_.size() - 1);
  }
  std::vector<Item> buf_;
  std::uint32_t head_ = 0, tail_ = 0, mask_ = 0;
};

}  // namespace locsim
