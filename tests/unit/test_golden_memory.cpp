#include <catch2/catch.hpp>
#include <cstring>

#include "model/golden_memory.h"

using namespace locsim;

TEST_CASE("GoldenMemory: loads see initial or same-kernel stored bytes only", "[golden]") {
  GoldenMemory g;
  g.begin_kernel(1);
  std::uint8_t line[128] = {};
  for (Addr a = 0; a < 128; a += 4) {
    std::uint32_t v = initial_word(0x1000 + a);
    std::memcpy(line + a, &v, 4);
  }
  ByteMask all;
  all.set_range(0, 128);
  CHECK(g.check_load(0x1000, all, 128, line).empty());
  line[5] ^= 1;
  CHECK_FALSE(g.check_load(0x1000, all, 128, line).empty());
  line[5] ^= 1;

  ByteMask st;
  st.set_range(4, 4);
  std::uint8_t data[128] = {};
  g.store(0x1000, st, 128, data);
  std::uint32_t sv;
  std::memcpy(&sv, data + 4, 4);
  CHECK(sv == store_word(0x1004, 1));
  CHECK(g.check_load(0x1000, all, 128, line).empty());  // old value still legal in-kernel
  std::memcpy(line + 4, &sv, 4);
  CHECK(g.check_load(0x1000, all, 128, line).empty());  // new value legal too
  auto fin = g.end_kernel();
  REQUIRE(fin.size() == 1);
  CHECK(fin[0].first == 0x1004);
  CHECK(fin[0].second == sv);
  g.begin_kernel(2);
  std::uint32_t old = initial_word(0x1004);
  std::memcpy(line + 4, &old, 4);
  CHECK_FALSE(g.check_load(0x1000, all, 128, line).empty());  // stale after the kernel boundary
}

TEST_CASE("GoldenMemory: atomics return values in range and sum exactly", "[golden]") {
  GoldenMemory g;
  g.begin_kernel(0);
  const Addr w = 0x2000;
  const std::uint32_t base = initial_word(w);
  g.atomic_add(w, 3);
  CHECK(g.check_atomic(w, base, 3).empty());
  CHECK_FALSE(g.check_atomic(w, base + 1, 3).empty());
  g.atomic_add(w, 2);
  CHECK(g.check_atomic(w, base + 3, 2).empty());
  CHECK_FALSE(g.check_atomic(w, base + 4, 2).empty());
  auto fin = g.end_kernel();
  REQUIRE(fin.size() == 1);
  CHECK(fin[0].second == base + 5);
  CHECK(g.committed_word(w) == base + 5);
}

TEST_CASE("GoldenMemory: store then atomic add in one kernel follows program order", "[golden]") {
  // A thread stores a word and then adds 1 to it atomically: the atomic returns the stored value
  // (used to be a false data-integrity failure, exit 3).
  GoldenMemory g;
  g.begin_kernel(4);
  const Addr w = 0x3000;
  const std::uint32_t base = initial_word(w);
  ByteMask st;
  st.set_range(0, 4);
  std::uint8_t data[128] = {};
  g.store(w, st, 128, data);
  const std::uint32_t s = store_word(w, 4);
  g.atomic_add(w, 1);
  CHECK(g.check_atomic(w, s, 1).empty());     // store landed first
  CHECK(g.check_atomic(w, base, 1).empty());  // the add overtook the store (another thread's)
  CHECK_FALSE(g.check_atomic(w, s + 1, 1).empty());
  std::vector<OrderDependentWord> mixed;
  auto fin = g.end_kernel(&mixed);
  CHECK(fin.empty());
  REQUIRE(mixed.size() == 1);
  CHECK(mixed[0].feasible(s + 1, true));  // store, then add
  CHECK(mixed[0].feasible(s, true));      // add, then the store overwrote it
  CHECK_FALSE(mixed[0].feasible(base, true));
  CHECK_FALSE(mixed[0].feasible(s + 2, true));
  g.commit_word(w, s + 1);
  CHECK(g.committed_word(w) == s + 1);
}

TEST_CASE("GoldenMemory: a partial store mixed with adds keeps the unstored bytes' carries",
          "[golden]") {
  OrderDependentWord w{0x40, 0x1, 0x000000ff, 0x00000010, 1};  // byte 0 stored
  // add then store: 0x100, byte 0 := 0x10 gives 0x110; store then add: 0x10 + 1 = 0x11.
  CHECK(w.feasible(0x110, true));
  CHECK(w.feasible(0x11, true));
  CHECK_FALSE(w.feasible(0x10, true));
  CHECK_FALSE(w.feasible(0x100, true));
}
