// The warp scoreboard (model/scoreboard.h) without SystemC: register hazards, release after the
// last line request, the wait-for-all escapes and blocking loads.
#include <catch2/catch.hpp>
#include <cstddef>
#include <initializer_list>
#include <vector>

#include "model/scoreboard.h"

using namespace locsim;

namespace {

WarpInst inst(WarpOp op, std::initializer_list<std::uint8_t> dst,
              std::initializer_list<std::uint8_t> src, bool wait_all = false) {
  WarpInst in;
  in.op = op;
  in.wait_all_loads = wait_all;
  for (std::uint8_t r : dst) in.dst[in.n_dst++] = r;
  for (std::uint8_t r : src) in.src[in.n_src++] = r;
  return in;
}

}  // namespace

TEST_CASE("scoreboard: a reader of a pending register waits, an independent one does not",
          "[scoreboard]") {
  Scoreboard sb;
  const WarpInst ld1 = inst(WarpOp::Load, {4}, {2});
  const WarpInst ld2 = inst(WarpOp::Load, {5}, {2});
  CHECK(sb.ready(ld1));
  const std::uint32_t s1 = sb.reserve(ld1, 2, false);  // two line requests
  CHECK(sb.ready(ld2));                                // independent load: overlaps
  const std::uint32_t s2 = sb.reserve(ld2, 1, false);
  CHECK(sb.outstanding() == 2);
  const WarpInst use4 = inst(WarpOp::Compute, {6}, {4, 7});
  const WarpInst use5 = inst(WarpOp::Compute, {6}, {5});
  const WarpInst other = inst(WarpOp::Compute, {6}, {7, 8});
  CHECK_FALSE(sb.ready(use4));
  CHECK_FALSE(sb.ready(use5));
  CHECK(sb.ready(other));
  CHECK_FALSE(sb.line_returned(s1));  // the first of two lines: R4 still pending
  CHECK_FALSE(sb.ready(use4));
  CHECK(sb.line_returned(s1));
  CHECK(sb.ready(use4));
  CHECK_FALSE(sb.ready(use5));
  CHECK(sb.line_returned(s2));
  CHECK(sb.ready(use5));
  CHECK(sb.outstanding() == 0);
}

TEST_CASE("scoreboard: writing a pending register waits (WAW), RZ is never pending",
          "[scoreboard]") {
  Scoreboard sb;
  sb.reserve(inst(WarpOp::Load, {9, Scoreboard::kZeroRegister}, {}), 1, false);
  CHECK(sb.pending(9));
  CHECK_FALSE(sb.pending(Scoreboard::kZeroRegister));
  CHECK_FALSE(sb.ready(inst(WarpOp::Load, {9}, {})));     // a second load into R9
  CHECK_FALSE(sb.ready(inst(WarpOp::Compute, {9}, {})));  // or any write of R9
  CHECK(sb.ready(inst(WarpOp::Compute, {10}, {Scoreboard::kZeroRegister})));
}

TEST_CASE("scoreboard: wait_all_loads and Exit wait for every load, even register-less ones",
          "[scoreboard]") {
  Scoreboard sb;
  const std::uint32_t s = sb.reserve(inst(WarpOp::Load, {}, {}), 1, false);  // built-in load
  CHECK(sb.ready(inst(WarpOp::Load, {}, {})));     // a second independent load may issue
  CHECK(sb.ready(inst(WarpOp::Barrier, {}, {})));  // GPGPU-Sim: BAR checks no registers
  CHECK_FALSE(sb.ready(inst(WarpOp::Compute, {}, {}, true)));
  CHECK_FALSE(sb.ready(inst(WarpOp::Exit, {}, {})));  // nothing is lost at exit
  CHECK(sb.ready(inst(WarpOp::Compute, {1}, {2})));   // names registers, none pending
  WarpInst dflt;  // a default WarpInst names nothing and waits (the conservative default)
  dflt.op = WarpOp::Store;
  CHECK_FALSE(sb.ready(dflt));
  sb.line_returned(s);
  CHECK(sb.ready(dflt));
  CHECK(sb.ready(inst(WarpOp::Exit, {}, {})));
}

TEST_CASE("scoreboard: a blocking load (block-all) stops every instruction until it returns",
          "[scoreboard]") {
  Scoreboard sb;
  const std::uint32_t s = sb.reserve(inst(WarpOp::Load, {4}, {}), 3, true);
  CHECK_FALSE(sb.ready(inst(WarpOp::Compute, {6}, {7})));
  CHECK_FALSE(sb.ready(inst(WarpOp::Barrier, {}, {})));
  CHECK_FALSE(sb.line_returned(s));
  CHECK_FALSE(sb.line_returned(s));
  CHECK_FALSE(sb.ready(inst(WarpOp::Load, {8}, {})));
  CHECK(sb.line_returned(s));
  CHECK(sb.ready(inst(WarpOp::Load, {8}, {})));
}

