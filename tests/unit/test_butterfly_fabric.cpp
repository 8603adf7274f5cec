// ButterflyFabric: the k-ary n-fly of seed 002's work-distribution crossbar (§5.5, R7.2, T12).
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "model/butterfly_fabric.h"

using namespace locsim;

namespace {
void* h(std::uintptr_t v) {
  return reinterpret_cast<void*>(v);
}

ButterflyFabric::Config fly(std::uint32_t k, std::uint32_t n, std::uint32_t latency = 3) {
  ButterflyFabric::Config c;
  c.k = k;
  c.n = n;
  c.switch_latency = latency;
  return c;
}

// Runs the fabric event by event from `t` until `dst` has a ready packet; returns that cycle.
Cycle run_until_ready(ButterflyFabric& f, std::uint32_t dst, Cycle t) {
  for (;;) {
    f.advance(t);
    if (f.ready(dst, t)) return t;
    t = f.next_event(t + 1);
    REQUIRE(t != ButterflyFabric::kNever);
  }
}
}  // namespace

TEST_CASE("butterfly_for: 36 -> 6-ary 2-fly and 64 -> 4-ary 3-fly else the smallest n with k <= 8",
          "[butterfly]") {
  using P = std::pair<std::uint32_t, std::uint32_t>;
  CHECK(butterfly_for(36) == P{6, 2});  // 28 cores + 8 MPs (R7.2)
  CHECK(butterfly_for(64) == P{4, 3});  // (48, 16) and (56, 8)
  CHECK(butterfly_for(28) == P{6, 2});
  CHECK(butterfly_for(1) == P{2, 2});
  CHECK(butterfly_for(4) == P{2, 2});
  CHECK(butterfly_for(5) == P{3, 2});
  CHECK(butterfly_for(56) == P{8, 2});
  CHECK(butterfly_for(65) == P{5, 3});
  CHECK(butterfly_for(512) == P{8, 3});
  CHECK(butterfly_for(513) == P{5, 4});
  CHECK_THROWS_AS(butterfly_for(0), std::invalid_argument);
}

TEST_CASE(
    "ButterflyFabric: a 6-ary 2-fly reaches every source-destination pair in 2 switch traversals "
    "(T12)",
    "[butterfly]") {
  ButterflyFabric f(fly(6, 2));
  REQUIRE(f.terminals() == 36);
  REQUIRE(f.switches_per_stage() == 6);
  for (std::uint32_t s = 0; s < 36; ++s)
    for (std::uint32_t d = 0; d < 36; ++d) {
      INFO("src " << s << " dst " << d);
      const auto r = f.route(s, d);
      REQUIRE(r.size() == 2);
      CHECK(r[0].stage == 0);
      CHECK(r[0].sw == s / 6);
      CHECK(r[0].in_port == s % 6);
      CHECK(r[0].out_port == d / 6);  // destination tag: most significant digit first
      CHECK(r[1].stage == 1);
      CHECK(r[1].sw == d / 6);  // the butterfly link of stage 0 output p enters switch p
      CHECK(r[1].in_port == s / 6);
      CHECK(r[1].out_port == d % 6);
      // And the packets really do so, one at a time.
      const Cycle t0 = 10 * (s * 36 + d);
      f.inject(s, d, 1, h(1 + s * 36 + d));
      const Cycle t = run_until_ready(f, d, t0);
      CHECK(t - t0 == f.zero_load_latency(1));
      CHECK(f.front_stages(d) == 2);
      CHECK(f.pop(d) == h(1 + s * 36 + d));
      CHECK(f.idle());
    }
  CHECK(f.switch_traversals() == 2 * 36 * 36);
  CHECK(f.delivered() == 36 * 36);
}

