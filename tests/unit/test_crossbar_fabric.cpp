#include <catch2/catch.hpp>
#include <vector>

#include "model/crossbar_fabric.h"

using namespace locsim;

namespace {
void* h(std::uintptr_t v) {
  return reinterpret_cast<void*>(v);
}
}  // namespace

TEST_CASE("CrossbarFabric: a packet arrives after its flits plus the latency", "[xbar]") {
  CrossbarFabric x({2, 2, 4, 4, 3});
  x.inject(0, 1, 5, h(1));
  x.arbitrate(10);
  CHECK_FALSE(x.ready(1, 17));
  CHECK(x.ready(1, 18));  // 10 + 5 flits + 3
  CHECK(x.front(1) == h(1));
  CHECK(x.pop(1) == h(1));
  CHECK(x.idle());
  CHECK(x.flits() == 5);
  CHECK(x.output_busy_cycles(1) == 5);
}

TEST_CASE("CrossbarFabric: two inputs to one output are serialised round-robin", "[xbar]") {
  CrossbarFabric x({2, 1, 4, 4, 0});
  x.inject(0, 0, 2, h(1));
  x.inject(1, 0, 2, h(2));
  x.inject(0, 0, 2, h(3));
  x.arbitrate(0);
  CHECK(x.next_event(1) == 2);  // output busy for 2 cycles
  x.arbitrate(1);               // still busy: nothing moves
  x.arbitrate(2);
  x.arbitrate(4);
  REQUIRE(x.transfers() == 3);
  std::vector<void*> order;
  while (x.ready(0, 100)) order.push_back(x.pop(0));
  CHECK(order ==
        std::vector<void*>{h(1), h(2), h(3)});  // input 1 got its turn before input 0 again
}

TEST_CASE("CrossbarFabric: head-of-line blocking and full buffers", "[xbar]") {
  CrossbarFabric x({1, 2, 2, 1, 0});
  x.inject(0, 0, 1, h(1));
  x.inject(0, 0, 1, h(2));
  CHECK_FALSE(x.can_inject(0));  // input FIFO of 2 is full
  x.arbitrate(0);
  x.arbitrate(1);  // output 0 holds one packet (buffer 1): the second waits
  CHECK(x.transfers() == 1);
  CHECK(x.next_event(2) == CrossbarFabric::kNever);  // nothing until the consumer pops
  x.pop(0);
  CHECK(x.next_event(2) == 2);
  x.arbitrate(2);
  CHECK(x.transfers() == 2);
}

TEST_CASE("CrossbarFabric: different outputs transfer in the same cycle", "[xbar]") {
  CrossbarFabric x({2, 2, 4, 4, 1});
  x.inject(0, 0, 1, h(1));
  x.inject(1, 1, 1, h(2));
  x.arbitrate(0);
  CHECK(x.transfers() == 2);
  CHECK(x.ready(0, 2));
  CHECK(x.ready(1, 2));
}

