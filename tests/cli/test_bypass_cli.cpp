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
// Both run with mdb.scale_hits=true (the default since 2DV's control runs: sampled hits
// extrapolated to the whole cache, as §5.3 fitted E on whole-cache counts).
// SR2: MDB-local 94,872 and MDB-global 93,479 cycles against 97,938 (c76c871).
// 2DV runs the instruction order of the paper's simulator: GPGPU-Sim 3.2.1 executed nvcc's PTX,
// in which the loads are consumed as they are issued (ld, ld, mul, fma, ld, fma, ...: at most
// two in flight per warp; workload.loads=interleaved keeps one): MDB-local 173,891 and MDB-global
// 176,985 against 173,545 (c76c871: MDB-global within 2 % of the baseline, 0.5-2.1 % faster in the
// three other same-time orders of sim.order_seed 1-3; docs/validation/mdb.md). With raw hits it
// loses 15 % / 13 %; with the SASS order (nine loads hoisted, the workload's default) 45 % / 40 %,
// and Accel-Sim needs that kernel's L1 as much as locsim does (docs/validation/mdb.md, "2DV in
// Accel-Sim").
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

TEST_CASE("mdb: 2DV (conv2d, paper LCC) is not slowed by more than 3 percent", "[cli][mdb]") {
  check_no_loss("conv2d --set workload.loads=interleaved");
}

TEST_CASE("mdb: SR2 (srad, paper LCC) is not slowed by more than 3 percent", "[cli][mdb]") {
  check_no_loss("srad");
}
