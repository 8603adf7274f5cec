// Command-line behaviour of the real locsim binary: exit codes, one-line errors, outputs.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_helpers.h"

using namespace cli_test;

namespace {

const std::string kSmall = "run --platform fermi --workload vecadd --set workload.n=8192 --quiet";
}  // namespace

TEST_CASE("cli: unknown config key is a one-line error with exit 2", "[cli]") {
  Result r = locsim(kSmall + " --set l1d.sise=32KiB");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown key 'l1d.sise'"));
  CHECK(lines(r.err) == 1);
}

TEST_CASE("cli: ill-typed value names the key", "[cli]") {
  Result r = locsim(kSmall + " --set l1d.size=lots");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("l1d.size"));
  CHECK(lines(r.err) == 1);
}

TEST_CASE("cli: inconsistent geometry names the key", "[cli]") {
  Result r = locsim(kSmall + " --set l1d.size=1000");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("l1d"));
}

TEST_CASE("cli: missing config file", "[cli]") {
  Result r = locsim(kSmall + " --config /nonexistent/locsim.json");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/locsim.json"));
}

TEST_CASE("cli: config file with an unknown key names file and key", "[cli]") {
  const std::string f = tmp("bad.json");
  std::ofstream(f) << "{\"l1d\": {\"size\": \"32KiB\", \"colour\": 3}}";
  Result r = locsim(kSmall + " --config " + f);
  std::remove(f.c_str());
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("l1d.colour"));
  CHECK_THAT(r.err, Catch::Contains(f));
}

TEST_CASE("cli: unknown platform and workload", "[cli]") {
  Result p = locsim("run --platform tesla --workload vecadd");
  CHECK(p.code == 2);
  CHECK_THAT(p.err, Catch::Contains("unknown platform 'tesla'"));
  Result w = locsim("run --platform fermi --workload nosuch");
  CHECK(w.code == 2);
  CHECK_THAT(w.err, Catch::Contains("unknown workload 'nosuch'"));
  Result a = locsim("run --platform fermi --workload vecadd --set workload.bogus=1");
  CHECK(a.code == 2);
  CHECK_THAT(a.err, Catch::Contains("bogus"));
}

TEST_CASE("cli: usage errors", "[cli]") {
  CHECK(locsim("frobnicate").code == 2);
  CHECK(locsim("run --workload vecadd").code == 2);
  CHECK(locsim("run --platform fermi --workload vecadd --no-such-flag").code == 2);
  CHECK(locsim("list everything").code == 2);
  CHECK(locsim("help").code == 0);
}

TEST_CASE("cli: a run writes JSON and CSV statistics with the documented keys", "[cli]") {
  const std::string j = tmp("s.json"), c = tmp("s.csv");
  Result r = locsim(kSmall + " --check-data --stats-json " + j + " --stats-csv " + c);
  REQUIRE(r.code == 0);
  std::string js = slurp(j), cs = slurp(c);
  std::remove(j.c_str());
  std::remove(c.c_str());
  for (const char* key : {"\"platform\"",    "\"workload\"",     "\"cycles\"",
                          "\"warp_insts\"",  "\"thread_insts\"", "\"ipc\"",
                          "\"l1d\"",         "\"mshr_hits\"",    "\"reservation_fails\"",
                          "\"bypassed\"",    "\"l2\"",           "\"noc\"",
                          "\"dram\"",        "\"row_hits\"",     "\"read_bytes\"",
                          "\"host\"",        "\"wall_s\"",       "\"warp_insts_per_s\"",
                          "\"peak_rss_mb\"", "\"kernels\""})
    CHECK_THAT(js, Catch::Contains(key));
  CHECK_FALSE(cs.empty());
}

TEST_CASE("cli: identical inputs give identical statistics", "[cli]") {
  const std::string a = tmp("a.json"), b = tmp("b.json");
  REQUIRE(
      locsim("run --platform fermi --workload matmul --set workload.n=64 --quiet --stats-csv " + a)
          .code == 0);
  REQUIRE(
      locsim("run --platform fermi --workload matmul --set workload.n=64 --quiet --stats-csv " + b)
          .code == 0);
  auto strip_host = [](const std::string& s) {
    std::stringstream in(s), out;
    std::string line;
    while (std::getline(in, line))
      if (line.find("host") == std::string::npos) out << line << "\n";
    return out.str();
  };
  std::string sa = strip_host(slurp(a)), sb = strip_host(slurp(b));
  std::remove(a.c_str());
  std::remove(b.c_str());
  REQUIRE_FALSE(sa.empty());
  CHECK(sa == sb);
}

TEST_CASE("cli: watchdog failure exits 3 with a diagnostic", "[cli]") {
  Result r = locsim(kSmall + " --set watchdog.interval=1 --set watchdog.limit=3");
  CHECK(r.code == 3);
  CHECK_THAT(r.err, Catch::Contains("watchdog"));
}

TEST_CASE("cli: list, params and elaborate", "[cli]") {
  Result l = locsim("list platforms");
  CHECK(l.code == 0);
  for (const char* p : {"fermi", "pascal", "volta"}) CHECK_THAT(l.out, Catch::Contains(p));
  Result w = locsim("list workloads");
  CHECK(w.code == 0);
  for (const char* n : {"vecadd", "matmul", "histogram"}) CHECK_THAT(w.out, Catch::Contains(n));
  Result p = locsim("params --platform volta");
  CHECK(p.code == 0);
  CHECK_THAT(p.out, Catch::Contains("l1d.size"));
  CHECK_THAT(p.out, Catch::Contains("32KiB"));
  Result e = locsim("elaborate --platform volta");
  CHECK(e.code == 0);
  CHECK_THAT(e.out, Catch::Contains("modules"));
  CHECK_THAT(e.out, Catch::Contains("sockets"));
}

TEST_CASE("cli: docs/config.md lists every parameter", "[cli][docs]") {
  Result p = locsim("params --markdown");
  REQUIRE(p.code == 0);
  std::string doc = slurp(std::string(LOCSIM_SOURCE_DIR) + "/docs/config.md");
  std::stringstream in(p.out);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.rfind("| `", 0) != 0) continue;
    ++rows;
    // The whole row (type, default, unit, description) must match: docs cannot drift.
    CHECK_THAT(doc, Catch::Contains(line));
  }
  CHECK(rows > 50);
}

TEST_CASE("cli: topology and cluster size must agree, naming the keys", "[cli]") {
  Result r = locsim(kSmall + " --set gpu.topology=clustered");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("gpu.sms_per_cluster") && Catch::Contains("clustered"));
  CHECK(lines(r.err) == 1);
  r = locsim(kSmall + " --set gpu.sms_per_cluster=3");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("gpu.topology=clustered"));
  r = locsim(kSmall + " --set gpu.topology=torus");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("gpu.topology"));
  // The same SMs in clusters of three sharing a port elaborate as the clustered topology.
  r = locsim(kSmall + " --set gpu.topology=clustered --set gpu.sms_per_cluster=3");
  CHECK(r.code == 0);
}
