// TimeIndex: the activation scheduler's map from pending times to buckets.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "model/time_index.h"

using locsim::TimeIndex;

namespace {

// The first n times >= from whose home entry is `home`.
std::vector<std::uint64_t> times_at(const TimeIndex& ix, std::size_t home, unsigned n,
                                    std::uint64_t from = 1) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t t = from; out.size() < n; ++t)
    if (ix.home(t) == home) out.push_back(t);
  return out;
}

void put(TimeIndex& ix, std::uint64_t t, std::uint32_t v) {
  const std::size_t e = ix.find(t);
  REQUIRE(ix.value(e) == TimeIndex::kAbsent);
  ix.insert_at(e, t, v);
}

std::uint32_t get(const TimeIndex& ix, std::uint64_t t) {
  return ix.value(ix.find(t));
}

}  // namespace

TEST_CASE("time index: a removal from the middle of a probe run keeps the later entries found") {
  TimeIndex ix;
  const std::size_t last = ix.capacity() - 1;
  // A run that wraps around the table's end: three times homed at the last entry, two homed
  // at entry 0 (displaced behind them), one homed at entry 1.
  const auto a = times_at(ix, last, 3), b = times_at(ix, 0, 2), c = times_at(ix, 1, 1);
  std::uint32_t v = 0;
  for (auto t : a) put(ix, t, v++);
  for (auto t : b) put(ix, t, v++);
  for (auto t : c) put(ix, t, v++);
  CHECK(ix.find(c[0]) == 4);  // behind a[1], a[2], b[0], b[1] at entries 0-3
  ix.erase(a[1]);
  ix.erase(b[0]);
  CHECK(get(ix, a[1]) == TimeIndex::kAbsent);
  CHECK(get(ix, b[0]) == TimeIndex::kAbsent);
  CHECK(get(ix, a[0]) == 0);
  CHECK(get(ix, a[2]) == 2);
  CHECK(get(ix, b[1]) == 4);
  CHECK(get(ix, c[0]) == 5);
  CHECK(ix.size() == 4);
  // The run closed up: a[2] and b[1] at entries 0 and 1, c[0] (home 1) right after them.
  CHECK(ix.find(a[2]) == 0);
  CHECK(ix.find(b[1]) == 1);
  CHECK(ix.find(c[0]) == 2);
}

TEST_CASE("time index: agrees with std::map over random inserts and removals, through growth") {
  std::mt19937_64 rng(7);
  TimeIndex ix;
  std::map<std::uint64_t, std::uint32_t> ref;
  std::map<std::uint64_t, std::size_t> hint;  // the entry each time was put at
  std::vector<std::uint64_t> live;
  std::size_t max_live = 0;
  for (int step = 0; step < 200000; ++step) {
    // Mostly a few hundred close times (clock edges), sometimes far ones.
    const bool grow_phase = (step / 20000) % 2 == 0;
    if (live.empty() || (rng() % 100) < (grow_phase ? 60u : 40u)) {
      const std::uint64_t t = (rng() % 8 == 0) ? rng() % 1000000007u : 1000 + (rng() % 400) * 125;
      std::size_t e = ix.capacity();
      const std::uint32_t got = ix.lookup(t, e);
      const bool present = ref.count(t) != 0;
      REQUIRE((got != TimeIndex::kAbsent) == present);
      if (present) {
        REQUIRE(got == ref[t]);
        continue;
      }
      REQUIRE(e == ix.find(t));
      const auto v = static_cast<std::uint32_t>(step);
      ix.insert_at(e, t, v);
      ref[t] = v;
      hint[t] = e;
      live.push_back(t);
    } else {
      const std::size_t k = rng() % live.size();
      const std::uint64_t t = live[k];
      live[k] = live.back();
      live.pop_back();
      // Half of the removals with the insertion entry as a hint, often stale by now (moved by
      // an earlier removal's backward shift or by growth).
      if (step % 2)
        ix.erase(t, hint[t]);
      else
        ix.erase(t);
      ref.erase(t);
      hint.erase(t);
      REQUIRE(get(ix, t) == TimeIndex::kAbsent);
    }
    max_live = std::max(max_live, live.size());
    REQUIRE(ix.size() == ref.size());
    REQUIRE(2 * ix.size() <= ix.capacity());
  }
  CHECK(max_live > 64);  // the table grew at least once
  for (const auto& [t, v] : ref) CHECK(get(ix, t) == v);
}

