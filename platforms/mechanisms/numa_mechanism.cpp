#include "platforms/mechanisms/numa_mechanism.h"

#include <stdexcept>
#include <string>

#include "model/numa_address_mapper.h"
#include "model/numa_partition.h"
#include "model/params.h"
#include "platforms/platform_build.h"

namespace locsim {

const char* to_string(NumaPolicy p) {
  switch (p) {
    case NumaPolicy::Xor:
      return "xor";
    case NumaPolicy::FirstTouch:
      return "first-touch";
    case NumaPolicy::LDescPlacement:
      return "ldesc-placement";
    case NumaPolicy::LDesc:
      return "ldesc";
  }
  return "?";
}

namespace {

void declare_numa_params(ParamRegistry& p) {
  using T = ParamType;
  const NumaConfig d;
  p.declare("numa.policy", T::Enum, to_string(d.policy), "",
            "NUMA configuration of the mcm topology (seed 000 §6.2): xor (Baseline: hashed zones, "
            "round-robin CTAs), first-touch (FirstTouch-Distrib), ldesc-placement (Algorithm 2's "
            "data placement, contiguous CTA split), ldesc (Algorithm 2's placement and CTA "
            "partition)",
            {"xor", "first-touch", "ldesc-placement", "ldesc"});
  p.declare("numa.page", T::Bytes, bytes_text(d.page_bytes), "bytes",
            "page size of first-touch placement (seed 000 §6.2: 64 KB)");
}

class NumaMechanismConfig final : public MechanismConfig {
 public:
  explicit NumaMechanismConfig(const NumaConfig& c) : cfg(c) {}
  std::unique_ptr<Mechanism> instantiate() const override {
    return std::make_unique<NumaMechanism>(cfg);
  }
  NumaConfig cfg;
};

std::shared_ptr<const MechanismConfig> configure_numa(const ParamRegistry& p, GpuConfig& c) {
  NumaConfig n;
  const std::string pol = p.get_string("numa.policy");
  n.policy = pol == "first-touch"       ? NumaPolicy::FirstTouch
             : pol == "ldesc-placement" ? NumaPolicy::LDescPlacement
             : pol == "ldesc"           ? NumaPolicy::LDesc
                                        : NumaPolicy::Xor;
  n.page_bytes = p.get_bytes("numa.page");
  if (n.page_bytes < 128 || (n.page_bytes & (n.page_bytes - 1)))
    throw ConfigError("key 'numa.page': " + std::to_string(n.page_bytes) +
                      " (must be a power of two of at least 128 bytes)");
  if (c.topology != "mcm") {
    if (n.policy != NumaPolicy::Xor)
      throw ConfigError("key 'numa.policy': " + pol + " needs gpu.topology=mcm (topology is '" +
                        c.topology + "')");
    return nullptr;
  }
  if (n.policy != NumaPolicy::Xor) {
    // FirstTouch-Distrib and LDesc-Placement split the grid contiguously over the modules,
    // LDesc by Algorithm 2: the CTA policy follows numa.policy unless the user chose one.
    const ParamInfo& dp = p.info("dispatcher.policy");
    if (dp.source == "default") {
      c.dispatcher.policy = "numa-zone";
      c.dispatcher.policy_args = {
          {"partition", n.policy == NumaPolicy::LDesc ? "ldesc" : "contiguous"},
          {"inside", p.get_string("dispatcher.numa-zone.inside")}};
    } else if (c.dispatcher.policy != "numa-zone") {
      throw ConfigError("key 'numa.policy': " + pol +
                        " schedules CTAs with numa-zone, but dispatcher.policy is '" +
                        c.dispatcher.policy + "' (from " + dp.source + ")");
    }
  }
  n.cta_policy = c.dispatcher.policy;
  return std::make_shared<NumaMechanismConfig>(n);
}

}  // namespace

MechanismInfo numa_mechanism_info() {
  return {"numa", "seed 000 §4.6, §6.2 (Locality Descriptor: NUMA placement, Algorithm 2)",
          declare_numa_params, configure_numa};
}

void NumaMechanism::elaborate(PlatformBuild& b) {
  numa_ = b.numa;
  if (!numa_) throw ConfigError("key 'numa.policy': needs gpu.topology=mcm");
  if (cfg_.policy == NumaPolicy::FirstTouch) numa_->enable_first_touch(cfg_.page_bytes);
}

void NumaMechanism::workload_loaded(const Workload& w) {
  if (cfg_.policy != NumaPolicy::LDescPlacement && cfg_.policy != NumaPolicy::LDesc) return;
  const std::uint32_t zones = numa_->zones();
  // Every structure's base: a placed range padded to 2^(bit + zone bits) must end before the
  // next structure starts, placed or not.
  std::set<Addr> bases;
  for (const auto& k : w.kernels())
    for (const DataStructure& ds : k->data()) bases.insert(ds.base);
  // Algorithm 2 per kernel; a structure keeps the placement of the first kernel that placed it
  // (data cannot move once accessed).
  for (const auto& k : w.kernels()) {
    const std::vector<NumaTileMap> maps = numa_tile_maps(*k);
    const NumaPlan plan = plan_numa(maps, k->num_ctas(), zones);
    for (std::size_t i = 0; i < maps.size(); ++i) {
      if (!placed_.insert(maps[i].base).second) continue;
      // The padding to 2^(bit + zone bits) must not reach the next structure: lower the bit
      // until it fits (bit 7 always does: structures are 64 KB aligned).
      auto next = bases.upper_bound(maps[i].base);
      const Addr limit = next == bases.end() ? ~Addr{0} : *next;
      unsigned bit = plan.start_bit[i];
      if (bit == kNumaPageStartBit) {
        // R7.2: 64 KB pages through the page table, each where its CTAs run.
        numa_->zone_map().place_pages(maps[i].name, maps[i].base, maps[i].bytes,
                                      page_zones(maps[i], plan.cta_zone, zones));
      } else {
        const auto padded_end = [&](unsigned b) {
          const std::uint64_t align = numa_->zone_map().alignment(b);
          return maps[i].base + (maps[i].bytes + align - 1) / align * align;
        };
        while (bit > kNumaMinStartBit && padded_end(bit) > limit) --bit;
        numa_->zone_map().place(maps[i].name, maps[i].base, maps[i].bytes, bit);
      }
      placements_.push_back(
          {{"kernel", k->name()},
           {"data_structure", maps[i].name},
           {"start_bit", bit},
           {"algorithm_bit", plan.start_bit[i]},
           {"driver", plan.driver >= 0 && static_cast<std::size_t>(plan.driver) == i}});
    }
  }
}

void NumaMechanism::report(nlohmann::json& extra) const {
  nlohmann::json j;
  j["policy"] = to_string(cfg_.policy);
  j["cta_policy"] = cfg_.cta_policy;
  j["placements"] = placements_;
  if (numa_ && numa_->first_touch()) j["first_touch_pages"] = numa_->pages_placed();
  extra["numa_placement"] = std::move(j);
}

}  // namespace locsim
