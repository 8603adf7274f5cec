#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <iterator>
#include <random>
#include <utility>

#include "model/completion_queue.h"

using namespace locsim;

TEST_CASE("CompletionQueue: pops in (cycle, push) order", "[completion_queue]") {
  CompletionQueue<int> q;
  CHECK(q.empty());
  CHECK_FALSE(q.ready(100));
  CHECK(q.next_cycle() == CompletionQueue<int>::kNone);  // empty: never ready
  q.push(20, 1);
  q.push(12, 2);  // earlier than the one before it
  q.push(20, 3);  // same cycle as the first: after it
  q.push(12, 4);
  q.push(30, 5);
  CHECK(q.size() == 5);
  CHECK(q.next_cycle() == 12);
  CHECK_FALSE(q.ready(11));
  REQUIRE(q.ready(12));
  CHECK(q.pop() == 2);
  CHECK(q.pop() == 4);
  CHECK_FALSE(q.ready(19));
  CHECK(q.pop() == 1);
  CHECK(q.pop() == 3);
  CHECK(q.next_cycle() == 30);
  CHECK(q.pop() == 5);
  CHECK(q.empty());
  CHECK(q.next_cycle() == CompletionQueue<int>::kNone);
  CHECK_FALSE(q.ready(~Cycle{0} - 1));
}

TEST_CASE("CompletionQueue: matches a stable reference over random DRAM-like traffic",
          "[completion_queue]") {
  // Commands at non-decreasing cycles, each completing a read or write latency later, popped
  // when due: the order must equal a stable sort by cycle (what TimedQueue's (cycle, sequence)
  // heap gives), across ring growth and wrap-around.
  std::mt19937_64 rng(7);
  CompletionQueue<std::uint32_t> q;
  std::deque<std::pair<Cycle, std::uint32_t>> ref;  // kept sorted, stable
  Cycle now = 0;
  std::uint32_t id = 0;
  for (int step = 0; step < 200000; ++step) {
    now += rng() % 3;
    const unsigned pushes = rng() % 4 == 0 ? 1 + rng() % 40 : rng() % 2;
    for (unsigned k = 0; k < pushes; ++k) {
      const Cycle when = now + (rng() % 2 ? 14 : 6) + rng() % 3;
      q.push(when, id);
      auto it = ref.end();
      while (it != ref.begin() && std::prev(it)->first > when) --it;
      ref.insert(it, {when, id});
      ++id;
    }
    REQUIRE(q.size() == ref.size());
    while (!ref.empty() && ref.front().first <= now) {
      REQUIRE(q.ready(now));
      REQUIRE(q.next_cycle() == ref.front().first);
      REQUIRE(q.pop() == ref.front().second);
      ref.pop_front();
    }
    CHECK_FALSE(q.ready(now));
    REQUIRE(q.next_cycle() ==
            (ref.empty() ? CompletionQueue<std::uint32_t>::kNone : ref.front().first));
  }
}
