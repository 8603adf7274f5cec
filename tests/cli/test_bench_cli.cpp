// scripts/bench.py (issue 10's speed benchmark) in its quick mode: the columns it reports, sane
// values (transactions and ratios > 0, the large size doing twice the work), the callgrind
// marginal cost on the tiny SAXPY trace, --write-doc splicing between the markers only, and
// bad input exiting 2 with one line.
#include <algorithm>
#include <cstdio>
#include <string>

#include "cli_helpers.h"

using namespace cli_test;

namespace {

Result bench(const std::string& args) {
  return run_shell("cd " + std::string(LOCSIM_SOURCE_DIR) +
                   " && python3 scripts/bench.py --locsim " + LOCSIM_BIN + " " + args);
}

}  // namespace

TEST_CASE("bench cli: --quick measures vecadd and the SAXPY trace at two sizes", "[cli][bench]") {
  const std::string j = tmp("bench.json"), doc = tmp("bench_doc.md");
  {
    std::ofstream f(doc);
    f << "# page\n\nbefore\n\n<!-- BEGIN bench.py -->\nold table\n<!-- END bench.py -->\n\nafter\n";
  }
  const Result r =
      bench("--quick --platforms fermi,volta --write-doc --doc " + doc + " --json " + j);
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (const char* col :
       {"| platform | case |", "| sizes (wall) |", "| L1D tx |", "| wall s |", "| time x |",
        "| M winst/s |", "| M L1D tx/s |", "| M cycles/s |", "| peak RSS MB |"})
    CHECK_THAT(r.out, Catch::Contains(col));
  CHECK(lines(r.out) == 2 + 4);  // header, rule, {vecadd, saxpy} x {fermi, volta}

  const auto js = nlohmann::json::parse(slurp(j));
  REQUIRE(js["rows"].size() == 4);
  for (const auto& row : js["rows"]) {
    INFO(row.dump());
    const auto& s = row["wall"][0];
    const auto& l = row["wall"][1];
    CHECK(s["l1d_tx"].get<double>() > 0);
    CHECK(l["l1d_tx"].get<double>() == 2 * s["l1d_tx"].get<double>());  // exactly twice the work
    CHECK(row["work_x"].get<double>() == Approx(2.0));
    CHECK(row["time_x"].get<double>() > 0);
    CHECK(l["tx_per_s"].get<double>() > 0);
    CHECK(l["winst_per_s"].get<double>() > 0);
    CHECK(l["cycles_per_s"].get<double>() > 0);
    CHECK(l["rss_mb"].get<double>() > 1);
    CHECK(l["cpu_s"].get<double>() > 0);  // the process's own CPU time
    CHECK(row["cpu_x"].get<double>() > 0);
  }
  // The page keeps what is outside the markers and names the commit and the load.
  const std::string page = slurp(doc);
  CHECK_THAT(page, Catch::StartsWith("# page\n\nbefore\n\n<!-- BEGIN bench.py -->\n"));
  CHECK_THAT(page, Catch::EndsWith("<!-- END bench.py -->\n\nafter\n"));
  CHECK_THAT(page, !Catch::Contains("old table"));
  std::string prose = page;  // the header is wrapped at 100 columns wherever its words fall
  std::replace(prose.begin(), prose.end(), '\n', ' ');
  CHECK_THAT(prose, Catch::Contains("at commit `"));
  CHECK_THAT(prose, Catch::Contains("load average", Catch::CaseSensitive::No));
  CHECK_THAT(page, Catch::Contains("| volta | saxpy |"));
  std::remove(j.c_str());
  std::remove(doc.c_str());
}

TEST_CASE("bench cli: --callgrind reports host instructions per L1D transaction", "[cli][bench]") {
#if defined(__SANITIZE_ADDRESS__)
  // The binary is built with AddressSanitizer too (scripts/sanitize.sh), and valgrind cannot run
  // an ASan binary (its shadow memory mapping fails).
  WARN("AddressSanitizer build: callgrind check skipped");
  return;
#endif
  const std::string j = tmp("bench_cg.json");
  const Result r =
      bench("--quick --callgrind --workloads none --platforms volta --markdown --json " + j);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("| host Ir / L1D tx (callgrind) |"));
  const auto js = nlohmann::json::parse(slurp(j));
  REQUIRE(js["rows"].size() == 1);
  const auto& cg = js["rows"][0]["callgrind"];
  INFO(cg.dump());
  CHECK(cg["l1d_tx"][1].get<double>() == 2 * cg["l1d_tx"][0].get<double>());
  CHECK(cg["ir"][1].get<double>() > cg["ir"][0].get<double>());
  // A simulated L1D transaction costs thousands of host instructions, not a handful, nor more
  // than the whole small run.
  CHECK(cg["ir_per_tx"].get<double>() > 1000);
  CHECK(cg["ir_per_tx"].get<double>() < cg["ir"][0].get<double>());
  std::remove(j.c_str());
}

TEST_CASE("bench cli: bad input exits 2 with one line", "[cli][bench]") {
  for (const char* args :
       {"--platforms nosuch", "--workloads nosuch", "--repeat 0", "--bogus",
        "--workloads none --no-trace", "--quick --doc /nonexistent --write-doc"}) {
    INFO(args);
    const Result r = bench(args);
    CHECK(r.code == 2);
    CHECK(lines(r.err) == 1);
    CHECK_THAT(r.err, Catch::StartsWith("bench.py: error: "));
  }
}
