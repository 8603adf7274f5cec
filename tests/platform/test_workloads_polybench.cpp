// PolyBench/GPU workloads end to end on fermi at small sizes, with the data-integrity mode and
// the protocol checkers on. One elaboration per TEST_CASE (own process).
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "model/workload/stream_walk.h"
#include "platform_run.h"
#include "stimuli/workload_registry.h"

using namespace locsim;
using namespace locsim::test;

namespace {
// Warp instructions the streams stand for, over every warp of every kernel.
std::uint64_t pb_stream_insts(const Workload& wl) {
  std::uint64_t n = 0;
  for (const auto& k : wl.kernels())
    for (std::uint32_t c = 0; c < k->num_ctas(); ++c)
      for_each_cta_inst(*k, c, [&](std::uint32_t, const WarpInst& in) { n += in.warp_insts(); });
  return n;
}

void pb_common_checks(Run& r) {
  REQUIRE(r.out.ok);
  CHECK(r.gpu->ctas_completed() == r.gpu->ctas_total());
  CHECK(r.gpu->context().pool.in_use() == 0);
  CHECK(r.out.cycles > 0);
  CHECK(r.total("sm", "warp_insts") == pb_stream_insts(*r.wl));
  CHECK(r.total("l1d", "accesses") > 0);
  CHECK(r.total("dram", "reads") > 0);
  CHECK(r.total("noc", "requests") == r.total("noc", "replies"));
}

std::uint64_t pb_l1_reuse(Run& r) {
  return r.total("l1d", "hits") + r.total("l1d", "mshr_hits");
}
}  // namespace

TEST_CASE("fermi polybench: syrk reuses rows of A in the L1", "[platform][fermi][polybench]") {
  Run r = run("fermi", "syrk", {{"n", "64"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 64 * 64);  // all of C written back
}

TEST_CASE("fermi polybench: syr2k", "[platform][fermi][polybench]") {
  Run r = run("fermi", "syr2k", {{"n", "48"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 48 * 48);
}

TEST_CASE("fermi polybench: conv2d stencil overlap hits in the L1",
          "[platform][fermi][polybench]") {
  Run r = run("fermi", "conv2d", {{"n", "256"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 254 * 254);  // interior of B
}

TEST_CASE("fermi polybench: atax two kernels", "[platform][fermi][polybench]") {
  Run r = run("fermi", "atax", {{"n", "256"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 2 * 256);  // tmp, then y
}

TEST_CASE("fermi polybench: mvt two kernels", "[platform][fermi][polybench]") {
  Run r = run("fermi", "mvt", {{"n", "256"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 2 * 256);  // x1, then x2
}

TEST_CASE("fermi polybench: gesummv", "[platform][fermi][polybench]") {
  Run r = run("fermi", "gesummv", {{"n", "256"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 2 * 256);  // tmp and y
}

TEST_CASE("fermi polybench: bicg two kernels", "[platform][fermi][polybench]") {
  Run r = run("fermi", "bicg", {{"n", "256"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 2 * 256);  // s, then q
}

TEST_CASE("fermi polybench: covariance three kernels", "[platform][fermi][polybench]") {
  Run r = run("fermi", "covariance", {{"n", "64"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  // mean (64) + centred rows 0..15 (16*64) + all of symmat (64*64)
  CHECK(r.out.verified_words == 64 + 16 * 64 + 64 * 64);
}

TEST_CASE("fermi polybench: doitgen two kernels per r", "[platform][fermi][polybench]") {
  Run r = run("fermi", "doitgen", {{"n", "16"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 2 * 16 * 16 * 16);  // sum[r] and A[r] for every r
}

TEST_CASE("fermi polybench: fdtd2d time steps", "[platform][fermi][polybench]") {
  Run r = run("fermi", "fdtd2d", {{"n", "64"}, {"tmax", "2"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 2 * (64 * 64 + 64 * 63 + 63 * 63));  // ey, ex, hz per step
}

TEST_CASE("fermi polybench: gemm", "[platform][fermi][polybench]") {
  Run r = run("fermi", "gemm", {{"n", "64"}});
  pb_common_checks(r);
  CHECK(pb_l1_reuse(r) > 0);
  CHECK(r.out.verified_words == 64 * 64);
}
