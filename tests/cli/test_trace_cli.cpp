// Accel-Sim traces through the real binary: `run --trace` on a hand-written fixture with exact L1
// counts, `export-trace` round trips with identical statistics, and error exit codes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_helpers.h"

using namespace cli_test;

namespace {

const std::string kFixture = std::string(LOCSIM_SOURCE_DIR) + "/tests/data/traces/one_warp";
const std::string kOneSm =
    " --platform fermi --set gpu.sms=1 --set gpu.sms_per_cluster=1 --set mem.channels=1"
    " --set l2.size=256KiB";
}  // namespace

TEST_CASE("cli trace: hand-written one-warp trace gives the hand-computed L1 counts", "[cli]") {
  // Lines (128 B): L0 = 0x10000000, L1 = 0x10000080, L2 = 0x10000100. With the register
  // scoreboard (default) the second load (R5) does not depend on the first (R4): it issues while
  // L0 is being fetched and merges into its MSHR; the FFMA reads both and waits; the LDG.64 (R6,
  // R7) then hits L0; the last load writes R7 again and waits for it (WAW).
  //   LDG.E R4  mode 1, 32 x 4 B from L0        -> L0 miss
  //   LDG.E R5  mode 0, the same 32 addresses   -> L0 MSHR hit (L0 still in flight)
  //   FFMA R6 <- R4, R5                         -> waits for both
  //   LDG.E.64 R6  mode 1, 32 x 8 B from L0     -> L0 hit, L1 miss (two line requests)
  //   LDG.E R7  mode 2, 16 lanes x 4 B from L2  -> waits for the LDG.64 (R7), L2 miss
  nlohmann::json j = run_json("run" + kOneSm + " --trace " + kFixture + "/kernelslist.g", "fix");
  CHECK(j["l1d"]["accesses"] == 5);
  CHECK(j["l1d"]["hits"] == 1);
  CHECK(j["l1d"]["mshr_hits"] == 1);
  CHECK(j["l1d"]["misses"] == 3);
  CHECK(j["sm"]["global_mem_insts"] == 4);
  CHECK(j["sm"]["scoreboard_stalled_insts"] == 3);  // the FFMA, the last LDG and EXIT
  CHECK(j["warp_insts"] == 7);
  CHECK(j["dram"]["reads"].get<double>() > 0);
  // Control: block-all waits for each load before the next, so every access sees the previous
  // fill (L0 miss, L0 hit, L0 hit + L1 miss, L2 miss) and the run is longer.
  nlohmann::json b = run_json(
      "run" + kOneSm + " --set sm.scoreboard=block-all --trace " + kFixture + "/kernelslist.g",
      "fixb");
  CHECK(b["l1d"]["accesses"] == 5);
  CHECK(b["l1d"]["hits"] == 2);
  CHECK(b["l1d"]["mshr_hits"] == 0);
  CHECK(b["l1d"]["misses"] == 3);
  CHECK(b["cycles"].get<double>() > j["cycles"].get<double>());
}

