// The mcm topology (seed 000 §5, §6.2) end to end: four modules joined by inter-module links,
// every NUMA configuration with the data-integrity mode and protocol checkers. One elaboration
// per TEST_CASE.
#include <catch2/catch.hpp>

#include "model/numa_zone_policy.h"
#include "platform_run.h"

using namespace locsim;
using namespace locsim::test;

namespace {
double efficiency(Run& r) {
  return double(r.total("numa", "local_accesses")) / double(r.total("numa", "accesses"));
}
double share(Run& r, int z) {
  const std::string k = "zone" + std::to_string(z) + "_accesses";
  return double(r.total("numa", k.c_str())) / double(r.total("numa", "accesses"));
}
}  // namespace

TEST_CASE("mcm: the XOR Baseline spreads accesses evenly, a quarter of them local",
          "[platform][mcm]") {
  Run r = run("mcm", "vecadd", {{"n", "262144"}});
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->num_l2() == 64);
  CHECK(efficiency(r) == Approx(0.25).margin(0.01));
  for (int z = 0; z < 4; ++z) CHECK(share(r, z) == Approx(0.25).margin(0.01));
  // Remote requests crossed the links: every link carried requests and replies.
  CHECK(r.total("link", "requests") == r.total("link", "replies"));
  CHECK(r.total("link", "requests") > r.total("numa", "accesses") / 2);
  CHECK(r.total("dram", "reads") > 0);
}

TEST_CASE("mcm: FirstTouch-Distrib keeps pages with their first toucher's module",
          "[platform][mcm]") {
  Run r = run("mcm", "matmul", {{"n", "256"}}, {{"numa.policy", "first-touch"}});
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->config().dispatcher.policy == "numa-zone");
  CHECK(r.gpu->numa()->first_touch());
  CHECK(r.gpu->numa()->pages_placed() > 0);
  CHECK(efficiency(r) > 0.4);
}

TEST_CASE("mcm: LDesc-Placement places A by Algorithm 2 but keeps FirstTouch's CTA split",
          "[platform][mcm]") {
  Run r = run("mcm", "matmul", {{"n", "256"}}, {{"numa.policy", "ldesc-placement"}});
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->config().dispatcher.policy_args.at("partition") == "contiguous");
  // A's D-Tile is a 16-row band of 256 floats (16 KB): Algorithm 2 gives it bit 14.
  const NumaZoneMap& zm = r.gpu->numa()->zone_map();
  CHECK(zm.num_placed() == 2);
  CHECK(zm.start_bit(r.wl->kernels()[0]->data()[0].base) == 14);
}

TEST_CASE("mcm: LDesc schedules each C-Tile where its D-Tile lives", "[platform][mcm]") {
  Run r = run("mcm", "matmul", {{"n", "256"}}, {{"numa.policy", "ldesc"}});
  common_checks(r);
  CHECK(r.out.verified_words > 0);
  CHECK(r.gpu->config().dispatcher.policy_args.at("partition") == "ldesc");
  CHECK(r.total("numa", "ldesc_partitions") == 1);
  // A's D-Tile k (grid row k's 16-row band, 16 KB) is placed at bit 14, so it lives in zone
  // k mod 4, and Algorithm 2 runs grid row k there; inside the zone Algorithm 1 clusters a row.
  const auto& pol = dynamic_cast<const NumaZonePolicy&>(r.gpu->dispatcher().policy());
  for (std::uint32_t c = 0; c < 256; ++c) CHECK(pol.cta_zone()[c] == (c / 16) % 4);
  CHECK(pol.cluster_shape().x == 16);
  CHECK(pol.cluster_shape().y == 1);
  const NumaZoneMap& zm = r.gpu->numa()->zone_map();
  CHECK(zm.start_bit(r.wl->kernels()[0]->data()[0].base) == 14);
  // More local than the XOR Baseline's quarter, and still balanced over the zones.
  CHECK(efficiency(r) > 0.3);
  for (int z = 0; z < 4; ++z) CHECK(share(r, z) == Approx(0.25).margin(0.05));
}

TEST_CASE("mcm: Algorithm 2 placements never pad into the next data structure", "[platform][mcm]") {
  // lavamd at boxes1d = 5: rv (400 KB) would take bit 16, whose 256 KB padding reaches qv, the
  // next structure; the mechanism lowers rv's bit until its padded range ends before qv.
  ParamRegistry p;
  declare_gpu_params(p);
  load_platform(p, "mcm");
  p.set("numa.policy", "ldesc-placement", "test");
  auto wl = make_workload("lavamd", {{"boxes1d", "5"}});
  GpuPlatform gpu("gpu", make_gpu_config(p));
  gpu.load(*wl);  // places the data structures; nothing is simulated
  const NumaZoneMap& zm = gpu.numa()->zone_map();
  CHECK(zm.num_placed() >= 2);
  const auto& data = wl->kernels()[0]->data();
  for (const DataStructure& ds : data) {
    const unsigned bit = zm.start_bit(ds.base);
    if (bit == kNumaXorStartBit && zm.start_bit(ds.base + ds.bytes - 1) == bit) continue;
    const std::uint64_t align = zm.alignment(bit);
    const Addr end = ds.base + (ds.bytes + align - 1) / align * align;
    for (const DataStructure& other : data)
      if (other.base > ds.base) CHECK(end <= other.base);
  }
}
