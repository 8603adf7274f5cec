// Seed 004 on fermi: the L1 bypass path, static warp limiting and model-driven bypassing, with
// the data-integrity mode and protocol checkers. One elaboration per TEST_CASE (own process);
// comparisons between configurations are in tests/cli/test_bypass_cli.cpp.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "platform_run.h"
#include "platforms/mechanisms/mdb_mechanism.h"

using namespace locsim;
using namespace locsim::test;

namespace {
void common(Run& r) {
  REQUIRE(r.out.ok);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->ctas_completed() == r.gpu->ctas_total());
  CHECK(r.gpu->context().pool.in_use() == 0);
  CHECK(r.total("noc", "requests") == r.total("noc", "replies"));
}
}  // namespace

TEST_CASE("fermi: static bypass sends every global load past the L1 with verified data",
          "[platform][bypass]") {
  Run r = run("fermi", "matmul", {{"n", "64"}}, {{"l1d.bypass", "all"}});
  common(r);
  const std::uint64_t loads =
      r.total("l1d", "accesses") - r.total("l1d", "stores") - r.total("l1d", "atomics");
  CHECK(loads > 0);
  CHECK(r.total("l1d", "bypassed") == loads);
  CHECK(r.total("l1d", "hits") == 0);
  CHECK(r.total("l1d", "misses") == 0);
  CHECK(r.total("l1d", "fills") == 0);  // no line was allocated
  CHECK(r.total("l1d", "reservation_fails") == r.total("l1d", "rf_miss_queue"));
  // Every bypassed load is its own NoC request (intra-warp coalescing kept, no L1 merging).
  CHECK(r.total("noc", "read_requests") == loads);
}

TEST_CASE("fermi: static warp limiting with one warp still completes barriers", "[platform][swl]") {
  // matmul has 8 warps per CTA and two barriers per tile: with K=1 the oldest warp waits at the
  // barrier, so the next one must be allowed to issue.
  Run r = run("fermi", "matmul", {{"n", "64"}}, {{"sm.warp_limit", "1"}});
  common(r);
  CHECK(r.total("sm", "warp_insts") > 0);
}

TEST_CASE("fermi: MDB-local bypasses warps or CTAs of a thrashing kernel with verified data",
          "[platform][mdb]") {
  Run r =
      run("fermi", "atax", {{"n", "256"}}, {{"l1d.indexing", "xor"}, {"l1d.bypass", "mdb-local"}});
  common(r);
  REQUIRE(r.gpu->mechanism<MdbMechanism>("mdb")->num_generators() == 15);
  CHECK(r.gpu->mechanism<MdbMechanism>("mdb")->run_decisions(0) > 10);
  CHECK(r.total("l1d", "bypassed") > 0);
  CHECK(r.total("l1d", "hits") > 0);
  std::uint64_t chosen = 0;
  for (unsigned k = 1; k <= 8; ++k)
    chosen += r.total("mdb", ("chose_k" + std::to_string(k)).c_str());
  std::uint64_t decisions = 0;
  for (std::size_t i = 0; i < r.gpu->mechanism<MdbMechanism>("mdb")->num_generators(); ++i)
    decisions += r.gpu->mechanism<MdbMechanism>("mdb")->run_decisions(i);
  CHECK(chosen == decisions);
  // A decision below K left the L1 of that SM with that limit.
  const unsigned k0 = r.gpu->mechanism<MdbMechanism>("mdb")->generator(0).decision();
  CHECK(r.gpu->l1(0).bypass_limit() == (k0 >= 8 ? ~std::uint32_t{0} : k0));
}

TEST_CASE("fermi: MDB-global broadcasts the sampling SM's parameter to every L1",
          "[platform][mdb]") {
  Run r = run("fermi", "kmeans", {}, {{"l1d.indexing", "xor"}, {"l1d.bypass", "mdb-global"}});
  common(r);
  const MdbMechanism& m = *r.gpu->mechanism<MdbMechanism>("mdb");
  REQUIRE(m.num_generators() == 1);
  CHECK(m.run_decisions(0) > 0);
  for (std::size_t i = 1; i < 15; ++i)
    CHECK(r.gpu->l1(i).bypass_limit() == r.gpu->l1(0).bypass_limit());
  CHECK(r.total("l1d", "bypassed") > 0);
}

TEST_CASE("fermi: MDB-global samples the kernel's first busy SM and resets per kernel",
          "[platform][mdb]") {
  // atax n=512: two kernels of 2 CTAs each. With the round-robin pointer carried over (GPGPU-Sim's
  // dispatcher) kernel 1 runs on SMs 0-1 and kernel 2 on SMs 2-3: SM 0 is idle during kernel 2.
  Run r = run("fermi", "atax", {{"n", "512"}},
              {{"l1d.indexing", "xor"},
               {"l1d.bypass", "mdb-global"},
               {"dispatcher.rr.carry_over", "true"}});
  common(r);
  const MdbMechanism& m = *r.gpu->mechanism<MdbMechanism>("mdb");
  REQUIRE(m.kernels().size() == 2);
  REQUIRE_FALSE(m.kernels()[0].sampling_sms.empty());
  REQUIRE_FALSE(m.kernels()[1].sampling_sms.empty());
  CHECK(m.kernels()[0].sampling_sms.front() == 0);
  CHECK(m.kernels()[1].sampling_sms.front() == 2);  // not SM 0, which has no CTA of kernel 2
  CHECK(m.kernels()[0].decisions > 0);
  CHECK(m.kernels()[1].decisions > 0);  // a fixed SM 0 would have decided nothing here
  // Per-kernel reset: the generator's own counts cover kernel 2 only, the run's both kernels.
  CHECK(m.generator(0).decisions() == m.kernels()[1].decisions);
  CHECK(m.run_decisions(0) == m.kernels()[0].decisions + m.kernels()[1].decisions);
  // Kernel 2's first decision comes one full interval (1000 accesses) into kernel 2.
  REQUIRE(m.generator(0).history().size() == m.kernels()[1].decisions);
  CHECK(m.generator(0).history().front().at_access == 1000);
}

TEST_CASE("fermi: PDP protects lines and bypasses fully protected sets with verified data",
          "[platform][pdp]") {
  Run r = run("fermi", "syr2k", {{"n", "64"}}, {{"l1d.pdp", "true"}, {"sm.warp_limit", "8"}});
  common(r);
  CHECK(r.total("l1d", "hits") > 0);
  CHECK(r.total("l1d", "pdp_bypasses") > 0);
  CHECK(r.total("l1d", "bypassed") == r.total("l1d", "pdp_bypasses"));
}
