// Items released at a given cycle, in (cycle, insertion) order.
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

#include "model/types.h"

namespace locsim {

template <class T>
class TimedQueue {
 public:
  void push(Cycle when, T v) { q_.push(Item{when, seq_++, std::move(v)}); }
  bool empty() const { return q_.empty(); }
  std::size_t size() const { return q_.size(); }
  Cycle next_cycle() const { return q_.top().when; }
  bool ready(Cycle now) const { return !q_.empty() && q_.top().when <= now; }
  T pop() {
    T v = q_.top().v;
    q_.pop();
    return v;
  }

 private:
  struct Item {
    Cycle when;
    std::uint64_t seq;
    T v;
    bool operator>(const Item& o) const { return when != o.when ? when > o.when : seq > o.seq; }
  };
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q_;
  std::uint64_t seq_ = 0;
};

}  // namespace locsim
