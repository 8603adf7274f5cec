#include "platforms/mechanisms/ldesc_mechanism.h"

#include <string>

#include "model/params.h"
#include "platforms/platform_build.h"

namespace locsim {

namespace {

void declare_ldesc_params(ParamRegistry& p) {
  using T = ParamType;
  const LDescConfig d;
  p.declare("ldesc.mode", T::Enum, to_string(d.mode), "",
            "Locality Descriptor configuration (seed 000 §6.1): off, sched (CTA clustering), "
            "pref (guided prefetch), cache (NO-REUSE bypass, hard/soft pinning), all",
            {"off", "sched", "pref", "cache", "all"});
  p.declare("ldesc.stats", T::Bool, "false", "",
            "per-SM working-set statistics (l1d.working_set_lines) also with ldesc.mode=off, "
            "for the paper's Baseline and BCS (§2.1, §6.1)");
  p.declare("ldesc.stride_distance", T::Enum, "formula", "",
            "stride prefetch distance: formula (§4.5: L1_size / (active tiles x tile width) "
            "strides) or one (a single stride, a control for the formula)",
            {"formula", "one"});
  p.declare("ldesc.unpin_period", T::UInt, std::to_string(d.unpin_period), "cycles",
            "period of the unpin timer that resets every L1 line's priority (seed 000 §4.4; "
            "0 = never)");
}

class LDescMechanismConfig final : public MechanismConfig {
 public:
  explicit LDescMechanismConfig(const LDescConfig& c) : cfg(c) {}
  std::unique_ptr<Mechanism> instantiate() const override {
    return std::make_unique<LDescMechanism>(cfg);
  }
  LDescConfig cfg;
};

std::shared_ptr<const MechanismConfig> configure_ldesc(const ParamRegistry& p, GpuConfig& c) {
  LDescConfig l;
  l.mode = parse_ldesc_mode(p.get_string("ldesc.mode"));
  l.unpin_period = p.get_uint("ldesc.unpin_period");
  l.stats = p.get_bool("ldesc.stats");
  l.one_stride = p.get_string("ldesc.stride_distance") == "one";
  if (l.mode == LDescMode::Off && !l.stats) return nullptr;
  if (ldesc_schedules(l.mode)) {
    // LDesc-Sched is Algorithm 1's CTA clustering: the CTA policy follows the mode unless the
    // user chose another one, which would silently not be the paper's configuration.
    const ParamInfo& pol = p.info("dispatcher.policy");
    if (pol.source == "default") {
      c.dispatcher.policy = "ldesc-cluster";
      c.dispatcher.policy_args = {{"shape", p.get_string("dispatcher.ldesc-cluster.shape")}};
    } else if (c.dispatcher.policy != "ldesc-cluster") {
      throw ConfigError("key 'ldesc.mode': " + std::string(to_string(l.mode)) +
                        " schedules CTAs with ldesc-cluster, but dispatcher.policy is '" +
                        c.dispatcher.policy + "' (from " + pol.source + ")");
    }
  }
  l.cta_policy = c.dispatcher.policy;
  return std::make_shared<LDescMechanismConfig>(l);
}

const char* prefetch_name(LDescPrefetch p) {
  switch (p) {
    case LDescPrefetch::None:
      return "none";
    case LDescPrefetch::NextLine:
      return "next-line";
    case LDescPrefetch::Stride:
      return "stride";
  }
  return "?";
}

}  // namespace

MechanismInfo ldesc_mechanism_info() {
  return {"ldesc", "seed 000 §4.2-4.5 (Locality Descriptor: clustering, bypass, pinning)",
          declare_ldesc_params, configure_ldesc};
}

void LDescMechanism::elaborate(PlatformBuild& b) {
  for (auto& l1 : b.parts.l1s) {
    l1s_.push_back(l1.get());
    l1->enable_working_set();
    if (ldesc_caches(cfg_.mode) || ldesc_prefetches(cfg_.mode))
      l1->enable_locality_descriptor(ldesc_caches(cfg_.mode) ? cfg_.unpin_period : 0);
  }
}

void LDescMechanism::kernel_begin(std::uint32_t, const Kernel& k) {
  std::vector<DsTreatment> t = select_techniques(k, cfg_.mode);
  for (DsTreatment& x : t) x.one_stride = cfg_.one_stride;
  grid_ = k.grid();
  stride_.clear();
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i].prefetch == LDescPrefetch::Stride) {
      LDim3 c = t[i].descriptor->tile.compute_tile;
      // A C-Tile dimension of 0 or wider than the grid spans the grid (as in Algorithm 1).
      if (!c.x || c.x > grid_.x) c.x = grid_.x;
      if (!c.y || c.y > grid_.y) c.y = grid_.y;
      if (!c.z || c.z > grid_.z) c.z = grid_.z;
      stride_.push_back({static_cast<std::uint16_t>(i), c});
    }
  resident_tiles_.assign(l1s_.size(),
                         std::vector<std::map<std::uint64_t, std::uint32_t>>(stride_.size()));
  for (L1DataCache* l1 : l1s_) {
    l1->set_ds_treatment(t);
    for (const StrideDs& s : stride_) l1->set_active_tiles(s.ds, 0);
  }
  nlohmann::json ds = nlohmann::json::array();
  for (std::size_t i = 0; i < t.size(); ++i) {
    const DsTreatment& x = t[i];
    ds.push_back({{"name", k.data()[i].name},
                  {"descriptor", x.descriptor ? describe(*x.descriptor) : "none"},
                  {"bypass", x.bypass},
                  {"pin", x.pin == kPinHard   ? "hard"
                          : x.pin == kPinSoft ? "soft"
                                              : "none"},
                  {"prefetch", prefetch_name(x.prefetch)}});
  }
  kernels_.push_back({{"kernel", k.name()}, {"data_structures", ds}});
}

void LDescMechanism::kernel_end(std::uint32_t, const Kernel&) {
  for (L1DataCache* l1 : l1s_) l1->flush_working_set();
}

void LDescMechanism::track(std::uint32_t sm, std::uint32_t cta, int delta) {
  if (stride_.empty() || sm >= l1s_.size()) return;
  const std::uint32_t x = cta % grid_.x, y = cta / grid_.x % grid_.y, z = cta / grid_.x / grid_.y;
  for (std::size_t i = 0; i < stride_.size(); ++i) {
    const LDim3& c = stride_[i].ctile;
    const std::uint64_t tile = (std::uint64_t{z / c.z} * ((grid_.y + c.y - 1) / c.y) + y / c.y) *
                                   ((grid_.x + c.x - 1) / c.x) +
                               x / c.x;
    std::map<std::uint64_t, std::uint32_t>& m = resident_tiles_[sm][i];
    if (delta > 0) {
      ++m[tile];
    } else {
      auto it = m.find(tile);
      if (it != m.end() && --it->second == 0) m.erase(it);
    }
    l1s_[sm]->set_active_tiles(stride_[i].ds, static_cast<std::uint32_t>(m.size()));
  }
}

void LDescMechanism::cta_launched(std::uint32_t sm, std::uint32_t cta) {
  track(sm, cta, +1);
}

void LDescMechanism::cta_finished(std::uint32_t sm, std::uint32_t cta) {
  track(sm, cta, -1);
}

void LDescMechanism::report(nlohmann::json& extra) const {
  extra["ldesc_treatment"] = {
      {"mode", to_string(cfg_.mode)}, {"cta_policy", cfg_.cta_policy}, {"kernels", kernels_}};
}

}  // namespace locsim
