#include "platforms/mechanisms/icc_mechanism.h"

#include <string>

#include "model/params.h"
#include "platforms/platform_build.h"

namespace locsim {

namespace {

void declare_icc_params(ParamRegistry& p) {
  using T = ParamType;
  const IccConfig d;
  p.declare("icc.enabled", T::Bool, "false", "",
            "insert an ICC unit between each cluster's L1s and its NoC port");
  p.declare("icc.merge_table", T::Bool, d.merge_table ? "true" : "false", "",
            "ICC merge table on (needs icc.enabled)");
  p.declare("icc.merge_entries", T::UInt, std::to_string(d.merge_entries), "entries",
            "merge-table entries per cluster (fully associative)");
  p.declare("icc.model", T::Enum, to_string(d.model), "",
            "merge table model: tlm (C++), rtl (Verilated SystemVerilog behind a transactor), "
            "lockstep (both, compared on every operation)",
            {"tlm", "rtl", "lockstep"});
  p.declare("icc.coalesced_cache", T::Bool, d.coalesced_cache ? "true" : "false", "",
            "coalesced cache on (needs icc.enabled)");
  p.declare("icc.cc_entries", T::UInt, std::to_string(d.cc_entries), "lines",
            "coalesced-cache lines per cluster (fully associative, LRU)");
  p.declare("icc.latency", T::UInt, std::to_string(d.latency), "cycles",
            "ICC lookup latency (core cycles)");
  p.declare("icc.queue", T::UInt, std::to_string(d.queue), "requests",
            "ICC requests buffered towards the NoC port");
  p.declare("icc.broadcast_queue", T::UInt, std::to_string(d.broadcast_queue), "packets",
            "ICC packets buffered towards each L1 (a reply or its broadcast copy, a "
            "coalesced-cache hit); a reply waits at the NoC port until every L1 on its SM list "
            "has room (8: GPGPU-Sim's cluster ejection buffer)");
}

class IccMechanismConfig final : public MechanismConfig {
 public:
  explicit IccMechanismConfig(const IccConfig& c) : cfg(c) {}
  std::unique_ptr<Mechanism> instantiate() const override {
    return std::make_unique<IccMechanism>(cfg);
  }
  IccConfig cfg;
};

std::shared_ptr<const MechanismConfig> configure_icc(const ParamRegistry& p, GpuConfig& c) {
  if (!p.get_bool("icc.enabled")) return nullptr;
  IccConfig ic;
  ic.merge_table = p.get_bool("icc.merge_table");
  ic.merge_entries = p.get_u32("icc.merge_entries", 1, 4096);
  ic.model = parse_merge_table_model(p.get_string("icc.model"));
  if (ic.model != MergeTableModel::Tlm && ic.merge_table) {
    // Checked here so a bad combination is a configuration error (exit 2), not a failed run.
    check_rtl_merge_table(ic.merge_entries, c.sms_per_cluster, c.l1.geometry.line_bytes);
  }
  ic.coalesced_cache = p.get_bool("icc.coalesced_cache");
  ic.cc_entries = p.get_u32("icc.cc_entries", 1, 4096);
  ic.latency = p.get_u32("icc.latency");
  ic.queue = p.get_u32("icc.queue", 1);
  ic.broadcast_queue = p.get_u32("icc.broadcast_queue", 1);
  ic.line_bytes = c.l1.geometry.line_bytes;
  ic.locality_window = c.noc.locality_window;
  ic.sms = c.sms_per_cluster;
  ic.clock_hz = c.sm.clock_hz;
  return std::make_shared<IccMechanismConfig>(ic);
}

}  // namespace

MechanismInfo icc_mechanism_info() {
  return {"icc", "seed 001 §6 (intra-cluster coalescing, coalesced cache)", declare_icc_params,
          configure_icc};
}

void IccMechanism::create_units(PlatformBuild& b) {
  const std::uint32_t clusters = b.cfg.num_sms / b.cfg.sms_per_cluster;
  for (std::uint32_t c = 0; c < clusters; ++c) {
    IccConfig ic = cfg_;
    ic.cluster = c;
    ic.first_sm = c * b.cfg.sms_per_cluster;
    const std::string n = "icc" + std::to_string(c);
    units_.push_back(std::make_unique<IntraClusterCoalescer>(n.c_str(), ic, b.ctx));
  }
}

void IccMechanism::wire_l1(PlatformBuild& b, std::uint32_t sm) {
  b.link(b.parts.l1s[sm]->mem, units_[sm / b.cfg.sms_per_cluster]->cpu,
         "l1d" + std::to_string(sm) + "_icc");
}

void IccMechanism::wire_units(PlatformBuild& b) {
  for (std::uint32_t c = 0; c < units_.size(); ++c)
    b.link(units_[c]->noc, b.parts.noc->in, "icc" + std::to_string(c) + "_noc");
}

void IccMechanism::kernel_begin(std::uint32_t, const Kernel&) {
  // The coalesced cache is not coherent, like the L1s (§6.3).
  for (auto& u : units_) u->invalidate_all();
}

}  // namespace locsim
