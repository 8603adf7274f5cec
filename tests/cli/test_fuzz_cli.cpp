// Fuzz-style robustness of the real binary: a valid platform JSON and a valid Accel-Sim trace are
// mutated with a fixed seed (wrong types, extreme and negative numbers, deleted and unknown keys,
// garbage tokens, truncation) and every run must end within a time limit with exit 0 (the
// mutation was harmless) or 2 (one-line error), never a crash, a hang or a bare library message.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli_helpers.h"

using namespace cli_test;

namespace {

const std::string kSource = LOCSIM_SOURCE_DIR;

// Exit codes of `timeout`: 124 = the run hung past the limit.
Result run_limited(const std::string& args) {
  return locsim_limited(args, 30);
}

void check_outcome(const Result& r, const std::string& what) {
  INFO(what << "\nexit " << r.code << "\nstderr: " << r.err.substr(0, 600));
  CHECK(r.code != 124);  // hang
  if (r.code == 3) {
    // A legal configuration can still make the simulated GPU stall (e.g. a DRAM timing of 2^31
    // cycles): the watchdog must then name it.
    CHECK_THAT(r.err, Catch::Contains("watchdog") || Catch::Contains("sim.max_cycles"));
    return;
  }
  CHECK((r.code == 0 || r.code == 2));
  if (r.code == 2) {
    CHECK(lines(r.err) == 1);
    CHECK_THAT(r.err, Catch::StartsWith("locsim: error:"));
  }
}

nlohmann::json random_value(std::mt19937_64& rng) {
  static const std::vector<nlohmann::json> pool = {-1,
                                                   0,
                                                   1,
                                                   3,
                                                   2147483648LL,
                                                   4294967297LL,
                                                   9223372036854775807LL,
                                                   1e300,
                                                   -1e300,
                                                   0.5,
                                                   "x",
                                                   "",
                                                   "1e30Hz",
                                                   "0KiB",
                                                   "3GiB",
                                                   "-5",
                                                   "0x10",
                                                   "7e-9Hz",
                                                   "1TiB",
                                                   true,
                                                   false,
                                                   nullptr,
                                                   nlohmann::json::array(),
                                                   nlohmann::json::object(),
                                                   nlohmann::json{{"a", 1}}};
  return pool[rng() % pool.size()];
}

// Every leaf path of a JSON object.
void leaves(const nlohmann::json& j, const nlohmann::json::json_pointer& at,
            std::vector<nlohmann::json::json_pointer>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const auto p = at / it.key();
    if (it->is_object())
      leaves(*it, p, out);
    else
      out.push_back(p);
  }
}

}  // namespace

TEST_CASE("fuzz: mutated platform JSON files exit 0 or 2", "[cli][fuzz]") {
  std::ifstream in(kSource + "/platforms/fermi.json");
  const nlohmann::json base = nlohmann::json::parse(in);
  std::vector<nlohmann::json::json_pointer> paths;
  leaves(base, nlohmann::json::json_pointer(), paths);
  std::mt19937_64 rng(20261123);
  const std::string f = tmp("fuzz_platform.json");
  for (int i = 0; i < 120; ++i) {
    nlohmann::json j = base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const auto& p = paths[rng() % paths.size()];
      switch (rng() % 3 + 1) {
        case 1:
          if (j.contains(p)) j[p.parent_pointer()].erase(p.back());
          break;
        case 2:
          j[p.parent_pointer()]["no_such_key"] = 1;
          break;
        default:  // wrong type or extreme value
          j[p] = random_value(rng);
          break;
      }
    }
    std::ofstream(f) << j.dump();
    const Result r = run_limited("run --platform fermi --config " + f +
                                 " --workload vecadd --set workload.n=2048 --quiet"
                                 " --set watchdog.limit=100000 --set sim.max_cycles=2000000");
    check_outcome(r, "mutation " + std::to_string(i) + ": " + j.dump());
  }
  std::remove(f.c_str());
}

TEST_CASE("fuzz: mutated Accel-Sim traces exit 0 or 2", "[cli][fuzz]") {
  std::ifstream in(kSource + "/tests/data/traces/one_warp/kernel-1.traceg");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string kernel = ss.str();
  const std::string list = "MemcpyHtoD,0x0000000010000000,65536\nkernel-1.traceg\n";
  static const char* const junk[] = {"-1",
                                     "0",
                                     "18446744073709551615",
                                     "-9223372036854775808",
                                     "9223372036854775807",
                                     "0xffffffffffffffff",
                                     "x",
                                     "",
                                     "4294967296",
                                     "ffffffff",
                                     "LDG.E",
                                     "=",
                                     "(1,1,1)",
                                     "(0,0,0)",
                                     "(67108864,1,1)",
                                     "(1,2048,1)",
                                     "\xff\xfe"};
  std::mt19937_64 rng(424242);
  const std::string dir = tmp("fuzz_trace");
  std::system(("mkdir -p " + dir).c_str());
  for (int i = 0; i < 150; ++i) {
    std::string k = kernel;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 5) {
        case 0: {  // replace one whitespace-separated token
          std::size_t at = rng() % k.size();
          at = k.find_first_not_of(" \n", k.find_first_of(" \n", at));
          if (at == std::string::npos) break;
          const std::size_t end = k.find_first_of(" \n", at);
          k.replace(at, end == std::string::npos ? k.npos : end - at,
                    junk[rng() % (sizeof junk / sizeof junk[0])]);
          break;
        }
        case 1:  // truncate
          k.resize(rng() % k.size());
          break;
        case 2: {  // delete a line
          const std::size_t at = k.find('\n', rng() % k.size());
          if (at == std::string::npos) break;
          const std::size_t end = k.find('\n', at + 1);
          k.erase(at, end == std::string::npos ? k.npos : end - at);
          break;
        }
        case 3: {  // duplicate a line
          const std::size_t at = k.find('\n', rng() % k.size());
          if (at == std::string::npos) break;
          const std::size_t end = k.find('\n', at + 1);
          k.insert(at, k.substr(at, end == std::string::npos ? k.npos : end - at));
          break;
        }
        default:  // garbage bytes
          k.insert(rng() % k.size(), std::string(1 + rng() % 8, static_cast<char>(rng() % 256)));
          break;
      }
    }
    std::ofstream(dir + "/kernel-1.traceg", std::ios::binary) << k;
    std::ofstream(dir + "/kernelslist.g") << list;
    const Result r = run_limited("run --platform fermi --trace " + dir +
                                 "/kernelslist.g --quiet --set watchdog.limit=100000"
                                 " --set sim.max_cycles=2000000");
    check_outcome(r, "trace mutation " + std::to_string(i) + ":\n" + k.substr(0, 1500));
  }
  std::system(("rm -rf " + dir).c_str());
}