TEST_CASE("cli trace: an xz-compressed kernel file gives the same counts", "[cli]") {
  const std::string dir = tmp("xz");
  const std::string prep = "rm -rf " + dir + " && mkdir -p " + dir + " && cp " + kFixture +
                           "/kernelslist.g " + dir + " && xz -c " + kFixture +
                           "/kernel-1.traceg > " + dir + "/kernel-1.traceg.xz";
  if (std::system(prep.c_str()) != 0) {
    WARN("xz not available: skipped");
    return;
  }
  nlohmann::json j = run_json("run" + kOneSm + " --trace " + dir + "/kernelslist.g", "xz");
  CHECK(j["l1d"]["accesses"] == 5);
  CHECK(j["l1d"]["hits"] == 1);
  CHECK(j["l1d"]["mshr_hits"] == 1);
  CHECK(j["l1d"]["misses"] == 3);
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("cli trace: export-trace round trips with identical statistics", "[cli]") {
  for (const char* wl : {"vecadd --set workload.n=8192", "matmul --set workload.n=64",
                         "histogram --set workload.n=16384 --set workload.ctas=8"}) {
    const std::string dir = tmp("export");
    std::system(("rm -rf " + dir).c_str());
    Result e = locsim(std::string("export-trace --workload ") + wl + " " + dir);
    INFO(wl << ": " << e.err);
    REQUIRE(e.code == 0);
    CHECK_THAT(e.out, Catch::Contains("kernelslist.g"));
    nlohmann::json a = run_json(std::string("run --platform fermi --workload ") + wl, "direct");
    nlohmann::json b = run_json("run --platform fermi --trace " + dir + "/kernelslist.g", "trace");
    for (const char* kind : {"l1d", "l2", "dram", "noc", "sm"}) {
      INFO(wl << " " << kind);
      CHECK(a[kind] == b[kind]);
    }
    CHECK(a["l1d"]["accesses"].get<double>() > 0);
    CHECK(a["cycles"] == b["cycles"]);
    CHECK(a["warp_insts"] == b["warp_insts"]);
    std::system(("rm -rf " + dir).c_str());
  }
}

TEST_CASE("cli trace: malformed trace is a one-line error with exit 2", "[cli]") {
  const std::string dir = tmp("bad");
  std::system(("mkdir -p " + dir).c_str());
  std::ofstream(dir + "/kernelslist.g") << "kernel-1.traceg\n";
  std::ofstream(dir + "/kernel-1.traceg") << "-kernel name = k\n-grid dim = (1,1,1)\n"
                                             "-block dim = (32,1,1)\n"
                                             "-accelsim tracer version = 4\n"
                                             "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"
                                             "insts = 2\n0000 ffffffff 0 EXIT 0 0\n";
  Result r = locsim("run --platform fermi --quiet --trace " + dir + "/kernelslist.g");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains(dir + "/kernel-1.traceg:9: truncated: warp 0"));
  CHECK(lines(r.err) == 1);
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("cli trace: missing trace file and conflicting options exit 2", "[cli]") {
  Result r = locsim("run --platform fermi --quiet --trace /nonexistent/kernelslist.g");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/kernelslist.g"));
  CHECK(lines(r.err) == 1);
  Result both = locsim("run --platform fermi --quiet --workload vecadd --trace " + kFixture +
                       "/kernelslist.g");
  CHECK(both.code == 2);
  Result nodir = locsim("export-trace --workload vecadd");
  CHECK(nodir.code == 2);
  CHECK_THAT(nodir.err, Catch::Contains("output directory"));
}

TEST_CASE("cli trace: store then atomic add to the same words passes --check-data", "[cli]") {
  // Program order store -> atomic in one thread: the atomic returns the stored value. The golden
  // memory used to expect the kernel-start value and fail with exit 3 (behind SystemC's W545).
  const std::string dir = std::string(LOCSIM_SOURCE_DIR) + "/tests/data/traces/store_atomic";
  for (const char* platform : {"fermi", "volta"}) {
    Result r = locsim(std::string("run --platform ") + platform + " --trace " + dir +
                      "/kernelslist.g --check-data --check-protocol --quiet");
    INFO(platform << ": " << r.err);
    CHECK(r.code == 0);
    CHECK(r.err.find("W545") == std::string::npos);
  }
}

namespace {
// Writes DIR/kernelslist.g with `kernels` copies of the one-warp kernel, the first one edited by
// `edit` (a find -> replace on its text).
std::string write_trace(const std::string& name, int kernels, const std::string& find = "",
                        const std::string& replace = "") {
  std::ifstream in(kFixture + "/kernel-1.traceg");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (!find.empty()) {
    const std::size_t at = text.find(find);
    REQUIRE(at != std::string::npos);
    text.replace(at, find.size(), replace);
  }
  const std::string dir = tmp(name);
  std::system(("mkdir -p " + dir).c_str());
  std::ofstream list(dir + "/kernelslist.g");
  list << "MemcpyHtoD,0x0000000010000000,65536\n";
  for (int k = 1; k <= kernels; ++k) {
    std::ofstream(dir + "/kernel-" + std::to_string(k) + ".traceg") << text;
    list << "kernel-" << k << ".traceg\n";
  }
  return dir;
}
}  // namespace

TEST_CASE("cli trace: INT64_MIN and out-of-range strides, deltas and immediates", "[cli]") {
  // Negating INT64_MIN was undefined behaviour; 2^63 as a positive stride wrapped silently.
  const std::string stride_line = "0x0000000010000000 4 0\n0010";
  for (const char* bad : {"-9223372036854775809", "9223372036854775808"}) {
    const std::string dir =
        write_trace(std::string("i64_") + (bad[0] == '-' ? "n" : "p"), 1, stride_line,
                    std::string("0x0000000010000000 ") + bad + " 0\n0010");
    Result r = locsim("run" + kOneSm + " --trace " + dir + "/kernelslist.g --quiet");
    INFO(bad << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("kernel-1.traceg:") && Catch::Contains("stride"));
  }
  // INT64_MIN itself is a legal stride (the addresses wrap like the hardware's).
  const std::string dir =
      write_trace("i64_min", 1, stride_line, "0x0000000010000000 -9223372036854775808 0\n0010");
  Result r = locsim("run" + kOneSm + " --trace " + dir + "/kernelslist.g --quiet");
  INFO(r.err);
  CHECK((r.code == 0 || r.code == 2));
}

TEST_CASE("cli trace: a grid too large to index is an error naming the file and line", "[cli]") {
  // 67,108,864 CTAs used to end in a bare std::bad_alloc (or a 1.6 GB index).
  const std::string dir =
      write_trace("huge_grid", 1, "-grid dim = (1,1,1)", "-grid dim = (67108864,1,1)");
  Result r = locsim("run" + kOneSm + " --trace " + dir + "/kernelslist.g --quiet" +
                    " --set sm.max_threads=2048");
  CHECK(r.code == 2);
  CHECK(lines(r.err) == 1);
  CHECK_THAT(r.err, Catch::Contains("kernel-1.traceg:") && Catch::Contains("trace index"));
}

TEST_CASE("cli trace: 300 kernels run under a 64-descriptor limit", "[cli]") {
  // Every kernel used to keep its file open for the whole run.
  const std::string dir = write_trace("many_kernels", 300);
  Result r = locsim_limited("run" + kOneSm + " --trace " + dir + "/kernelslist.g --quiet", 120);
  REQUIRE(r.code == 0);
  const std::string cmd = "sh -c 'ulimit -n 64 && SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " +
                          std::string(LOCSIM_BIN) + " run" + kOneSm + " --trace " + dir +
                          "/kernelslist.g --quiet' >/dev/null 2>" + tmp("fd_err");
  const int st = std::system(cmd.c_str());
  INFO(slurp(tmp("fd_err")));
  CHECK(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 0);
  std::system(("rm -rf " + dir + " " + tmp("fd_err")).c_str());
}

TEST_CASE("cli trace: replay --trace gives the hand-computed counts and matches the workload",
          "[cli]") {
  const std::string f = tmp("replay_trace.json");
  Result r =
      locsim("replay" + kOneSm + " --trace " + kFixture + "/kernelslist.g --stats-json " + f);
  INFO(r.err);
  REQUIRE(r.code == 0);
  nlohmann::json j = nlohmann::json::parse(slurp(f));
  CHECK(j["l1d"]["accesses"] == 5);
  CHECK(j["l1d"]["hits"] == 2);
  CHECK(j["l1d"]["misses"] == 3);
  // An exported workload replays to the same cache statistics as the workload itself.
  const std::string dir = tmp("replay_export");
  REQUIRE(locsim("export-trace --workload matmul --set workload.n=64 " + dir).code == 0);
  const std::string a = tmp("replay_a.json"), b = tmp("replay_b.json");
  REQUIRE(
      locsim("replay --platform volta --trace " + dir + "/kernelslist.g --stats-json " + a).code ==
      0);
  REQUIRE(locsim("replay --platform volta --workload matmul --set workload.n=64 --stats-json " + b)
              .code == 0);
  const nlohmann::json ja = nlohmann::json::parse(slurp(a)), jb = nlohmann::json::parse(slurp(b));
  CHECK(ja["l1d"] == jb["l1d"]);
  CHECK(ja["l2"] == jb["l2"]);
  CHECK(ja["dram"] == jb["dram"]);
  CHECK(
      locsim("replay --platform volta --trace " + dir + "/kernelslist.g --workload matmul").code ==
      2);
  std::system(("rm -rf " + dir).c_str());
}
