// Items released at a given cycle, in (cycle, insertion) order, like TimedQueue, for pushes that
// arrive almost sorted: a DRAM channel's completions, each a fixed time after its command by kind
// (read or write). A push goes in after the last item whose cycle is not later than its own,
// found from the back of the ring (usually at once), so the order among equal cycles is the
// order of the pushes; pop takes the front.
#pragma once
#include <cstdint>
#include <utility>

#include "model/ring_buffer.h"
#include "model/types.h"

namespace locsim {

template <class T>
class CompletionQueue {
 public:
  bool empty() const { return q_.empty(); }
  std::uint32_t size() const { return q_.size(); }
  // Precondition for next_cycle() and pop(): !empty().
  Cycle next_cycle() const { return q_.front().when; }
  bool ready(Cycle now) const { return !empty() && next_cycle() <= now; }
  T pop() {
    T v = std::move(q_.front().v);
    q_.pop_front();
    return v;
  }
  void push(Cycle when, T v) {
    q_.push_back(Item{when, v});
    std::uint32_t i = q_.size() - 1;
    for (; i != 0 && q_[i - 1].when > when; --i) q_[i] = q_[i - 1];
    q_[i] = Item{when, std::move(v)};
  }

 private:
  struct Item {
    Cycle when;
    T v;
  };
  RingBuffer<Item> q_{8};
};

}  // namespace locsim
