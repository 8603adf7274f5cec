// Seed 000 configuration on the command line: ldesc.mode picks the CTA policy, conflicts and bad
// values are one-line errors with exit 2. One run of the binary per elaboration.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_helpers.h"

using namespace cli_test;

namespace {
const std::string kSyrk =
    "run --platform fermi --workload syrk --set workload.n=128 --set l1d.size=32KiB";
}

TEST_CASE("ldesc cli: LDesc-Sched runs exactly the ldesc-cluster CTA policy", "[cli][ldesc]") {
  nlohmann::json a = run_json(kSyrk + " --set ldesc.mode=sched", "sched");
  nlohmann::json b = run_json(kSyrk + " --set dispatcher.policy=ldesc-cluster", "policy");
  CHECK(a["ldesc_treatment"]["cta_policy"] == "ldesc-cluster");
  CHECK(a["cycles"] == b["cycles"]);
  // The mechanism adds the working set (seed 000 §2.1); everything else is the same.
  CHECK(a["l1d"]["working_set_lines"].get<std::uint64_t>() > 0);
  a["l1d"].erase("working_set_lines");
  CHECK(a["l1d"] == b["l1d"]);
  CHECK(a["ldesc"] == b["ldesc"]);
}

TEST_CASE("ldesc cli: ldesc.stats measures the Baseline working set, clustering cuts it",
          "[cli][ldesc]") {
  const std::string mm =
      "run --platform fermi --workload matmul --set workload.n=256 --set l1d.size=32KiB";
  nlohmann::json base = run_json(mm + " --set ldesc.stats=true", "base");
  nlohmann::json sched = run_json(mm + " --set ldesc.mode=sched", "sched");
  CHECK(base["ldesc_treatment"]["cta_policy"] == "rr");
  const auto ws = [](const nlohmann::json& j) {
    return j["l1d"]["working_set_lines"].get<std::uint64_t>();
  };
  // A block row of CTAs shares A's band: one block row per SM reads a third fewer lines
  // (52,608 -> 34,560 when written).
  CHECK(ws(sched) < ws(base) * 3 / 4);
  CHECK(base["l1d"].count("pf_issued") == 0);  // stats only: no technique is on
  CHECK(base["l1d"]["bypassed"] == 0);
}

TEST_CASE("ldesc cli: a CTA policy that contradicts ldesc.mode is refused", "[cli][ldesc]") {
  const Result r = locsim(kSyrk + " --set ldesc.mode=all --set dispatcher.policy=bcs");
  CHECK(r.code == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("key 'ldesc.mode': all schedules CTAs with ldesc-cluster, but "
                   "dispatcher.policy is 'bcs' (from --set)") != std::string::npos);
  // BCS with the cache techniques only is a valid combination.
  CHECK(locsim(kSyrk + " --set ldesc.mode=cache --set dispatcher.policy=bcs --quiet").code == 0);
}

TEST_CASE("ldesc cli: bad mode, bad unpin period, bad cluster shape", "[cli][ldesc]") {
  for (const char* bad : {" --set ldesc.mode=pin", " --set ldesc.unpin_period=-5",
                          " --set dispatcher.policy=ldesc-cluster"
                          " --set dispatcher.ldesc-cluster.shape=4y4"}) {
    const Result r = locsim(kSyrk + bad);
    INFO(bad << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(lines(r.err) == 1);
  }
}

TEST_CASE("ldesc cli: the replay keeps LDesc-Sched's CTA policy and names what it leaves out",
          "[cli][ldesc]") {
  const std::string rp = "replay --platform fermi --workload syrk --set workload.n=128";
  const Result plain = locsim(rp);
  REQUIRE(plain.code == 0);
  CHECK(plain.err.empty());
  const Result all = locsim(rp + " --set ldesc.mode=all");
  REQUIRE(all.code == 0);
  CHECK(lines(all.err) == 1);
  CHECK(all.err.find("not modelled by the functional replay: ldesc") != std::string::npos);
  CHECK(all.out.find("clustered_kernels") != std::string::npos);  // ldesc-cluster ran
}