TEST_CASE("scoreboard: completed entries are reused, registers of both loads tracked",
          "[scoreboard]") {
  Scoreboard sb;
  for (int round = 0; round < 3; ++round) {
    const std::uint32_t a = sb.reserve(inst(WarpOp::Load, {4, 5, 6, 7}, {}), 1, false);
    const std::uint32_t b = sb.reserve(inst(WarpOp::Atomic, {200}, {}), 1, false);
    CHECK(a != b);
    CHECK(a < 2);  // slots come back from the free list
    CHECK(b < 2);
    CHECK_FALSE(sb.ready(inst(WarpOp::Compute, {}, {7})));
    CHECK_FALSE(sb.ready(inst(WarpOp::Compute, {}, {200})));
    sb.line_returned(b);
    CHECK(sb.ready(inst(WarpOp::Compute, {}, {200})));
    CHECK_FALSE(sb.ready(inst(WarpOp::Compute, {}, {7})));
    sb.line_returned(a);
    CHECK(sb.ready(inst(WarpOp::Compute, {}, {4, 5, 6, 7})));
  }
}

TEST_CASE("scoreboard: more loads than the initial room grow it, after a reset too",
          "[scoreboard]") {
  Scoreboard sb;
  const unsigned n = 3 * Scoreboard::kInitialEntries + 1;
  for (int round = 0; round < 2; ++round) {
    std::vector<std::uint32_t> slots;
    for (unsigned i = 0; i < n; ++i)
      slots.push_back(sb.reserve(inst(WarpOp::Load, {static_cast<std::uint8_t>(i)}, {}), 1, false));
    CHECK(sb.outstanding() == n);
    for (unsigned i = 0; i < n; ++i) CHECK(sb.pending(static_cast<std::uint8_t>(i)));
    for (unsigned i = 0; i + 1 < n; ++i) CHECK(sb.line_returned(slots[i]));
    CHECK(sb.pending(static_cast<std::uint8_t>(n - 1)));
    CHECK_FALSE(sb.pending(0));
    sb.reset();  // a new warp in the slot: nothing pending
    CHECK(sb.outstanding() == 0);
    CHECK_FALSE(sb.pending(static_cast<std::uint8_t>(n - 1)));
  }
}

TEST_CASE("scoreboard: ready() matches a reference model over random load sequences",
          "[scoreboard]") {
  // The reference: the outstanding loads as a list; an instruction waits for a blocking load, for
  // any load if it waits for all or exits, and for a load whose destination it reads or writes.
  // Loads issue only when ready, as in the SM; ready() has a shortcut when nothing is outstanding.
  struct Load {
    std::uint32_t slot, lines;
    bool blocks;
    std::vector<std::uint8_t> dst;
  };
  std::uint64_t seed = 12345;
  auto rnd = [&seed](std::uint32_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(seed >> 33) % n;
  };
  auto random_inst = [&](WarpOp op) {
    WarpInst in;
    in.op = op;
    in.wait_all_loads = rnd(8) == 0;
    in.n_dst = static_cast<std::uint8_t>(rnd(3));
    in.n_src = static_cast<std::uint8_t>(rnd(3));
    for (unsigned i = 0; i < in.n_dst; ++i)
      in.dst[i] = rnd(6) == 0 ? Scoreboard::kZeroRegister : static_cast<std::uint8_t>(rnd(12));
    for (unsigned i = 0; i < in.n_src; ++i) in.src[i] = static_cast<std::uint8_t>(rnd(12));
    return in;
  };
  for (int mode = 0; mode < 2; ++mode) {
    Scoreboard sb;
    std::vector<Load> out;
    for (int step = 0; step < 20000; ++step) {
      const WarpOp ops[] = {WarpOp::Compute, WarpOp::Load, WarpOp::Exit, WarpOp::Barrier};
      const WarpInst in = random_inst(ops[rnd(4)]);
      bool ref = true;
      for (const Load& l : out) {
        if (l.blocks || in.wait_all_loads || in.op == WarpOp::Exit) ref = false;
        for (std::uint8_t r : l.dst) {
          for (unsigned i = 0; i < in.n_src; ++i) ref = ref && in.src[i] != r;
          for (unsigned i = 0; i < in.n_dst; ++i) ref = ref && in.dst[i] != r;
        }
      }
      REQUIRE(sb.ready(in) == ref);
      REQUIRE(sb.outstanding() == out.size());
      if (ref && in.op == WarpOp::Load) {
        const std::uint32_t lines = 1 + rnd(3);
        const bool blocks = mode == 1 && rnd(4) == 0;
        Load l{sb.reserve(in, lines, blocks), lines, blocks, {}};
        for (unsigned i = 0; i < in.n_dst; ++i)
          if (in.dst[i] != Scoreboard::kZeroRegister) l.dst.push_back(in.dst[i]);
        out.push_back(l);
      }
      if (!out.empty() && rnd(3) == 0) {  // a line of a random outstanding load returns
        const std::size_t k = rnd(static_cast<std::uint32_t>(out.size()));
        const bool last = --out[k].lines == 0;
        REQUIRE(sb.line_returned(out[k].slot) == last);
        if (last) out.erase(out.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
  }
}
