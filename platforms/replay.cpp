#include "platforms/replay.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <sstream>

#include "model/stats_report.h"

namespace locsim {

FunctionalConfig functional_config(const GpuConfig& c) {
  FunctionalConfig f;
  f.num_sms = c.num_sms;
  f.sms_per_cluster = c.sms_per_cluster;
  f.resources = c.dispatcher.resources;
  f.coalesce_sector_bytes = c.sm.sector_bytes;
  f.l1_enabled = c.l1.enabled;
  f.l1_store_hit_update = c.l1.store_hit_update;
  f.cta_policy = c.dispatcher.policy;
  f.cta_policy_args = c.dispatcher.policy_args;
  f.l1 = c.l1.geometry;
  f.l2 = c.l2.geometry;
  f.l2_bank_local_index = c.l2.bank_local_index;
  return f;
}

ReplayResult run_replay(FunctionalHierarchy& h, const Workload& w, const std::string& platform) {
  ReplayResult r;
  r.platform = platform;
  r.workload = w.name();
  const auto t0 = std::chrono::steady_clock::now();
  r.kernels = h.run(w);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.end = h.stats().snapshot();
  r.warp_insts = h.total("sm", "warp_insts");
  r.peak_rss_mb = peak_rss_mb();
  r.cta_policy_analysis_s = h.cta_policy().analysis_seconds();
  return r;
}

namespace {

RunReport as_run_report(const ReplayResult& r) {
  RunReport rr;
  rr.platform = r.platform;
  rr.workload = r.workload;
  rr.end = r.end;
  rr.wall_s = r.wall_s;
  rr.peak_rss_mb = r.peak_rss_mb;
  rr.cta_policy_analysis_s = r.cta_policy_analysis_s;
  for (const auto& k : r.kernels) {
    RunReport::KernelInterval ki;
    ki.name = k.name;
    ki.begin = k.begin;
    ki.end = k.end;
    rr.kernels.push_back(std::move(ki));
  }
  return rr;
}

std::string num(double v, int prec) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(prec) << v;
  return s.str();
}

}  // namespace

nlohmann::json replay_json(const FunctionalHierarchy& h, const ReplayResult& r) {
  nlohmann::json j = report_json(h.stats(), as_run_report(r), false);
  j.erase("cycles");
  j.erase("ipc");
  j["host"].erase("sim_cycles_per_s");
  for (auto& k : j["kernels"]) {
    k.erase("cycles");
    k.erase("ipc");
  }
  for (std::size_t i = 0; i < r.kernels.size() && i < j["kernels"].size(); ++i) {
    j["kernels"][i]["ctas"] = r.kernels[i].ctas;
    j["kernels"][i]["max_ctas_per_sm"] = r.kernels[i].max_ctas_per_sm;
    j["kernels"][i]["occupancy_limiter"] = r.kernels[i].occupancy_limiter;
  }
  j["mode"] = "replay";
  return j;
}

std::string replay_table(const FunctionalHierarchy& h, const ReplayResult& r) {
  const StatRegistry& reg = h.stats();
  const StatSnapshot none;
  std::ostringstream os;
  auto line = [&](const std::string& name, const std::string& value, const std::string& unit) {
    os << "  " << std::left << std::setw(34) << name << std::right << std::setw(18) << value << "  "
       << unit << "\n";
  };
  os << "locsim replay (functional, no timing): " << r.workload << " on " << r.platform << "\n";
  const std::vector<AggregateStat> all = reg.aggregate(none, r.end);
  std::vector<std::string> order;
  for (const AggregateStat& a : all)
    if (std::find(order.begin(), order.end(), a.kind) == order.end()) order.push_back(a.kind);
  for (const std::string& kind : order) {
    os << kind << "\n";
    std::uint64_t hits = 0, misses = 0;
    for (const AggregateStat& a : all) {
      if (a.kind != kind) continue;
      line(a.name, std::to_string(a.value), a.unit);
      if (a.name == "hits") hits = a.value;
      if (a.name == "misses") misses = a.value;
    }
    if (kind == "l1d" || kind == "l2")
      line("miss_rate", num(hits + misses ? double(misses) / double(hits + misses) : 0.0, 4),
           "misses/(hits+misses)");
  }
  os << "host\n";
  line("wall_s", num(r.wall_s, 3), "s");
  line("warp_insts_per_s", num(r.warp_insts_per_s(), 0), "instructions/s");
  line("peak_rss_mb", num(r.peak_rss_mb, 1), "MB");
  if (!r.kernels.empty()) {
    os << "kernels\n";
    for (std::size_t i = 0; i < r.kernels.size(); ++i) {
      const auto& k = r.kernels[i];
      const nlohmann::json kk = stats_by_kind(reg, k.begin, k.end);
      auto get = [&](const char* kind, const char* name) -> std::uint64_t {
        auto it = kk.find(kind);
        if (it == kk.end() || !it->contains(name)) return 0;
        return (*it)[name].get<std::uint64_t>();
      };
      os << "  " << i << " " << std::left << std::setw(24) << k.name << std::right << " ctas "
         << k.ctas << "  warp_insts " << get("sm", "warp_insts") << "  l1d_hits "
         << get("l1d", "hits") << "  l2_hits " << get("l2", "hits") << "  dram_reads "
         << get("dram", "reads") << "\n";
    }
  }
  return os.str();
}

}  // namespace locsim