TEST_CASE("CrossbarFabric: a wide link moves several flits per cycle, at the narrower end",
          "[xbar]") {
  CrossbarFabric::Config c{2, 2, 4, 4, 1};
  c.input_width = {1, 5};
  c.output_width = {1, 5};
  CrossbarFabric x(c);
  x.inject(1, 1, 5, h(1));  // wide to wide: 1 cycle
  x.inject(0, 0, 5, h(2));  // narrow to narrow: 5 cycles
  x.arbitrate(0);
  CHECK(x.ready(1, 2));  // 0 + 1 + latency 1
  CHECK_FALSE(x.ready(0, 5));
  CHECK(x.ready(0, 6));
  CHECK(x.output_busy_cycles(1) == 1);
  x.pop(1);
  x.pop(0);
  x.inject(1, 0, 5, h(3));  // wide input, narrow output: the narrow end sets the pace
  x.arbitrate(10);
  CHECK_FALSE(x.ready(0, 15));
  CHECK(x.ready(0, 16));
  CHECK_THROWS_AS(CrossbarFabric(CrossbarFabric::Config{2, 2, 4, 4, 1, {1}, {}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(CrossbarFabric(CrossbarFabric::Config{2, 2, 4, 4, 1, {1, 0}, {}}),
                  std::invalid_argument);
}

TEST_CASE("CrossbarFabric: with registered inputs a packet of cycle t first competes at t + 1",
          "[xbar]") {
  // Two packets of cycle 10 for one output: whether the timing shell arbitrates cycle 10 before
  // or after injecting them, the grant order and times are the same (round-robin from input 0).
  for (bool arbitrate_first : {true, false}) {
    CrossbarFabric::Config c{2, 1, 4, 4, 3};
    c.registered_inputs = true;
    CrossbarFabric x(c);
    if (arbitrate_first) x.arbitrate(10);
    x.inject(1, 0, 1, h(2), 10);
    x.inject(0, 0, 1, h(1), 10);
    if (!arbitrate_first) x.arbitrate(10);
    CHECK(x.transfers() == 0);      // not at its own cycle
    CHECK(x.next_event(10) == 11);  // but at the next
    x.arbitrate(11);
    x.arbitrate(12);
    REQUIRE(x.transfers() == 2);
    CHECK_FALSE(x.ready(0, 14));
    CHECK(x.ready(0, 15));  // granted at 11: + 1 flit + 3
    CHECK(x.pop(0) == h(1));
    CHECK(x.pop(0) == h(2));
  }
}

TEST_CASE(
    "CrossbarFabric: with registered inputs a FIFO slot freed by cycle t's grant counts "
    "from t + 1",
    "[xbar]") {
  // A full input FIFO of 2: the grant of cycle 20 frees a slot. An injection of cycle 20 sees
  // the FIFO full whether it runs before or after that arbitration; one of cycle 21 fits.
  CrossbarFabric::Config c{1, 1, 2, 4, 1};
  c.registered_inputs = true;
  CrossbarFabric x(c);
  x.inject(0, 0, 1, h(1), 5);
  x.inject(0, 0, 1, h(2), 5);
  CHECK_FALSE(x.can_inject(0, 20));  // before the arbitration of cycle 20
  x.arbitrate(20);
  REQUIRE(x.transfers() == 1);
  CHECK(x.can_inject(0));            // the raw occupancy has a free slot ...
  CHECK_FALSE(x.can_inject(0, 20));  // ... that an injection of cycle 20 does not see
  CHECK(x.can_inject(0, 21));
  // Without registered inputs the slot is usable at once (the order-dependent behaviour).
  CrossbarFabric::Config u{1, 1, 2, 4, 1};
  CrossbarFabric y(u);
  y.inject(0, 0, 1, h(1), 5);
  y.inject(0, 0, 1, h(2), 5);
  y.arbitrate(20);
  CHECK(y.can_inject(0, 20));
}

TEST_CASE("CrossbarFabric: round-robin over four inputs, the pointer wrapping past the last",
          "[xbar]") {
  // Inputs 1, 2 and 3 compete for output 0 every cycle (one-flit packets, latency 0): the grant
  // goes to the first competing input at or after the one after the last winner, wrapping to
  // the first competing input (input 0 never competes).
  CrossbarFabric x({4, 1, 8, 16, 0});
  for (std::uintptr_t k = 0; k < 3; ++k)
    for (std::uint32_t i = 1; i < 4; ++i) x.inject(i, 0, 1, h(10 * i + k));
  for (Cycle t = 0; t < 9; ++t) x.arbitrate(t);
  REQUIRE(x.transfers() == 9);
  std::vector<void*> order;
  while (x.ready(0, 100)) order.push_back(x.pop(0));
  CHECK(order == std::vector<void*>{h(10), h(20), h(30), h(11), h(21), h(31), h(12), h(22), h(32)});
  // Input 3 was last: the pointer is past the last input, so input 0 goes first, then 1.
  x.inject(1, 0, 1, h(1));
  x.inject(0, 0, 1, h(2));
  x.arbitrate(20);
  x.arbitrate(21);
  CHECK(x.pop(0) == h(2));
  CHECK(x.pop(0) == h(1));
}

TEST_CASE("CrossbarFabric: next_event is the earlier of the next head ready and the next grant",
          "[xbar]") {
  CrossbarFabric x({2, 2, 4, 4, 3});
  x.inject(0, 0, 2, h(1));
  x.inject(1, 0, 1, h(2));
  x.arbitrate(0);  // input 0 wins: output 0 busy until 2, its head ready at 5
  CHECK(x.head_ready(0) == 5);
  CHECK(x.head_ready(1) == CrossbarFabric::kNever);
  CHECK(x.next_arbitration(1) == 2);  // input 1 waits for the output
  CHECK(x.next_event(1) == 2);
  x.arbitrate(2);  // input 1: ready at 2 + 1 + 3
  CHECK(x.next_arbitration(3) == CrossbarFabric::kNever);
  CHECK(x.next_event(3) == 5);
  CHECK(x.next_event(6) == CrossbarFabric::kNever);  // the head ready at 5 waits for its pop
  CHECK(x.pop(0) == h(1));
  CHECK(x.head_ready(0) == 6);
  CHECK(x.next_event(6) == 6);
  CHECK(x.next_event(7) == CrossbarFabric::kNever);
}

TEST_CASE("CrossbarFabric: an input FIFO filled past its buffer keeps its order", "[xbar]") {
  // can_inject() is the caller's check; a FIFO taking more grows (out of line) and stays FIFO.
  CrossbarFabric x({1, 1, 2, 16, 0});
  for (std::uintptr_t k = 1; k <= 7; ++k) x.inject(0, 0, 1, h(k));
  for (Cycle t = 0; t < 7; ++t) x.arbitrate(t);
  REQUIRE(x.transfers() == 7);
  for (std::uintptr_t k = 1; k <= 7; ++k) CHECK(x.pop(0) == h(k));
  CHECK(x.idle());
}

namespace {
// The outputs whose head is ready by `now` and the earliest head in flight, by scanning every
// output (what for_each_ready_output() and next_ready() find without the scan).
// The random tests' draws in [0, n): a 64-bit linear congruential generator, the same sequence
// for a seed on every host.
struct Draw {
  std::uint64_t seed;
  std::uint32_t operator()(std::uint32_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>((seed >> 33) % n);
  }
};

// Random traffic into two fabrics that must behave alike: each of `ins` inputs that can inject
// does so with probability 1/2, to one of `outs` outputs, 1 to `max_flits` flits.
template <class Rnd>
void inject_alike(CrossbarFabric& x1, CrossbarFabric& x2, std::uint32_t ins, std::uint32_t outs,
                  std::uint32_t max_flits, Cycle now, std::uintptr_t& id, Rnd& rnd) {
  for (std::uint32_t i = 0; i < ins; ++i) {
    REQUIRE(x1.can_inject(i, now) == x2.can_inject(i, now));
    if (rnd(2) == 0 && x1.can_inject(i, now)) {
      const std::uint32_t o = rnd(outs), flits = 1 + rnd(max_flits);
      x1.inject(i, o, flits, h(id), now);
      x2.inject(i, o, flits, h(id), now);
      ++id;
    }
  }
}

void check_ready_outputs(CrossbarFabric& x, std::uint32_t outputs, Cycle now) {
  std::vector<std::uint32_t> want;
  Cycle next = CrossbarFabric::kNever;
  for (std::uint32_t o = 0; o < outputs; ++o) {
    if (x.head_ready(o) <= now)
      want.push_back(o);
    else
      next = std::min(next, x.head_ready(o));
  }
  std::vector<std::uint32_t> got;
  x.for_each_ready_output(now, [&](std::uint32_t o) { got.push_back(o); });
  CHECK(got == want);
  CHECK(x.next_ready(now) == next);
}
}  // namespace

TEST_CASE("CrossbarFabric: ready outputs and the next head in flight, long packets and gaps",
          "[xbar]") {
  // Latency 70 is past the wheel of ready cycles (64 slots): those heads wait aside.
  CrossbarFabric x({2, 3, 4, 4, 70});
  x.inject(0, 2, 1, h(1));
  x.arbitrate(0);  // ready at 71
  check_ready_outputs(x, 3, 0);
  CHECK(x.next_ready(0) == 71);
  check_ready_outputs(x, 3, 10);  // 61 cycles ahead: onto the wheel
  x.inject(1, 0, 3, h(2));
  x.arbitrate(11);  // ready at 84
  check_ready_outputs(x, 3, 70);
  check_ready_outputs(x, 3, 71);
  check_ready_outputs(x, 3, 500);  // a gap longer than the wheel
  CHECK(x.pop(2) == h(1));
  CHECK(x.pop(0) == h(2));
  CHECK(x.idle());
  // A head popped before it is due (its slot cleared) and one behind it.
  CrossbarFabric y({1, 1, 4, 4, 2});
  y.inject(0, 0, 1, h(3));
  y.inject(0, 0, 1, h(4));
  y.arbitrate(0);
  y.arbitrate(1);
  CHECK(y.pop(0) == h(3));  // due at 3, popped at 1
  check_ready_outputs(y, 1, 3);
  check_ready_outputs(y, 1, 4);
  CHECK(y.pop(0) == h(4));
  CHECK(y.idle());
}

TEST_CASE("CrossbarFabric: ready outputs match a scan of every output (random traffic)", "[xbar]") {
  Draw rnd{12345};
  for (std::uint32_t latency : {0u, 1u, 4u, 58u, 64u, 90u}) {
    for (std::uint32_t outputs : {1u, 5u, 64u, 70u, 130u}) {
      const std::uint32_t inputs = 1 + rnd(6);
      CrossbarFabric::Config c{inputs, outputs, 4, 3, latency};
      c.registered_inputs = rnd(2) == 0;
      if (rnd(2)) {
        c.input_width.resize(inputs);
        for (auto& w : c.input_width) w = 1 + rnd(3);
      }
      CrossbarFabric x(c);
      Cycle now = 0;
      std::uintptr_t id = 1;
      for (int step = 0; step < 400; ++step) {
        now += rnd(8) == 0 ? 1 + rnd(150) : 1 + rnd(2);
        for (std::uint32_t i = 0; i < inputs; ++i)
          if (rnd(3) == 0 && x.can_inject(i, now))
            x.inject(i, rnd(outputs), 1 + rnd(6), h(id++), now);
        x.arbitrate(now);
        check_ready_outputs(x, outputs, now);
        // Pop some ready heads, now and then one not yet due.
        x.for_each_ready_output(now, [&](std::uint32_t o) {
          while (x.head_ready(o) <= now && rnd(3)) x.pop(o);
        });
        if (rnd(10) == 0) {
          const std::uint32_t o = rnd(outputs);
          if (x.head_ready(o) != CrossbarFabric::kNever) x.pop(o);
        }
        check_ready_outputs(x, outputs, now);
      }
      // Drain: everything arrives and is popped.
      for (int k = 0; k < 2000 && !x.idle(); ++k) {
        now += 1 + rnd(3);
        x.arbitrate(now);
        x.for_each_ready_output(now, [&](std::uint32_t o) {
          while (x.head_ready(o) <= now) x.pop(o);
        });
      }
      CHECK(x.idle());
      CHECK(x.next_ready(now) == CrossbarFabric::kNever);
    }
  }
}

TEST_CASE("CrossbarFabric: up to 64 ports (sets in registers) grant as the word loops of more do",
          "[xbar]") {
  // The same traffic into a fabric of at most 64 inputs and outputs (arbitrate()'s sets held in
  // one register each) and into one with 70 more, idle, outputs (its sets as word arrays): the
  // same grants, in the same cycles.
  Draw rnd{777};
  for (std::uint32_t inputs : {1u, 3u, 17u, 64u}) {
    for (std::uint32_t outputs : {1u, 4u, 40u, 64u}) {
      CrossbarFabric::Config c{inputs, outputs, 1 + rnd(4), 1 + rnd(4), rnd(5)};
      c.registered_inputs = rnd(2) == 0;
      if (rnd(2)) {
        c.input_width.resize(inputs);
        for (auto& w : c.input_width) w = 1 + rnd(3);
      }
      CrossbarFabric::Config wide = c;
      wide.outputs = outputs + 70;
      CrossbarFabric a(c), b(wide);
      Cycle now = 0;
      std::uintptr_t id = 1;
      for (int step = 0; step < 600; ++step) {
        now += rnd(10) == 0 ? 1 + rnd(20) : 1;
        // Traffic towards few outputs too, so that heads wait behind busy outputs.
        const std::uint32_t span = rnd(2) ? outputs : 1 + rnd(std::min(outputs, 3u));
        inject_alike(a, b, inputs, span, 4, now, id, rnd);
        REQUIRE(a.next_arbitration(now) == b.next_arbitration(now));
        a.arbitrate(now);
        b.arbitrate(now);
        REQUIRE(a.transfers() == b.transfers());
        std::vector<std::pair<std::uint32_t, void*>> pa, pb;
        const bool take = rnd(3) != 0;  // else outputs fill up
        a.for_each_ready_output(now, [&](std::uint32_t o) {
          while (take && a.head_ready(o) <= now) pa.emplace_back(o, a.pop(o));
        });
        b.for_each_ready_output(now, [&](std::uint32_t o) {
          while (take && b.head_ready(o) <= now) pb.emplace_back(o, b.pop(o));
        });
        REQUIRE(pa == pb);
        REQUIRE(a.next_ready(now) == b.next_ready(now));
      }
      CHECK(a.flits() == b.flits());
    }
  }
}

TEST_CASE("CrossbarFabric: arbitrate(a, b, now) grants as a.arbitrate(now), b.arbitrate(now)",
          "[xbar]") {
  Draw rnd{4242};
  CrossbarFabric::Config ca{5, 3, 2, 2, 1}, cb{3, 70, 2, 3, 4};
  ca.registered_inputs = cb.registered_inputs = true;
  CrossbarFabric a1(ca), a2(ca), b1(cb), b2(cb);
  Cycle now = 0;
  std::uintptr_t id = 1;
  auto traffic = [&](CrossbarFabric& x1, CrossbarFabric& x2, std::uint32_t ins,
                     std::uint32_t outs) { inject_alike(x1, x2, ins, outs, 5, now, id, rnd); };
  auto drain = [&](CrossbarFabric& x1, CrossbarFabric& x2) {
    std::vector<std::uint32_t> r1, r2;
    x2.for_each_ready_output(now, [&](std::uint32_t o) { r2.push_back(o); });
    x1.for_each_ready_output(now, [&](std::uint32_t o) {
      r1.push_back(o);
      while (x1.head_ready(o) <= now && rnd(2)) {
        REQUIRE(x2.head_ready(o) == x1.head_ready(o));
        REQUIRE(x2.pop(o) == x1.pop(o));
      }
    });
    REQUIRE(r1 == r2);
  };
  for (int step = 0; step < 2000; ++step) {
    now += rnd(8) == 0 ? 1 + rnd(10) : 1;
    traffic(a1, a2, 5, 3);
    traffic(b1, b2, 3, 70);
    CrossbarFabric::arbitrate(a1, b1, now);
    a2.arbitrate(now);
    b2.arbitrate(now);
    REQUIRE(a1.transfers() == a2.transfers());
    REQUIRE(b1.transfers() == b2.transfers());
    drain(a1, a2);
    drain(b1, b2);
    REQUIRE(a1.next_ready(now) == a2.next_ready(now));
    REQUIRE(b1.next_ready(now) == b2.next_ready(now));
  }
  CHECK(a1.transfers() > 100);
  CHECK(b1.transfers() > 100);
}
