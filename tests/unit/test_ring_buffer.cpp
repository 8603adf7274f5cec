#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <random>

#include "model/ring_buffer.h"

using namespace locsim;

TEST_CASE("RingBuffer: FIFO order across growth and wrap-around", "[ring_buffer]") {
  // A small initial capacity so that the ring both wraps (pops before pushes) and grows while
  // wrapped; a deque is the reference.
  RingBuffer<int> r(3);  // rounded up to 4
  std::deque<int> ref;
  std::mt19937 rng(11);
  int next = 0;
  for (int step = 0; step < 5000; ++step) {
    if (ref.empty() || rng() % 3 != 0) {
      r.push_back(next);
      ref.push_back(next++);
    } else {
      REQUIRE(r.front() == ref.front());
      r.pop_front();
      ref.pop_front();
    }
    REQUIRE(r.size() == ref.size());
    REQUIRE(r.empty() == ref.empty());
    if (!ref.empty()) REQUIRE(r[r.size() - 1] == ref.back());
  }
  for (std::uint32_t i = 0; i < r.size(); ++i) CHECK(r[i] == ref[i]);
}

TEST_CASE("RingBuffer: operator[] writes in place, counted from the front", "[ring_buffer]") {
  RingBuffer<int> r(2);
  r.push_back(1);
  r.push_back(2);
  r.pop_front();
  r.push_back(3);  // wraps: stored at index 0 of the ring, second from the front
  r[1] = 30;
  CHECK(r.front() == 2);
  CHECK(r[1] == 30);
  r.push_back(4);  // grows while wrapped
  CHECK(r.size() == 3);
  CHECK(r[0] == 2);
  CHECK(r[1] == 30);
  CHECK(r[2] == 4);
}
