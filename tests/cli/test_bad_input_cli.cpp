// Bad input through the real binary, one case per finding of scripts/fuzz_inputs.py (each failed
// before its fix), plus a systematic truncation of a trace and the trace reader's memory bound:
// exit 2, exactly one stderr line naming the key or FILE:LINE, never a hang or a library message.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_helpers.h"

using namespace cli_test;

namespace {

const std::string kFixture = std::string(LOCSIM_SOURCE_DIR) + "/tests/data/traces/one_warp";
const std::string kVecadd = "run --platform fermi --workload vecadd --set workload.n=2048 --quiet";

std::string fixture_text() {
  return slurp(kFixture + "/kernel-1.traceg");
}

// DIR/kernelslist.g naming DIR/kernel-1.traceg with `text`; returns the kernelslist path.
std::string write_trace(const std::string& name, const std::string& text) {
  const std::string dir = tmp(name);
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::ofstream(dir + "/kernel-1.traceg", std::ios::binary) << text;
  std::ofstream(dir + "/kernelslist.g") << "MemcpyHtoD,0x0000000010000000,65536\nkernel-1.traceg\n";
  return dir + "/kernelslist.g";
}

void remove_trace(const std::string& name) {
  std::system(("rm -rf " + tmp(name)).c_str());
}

// The rule for every bad input: exit 2 and one line "locsim: error: ..." containing `names`.
void check_error(const Result& r, const std::string& names) {
  INFO("exit " << r.code << "\nstderr: " << r.err.substr(0, 800));
  CHECK(r.code == 2);
  CHECK(lines(r.err) == 1);
  CHECK_THAT(r.err, Catch::StartsWith("locsim: error: ") && Catch::Contains(names));
  CHECK_THAT(r.err, !Catch::Contains("json.exception") && !Catch::Contains("std::") &&
                        !Catch::Contains("bad_alloc"));
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("bad input: a trace cut at every line boundary and mid-line is FILE:LINE", "[cli]") {
  const std::string text = fixture_text();
  std::string full = text;
  while (!full.empty() && (full.back() == '\n' || full.back() == ' ')) full.pop_back();
  std::vector<std::size_t> cuts;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    const std::size_t end = nl == std::string::npos ? text.size() : nl;
    cuts.push_back(pos);
    cuts.push_back(pos + (end - pos) / 2);
    pos = end + 1;
  }
  int runs = 0;
  for (std::size_t cut : cuts) {
    std::string t = text.substr(0, cut);
    std::string stripped = t;
    while (!stripped.empty() && (stripped.back() == '\n' || stripped.back() == ' '))
      stripped.pop_back();
    if (stripped == full) continue;
    const std::string list = write_trace("cut", t);
    INFO("cut at byte " << cut);
    check_error(locsim_limited("run --platform fermi --quiet --trace " + list, 20),
                "kernel-1.traceg:");
    ++runs;
  }
  CHECK(runs > 40);
  remove_trace("cut");
}

TEST_CASE("bad input: binary bytes and endless lines in a trace are FILE:LINE", "[cli]") {
  // A NUL inside an opcode used to run with exit 0 ('LDG.E\0' classified as LDG).
  std::string t = replace_once(fixture_text(), "FFMA", std::string("FF\0MA", 5));
  check_error(locsim("run --platform fermi --quiet --trace " + write_trace("nul", t)),
              "kernel-1.traceg:24: binary data (byte 0x00 at column 22)");
  // 2 MB without a newline used to be read whole as one line.
  t = "-kernel name = " + std::string(2 << 20, 'k');
  check_error(locsim("run --platform fermi --quiet --trace " + write_trace("long", t)),
              "kernel-1.traceg:1: line longer than 1 MiB");
  // An endless file used to grow until the host ran out of memory.
  check_error(locsim_limited("run --platform fermi --quiet --trace /dev/zero", 20),
              "/dev/zero:1: line longer than 1 MiB");
  // The same in kernelslist.g.
  const std::string list = write_trace("nul_list", fixture_text());
  std::ofstream(list) << "kernel-1.traceg\n\x1b[2J\n";
  check_error(locsim("run --platform fermi --quiet --trace " + list),
              "kernelslist.g:2: binary data (byte 0x1b at column 1)");
  remove_trace("nul");
  remove_trace("long");
  remove_trace("nul_list");
}

TEST_CASE("bad input: a small trace file claiming millions of CTAs allocates nothing", "[cli]") {
  // The 16-byte-per-warp index of 4M CTAs (64 MB here, up to 1 GiB) used to be allocated before
  // the file turned out to hold one thread block.
  const std::string list = write_trace(
      "claims", replace_once(fixture_text(), "-grid dim = (1,1,1)", "-grid dim = (4194304,1,1)"));
  check_error(locsim("run --platform fermi --quiet --trace " + list),
              "kernel-1.traceg:16: grid dim (4194304,1,1) x block dim (32,1,1) needs at least "
              "222298112 bytes of thread blocks, the file has");
  remove_trace("claims");
}

TEST_CASE("bad input: a CTA that fits no SM names the sm.* key (run and replay)", "[cli]") {
  const std::string list =
      write_trace("fat", replace_once(fixture_text(), "-shmem = 0", "-shmem = 1048576"));
  for (const char* cmd : {"run", "replay"}) {
    INFO(cmd);
    check_error(locsim(std::string(cmd) + " --platform fermi --trace " + list),
                "one CTA needs 1048576 bytes of shared memory, more than sm.shared_memory "
                "(49152)");
  }
  check_error(locsim(kVecadd + " --set sm.max_threads=128"),
              "one CTA needs 256 threads, more than sm.max_threads (128)");
  check_error(locsim(kVecadd + " --set sm.registers=1024"), "more than sm.registers (1024)");
  remove_trace("fat");
}

TEST_CASE("bad input: dram.tRAS above dram.tRC names both keys", "[cli]") {
  check_error(locsim(kVecadd + " --set dram.tRC=7"),
              "keys 'dram.tRAS' (28) and 'dram.tRC' (7): tRAS cannot exceed tRC");
}

TEST_CASE("bad input: mem.bank_bits errors name the key", "[cli]") {
  check_error(locsim(kVecadd + " --set mem.bank_bits=8,x"),
              "key 'mem.bank_bits': 'x' is not a bit number");
  check_error(locsim(kVecadd + " --set mem.bank_bits=8,12,13"),
              "keys 'mem.*': address_map.bank_bits must list log2(banks) = 4 bits (got 3)");
  check_error(locsim(kVecadd + " --set mem.bank_bits=8,8,13,14"),
              "key 'mem.bank_bits': bit 8 listed twice");
}

TEST_CASE("bad input: export-trace --max-sources outside 0..255 names the option", "[cli]") {
  for (const char* v : {"-1", "x", "256", "4294967300"})
    check_error(locsim(std::string("export-trace --workload vecadd --max-sources ") + v + " " +
                       tmp("maxsrc")),
                std::string("--max-sources '") + v + "'");
}

TEST_CASE("bad input: an empty kernelslist names the file, not a line 0", "[cli]") {
  check_error(locsim("run --platform fermi --quiet --trace /dev/null"),
              "/dev/null: empty file: no kernel trace files listed");
}

TEST_CASE("bad input: fewer MSHR entries than a line's sectors names the key", "[cli]") {
  // One entry per sector in flight: 3 entries could never take a 4-sector line miss (a hang).
  check_error(locsim(kVecadd + " --set l2.mshr_entries=3"),
              "key 'l2.mshr_entries': 3 entries cannot hold the 4 sectors of one line");
  check_error(locsim("run --platform volta --workload vecadd --set workload.n=2048 --quiet "
                     "--set l1d.mshr_entries=2"),
              "key 'l1d.mshr_entries': 2 entries cannot hold the 4 sectors of one line");
}

TEST_CASE("bad input: JSON files give FILE:LINE:COLUMN without library text", "[cli]") {
  const std::string f = tmp("bad.json");
  // A platform file cut in the middle of a string (line 3).
  std::ofstream(f) << "{\n  \"l1d\": {\n    \"size\": \"16K";
  check_error(locsim(kVecadd + " --config " + f), f + ":3:");
  CHECK_THAT(locsim(kVecadd + " --config " + f).err, Catch::Contains("JSON syntax error"));
  // A key given twice in one object: FILE:LINE:COLUMN of the second one.
  std::ofstream(f) << "{\n  \"l1d\": {\"ways\": 2,\n           \"ways\": 8}\n}\n";
  check_error(locsim(kVecadd + " --config " + f),
              f + ":3:12: key 'ways' appears twice in one object");
  // 1e400 used to be '[json.exception.out_of_range.406] number overflow parsing'.
  std::ofstream(f) << "{\n\"l1d\": {\"size\": 1e400}}";
  check_error(locsim(kVecadd + " --config " + f), f + ":2:17: number out of range '1e400'");
  // Sweep files: a syntax error gave only a byte offset, 1e400 a bare library message.
  std::ofstream(f) << "{\"platforms\": [\"fermi\"],\n \"workloads\": [1e400]}";
  check_error(locsim("sweep " + f + " --dry-run"), f + ":2:16: number out of range");
  std::ofstream(f) << "{\"platforms\": [\"fermi\"],\n \"workloads\": [\"vecadd\",]}";
  check_error(locsim("sweep " + f + " --dry-run"), f + ":2:25: JSON syntax error");
  std::remove(f.c_str());
}

TEST_CASE("bad input: a sweep of 10^12 runs is refused before it is expanded", "[cli]") {
  const std::string f = tmp("huge_sweep.json");
  std::string grid;
  for (int i = 0; i < 12; ++i)
    grid += std::string(i ? ", " : "") + "\"k" + std::to_string(i) + ".x\": [0,1,2,3,4,5,6,7,8,9]";
  std::ofstream(f) << "{\"platforms\": [\"fermi\"], \"workloads\": [\"vecadd\"], \"grid\": {"
                   << grid << "}}";
  // It used to grow until killed. (Keys are in sorted order: k0, k1, k10, k11, k2, k3 make
  // 10^6 runs, k4 one more factor of ten.)
  check_error(locsim_limited("sweep " + f + " --dry-run -o " + tmp("huge_sweep.out"), 20),
              "'grid.k4.x': the sweep would have more than 1000000 runs");
  std::remove(f.c_str());
}

TEST_CASE("bad input: CLI options: a directory as GPGPU-Sim config, negative numbers", "[cli]") {
  // A directory opened, read nothing and ran with exit 0.
  check_error(locsim(kVecadd + " --gpgpusim-config " + std::string(LOCSIM_SOURCE_DIR)),
              "cannot read GPGPU-Sim config");
  // Boost read -1 as 2^64 - 1 and the message named 18446744073709551615.
  check_error(locsim(kVecadd + " --sample-interval -1 --samples " + tmp("s.csv")),
              "--sample-interval '-1': must be an integer");
  check_error(locsim("sweep /nonexistent.json -j -1"), "--jobs '-1': must be an integer");
  check_error(locsim("sweep /nonexistent.json --slurm --array-limit -2"),
              "--array-limit '-2': must be an integer");
}

namespace {
// A streaming kernel of `ctas` CTAs x 4 warps x `insts` instructions: every warp loads and
// stores lines of its own. Returns the kernelslist path.
std::string stream_trace(const std::string& name, int ctas, int insts) {
  const std::string dir = tmp(name);
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::ofstream f(dir + "/kernel-1.traceg");
  f << "-kernel name = stream\n-grid dim = (" << ctas
    << ",1,1)\n-block dim = (128,1,1)\n-accelsim tracer version = 4\n\n";
  char line[128];
  for (int c = 0; c < ctas; ++c) {
    f << "#BEGIN_TB\nthread block = " << c << ",0,0\n";
    for (int w = 0; w < 4; ++w) {
      f << "warp = " << w << "\ninsts = " << insts << "\n";
      for (int i = 0; i + 1 < insts; ++i) {
        const unsigned long long a = 0x10000000ull + ((c * 4ull + w) * insts + i) * 128;
        std::snprintf(line, sizeof line, "%04x ffffffff 1 R4 %s 1 R2 4 1 0x%016llx 4\n", i * 8,
                      i % 2 ? "STG.E" : "LDG.E", a);
        f << line;
      }
      std::snprintf(line, sizeof line, "%04x ffffffff 0 EXIT 0 0\n", (insts - 1) * 8);
      f << line;
    }
    f << "#END_TB\n";
  }
  std::ofstream(dir + "/kernelslist.g") << "kernel-1.traceg\n";
  return dir + "/kernelslist.g";
}

double peak_rss_mb(const std::string& list) {
  const nlohmann::json j = run_json("run --platform fermi --trace " + list, "rss");
  return j["host"]["peak_rss_mb"].get<double>();
}
}  // namespace

TEST_CASE("bad input: peak RSS stays flat when a streamed trace grows 4x", "[cli]") {
  // 2048 CTAs x 4 warps x 8 instructions is a 3.6 MB trace; 4x the CTAs or 4x the instructions
  // make it 14.4 MB. The reader keeps 16 bytes per warp (where its lines start) and no CTA state
  // after the CTA retires: +8192 x 3 x 16 B = 0.4 MB for the CTAs, nothing for the
  // instructions. Holding the text would add 10.8 MB.
#if defined(__SANITIZE_ADDRESS__)
  // The binary is built with AddressSanitizer too (scripts/sanitize.sh): its quarantine keeps
  // freed memory, so peak RSS measures the sanitizer, not the reader.
  WARN("AddressSanitizer build: peak RSS check skipped");
  return;
#endif
  const double base = peak_rss_mb(stream_trace("rss_base", 2048, 8));
  const double ctas = peak_rss_mb(stream_trace("rss_ctas", 8192, 8));
  const double insts = peak_rss_mb(stream_trace("rss_insts", 2048, 32));
  INFO("peak RSS: base " << base << " MB, 4x CTAs " << ctas << " MB, 4x instructions " << insts
                         << " MB");
  CHECK(ctas - base < 3.0);
  CHECK(insts - base < 3.0);
  for (const char* n : {"rss_base", "rss_ctas", "rss_insts"}) remove_trace(n);
}
