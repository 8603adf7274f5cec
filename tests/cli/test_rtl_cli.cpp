// RTL co-simulation end to end (docs/rtl_cosim.md): the Verilated ICC merge table in whole runs
// of the real binary, compared with the TLM table statistic by statistic. One elaboration per
// process; simulated counts are deterministic.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_helpers.h"

using namespace cli_test;

#if LOCSIM_HAVE_RTL
namespace {

// Every simulated number of a run, by JSON path, without the host's measurements and the
// figures only an RTL run has.
void flatten(const nlohmann::json& j, const std::string& path, nlohmann::json& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      if (k == "host" || k == "rtl_cycles" || k == "lockstep_checks" || k == "lockstep_probes" ||
          k == "icc.model")
        continue;
      flatten(it.value(), path + "/" + k, out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], path + "/" + std::to_string(i), out);
  } else {
    out[path] = j;
  }
}

// Runs `args` with the TLM table and with `model`, and requires identical statistics.
nlohmann::json same_as_tlm(const std::string& args, const std::string& model) {
  const nlohmann::json tlm = run_json("run " + args + " --set icc.model=tlm", "tlm");
  const nlohmann::json rtl = run_json("run " + args + " --set icc.model=" + model, model);
  nlohmann::json a = nlohmann::json::object(), b = nlohmann::json::object();
  flatten(tlm, "", a);
  flatten(rtl, "", b);
  REQUIRE(a.size() > 100);
  std::vector<std::string> diffs;
  for (auto it = a.begin(); it != a.end(); ++it)
    if (!b.contains(it.key()) || b[it.key()] != it.value())
      diffs.push_back(it.key() + ": tlm " + it.value().dump() + ", " + model + " " +
                      (b.contains(it.key()) ? b[it.key()].dump() : "missing"));
  for (auto it = b.begin(); it != b.end(); ++it)
    if (!a.contains(it.key())) diffs.push_back(it.key() + ": only in " + model);
  INFO((diffs.empty() ? std::string() : diffs.front()));
  CHECK(diffs.empty());
  CHECK(rtl["ok"] == true);
  return rtl;
}

// One RTL clock per table operation: each read that reached the table, each store or atomic, and
// the reply of each read the table sent to the NoC.
void one_cycle_per_operation(const nlohmann::json& j) {
  const nlohmann::json& i = j["icc"];
  const auto n = [&](const char* k) { return i[k].get<std::uint64_t>(); };
  CHECK(n("rtl_cycles") == (n("reads") - n("cc_hits")) + n("writes") +
                               (n("merge_allocations") + n("merge_full") + n("merge_uncovered")));
}

const std::string kMatmul =
    "--platform clustered --workload matmul --set workload.n=256 --check-data"
    " --set icc.enabled=true --set icc.coalesced_cache=true";

}  // namespace

TEST_CASE("rtl: clustered matmul with the Verilated merge table matches the TLM table exactly",
          "[cli][rtl]") {
  const nlohmann::json r = same_as_tlm(kMatmul, "rtl");
  CHECK(r["icc"]["merge_hits"].get<std::uint64_t>() > 10000);
  CHECK(r["icc"]["broadcast_replies"] == r["icc"]["merge_hits"]);
  one_cycle_per_operation(r);
}

TEST_CASE("rtl: a 4-entry RTL table overflows exactly as the TLM table does", "[cli][rtl]") {
  const nlohmann::json r = same_as_tlm(
      "--platform clustered --workload matmul --set workload.n=128 --check-data"
      " --set icc.enabled=true --set icc.merge_entries=4",
      "rtl");
  CHECK(r["icc"]["merge_full"].get<std::uint64_t>() > 1000);
  one_cycle_per_operation(r);
}

TEST_CASE("rtl: histogram stores and atomics pass the RTL table as bypasses", "[cli][rtl]") {
  const nlohmann::json r = same_as_tlm(
      "--platform clustered --workload histogram --set workload.n=16384 --check-data"
      " --set icc.enabled=true",
      "rtl");
  CHECK(r["icc"]["writes"].get<std::uint64_t>() > 1000);
  one_cycle_per_operation(r);
}

TEST_CASE("rtl: lockstep on volta's sectored L1s compares every operation without divergence",
          "[cli][rtl]") {
  const nlohmann::json r = same_as_tlm(
      "--platform volta --workload matmul --set workload.n=128 --check-data"
      " --set icc.enabled=true",
      "lockstep");
  CHECK(r["icc"]["lockstep_checks"] == r["icc"]["rtl_cycles"]);
  // Every load reply is probed (and compared) before it is taken.
  CHECK(r["icc"]["lockstep_probes"].get<std::uint64_t>() >=
        r["icc"]["reads"].get<std::uint64_t>() - r["icc"]["merge_hits"].get<std::uint64_t>());
  CHECK(r["icc"]["merge_hits"].get<std::uint64_t>() > 0);
  one_cycle_per_operation(r);
}

TEST_CASE("rtl: lockstep on clustered srad (writes, merges, CC) finds no divergence",
          "[cli][rtl]") {
  const nlohmann::json r = same_as_tlm(
      "--platform clustered --workload srad --check-data --set icc.enabled=true"
      " --set icc.coalesced_cache=true --set dispatcher.policy=greedy-clustering",
      "lockstep");
  CHECK(r["icc"]["lockstep_checks"].get<std::uint64_t>() > 1000);
  one_cycle_per_operation(r);
}

TEST_CASE("rtl: an entry count the build has not Verilated is a one-line error, exit 2",
          "[cli][rtl]") {
  const Result r = locsim(
      "run --platform clustered --workload vecadd --set icc.enabled=true --set icc.model=rtl"
      " --set icc.merge_entries=5");
  CHECK(r.code == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("icc.merge_entries: the RTL merge table is Verilated for 4, 48, 160 entries, "
                   "not 5") != std::string::npos);
}
#endif

TEST_CASE("rtl: an unknown icc.model is a one-line error, exit 2", "[cli][rtl]") {
  const Result r = locsim(
      "run --platform clustered --workload vecadd --set icc.enabled=true --set icc.model=vhdl");
  CHECK(r.code == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("icc.model") != std::string::npos);
}
