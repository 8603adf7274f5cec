#include "model/stats_report.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "model/params.h"
#include "model/version.h"

namespace locsim {

namespace {

std::uint64_t get(const nlohmann::json& kinds, const char* kind, const char* name) {
  auto k = kinds.find(kind);
  if (k == kinds.end()) return 0;
  auto v = k->find(name);
  return v == k->end() ? 0 : v->get<std::uint64_t>();
}

double ratio(double a, double b) {
  return b > 0 ? a / b : 0.0;
}

// Seed 002 R8.6: reply bandwidth from home L1s and from L2 (+ memory), in 128 B line replies per
// core cycle of the interval, when the shared-L1 statistics exist.
void add_reply_rates(nlohmann::json& kinds, Cycle cycles) {
  auto s = kinds.find("shared_l1");
  if (s == kinds.end() || !s->contains("home_replies")) return;
  const double c = static_cast<double>(cycles);
  (*s)["l1_reply_rate"] = ratio(static_cast<double>(get(kinds, "shared_l1", "home_replies")), c);
  (*s)["l2_reply_rate"] = ratio(static_cast<double>(get(kinds, "shared_l1", "l2_fills") +
                                                    get(kinds, "shared_l1", "direct_l2_replies")),
                                c);
}

// The run-level values every report shows, from per-kind totals and a cycle count.
nlohmann::json headline(const nlohmann::json& kinds, Cycle cycles) {
  nlohmann::json j;
  j["cycles"] = cycles;
  j["warp_insts"] = get(kinds, "sm", "warp_insts");
  j["thread_insts"] = get(kinds, "sm", "thread_insts");
  j["ipc"] =
      ratio(static_cast<double>(get(kinds, "sm", "warp_insts")), static_cast<double>(cycles));
  return j;
}

// Derived ratios architects read first; their definitions are in docs/stats.md.
void add_derived(nlohmann::json& kinds) {
  for (const char* level : {"l1d", "l2"}) {
    auto k = kinds.find(level);
    if (k == kinds.end()) continue;
    const double hits = static_cast<double>(get(kinds, level, "hits"));
    const double misses = static_cast<double>(get(kinds, level, "misses"));
    const double mshr = static_cast<double>(get(kinds, level, "mshr_hits"));
    (*k)["miss_rate"] = ratio(misses, hits + misses + mshr);
  }
  // Seed 002 R8.1 / R8.2: replication ratio (Fig. 1) and replicas per cached line (Fig. 12).
  auto l1 = kinds.find("l1d");
  if (l1 != kinds.end() && l1->contains("replication_misses")) {
    (*l1)["replication_ratio"] =
        ratio(static_cast<double>(get(kinds, "l1d", "replicated_misses")),
              static_cast<double>(get(kinds, "l1d", "replication_misses")));
    (*l1)["replicas"] = ratio(static_cast<double>(get(kinds, "l1d", "replica_copies")),
                              static_cast<double>(get(kinds, "l1d", "replica_lines")));
  }
  // Seed 000 M10 (Figs. 18, 19): NUMA access efficiency and the access distribution.
  auto n = kinds.find("numa");
  if (n != kinds.end()) {
    const double all = static_cast<double>(get(kinds, "numa", "accesses"));
    (*n)["access_efficiency"] =
        ratio(static_cast<double>(get(kinds, "numa", "local_accesses")), all);
    for (int z = 0; z < 64; ++z) {
      const std::string k = "zone" + std::to_string(z) + "_accesses";
      if (!n->contains(k)) break;
      (*n)["zone" + std::to_string(z) + "_share"] =
          ratio(static_cast<double>((*n)[k].get<std::uint64_t>()), all);
    }
  }
  // Seed 001 equation (1): intra-cluster locality, and its two sources.
  auto c = kinds.find("cluster");
  if (c != kinds.end()) {
    const double reqs = static_cast<double>(get(kinds, "cluster", "read_requests"));
    const double line = static_cast<double>(get(kinds, "cluster", "redundant_line_sharing"));
    const double data = static_cast<double>(get(kinds, "cluster", "redundant_data_sharing"));
    (*c)["icl"] = ratio(line + data, reqs);
    (*c)["icl_line_sharing"] = ratio(line, reqs);
    (*c)["icl_data_sharing"] = ratio(data, reqs);
  }
}

}  // namespace

nlohmann::json stats_by_kind(const StatRegistry& reg, const StatSnapshot& from,
                             const StatSnapshot& to) {
  nlohmann::json kinds = nlohmann::json::object();
  for (const AggregateStat& a : reg.aggregate(from, to)) {
    nlohmann::json& k = kinds[a.kind];
    if (!a.is_distribution) {
      k[a.name] = a.value;
    } else {
      k[a.name + "_avg"] = a.mean();
      k[a.name + "_min"] = a.min;
      k[a.name + "_max"] = a.max;
      k[a.name + "_count"] = a.count;
    }
  }
  add_derived(kinds);
  return kinds;
}

nlohmann::json report_json(const StatRegistry& reg, const RunReport& r, bool per_instance) {
  const StatSnapshot none;
  nlohmann::json kinds = stats_by_kind(reg, none, r.end);
  add_reply_rates(kinds, r.cycles);
  nlohmann::json j = headline(kinds, r.cycles);
  j["platform"] = r.platform;
  j["workload"] = r.workload;
  for (auto it = kinds.begin(); it != kinds.end(); ++it) j[it.key()] = it.value();
  const double wi = static_cast<double>(get(kinds, "sm", "warp_insts"));
  const double tx = static_cast<double>(get(kinds, "l1d", "accesses"));
  j["host"] = {{"wall_s", r.wall_s},
               {"warp_insts_per_s", ratio(wi, r.wall_s)},
               {"mem_transactions_per_s", ratio(tx, r.wall_s)},
               {"sim_cycles_per_s", ratio(static_cast<double>(r.cycles), r.wall_s)},
               {"peak_rss_mb", r.peak_rss_mb},
               {"cta_policy_analysis_s", r.cta_policy_analysis_s},
               {"locsim_commit", locsim_commit()}};
  if (r.core_hz > 0)
    j["host"]["cta_policy_analysis_core_cycles"] = r.cta_policy_analysis_s * r.core_hz;
  nlohmann::json ks = nlohmann::json::array();
  for (const auto& k : r.kernels) {
    nlohmann::json kk = stats_by_kind(reg, k.begin, k.end);
    add_reply_rates(kk, k.cycles);
    nlohmann::json e = headline(kk, k.cycles);
    e["name"] = k.name;
    for (auto it = kk.begin(); it != kk.end(); ++it) e[it.key()] = it.value();
    ks.push_back(std::move(e));
  }
  j["kernels"] = std::move(ks);
  if (per_instance) {
    nlohmann::json inst = nlohmann::json::object();
    for (const auto& row : reg.per_instance(none, r.end)) {
      nlohmann::json& o = inst[row.first.path];
      if (!row.second.is_distribution) {
        o[row.first.name] = row.second.value;
      } else {
        o[row.first.name + "_avg"] = row.second.mean();
        o[row.first.name + "_max"] = row.second.max;
        o[row.first.name + "_count"] = row.second.count;
      }
    }
    j["instances"] = std::move(inst);
  }
  for (auto it = r.extra.begin(); it != r.extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

std::string report_table(const StatRegistry& reg, const RunReport& r) {
  const StatSnapshot none;
  std::ostringstream os;
  const nlohmann::json kinds = stats_by_kind(reg, none, r.end);
  const nlohmann::json h = headline(kinds, r.cycles);
  auto line = [&](const std::string& name, const std::string& value, const std::string& unit) {
    os << "  " << std::left << std::setw(34) << name << std::right << std::setw(18) << value << "  "
       << unit << "\n";
  };
  auto num = [](double v, int prec) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(prec) << v;
    return s.str();
  };
  os << "locsim: " << r.workload << " on " << r.platform << "\n";
  line("cycles", std::to_string(r.cycles), "core cycles");
  line("warp_insts", std::to_string(h["warp_insts"].get<std::uint64_t>()), "instructions");
  line("thread_insts", std::to_string(h["thread_insts"].get<std::uint64_t>()), "instructions");
  line("ipc", num(h["ipc"].get<double>(), 3), "warp instructions/cycle");
  // Every aggregated statistic, grouped by kind (kinds in first-registration order).
  const std::vector<AggregateStat> all = reg.aggregate(none, r.end);
  std::vector<std::string> order;
  for (const AggregateStat& a : all)
    if (std::find(order.begin(), order.end(), a.kind) == order.end()) order.push_back(a.kind);
  for (const std::string& kind : order) {
    os << kind << "\n";
    for (const AggregateStat& a : all) {
      if (a.kind != kind) continue;
      if (!a.is_distribution) {
        line(a.name, std::to_string(a.value), a.unit);
      } else {
        line(a.name + " avg", num(a.mean(), 1), a.unit);
        line(a.name + " max", std::to_string(a.max), a.unit);
      }
    }
    if (kind == "l1d" || kind == "l2")
      line("miss_rate", num(kinds[kind]["miss_rate"].get<double>(), 4), "misses/load access");
    if (kind == "l1d" && kinds[kind].contains("replication_ratio")) {
      line("replication_ratio", num(kinds[kind]["replication_ratio"].get<double>(), 4),
           "replicated misses/miss");
      line("replicas", num(kinds[kind]["replicas"].get<double>(), 3), "copies/cached line");
    }
    if (kind == "cluster")
      line("icl", num(kinds[kind]["icl"].get<double>(), 4), "redundant/read request");
  }
  os << "host\n";
  const double wi = static_cast<double>(h["warp_insts"].get<std::uint64_t>());
  line("wall_s", num(r.wall_s, 3), "s");
  line("warp_insts_per_s", num(ratio(wi, r.wall_s), 0), "instructions/s");
  line("mem_transactions_per_s",
       num(ratio(static_cast<double>(get(kinds, "l1d", "accesses")), r.wall_s), 0),
       "transactions/s");
  line("peak_rss_mb", num(r.peak_rss_mb, 1), "MB");
  if (r.cta_policy_analysis_s > 0) {
    line("cta_policy_analysis_s", num(r.cta_policy_analysis_s, 4), "s");
    if (r.core_hz > 0)
      line("cta_policy_analysis_core_cycles", num(r.cta_policy_analysis_s * r.core_hz, 0),
           "core cycles");
  }
  if (!r.kernels.empty()) {
    os << "kernels\n";
    for (std::size_t i = 0; i < r.kernels.size(); ++i) {
      const auto& k = r.kernels[i];
      const nlohmann::json kk = stats_by_kind(reg, k.begin, k.end);
      const nlohmann::json kh = headline(kk, k.cycles);
      os << "  " << i << " " << std::left << std::setw(24) << k.name << std::right << " cycles "
         << k.cycles << "  warp_insts " << kh["warp_insts"].get<std::uint64_t>() << "  ipc "
         << num(kh["ipc"].get<double>(), 3) << "  l1d_hits " << get(kk, "l1d", "hits")
         << "  l2_hits " << get(kk, "l2", "hits") << "  dram_reads " << get(kk, "dram", "reads")
         << "\n";
    }
  }
  return os.str();
}

std::string report_csv(const StatRegistry& reg, const RunReport& r) {
  std::ostringstream os;
  os << std::setprecision(10);
  os << "scope,kind,stat,unit,value\n";
  auto rows = [&](const std::string& scope, const StatSnapshot& from, const StatSnapshot& to,
                  Cycle cycles) {
    const nlohmann::json kinds = stats_by_kind(reg, from, to);
    const nlohmann::json h = headline(kinds, cycles);
    os << scope << ",run,cycles,core cycles," << cycles << "\n";
    os << scope << ",run,warp_insts,instructions," << h["warp_insts"].get<std::uint64_t>() << "\n";
    os << scope << ",run,thread_insts,instructions," << h["thread_insts"].get<std::uint64_t>()
       << "\n";
    os << scope << ",run,ipc,instructions/cycle," << h["ipc"].get<double>() << "\n";
    for (const AggregateStat& a : reg.aggregate(from, to)) {
      if (!a.is_distribution) {
        os << scope << "," << a.kind << "," << a.name << "," << a.unit << "," << a.value << "\n";
      } else {
        os << scope << "," << a.kind << "," << a.name << "_avg," << a.unit << "," << a.mean()
           << "\n";
        os << scope << "," << a.kind << "," << a.name << "_max," << a.unit << "," << a.max << "\n";
        os << scope << "," << a.kind << "," << a.name << "_count,samples," << a.count << "\n";
      }
    }
  };
  rows("run", StatSnapshot(), r.end, r.cycles);
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    std::string name = r.kernels[i].name;
    for (char& c : name)
      if (c == ',' || c == '"' || c == '\n') c = '_';
    rows("kernel" + std::to_string(i) + ":" + name, r.kernels[i].begin, r.kernels[i].end,
         r.kernels[i].cycles);
  }
  return os.str();
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (f) f << text;
  if (!f) throw ConfigError("cannot write '" + path + "': " + std::strerror(errno));
}

double peak_rss_mb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB -> MB
  return 0.0;
}

}  // namespace locsim
