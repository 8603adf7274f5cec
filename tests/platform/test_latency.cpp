// Unloaded load latencies (issue 15, "Latencies"): one warp's chain of dependent loads
// (latency_chain) must see the L1 hit latency, the L2 pipeline (ROP + tag + data) plus the
// crossbar round trip for an L2 hit, and on top of that the memory controller, the DRAM access
// (ACT + RD to a closed bank) and the PHY for a DRAM access. The expected totals are computed from
// the platform's configured parameters; the tolerance allows for the clock-domain crossings (a
// request waits up to one cycle of each domain for an edge) and the L1's handshakes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

namespace {

// The SM's load_latency distribution (ps) over the workload's last kernel.
AggregateStat chain_latency(Run& r) {
  REQUIRE(!r.out.kernels.empty());
  const KernelStats& k = r.out.kernels.back();
  for (const AggregateStat& a : r.gpu->context().stats.aggregate(k.begin, k.finish))
    if (a.kind == "sm" && a.name == "load_latency") return a;
  FAIL("no sm.load_latency statistic");
  return {};
}
AggregateStat first_kernel_latency(Run& r) {
  const KernelStats& k = r.out.kernels.front();
  for (const AggregateStat& a : r.gpu->context().stats.aggregate(k.begin, k.finish))
    if (a.kind == "sm" && a.name == "load_latency") return a;
  FAIL("no sm.load_latency statistic");
  return {};
}

std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) {
  return (a + b - 1) / b;
}
// A clock's period as the simulator holds it (whole picoseconds).
double period_ps(double hz) {
  return static_cast<double>(std::llround(1e12 / hz));
}

// The configured unloaded latencies, in ps, of one 4-byte load.
struct Expected {
  double core_ps, l2_ps, dram_ps;
  double l1_hit, l2_hit, dram;
  double tolerance;  // measured - expected must lie in [0, tolerance]
};

Expected expected(const GpuConfig& c) {
  Expected e;
  e.core_ps = period_ps(c.sm.clock_hz);
  const double noc_ps = period_ps(c.noc.clock_hz);
  e.l2_ps = period_ps(c.l2.clock_hz);
  e.dram_ps = period_ps(c.mc.clock_hz);
  e.l1_hit = c.l1.hit_latency * e.core_ps;
  // Crossbar: the request is its header; the reply carries the L1's fetch (one L1 sector) after
  // its header; each crosses in one flit per NoC cycle plus the switch latency.
  const std::uint32_t fetched = c.l1.geometry.sector_bytes;
  const std::uint32_t flits = ceil_div(c.noc.header_bytes, c.noc.flit_bytes) +
                              ceil_div(c.noc.header_bytes + fetched, c.noc.flit_bytes);
  const double noc = (flits + 2.0 * c.noc.latency) * noc_ps;
  e.l2_hit = noc + c.l2.hit_latency() * e.l2_ps;
  // DRAM: front end, ACT -> RD (tRCD), RD -> data (tCL) and its burst, the fetch's further atoms
  // (row hits, one per max(tCCD, burst)), PHY.
  const std::uint32_t atoms = std::max(1u, fetched / c.mc.atom_bytes);
  const DramTiming& t = c.mc.timing;
  e.dram = e.l2_hit + (c.mc.controller_latency + t.tRCD + t.tCL + t.burst_cycles +
                       (atoms - 1) * std::max(t.tCCD, t.burst_cycles) + c.mc.phy_latency) *
                          e.dram_ps;
  // The L1's acceptance, fill and response edges, and one edge wait per domain crossed.
  e.tolerance = 4 * e.core_ps + noc_ps + e.l2_ps + e.dram_ps;
  return e;
}

// A chain whose loads each open a row in a different, closed bank: the row-sized step moves the
// bank index by one; 8 loads stay clear of the bank XOR's wrap.
WorkloadArgs cold_chain(const GpuConfig& c, const char* level) {
  const std::uint64_t stride = std::uint64_t{c.address_map.channels} * c.address_map.row_bytes;
  return {{"level", level}, {"loads", "8"}, {"stride", std::to_string(stride)}};
}