TEST_CASE("ButterflyFabric: every route of other sizes ends at its destination after n stages",
          "[butterfly]") {
  for (auto [k, n] : {std::pair<std::uint32_t, std::uint32_t>{2, 3}, {4, 3}, {3, 4}, {8, 1}}) {
    ButterflyFabric f(fly(k, n));
    for (std::uint32_t s = 0; s < f.terminals(); ++s)
      for (std::uint32_t d = 0; d < f.terminals(); ++d) {
        INFO(k << "-ary " << n << "-fly, src " << s << " dst " << d);
        const auto r = f.route(s, d);
        REQUIRE(r.size() == n);
        CHECK(r.front().sw == s / k);
        CHECK(r.back().sw * k + r.back().out_port == d);
      }
    // Each switch input port of a stage > 0 is reached from exactly one upstream output.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> from;
    for (std::uint32_t s = 0; s < f.terminals(); ++s)
      for (std::uint32_t d = 0; d < f.terminals(); ++d) {
        const auto r = f.route(s, d);
        for (std::uint32_t i = 1; i < r.size(); ++i) {
          const std::uint32_t up = r[i - 1].sw * k + r[i - 1].out_port;
          const auto key = std::make_pair(r[i].stage * 100000 + r[i].sw, r[i].in_port);
          CHECK(from.emplace(key, up).first->second == up);
        }
      }
  }
}

TEST_CASE("ButterflyFabric: zero-load latency is n x switch_latency + flits", "[butterfly]") {
  for (auto [k, n] : {std::pair<std::uint32_t, std::uint32_t>{6, 2}, {4, 3}, {2, 1}})
    for (std::uint32_t lat : {1u, 3u})
      for (std::uint32_t flits : {1u, 5u}) {
        ButterflyFabric f(fly(k, n, lat));
        const std::uint32_t last = f.terminals() - 1;
        const Cycle t0 = 100;
        f.advance(t0 - 1);
        f.inject(0, last, flits, h(7));
        const Cycle t = run_until_ready(f, last, t0);
        INFO(k << "-ary " << n << "-fly, latency " << lat << ", " << flits << " flits");
        CHECK(t - t0 == Cycle{n} * lat + flits);
        CHECK(t - t0 == f.zero_load_latency(flits));
        CHECK(f.front_stages(last) == n);
        CHECK(f.pop(last) == h(7));
        CHECK(f.idle());
        CHECK(f.stage_flits(n - 1) == flits);
        f.advance(t + 100);
        CHECK(f.next_event(t + 100) == ButterflyFabric::kNever);  // idle: no events
      }
}

TEST_CASE("ButterflyFabric: two packets to the same output in one cycle serialize (T12)",
          "[butterfly]") {
  // Sources on the same first-stage switch meet at stage 0; on different ones at stage 1.
  for (std::uint32_t other : {1u, 6u, 35u})
    for (std::uint32_t flits : {1u, 5u}) {
      ButterflyFabric f(fly(6, 2));
      const std::uint32_t dst = 20;
      f.inject(0, dst, flits, h(1));
      f.inject(other, dst, flits, h(2));
      const Cycle first = run_until_ready(f, dst, 0);
      INFO("second source " << other << ", " << flits << " flits");
      CHECK(first == f.zero_load_latency(flits));
      CHECK(f.pop(dst) == h(1));  // round-robin starts at input 0
      const Cycle second = run_until_ready(f, dst, first);
      CHECK(second == first + flits);
      CHECK(f.pop(dst) == h(2));
      CHECK(f.idle());
    }
  // Different outputs of one switch transfer in the same cycle.
  ButterflyFabric f(fly(6, 2));
  f.inject(0, 0, 2, h(1));
  f.inject(1, 35, 2, h(2));
  CHECK(run_until_ready(f, 0, 0) == f.zero_load_latency(2));
  CHECK(f.ready(35, f.zero_load_latency(2)));
}

TEST_CASE("ButterflyFabric: round-robin among inputs competing for one output", "[butterfly]") {
  // Terminals 0, 1 and 2 each send three 1-flit packets to terminal 5 (all meet at stage 0).
  ButterflyFabric f(fly(6, 2, 1));
  for (std::uint32_t k = 0; k < 3; ++k)
    for (std::uint32_t s = 0; s < 3; ++s) f.inject(s, 5, 1, h(10 * s + k));
  std::vector<void*> order;
  Cycle t = 0;
  while (order.size() < 9) {
    f.advance(t);
    if (f.ready(5, t)) order.push_back(f.pop(5));
    ++t;
    REQUIRE(t < 1000);
  }
  CHECK(order == std::vector<void*>{h(0), h(10), h(20), h(1), h(11), h(21), h(2), h(12), h(22)});
}

