// The warp scoreboard (model/scoreboard.h) without SystemC: register hazards, release after the
// last line request, the wait-for-all escapes and blocking loads.
#include <catch2/catch.hpp>
#include <initializer_list>

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
