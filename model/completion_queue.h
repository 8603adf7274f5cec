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
  static constexpr Cycle kNone = ~Cycle{0};
  bool empty() const { return q_.empty(); }
  std::uint32_t size() const { return q_.size(); }
  // The front item's cycle, kNone if empty (kept in a member: the owner asks every run).
  Cycle next_cycle() const { return next_; }
  bool ready(Cycle now) const { return next_ <= now; }
  // Precondition: !empty().
  T pop() {
    T v = std::move(q_.front().v);
    q_.pop_front();
    next_ = q_.empty() ? kNone : q_.front().when;
    return v;
  }
  void push(Cycle when, T v) {
    std::uint32_t i = q_.size();
    // Usually in order: written once at the back, without the shifting loop.
    if (i != 0 && q_[i - 1].when <= when) return q_.push_back(Item{when, std::move(v)});
    if (i != 0) {
      const Item back = q_[i - 1];  // a copy: push_back may grow the ring
      q_.push_back(back);           // the back moves up one; then the others later than `when`
      for (--i; i != 0 && q_[i - 1].when > when; --i) q_[i] = q_[i - 1];
      q_[i] = Item{when, std::move(v)};
    } else {
      q_.push_back(Item{when, std::move(v)});
    }
    if (i == 0) next_ = when;
  }

 private:
  struct Item {
    Cycle when;
    T v;
  };
  RingBuffer<Item> q_{8};
  Cycle next_ = kNone;
};

}  // namespace locsim