TEST_CASE("time index: a removal with a stale hint finds the time where it moved") {
  TimeIndex ix;
  // Two times homed at entry 5: the second goes to entry 6, and moves to 5 when the first
  // leaves; a third time, homed at 6, then sits at 6.
  const auto a = times_at(ix, 5, 2), c = times_at(ix, 6, 1);
  put(ix, a[0], 0);
  put(ix, a[1], 1);
  CHECK(ix.find(a[1]) == 6);
  ix.erase(a[0], 5);
  CHECK(ix.find(a[1]) == 5);
  put(ix, c[0], 2);
  CHECK(ix.find(c[0]) == 6);
  ix.erase(a[1], 6);  // stale: entry 6 holds c[0] now, which stays
  CHECK(get(ix, a[1]) == TimeIndex::kAbsent);
  CHECK(get(ix, c[0]) == 2);
  ix.erase(c[0], 6);  // right
  CHECK(ix.size() == 0);
}

TEST_CASE("time index: pointer values, null when absent") {
  locsim::BasicTimeIndex<std::uint64_t*> ix;
  static_assert(locsim::BasicTimeIndex<std::uint64_t*>::kAbsent == nullptr);
  std::vector<std::uint64_t> slots(100);
  for (std::uint64_t t = 1; t <= 100; ++t) {  // past the first growth (limit 32)
    std::size_t e = 0;
    REQUIRE(ix.lookup(t * 1000, e) == nullptr);
    ix.insert_at(e, t * 1000, &slots[t - 1]);
  }
  for (std::uint64_t t = 1; t <= 100; t += 2) ix.erase(t * 1000);
  for (std::uint64_t t = 1; t <= 100; ++t) {
    std::size_t e = 0;
    CHECK(ix.lookup(t * 1000, e) == (t % 2 ? nullptr : &slots[t - 1]));
  }
  CHECK(ix.size() == 50);
}

TEST_CASE("time index: an initial size of 2^k entries is kept until more than half are in use") {
  TimeIndex ix(8);
  REQUIRE(ix.capacity() == 256);
  for (std::uint64_t t = 1; t < 100000; t += 997) CHECK(ix.home(t) < 256);
  for (std::uint32_t i = 0; i < 128; ++i) put(ix, 1000 + 125 * std::uint64_t{i}, i);
  CHECK(ix.capacity() == 256);
  put(ix, 1000 + 125 * 128, 128);
  CHECK(ix.capacity() == 512);
  for (std::uint32_t i = 0; i <= 128; ++i) CHECK(get(ix, 1000 + 125 * std::uint64_t{i}) == i);
  ix.erase(1000);
  CHECK(get(ix, 1000) == TimeIndex::kAbsent);
  CHECK(ix.size() == 128);
}

TEST_CASE("time index: reserve() makes room, insert_fixed() and erase_fixed() keep no count") {
  TimeIndex ix(4);
  ix.reserve(100);
  REQUIRE(ix.capacity() >= 200);
  const std::size_t cap = ix.capacity();
  for (std::uint32_t i = 0; i < 100; ++i) {
    const std::uint64_t t = 5000 + 333 * std::uint64_t{i};
    const std::size_t e = ix.find(t);
    REQUIRE(ix.value(e) == TimeIndex::kAbsent);
    ix.insert_fixed(e, t, i);
  }
  CHECK(ix.capacity() == cap);  // no growth
  CHECK(ix.size() == 0);
  for (std::uint32_t i = 0; i < 100; i += 3) {
    const std::uint64_t t = 5000 + 333 * std::uint64_t{i};
    ix.erase_fixed(t, ix.find(t) + (i % 2));  // right or wrong hint
  }
  for (std::uint32_t i = 0; i < 100; ++i)
    CHECK(get(ix, 5000 + 333 * std::uint64_t{i}) == (i % 3 ? i : TimeIndex::kAbsent));
  CHECK(ix.size() == 0);
}