TEST_CASE("ButterflyFabric: full buffers hold packets back without losing them", "[butterfly]") {
  ButterflyFabric::Config c = fly(2, 2, 1);
  c.input_buffer = 2;
  c.switch_buffer = 1;
  c.output_buffer = 1;
  ButterflyFabric f(c);
  f.inject(0, 3, 1, h(1));
  f.inject(0, 3, 1, h(2));
  CHECK_FALSE(f.can_inject(0));  // injection queue of 2 is full
  f.advance(0);
  f.advance(1);  // the first has left the injection queue: one slot
  CHECK(f.can_inject(0));
  for (Cycle t = 2; t <= 50; ++t) f.advance(t);
  CHECK(f.ready(3, 50));
  CHECK(f.next_event(51) == ButterflyFabric::kNever);  // the second waits for a pop
  CHECK(f.pop(3) == h(1));
  CHECK(f.next_event(51) == 51);  // the freed slot counts from the next cycle
  f.advance(51);
  CHECK(f.ready(3, 52));
  CHECK(f.pop(3) == h(2));
  CHECK(f.idle());
}

TEST_CASE("ButterflyFabric: 10 000 random packets with small buffers all arrive in flow order",
          "[butterfly]") {
  for (std::uint32_t sb : {1u, 2u}) {
    ButterflyFabric::Config c = fly(6, 2);
    c.input_buffer = 2;
    c.switch_buffer = sb;
    c.output_buffer = 1;
    ButterflyFabric f(c);
    std::mt19937 rng(12345 + sb);
    const std::uint32_t total = 10000, T = f.terminals();
    std::uniform_int_distribution<std::uint32_t> term(0, T - 1), flits(1, 5);
    std::bernoulli_distribution inject_p(0.6), pop_p(0.7);
    // Handle = 1 + packet number; per flow, packets must arrive in injection order.
    std::vector<std::uint32_t> dst_of(total + 1), src_of(total + 1);
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> last_seen;
    std::vector<bool> got(total + 1, false);
    std::uint32_t sent = 0, received = 0;
    Cycle t = 0;
    while (received < total) {
      for (std::uint32_t s = 0; s < T && sent < total; ++s) {
        if (!inject_p(rng) || !f.can_inject(s)) continue;
        ++sent;
        dst_of[sent] = term(rng);
        src_of[sent] = s;
        f.inject(s, dst_of[sent], flits(rng), h(sent));
      }
      f.advance(t);
      for (std::uint32_t d = 0; d < T; ++d) {
        if (!f.ready(d, t) || !pop_p(rng)) continue;
        CHECK(f.front_stages(d) == 2);
        const auto id = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(f.pop(d)));
        REQUIRE(id >= 1);
        REQUIRE(id <= sent);
        CHECK(dst_of[id] == d);
        CHECK_FALSE(got[id]);
        got[id] = true;
        auto& prev = last_seen[{src_of[id], d}];
        CHECK(prev < id);
        prev = id;
        ++received;
      }
      ++t;
      REQUIRE(t < 2000000);  // no deadlock
    }
    CHECK(f.idle());
    CHECK(f.packets() == total);
    CHECK(f.delivered() == total);
    CHECK(f.switch_traversals() == 2ull * total);
    f.advance(t + 10);
    CHECK(f.next_event(t + 10) == ButterflyFabric::kNever);
  }
}

TEST_CASE("ButterflyFabric: invalid configurations are rejected", "[butterfly]") {
  CHECK_THROWS_AS(ButterflyFabric(fly(1, 2)), std::invalid_argument);
  CHECK_THROWS_AS(ButterflyFabric(fly(2, 0)), std::invalid_argument);
  CHECK_THROWS_AS(ButterflyFabric(fly(6, 2, 0)), std::invalid_argument);
  CHECK_THROWS_AS(ButterflyFabric(fly(2, 17)), std::invalid_argument);
  ButterflyFabric::Config c = fly(6, 2);
  c.switch_buffer = 0;
  CHECK_THROWS_AS(ButterflyFabric(c), std::invalid_argument);
  ButterflyFabric f(fly(6, 2));
  CHECK_THROWS_AS(f.inject(0, 36, 1, h(1)), std::out_of_range);
}