GpuConfig platform_config(const std::string& platform) {
  ParamRegistry p;
  declare_gpu_params(p);
  load_platform(p, platform);
  return make_gpu_config(p);
}

void check_l1(const std::string& platform) {
  const Expected e = expected(platform_config(platform));
  Run r = run(platform, "latency_chain", {{"level", "l1"}, {"loads", "64"}});
  REQUIRE(r.out.ok);
  const AggregateStat l = chain_latency(r);
  REQUIRE(l.count == 64);
  INFO("L1 hit " << l.min / e.core_ps << " core cycles, configured " << e.l1_hit / e.core_ps);
  CHECK(l.min >= e.l1_hit);
  CHECK(l.min <= e.l1_hit + e.core_ps);
  // The one miss (the chain's first load) is the only load above the hit latency.
  CHECK(l.max > e.l2_hit);
  CHECK(r.total("l1d", "hits") == 63);
}

void check_l2_and_dram(const std::string& platform) {
  const GpuConfig c = platform_config(platform);
  const Expected e = expected(c);
  Run r = run(platform, "latency_chain", cold_chain(c, "l2"));
  common_checks(r);
  REQUIRE(r.out.kernels.size() == 2);
  // Kernel 1 (warm-up) finds a cold hierarchy: DRAM; kernel 2 (the chain) hits the L2.
  const AggregateStat dram = first_kernel_latency(r), l2 = chain_latency(r);
  REQUIRE(dram.count == 8);
  REQUIRE(l2.count == 8);
  INFO("L2 hit " << l2.min / e.core_ps << ".." << l2.max / e.core_ps << " core cycles, configured "
                 << e.l2_hit / e.core_ps << "; DRAM " << dram.min / e.core_ps << ".."
                 << dram.max / e.core_ps << ", configured " << e.dram / e.core_ps << "; tolerance "
                 << e.tolerance / e.core_ps);
  CHECK(e.l1_hit < e.l2_hit);
  CHECK(l2.min >= e.l2_hit);
  CHECK(l2.max <= e.l2_hit + e.tolerance);
  CHECK(dram.min >= e.dram);
  CHECK(dram.max <= e.dram + e.tolerance);
  // An L2 miss costs more than an L2 hit: by the DRAM path, nothing is skipped.
  CHECK(dram.min > l2.max + e.tolerance);
  CHECK(r.total("l2", "misses") == 8);
  CHECK(r.total("l2", "hits") == 8);
  // One row opened per load; a fetch of several atoms reads the rest from the open row.
  const std::uint32_t atoms = std::max(1u, c.l1.geometry.sector_bytes / c.mc.atom_bytes);
  CHECK(r.total("dram", "activates") == 8);
  CHECK(r.total("dram", "row_hits") == 8 * (atoms - 1));
  // No over-fetch: DRAM moves exactly the L1's fetch (one L1 sector per load).
  CHECK(r.total("dram", "read_bytes") == 8 * c.l1.geometry.sector_bytes);
}

}  // namespace

TEST_CASE("fermi: dependent loads see the configured L1 hit latency", "[platform][latency]") {
  check_l1("fermi");
}
TEST_CASE("fermi: dependent loads see the configured L2 pipeline and DRAM path",
          "[platform][latency]") {
  check_l2_and_dram("fermi");
}
TEST_CASE("volta: dependent loads see the configured L1 hit latency", "[platform][latency]") {
  check_l1("volta");
}
TEST_CASE("volta: dependent loads see the configured L2 pipeline and DRAM path with 32 B atoms",
          "[platform][latency]") {
  check_l2_and_dram("volta");
}
TEST_CASE("pascal: dependent loads see the configured L2 pipeline and DRAM path with 32 B atoms",
          "[platform][latency]") {
  check_l2_and_dram("pascal");
}
