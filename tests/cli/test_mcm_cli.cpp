// The mcm platform on the command line: NUMA statistics and placements in the report, and bad
// NUMA/MCM settings as one-line errors with exit 2. One run of the binary per elaboration.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_helpers.h"

using namespace cli_test;

TEST_CASE("mcm cli: the report has access efficiency, zone shares, placements and links",
          "[cli][mcm]") {
  nlohmann::json j = run_json(
      "run --platform mcm --workload matmul --set workload.n=128 --set numa.policy=ldesc", "mcm");
  const nlohmann::json& n = j["numa"];
  CHECK(n["access_efficiency"].get<double>() > 0.3);
  double shares = 0;
  for (int z = 0; z < 4; ++z) shares += n["zone" + std::to_string(z) + "_share"].get<double>();
  CHECK(shares == Approx(1.0));
  CHECK(j["numa_placement"]["policy"] == "ldesc");
  CHECK(j["numa_placement"]["placements"].size() == 2);  // A and B
  CHECK(j["mcm_links"].size() == 8);                     // 4 modules x 2 ring directions
  CHECK(j["noc_ports"][0]["module"] == 0);
}

TEST_CASE("mcm cli: NUMA and module settings that cannot work are refused", "[cli][mcm]") {
  struct Bad {
    const char* args;
    const char* says;
  };
  for (const Bad& b :
       {Bad{"run --platform fermi --workload vecadd --set numa.policy=ldesc",
            "key 'numa.policy': ldesc needs gpu.topology=mcm"},
        Bad{"run --platform mcm --workload vecadd --set mcm.modules=3", "key 'mcm.modules'"},
        Bad{"run --platform mcm --workload vecadd --set mcm.modules=128", "mcm.modules"},
        Bad{"run --platform mcm --workload vecadd --set mcm.link_bandwidth=0",
            "key 'mcm.link_bandwidth'"},
        Bad{"run --platform mcm --workload vecadd --set numa.policy=ldesc --set "
            "dispatcher.policy=bcs",
            "numa-zone, but dispatcher.policy is 'bcs'"},
        Bad{"run --platform mcm --workload vecadd --set numa.page=1000", "key 'numa.page'"}}) {
    const Result r = locsim(b.args);
    INFO(b.args << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(b.says) != std::string::npos);
  }
}

TEST_CASE("mcm cli: a 16-module, 1024-SM GPU elaborates", "[cli][mcm]") {
  const Result r = locsim("elaborate --platform mcm --set mcm.modules=16 --set gpu.sms=1024");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("1024 (1024 clusters)") != std::string::npos);
}

TEST_CASE(
    "mcm cli: mcm.ring_ties=alternate (the default) sends half of the half-way traffic each way",
    "[cli][mcm]") {
  const std::string base = "run --platform mcm --workload vecadd --set workload.n=65536";
  const auto bytes = [](const nlohmann::json& j, bool clockwise) {
    std::uint64_t n = 0;
    for (const auto& w : j["mcm_links"])
      if (((w["to"].get<int>() - w["from"].get<int>() + 4) % 4 == 1) == clockwise)
        n += w["bytes"].get<std::uint64_t>();
    return n;
  };
  const nlohmann::json cw = run_json(base + " --set mcm.ring_ties=clockwise", "cw");
  const nlohmann::json alt = run_json(base, "alt");
  // Clockwise ties: requests to the opposite module take two clockwise wires and their (larger)
  // replies two counter-clockwise ones, so the counter-clockwise wires carry more bytes.
  CHECK(bytes(cw, false) > bytes(cw, true) * 5 / 4);
  // Alternating ties balance the two directions.
  CHECK(double(bytes(alt, true)) == Approx(double(bytes(alt, false))).epsilon(0.02));
  CHECK(alt["cycles"] != cw["cycles"]);
}
