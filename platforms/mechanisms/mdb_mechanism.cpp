#include "platforms/mechanisms/mdb_mechanism.h"

#include <algorithm>
#include <string>

#include "model/params.h"
#include "model/workload/kernel.h"
#include "platforms/platform_build.h"

namespace locsim {

namespace {

void declare_mdb_params(ParamRegistry& p) {
  using T = ParamType;
  // Seed 004 §6: bypassing parameter generator (with l1d.bypass=mdb-local|mdb-global).
  p.declare("mdb.calculators", T::UInt, "8", "calculators",
            "Adjusted-Hits calculators K (first 1..K warps/CTAs)");
  p.declare("mdb.sampled_sets", T::UInt, "0", "sets",
            "shadow-tag sets sampled, evenly spaced (0: one in eight, 4 of 32 on fermi)");
  p.declare("mdb.interval", T::UInt, "1000", "accesses", "L1 load accesses between decisions");
  p.declare("mdb.hit_counter_bits", T::UInt, "10", "bits",
            "width of each calculator's saturating hit counter (§6: 10 bits)");
  p.declare("mdb.rf_counter_bits", T::UInt, "12", "bits",
            "width of the SM's saturating reservation-failure counter RF_base (§6: 12 bits)");
  // §5.3 fitted E = 0.5 on whole-cache hits and failures, so the hits of the sampled sets are
  // extrapolated before the comparison (false: the raw sampled counts, 8x lighter).
  p.declare("mdb.scale_hits", T::Bool, "true", "",
            "scale sampled shadow-tag hits by sets/sampled sets before subtracting the "
            "whole-cache RF estimate (false: compare the raw sampled counts; see "
            "docs/validation/mdb.md)");
}

class MdbMechanismConfig final : public MechanismConfig {
 public:
  MdbMechanismConfig(const BypassPredictorConfig& c, bool g) : cfg(c), global(g) {}
  std::unique_ptr<Mechanism> instantiate() const override {
    return std::make_unique<MdbMechanism>(cfg, global);
  }
  BypassPredictorConfig cfg;
  bool global;
};

std::shared_ptr<const MechanismConfig> configure_mdb(const ParamRegistry& p, GpuConfig& c) {
  // The parameters are validated even when MDB is off, so a bad value never waits for the day
  // it is used.
  BypassPredictorConfig m;
  m.shadow.geometry = c.l1.geometry;
  m.shadow.max_k = p.get_u32("mdb.calculators", 1, 64);
  m.shadow.sampled_sets = p.get_u32("mdb.sampled_sets");
  if (m.shadow.sampled_sets > c.l1.geometry.sets)
    throw ConfigError("key 'mdb.sampled_sets': " + std::to_string(m.shadow.sampled_sets) +
                      " exceeds the L1's " + std::to_string(c.l1.geometry.sets) + " sets");
  m.decision_interval = p.get_u32("mdb.interval", 1);
  m.shadow.hit_counter_bits = p.get_u32("mdb.hit_counter_bits", 1, 64);
  m.rf_counter_bits = p.get_u32("mdb.rf_counter_bits", 1, 64);
  if (p.get_bool("mdb.scale_hits")) {
    const std::uint32_t sampled = m.shadow.sampled_sets
                                      ? m.shadow.sampled_sets
                                      : std::max<std::uint32_t>(1, c.l1.geometry.sets / 8);
    m.hit_scale = static_cast<double>(c.l1.geometry.sets) / sampled;
  }
  const std::string b = p.get_string("l1d.bypass");
  if (b != "mdb-local" && b != "mdb-global") return nullptr;
  return std::make_shared<MdbMechanismConfig>(m, b == "mdb-global");
}

}  // namespace

MechanismInfo mdb_mechanism_info() {
  return {"mdb", "seed 004 §5-6 (model-driven L1 bypassing)", declare_mdb_params, configure_mdb};
}

void MdbMechanism::elaborate(PlatformBuild& b) {
  for (auto& l1 : b.parts.l1s) l1s_.push_back(l1.get());
  const std::size_t n = global_ ? 1 : l1s_.size();
  for (std::size_t i = 0; i < n; ++i) bpgs_.push_back(std::make_unique<BypassPredictor>(cfg_));
  run_decisions_.assign(n, 0);
  const unsigned K = bpgs_.front()->max_k();
  for (unsigned k = 1; k <= K; ++k)
    choices_.push_back(&b.ctx.stats.counter(
        b.top_name + ".mdb", "mdb", "chose_k" + std::to_string(k), "decisions",
        "bypassing-parameter decisions letting the first " + std::to_string(k) +
            " warps/CTAs use the L1" + (k == K ? " (no bypassing)" : "")));
  for (std::size_t s = 0; s < l1s_.size(); ++s) {
    // MDB-local: each SM's L1 feeds its own generator; MDB-global: the sampling SM's L1 feeds the
    // one generator (§6, G-BPG), the others' accesses are ignored.
    const std::size_t g = global_ ? 0 : s;
    const auto sm = static_cast<std::uint32_t>(s);
    L1DataCache& l1 = *l1s_[s];
    l1.on_load_access = [this, g, sm](Addr line, const GpuExtension& e) {
      on_access(g, sm, line, e.bypass_rank, e.bypass_population);
    };
    l1.on_reservation_fail = [this, g, sm](std::uint64_t cycles) {
      if (!global_ || sm == selector_.sampler()) bpgs_[g]->on_reservation_failure(cycles);
    };
  }
}

void MdbMechanism::on_access(std::size_t g, std::uint32_t sm, Addr line, unsigned rank,
                             unsigned population) {
  if (global_ && sm != selector_.sampler()) return;
  BypassPredictor& bp = *bpgs_[g];
  bp.set_active(population);
  if (!bp.on_access(line, rank)) return;
  ++run_decisions_[g];
  if (!kernels_.empty()) ++kernels_.back().decisions;
  if (sm == selector_.sampler() && !bp.history().empty()) {
    history_.push_back({kernels_.empty() ? 0 : kernels_.back().seq, sm, bp.history().back()});
    while (history_.size() > 4096) history_.pop_front();
  }
  apply_decision(g);
}

void MdbMechanism::kernel_begin(std::uint32_t seq, const Kernel& k) {
  // A new kernel: new warps/TBs (ranks), an invalidated L1; the previous kernel's shadow tags,
  // counters and decision describe a different program phase. Everybody starts on the L1 path.
  for (auto& bp : bpgs_) bp->reset();
  for (L1DataCache* l1 : l1s_) l1->set_bypass_limit(~std::uint32_t{0});
  selector_.begin_kernel(static_cast<std::uint32_t>(l1s_.size()), k.num_ctas());
  kernels_.push_back({seq, k.name(), {}, 0});
}

void MdbMechanism::cta_launched(std::uint32_t sm, std::uint32_t) {
  if (selector_.cta_launched(sm) && !kernels_.empty()) kernels_.back().sampling_sms.push_back(sm);
}

void MdbMechanism::cta_finished(std::uint32_t sm, std::uint32_t) {
  if (!selector_.cta_finished(sm)) return;
  if (!kernels_.empty()) kernels_.back().sampling_sms.push_back(selector_.sampler());
  // G-BPG moves to another L1: its shadow tags hold the idle SM's lines; the parameter in force
  // stays broadcast until the new sampling SM's first decision.
  if (global_) bpgs_.front()->clear_counters();
}

void MdbMechanism::apply_decision(std::size_t g) {
  const BypassPredictor& bp = *bpgs_[g];
  const unsigned k = bp.decision();
  ++*choices_[k - 1];
  // k == K: every unit uses the L1 (§6); otherwise ranks >= k take the bypass path.
  const std::uint32_t limit = k >= bp.max_k() ? ~std::uint32_t{0} : k;
  if (!global_) {
    l1s_[g]->set_bypass_limit(limit);
  } else {
    // G-BPG: the CTA dispatcher broadcasts the sampling SM's parameter to every SM (off the
    // critical path).
    for (L1DataCache* l1 : l1s_) l1->set_bypass_limit(limit);
  }
}

void MdbMechanism::report(nlohmann::json& extra) const {
  // The sampling SM's bypassing-parameter decisions (most recent 4096), for plots.
  nlohmann::json h = nlohmann::json::array();
  for (const HistoryEntry& e : history_)
    h.push_back({{"kernel", e.kernel},
                 {"sm", e.sm},
                 {"at_access", e.d.at_access},
                 {"k", e.d.k},
                 {"active", e.d.active},
                 {"rf_base", e.d.rf_base},
                 {"hits", e.d.hits},
                 {"adjusted_hits", e.d.adjusted}});
  extra["mdb_history"] = std::move(h);
  nlohmann::json ks = nlohmann::json::array();
  for (const KernelRecord& r : kernels_)
    ks.push_back({{"kernel", r.seq},
                  {"name", r.name},
                  {"sampling_sms", r.sampling_sms},
                  {"decisions", r.decisions}});
  extra["mdb_kernels"] = std::move(ks);
}

}  // namespace locsim
