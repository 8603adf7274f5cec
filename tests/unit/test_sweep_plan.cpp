// The expansion of sweep files (model/sweep_plan.h): cross products, points, stable ids and the
// one-line errors of malformed files.
#include <catch2/catch.hpp>
#include <set>

#include "model/params.h"
#include "model/sweep_plan.h"

using namespace locsim;
using nlohmann::json;

TEST_CASE("sweep plan: platforms x workloads x grid x points, with sorted assignments", "[sweep]") {
  const json spec = json::parse(R"({
    "platforms": ["fermi", "volta"],
    "workloads": ["vecadd", {"name": "matmul", "set": {"workload.n": 128}}],
    "set": {"sm.scheduler": "gto"},
    "grid": {"l1d.size": ["16KiB", "48KiB"], "l2.ways": [8, 16, 32]},
    "points": [{"dram.tCL": 12}, {"dram.tCL": 20}]})");
  const SweepPlan p = expand_sweep(spec, "s.json");
  REQUIRE(p.runs.size() == 2u * 2 * 2 * 3 * 2);
  CHECK(p.parameter_keys ==
        std::vector<std::string>{"dram.tCL", "l1d.size", "l2.ways", "sm.scheduler", "workload.n"});
  const SweepRun& r = p.runs.back();
  CHECK(r.platform == "volta");
  CHECK(r.workload == "matmul");
  CHECK(r.sets == std::vector<std::pair<std::string, std::string>>{{"dram.tCL", "20"},
                                                                   {"l1d.size", "48KiB"},
                                                                   {"l2.ways", "32"},
                                                                   {"sm.scheduler", "gto"},
                                                                   {"workload.n", "128"}});
  std::set<std::string> ids;
  for (const auto& x : p.runs) ids.insert(x.id);
  CHECK(ids.size() == p.runs.size());
  CHECK(r.id.rfind("volta-matmul-", 0) == 0);
  CHECK(r.id.size() == std::string("volta-matmul-").size() + 8);
}

TEST_CASE("sweep plan: ids depend on the run's parameters, not on their order in the file",
          "[sweep]") {
  const SweepPlan a = expand_sweep(json::parse(R"({"platforms": ["fermi"], "workloads": ["vecadd"],
                      "grid": {"l1d.size": ["16KiB", "48KiB"], "l2.ways": [8]}})"),
                                   "a");
  const SweepPlan b = expand_sweep(json::parse(R"({"platforms": ["fermi"], "workloads": ["vecadd"],
                      "grid": {"l2.ways": [8], "l1d.size": ["48KiB", "16KiB"]}})"),
                                   "b");
  REQUIRE(a.runs.size() == 2);
  REQUIRE(b.runs.size() == 2);
  CHECK(a.runs[0].id == b.runs[1].id);
  CHECK(a.runs[1].id == b.runs[0].id);
  CHECK(a.runs[0].id != a.runs[1].id);
  // Without grid or points: one run per platform x workload.
  CHECK(
      expand_sweep(json::parse(R"({"platforms": ["fermi"], "workloads": ["vecadd", "bfs"]})"), "c")
          .runs.size() == 2);
}

TEST_CASE("sweep plan: malformed files are one-line errors naming the key", "[sweep]") {
  auto err = [](const char* text) {
    try {
      expand_sweep(json::parse(text), "bad.json");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(err(R"({"platforms": ["fermi"], "workloads": ["vecadd"], "gird": {}})") ==
        "sweep 'bad.json': unknown key 'gird' (known: platforms, workloads, gpgpusim_configs, "
        "set, grid, points)");
  CHECK_THAT(err(R"({"workloads": ["vecadd"]})"), Catch::Contains("'platforms'"));
  CHECK_THAT(err(R"({"platforms": ["fermi"], "workloads": []})"), Catch::Contains("'workloads'"));
  CHECK_THAT(err(R"({"platforms": ["fermi"], "workloads": ["vecadd"], "grid": {"l1d.size": []}})"),
             Catch::Contains("'grid.l1d.size': expected a non-empty list"));
  CHECK_THAT(err(R"({"platforms": ["fermi"], "workloads": ["vecadd"],
                     "grid": {"l1d.size": [{"x": 1}]}})"),
             Catch::Contains("grid.l1d.size: expected a string or a number"));
  CHECK_THAT(err(R"({"platforms": ["fermi"], "workloads": [{"name": "vecadd", "sett": {}}]})"),
             Catch::Contains("workloads[0]: unknown key 'sett'"));
  CHECK_THAT(err(R"({"platforms": ["fermi"], "workloads": ["vecadd"], "set": {"l2.ways": 8},
                     "grid": {"l2.ways": [16]}})"),
             Catch::Contains("key 'l2.ways' is given twice"));
  CHECK_THAT(err(R"({"platforms": ["fermi"], "workloads": ["vecadd"],
                     "points": [{"l2.ways": 8}, {"l2.ways": 8}]})"),
             Catch::Contains("is listed twice"));
  CHECK_THAT(err(R"({"platforms": ["../x"], "workloads": ["vecadd"]})"),
             Catch::Contains("'platforms': expected names"));
}

TEST_CASE("sweep plan: GPGPU-Sim files are one more dimension", "[sweep]") {
  const SweepPlan p = expand_sweep(json::parse(R"({"platforms": ["fermi"], "workloads": ["vecadd"],
                      "gpgpusim_configs": ["a.config", "b.config"],
                      "grid": {"l2.ways": [8, 16]}})"),
                                   "g");
  REQUIRE(p.runs.size() == 4);
  CHECK(p.has_gpgpusim_configs);
  CHECK(p.runs[0].gpgpusim_config == "a.config");
  CHECK(p.runs[3].gpgpusim_config == "b.config");
  CHECK(p.runs[0].id != p.runs[2].id);
  // Without the key, ids are as before it existed.
  const SweepPlan q = expand_sweep(
      json::parse(R"({"platforms": ["fermi"], "workloads": ["vecadd"], "grid": {"l2.ways": [8]}})"),
      "q");
  CHECK_FALSE(q.has_gpgpusim_configs);
  CHECK(q.runs[0].gpgpusim_config.empty());
  CHECK_THAT(
      [] {
        try {
          expand_sweep(json::parse(R"({"platforms": ["fermi"], "workloads": ["vecadd"],
                                       "gpgpusim_configs": []})"),
                       "e");
        } catch (const ConfigError& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      Catch::Contains("'gpgpusim_configs'"));
}
