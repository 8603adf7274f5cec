// Seed 004 comparisons on fermi: two runs of the real binary per test (one elaboration per
// process), compared on simulated cycles, which are deterministic.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_helpers.h"

using namespace cli_test;

namespace {
nlohmann::json run(const std::string& args) {
  return run_json("run --platform fermi --set l1d.indexing=xor " + args);
}
double cycles(const nlohmann::json& j) {
  return j["cycles"].get<double>();
}
}  // namespace

TEST_CASE("mdb: a cache-thrashing kernel runs faster with model-driven bypassing", "[cli][mdb]") {
  const std::string w = "--workload atax --set workload.n=256 --check-data";
  const nlohmann::json base = run(w), local = run(w + " --set l1d.bypass=mdb-local"),
                       global = run(w + " --set l1d.bypass=mdb-global");
  INFO("cycles: base " << cycles(base) << ", MDB-local " << cycles(local) << ", MDB-global "
                       << cycles(global));
  CHECK(cycles(local) < cycles(base));
  CHECK(cycles(global) < cycles(base));
  // Fewer reservation failures is how it wins (seed 004 §7.1).
  CHECK(local["l1d"]["reservation_fails"].get<double>() <
        base["l1d"]["reservation_fails"].get<double>());
  CHECK(local["mdb_history"].size() > 0);
}

TEST_CASE("mdb: a streaming low-contention kernel is not slowed by more than 2 percent",
          "[cli][mdb]") {
  const std::string w = "--workload vecadd --set workload.n=262144 --check-data";
  const nlohmann::json base = run(w), local = run(w + " --set l1d.bypass=mdb-local"),
                       global = run(w + " --set l1d.bypass=mdb-global");
  CHECK(cycles(local) <= cycles(base) * 1.02);
  CHECK(cycles(global) <= cycles(base) * 1.02);
}

namespace {
// Seed 004 §7.1a: MDB "show[s] no performance degradation for the LCC benchmarks". 2DV and SR2
// are the paper's LCC cases closest to a loss in our model; the baseline is the paper's (GTO,
// XOR set index in the L1 and the L2), the sizes the library defaults (~2 s per run).
// SR2 holds since the L2 keeps one MSHR entry per sector (6bb7764: MDB-local 93,680 and MDB-global
// 93,244 cycles against 98,587; 94,845 / 94,809 / 98,879 at 40124c3, before shared loads held only
// their registers). KNOWN DISAGREEMENT for 2DV (no shared memory; unchanged by 6bb7764), hence
// [!shouldfail]: MDB takes 1.6-1.7x the baseline's cycles (178,139 -> 304,696 local, 282,334
// global; 456,606 local before 40124c3 moved the L2's decision after its ROP stage). Its bypassed
// loads, no longer merged by the L1, meet two limits together: the L2's 8 requests per sector in
// flight (rf_mshr_merge, and input_full behind it) and the NoC's 32 B channels; lifting either
// alone gains at most 9 %, both together 188 k cycles. MDB-local runs about as fast as no L1
// (308,905 cycles; docs/validation/mdb.md, "Why the numbers differ"). Accel-Sim on the same trace
// needs 2DV's L1 as much (no L1: 0.61x; locsim 0.58x) and fails as many L1 reservations; with
// workload.loads=interleaved and mdb.scale_hits=true MDB loses nothing (1.009x / 1.003x).
// Catch2 reports a failure the day MDB meets the paper's claim on 2DV: drop the tag then.
void check_no_loss(const std::string& workload) {
  const std::string w = "--workload " + workload + " --set l2.indexing=xor";
  const nlohmann::json base = run(w), local = run(w + " --set l1d.bypass=mdb-local"),
                       global = run(w + " --set l1d.bypass=mdb-global");
  INFO(workload << " cycles: base " << cycles(base) << ", MDB-local " << cycles(local)
                << ", MDB-global " << cycles(global));
  CHECK(cycles(local) <= cycles(base) * 1.03);
  CHECK(cycles(global) <= cycles(base) * 1.03);
}
}  // namespace

TEST_CASE("mdb: 2DV (conv2d, paper LCC) is not slowed by more than 3 percent",
          "[cli][mdb][!shouldfail]") {
  check_no_loss("conv2d");
}

TEST_CASE("mdb: SR2 (srad, paper LCC) is not slowed by more than 3 percent", "[cli][mdb]") {
  check_no_loss("srad");
}
