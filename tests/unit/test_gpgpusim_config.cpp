// Import of GPGPU-Sim configuration files (model/gpgpusim_config.h): option mapping, derived
// sizes, ignored options with reasons, and one-line errors.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "model/gpgpusim_config.h"
#include "model/params.h"

using namespace locsim;

namespace {
std::map<std::string, std::string> mapped(const GpgpuSimImport& imp) {
  std::map<std::string, std::string> m;
  for (const auto& a : imp.assignments) m[a.key] = a.value;
  return m;
}
std::string fixture(const char* name) {
  std::ifstream f(std::string(LOCSIM_SOURCE_DIR) + "/tests/data/gpgpusim/" + name);
  REQUIRE(f);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
std::string error_of(const std::string& text) {
  try {
    import_gpgpusim_config(text, "g.config");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("gpgpusim import: GTX480 options become fermi-like locsim parameters", "[gpgpusim]") {
  const GpgpuSimImport imp = import_gpgpusim_config(fixture("GTX480.config"), "GTX480.config");
  const auto m = mapped(imp);
  CHECK(m.at("gpu.sms") == "15");
  CHECK(m.at("gpu.sms_per_cluster") == "1");
  CHECK(m.count("gpu.topology") == 0);  // one core per cluster: the base platform's crossbar
  CHECK(m.at("clock.core") == "700MHz");
  CHECK(m.at("clock.dram") == "924MHz");
  CHECK(m.at("sm.max_threads") == "1536");
  CHECK(m.at("sm.max_warps") == "48");
  // dl1 N:32:128:4,L:L:m:N:H,S:64:8,8: 32 sets x 128 B x 4 ways, Fermi's hashed index.
  CHECK(m.at("l1d.size") == "16384");
  CHECK(m.at("l1d.sector") == "128");
  CHECK(m.at("l1d.indexing") == "fermi-hash");
  CHECK(m.at("l1d.mshr_entries") == "64");
  CHECK(m.at("l1d.miss_queue") == "8");
  // dl2 S:64:128:8 per sub-partition x 6 channels x 2 sub-partitions = 768 KiB, sectored.
  CHECK(m.at("l2.size") == "786432");
  CHECK(m.at("l2.ways") == "8");
  CHECK(m.at("l2.sector") == "32");
  // The DRAM timing string spans two lines inside its quotes.
  CHECK(m.at("dram.tRC") == "40");
  CHECK(m.at("dram.tCL") == "12");
  CHECK(m.at("dram.tWTR") == "5");  // CDLR
  CHECK(m.at("mem.banks") == "16");
  // 4-byte chips x burst 8 x 2 chips per controller; 8 / QDR 4 = 2 command cycles.
  CHECK(m.at("dram.atom_bytes") == "64");
  CHECK(m.at("dram.burst_cycles") == "2");
  // Ignored, each with its reason and line.
  std::map<std::string, std::string> why;
  for (const auto& i : imp.ignored) why[i.option] = i.reason;
  CHECK(imp.ignored.size() == 3);  // the latencies and the address mapping are mapped now
  // dramid@8;...BBBCCCCB.CCSSSSSS: channel chunk 256 B, banks from bits 8 and 13-15, rows from
  // bit 16 (4 KiB rows); policy 0 indexes banks linearly; a 64-entry FR-FCFS queue.
  CHECK(m.at("mem.interleave") == "256");
  CHECK(m.at("mem.bank_bits") == "8,13,14,15");
  CHECK(m.at("mem.row_bytes") == "4096");
  CHECK(m.at("mem.bank_xor") == "false");
  CHECK(m.at("dram.queue") == "64");
  CHECK_THAT(why.at("-power_simulation_enabled"), Catch::Contains("power"));
  CHECK_THAT(why.at("-gpgpu_dram_timing_opt"), Catch::Contains("bank groups"));
  for (const auto& a : imp.assignments) CHECK(a.line > 0);
}

TEST_CASE("gpgpusim import: TITAN V's clusters, adaptive L1 and HBM", "[gpgpusim]") {
  const GpgpuSimImport imp = import_gpgpusim_config(fixture("TITANV.config"), "TITANV.config");
  const auto m = mapped(imp);
  CHECK(m.at("gpu.sms") == "80");
  CHECK(m.at("gpu.sms_per_cluster") == "2");
  CHECK(m.at("gpu.topology") == "clustered");
  CHECK(m.at("l2.size") == std::to_string(32 * 128 * 24 * 48));  // 4.5 MiB
  CHECK(m.at("l1d.size") == "32768");
  CHECK(m.at("sm.scheduler") == "lrr");
  CHECK(m.at("dram.atom_bytes") == "32");  // 16-byte HBM channel x burst 2
  CHECK(m.at("dram.burst_cycles") == "1");
  CHECK(m.at("l2.input_queue") == "64");  // icnt-to-L2 field of -gpgpu_dram_partition_queues
  // ...RBBBCCCB.CCCSSSSS: banks from channel-local bits 8 and 12-14, 2 KiB rows, bank XOR.
  CHECK(m.at("mem.bank_bits") == "8,12,13,14");
  CHECK(m.at("mem.row_bytes") == "2048");
  CHECK(m.at("mem.bank_xor") == "true");
  CHECK(m.at("dram.queue") == "64");
  CHECK(m.at("dram.dual_command_bus") == "true");  // HBM: row and column command buses
}

TEST_CASE("gpgpusim import: address-mapping strings locsim's layout cannot express are ignored",
          "[gpgpusim]") {
  auto why_of = [](const std::string& text) {
    const GpgpuSimImport imp = import_gpgpusim_config(text, "g.config");
    for (const auto& a : imp.assignments) CHECK(a.key.rfind("mem.", 0) != 0);
    REQUIRE(imp.ignored.size() == 1);
    return imp.ignored.front().reason;
  };
  // TITAN X: bank bit 7 lies inside the 256 B chunk a channel gets.
  const GpgpuSimImport x = import_gpgpusim_config(fixture("TITANX.config"), "TITANX.config");
  std::map<std::string, std::string> why;
  for (const auto& i : x.ignored) why[i.option] = i.reason;
  CHECK_THAT(why.at("-gpgpu_mem_addr_mapping"), Catch::Contains("bank bit 7"));
  CHECK(mapped(x).at("mem.bank_xor") == "false");
  // Explicit channel bits, a column bit above the row, a chunk below 128 B, a row no larger
  // than the channel chunk.
  CHECK_THAT(why_of("-gpgpu_mem_addr_mapping 0000RRRR.RRRRRRRR.BBBBDDDD.CCSSSSSS\n"),
             Catch::Contains("explicit channel bits"));
  CHECK_THAT(why_of("-gpgpu_mem_addr_mapping dramid@8;0000CRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS\n"),
             Catch::Contains("bit 27 breaks"));
  CHECK_THAT(why_of("-gpgpu_mem_addr_mapping dramid@5;0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS\n"),
             Catch::Contains("from 128 B"));
  CHECK_THAT(why_of("-gpgpu_mem_addr_mapping dramid@8;RRRRRRRR.RRRRRBBB.BCCCCCCC\n"),
             Catch::Contains("row smaller"));
  CHECK_THAT(why_of("-gpgpu_frfcfs_dram_sched_queue_size 0\n"), Catch::Contains("unbounded"));
  CHECK_THAT(why_of("-dram_bnk_indexing_policy 2\n"), Catch::Contains("IPOLY"));
}

TEST_CASE("gpgpusim import: malformed values are one-line errors with file:line", "[gpgpusim]") {
  CHECK(error_of("-gpgpu_n_mem six\n") ==
        "g.config:1: option '-gpgpu_n_mem': bad value 'six' (expected an integer >= 1)");
  CHECK_THAT(error_of("\n-gpgpu_cache:dl1 N:32:128\n"),
             Catch::StartsWith("g.config:2: option '-gpgpu_cache:dl1': bad value 'N:32:128'"));
  CHECK_THAT(error_of("-gpgpu_clock_domains 700:700:700\n"),
             Catch::Contains("<core>:<interconnect>:<L2>:<DRAM> in MHz"));
  CHECK_THAT(error_of("-gpgpu_shader_core_pipeline 1536:64\n"),
             Catch::Contains("a warp size of 32"));
  CHECK_THAT(error_of("-gpgpu_scheduler fastest\n"), Catch::Contains("gto, lrr"));
  CHECK_THAT(error_of("-gpgpu_dram_partition_queues 64\n"),
             Catch::Contains("<icnt-L2>:<L2-DRAM>:<DRAM-L2>:<L2-icnt>"));
  CHECK_THAT(error_of("-gpgpu_dram_partition_queues 0:8:8:8\n"), Catch::Contains("integer >= 1"));
  CHECK_THAT(error_of("-gpgpu_dram_timing_opt \"nbk=16:CL\"\n"),
             Catch::Contains("name=value fields"));
  CHECK_THAT(error_of("-gpgpu_dram_timing_opt \"nbk=16\n"),
             Catch::Contains("g.config:1: unterminated quoted value"));
  CHECK_THAT(error_of("-gpgpu_mem_addr_mapping dramid@8;0000RRRR.RRRRXRRR.RBBBCCCB.CCCSSSSS\n"),
             Catch::StartsWith("g.config:1: option '-gpgpu_mem_addr_mapping': bad value"));
  CHECK_THAT(error_of("-gpgpu_mem_addr_mapping dramid@x;RRRR\n"), Catch::Contains("dramid@<bit>;"));
  CHECK_THAT(error_of("-dram_bnk_indexing_policy 3\n"), Catch::Contains("0, 1 or 2"));
  CHECK_THAT(error_of("-dram_dual_bus_interface 2\n"), Catch::Contains("0 or 1"));
  CHECK_THAT(error_of("gpgpu_n_mem 6\n"), Catch::Contains("expected an option '-name'"));
  CHECK_THAT(error_of("-gpgpu_n_mem\n"), Catch::Contains("has no value"));
  CHECK_THAT(error_of("-gpgpu_cache:dl2 S:64:128:8,L:B:m:L:L,A:256:4,4:0,32\n"),
             Catch::Contains("needs -gpgpu_n_mem"));
}

TEST_CASE("gpgpusim import: ROP and DRAM latencies convert from core cycles to L2 and DRAM cycles",
          "[gpgpusim]") {
  // GPGPU-Sim counts -gpgpu_l2_rop_latency and -dram_latency in core cycles (gpu_sim_cycle).
  auto m = mapped(import_gpgpusim_config(fixture("GTX480.config"), "GTX480.config"));
  CHECK(m.at("l2.rop_latency") == "120");           // L2 at the 700 MHz core clock
  CHECK(m.at("dram.controller_latency") == "132");  // 100 x 924 / 700
  CHECK(m.at("dram.phy_latency") == "0");
  // Accel-Sim's TITAN V values (-gpgpu_l2_rop_latency 160, -dram_latency 100 at 1200 MHz).
  m = mapped(import_gpgpusim_config(
      "-gpgpu_clock_domains 1200.0:1200.0:1200.0:850.0\n-gpgpu_l2_rop_latency 160\n"
      "-dram_latency 100\n",
      "g.config"));
  CHECK(m.at("l2.rop_latency") == "160");
  CHECK(m.at("dram.controller_latency") == "71");  // 100 x 850 / 1200
  m = mapped(import_gpgpusim_config(
      "-gpgpu_clock_domains 1000.0:1000.0:500.0:2000.0\n-gpgpu_l2_rop_latency 10\n"
      "-dram_latency 7\n",
      "g.config"));
  CHECK(m.at("l2.rop_latency") == "5");
  CHECK(m.at("dram.controller_latency") == "14");
  // Without clock domains the cycles are taken as they are.
  m = mapped(import_gpgpusim_config("-gpgpu_l2_rop_latency 10\n", "g.config"));
  CHECK(m.at("l2.rop_latency") == "10");
  CHECK(error_of("-dram_latency x\n").find("-dram_latency") != std::string::npos);
}
