#include "model/cta_policy.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "model/ldesc_clustering.h"
#include "model/numa_zone_policy.h"
#include "model/params.h"
#include "model/paver_policy.h"

namespace locsim {

void RoundRobinPolicy::begin_kernel(const KernelLaunch& launch) {
  if (!carry_over_) next_sm_ = 0;
  num_ctas_ = launch.num_ctas();
  next_cta_ = 0;
}

void RoundRobinPolicy::select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) {
  if (sms.empty()) return;
  std::vector<std::uint32_t> free(sms.size());
  for (std::size_t i = 0; i < sms.size(); ++i) free[i] = sms[i].free_slots;
  const std::uint32_t n = static_cast<std::uint32_t>(sms.size());
  // Visit SMs round-robin from where the last launch left off, one CTA per visit.
  bool progress = true;
  while (next_cta_ < num_ctas_ && progress) {
    progress = false;
    for (std::uint32_t k = 0; k < n && next_cta_ < num_ctas_; ++k) {
      const std::uint32_t s = (next_sm_ + k) % n;
      if (!free[s]) continue;
      --free[s];
      out.push_back(CtaAssignment{sms[s].sm, next_cta_++});
      next_sm_ = (s + 1) % n;
      progress = true;
      break;
    }
  }
}

namespace {

std::uint32_t per_cluster(const GpuTopology& t) {
  return t.sms_per_cluster ? t.sms_per_cluster : 1;
}

// Clusters of the topology; a trailing partial cluster counts as one.
std::uint32_t cluster_count(const GpuTopology& t) {
  const std::uint32_t spc = per_cluster(t);
  return (t.num_sms + spc - 1) / spc;
}

std::uint32_t block_size(std::uint32_t max_per_sm) {
  return max_per_sm >= 2 ? 2 : 1;
}

std::vector<std::uint32_t> free_slots(const std::vector<SmView>& sms) {
  std::vector<std::uint32_t> f(sms.size());
  for (std::size_t i = 0; i < sms.size(); ++i) f[i] = sms[i].free_slots;
  return f;
}

// Visits the view indices `order` round-robin starting at position `pos` and launches one CTA of
// [next, end) per visit on an SM with a free context, until the CTAs or the free contexts run out.
// `pos` ends after the SM that received the last CTA.
void fill_round_robin(const std::vector<SmView>& sms, const std::vector<std::uint32_t>& order,
                      std::vector<std::uint32_t>& free, std::uint32_t& pos, std::uint32_t& next,
                      std::uint32_t end, std::vector<CtaAssignment>& out) {
  const std::uint32_t n = static_cast<std::uint32_t>(order.size());
  if (!n) return;
  pos %= n;
  bool progress = true;
  while (next < end && progress) {
    progress = false;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t p = (pos + k) % n;
      const std::uint32_t s = order[p];
      if (!free[s]) continue;
      --free[s];
      out.push_back(CtaAssignment{sms[s].sm, next++});
      pos = (p + 1) % n;
      progress = true;
      break;
    }
  }
}

// Block variant: each visit launches up to `block` consecutive CTAs of [next, end) on one SM, and
// only on an SM with `block` free contexts. A lone remaining CTA needs only one free context when
// single_ok() says so (evaluated at the time of the visit).
template <class SingleOk>
void fill_blocks(const std::vector<SmView>& sms, const std::vector<std::uint32_t>& order,
                 std::vector<std::uint32_t>& free, std::uint32_t& pos, std::uint32_t& next,
                 std::uint32_t end, std::uint32_t block, SingleOk single_ok,
                 std::vector<CtaAssignment>& out) {
  const std::uint32_t n = static_cast<std::uint32_t>(order.size());
  if (!n) return;
  pos %= n;
  bool progress = true;
  while (next < end && progress) {
    progress = false;
    const std::uint32_t left = end - next;
    const std::uint32_t take = std::min(block, left);
    const std::uint32_t need = (left == 1 && single_ok()) ? 1 : block;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t p = (pos + k) % n;
      const std::uint32_t s = order[p];
      if (free[s] < need) continue;
      free[s] -= take;
      for (std::uint32_t i = 0; i < take; ++i) out.push_back(CtaAssignment{sms[s].sm, next++});
      pos = (p + 1) % n;
      progress = true;
      break;
    }
  }
}

}  // namespace

// --- two-level-rr / global-rr (Sec. 2.3, Sec. 4.1) ---

void OrderedRoundRobinPolicy::begin_kernel(const KernelLaunch& launch) {
  topo_ = launch.topology;
  num_ctas_ = launch.num_ctas();
  next_cta_ = 0;
  next_pos_ = 0;
}

void OrderedRoundRobinPolicy::select(const std::vector<SmView>& sms,
                                     std::vector<CtaAssignment>& out) {
  if (sms.empty() || next_cta_ >= num_ctas_) return;
  std::vector<std::uint32_t> order(sms.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::uint32_t spc = per_cluster(topo_);
  auto key = [&](std::uint32_t i) {
    const std::uint32_t sm = sms[i].sm;
    // two-level: (index within cluster, cluster); global: SM id.
    return two_level_ ? std::make_pair(sm % spc, sm / spc) : std::make_pair(0u, sm);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  std::vector<std::uint32_t> free = free_slots(sms);
  fill_round_robin(sms, order, free, next_pos_, next_cta_, num_ctas_, out);
}

// --- greedy-clustering (Sec. 4.1) ---

void GreedyClusteringPolicy::begin_kernel(const KernelLaunch& launch) {
  topo_ = launch.topology;
  num_ctas_ = launch.num_ctas();
  next_cta_ = 0;
  rr_.assign(cluster_count(topo_), 0);
}

void GreedyClusteringPolicy::select(const std::vector<SmView>& sms,
                                    std::vector<CtaAssignment>& out) {
  if (sms.empty() || next_cta_ >= num_ctas_) return;
  const std::uint32_t spc = per_cluster(topo_);
  std::vector<std::vector<std::uint32_t>> members(rr_.size());
  for (std::uint32_t i = 0; i < sms.size(); ++i) {
    const std::uint32_t c = sms[i].sm / spc;
    if (c >= members.size()) {
      members.resize(c + 1);
      rr_.resize(c + 1, 0);
    }
    members[c].push_back(i);
  }
  std::vector<std::uint32_t> free = free_slots(sms);
  for (std::uint32_t c = 0; c < members.size() && next_cta_ < num_ctas_; ++c)
    fill_round_robin(sms, members[c], free, rr_[c], next_cta_, num_ctas_, out);
}

// --- cluster pools (distributed, distributed-block; Sec. 4.1, Sec. 5) ---

void ClusterPoolPolicy::begin_kernel(const KernelLaunch& launch) {
  topo_ = launch.topology;
  max_per_sm_ = launch.max_ctas_per_sm;
  const std::uint64_t num_ctas = launch.num_ctas();
  const std::uint64_t c_n = std::max<std::uint32_t>(1, cluster_count(topo_));
  pools_.assign(c_n, Pool{});
  for (std::uint64_t c = 0; c < c_n; ++c) {
    pools_[c].next = static_cast<std::uint32_t>(c * num_ctas / c_n);
    pools_[c].end = static_cast<std::uint32_t>((c + 1) * num_ctas / c_n);
  }
}

std::uint32_t ClusterPoolPolicy::remaining() const {
  std::uint32_t r = 0;
  for (const Pool& p : pools_) r += p.end - p.next;
  return r;
}

std::vector<std::vector<std::uint32_t>> ClusterPoolPolicy::members(
    const std::vector<SmView>& sms) const {
  // SMs whose cluster has no pool (view inconsistent with the topology) get nothing.
  std::vector<std::vector<std::uint32_t>> m(pools_.size());
  const std::uint32_t spc = per_cluster(topo_);
  for (std::uint32_t i = 0; i < sms.size(); ++i) {
    const std::uint32_t c = sms[i].sm / spc;
    if (c < m.size()) m[c].push_back(i);
  }
  return m;
}

void DistributedPolicy::select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) {
  if (sms.empty()) return;
  const auto m = members(sms);
  std::vector<std::uint32_t> free = free_slots(sms);
  for (std::size_t c = 0; c < pools_.size(); ++c) {
    Pool& p = pools_[c];
    fill_round_robin(sms, m[c], free, p.rr, p.next, p.end, out);
  }
}

void DistributedBlockPolicy::select(const std::vector<SmView>& sms,
                                    std::vector<CtaAssignment>& out) {
  if (sms.empty()) return;
  const auto m = members(sms);
  std::vector<std::uint32_t> free = free_slots(sms);
  const std::uint32_t block = block_size(max_per_sm_);
  for (std::size_t c = 0; c < pools_.size(); ++c) {
    Pool& p = pools_[c];
    auto single_ok = [&] { return single_when_pool_has_one_ || remaining() == 1; };
    fill_blocks(sms, m[c], free, p.rr, p.next, p.end, block, single_ok, out);
  }
}

// --- bcs (block CTA scheduling [7], Sec. 5) ---

void BlockCtaSchedulingPolicy::begin_kernel(const KernelLaunch& launch) {
  num_ctas_ = launch.num_ctas();
  next_cta_ = 0;
  max_per_sm_ = launch.max_ctas_per_sm;
  next_pos_ = 0;
}

void BlockCtaSchedulingPolicy::select(const std::vector<SmView>& sms,
                                      std::vector<CtaAssignment>& out) {
  if (sms.empty() || next_cta_ >= num_ctas_) return;
  std::vector<std::uint32_t> order(sms.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return sms[a].sm < sms[b].sm; });
  std::vector<std::uint32_t> free = free_slots(sms);
  fill_blocks(
      sms, order, free, next_pos_, next_cta_, num_ctas_, block_size(max_per_sm_),
      [] { return true; }, out);
}

// --- the policy table ---

namespace {

template <class Policy>
CtaPolicyInfo entry(std::string name, std::vector<std::string> aliases, std::string description) {
  return {std::move(name),
          std::move(aliases),
          std::move(description),
          {},
          [](const CtaPolicyArgs&) -> std::unique_ptr<CtaSchedulingPolicy> {
            return std::make_unique<Policy>();
          }};
}

bool parse_bool(const std::string& policy, const std::string& param, const std::string& v) {
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  throw std::invalid_argument("CTA policy '" + policy + "': parameter '" + param +
                              "': bad value '" + v + "' (must be true or false)");
}

std::uint32_t parse_u32(const std::string& policy, const std::string& param, const std::string& v,
                        std::uint32_t lo, std::uint32_t hi) {
  const std::optional<std::uint32_t> x = parse_decimal_u32(v);
  if (!x || *x < lo || *x > hi)
    throw std::invalid_argument("CTA policy '" + policy + "': parameter '" + param +
                                "': bad value '" + v + "' (must be an integer in [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "])");
  return *x;
}

// PAVER (seed 003 §4): one entry per algorithm with the parameters it uses.
CtaPolicyInfo paver_entry(const std::string& name, PaverAlgorithm alg, std::string description) {
  CtaPolicyInfo e;
  e.name = name;
  e.description = std::move(description);
  e.params = {
      {"graph_bytes", "4", "data-element size of the locality graph, bytes (power of two)"},
      {"max_sharers", "0", "leave out elements read by more CTAs than this (0 = keep all)"}};
  if (alg != PaverAlgorithm::Mst) {
    e.params.push_back({"steal", "true", "task stealing when the group queue is empty (Alg. 2)"});
    e.params.push_back({"seed", "0", "METIS random seed"});
  }
  if (alg == PaverAlgorithm::Rb)
    e.params.push_back({"leq", "false",
                        "a part of exactly max-CTAs-per-SM is a leaf (Alg. 1 "
                        "splits it: strict <)"});
  e.make = [name, alg](const CtaPolicyArgs& a) -> std::unique_ptr<CtaSchedulingPolicy> {
    PaverOptions o;
    o.algorithm = alg;
    o.graph_bytes = parse_u32(name, "graph_bytes", a.at("graph_bytes"), 1, 4096);
    if (o.graph_bytes & (o.graph_bytes - 1))
      throw std::invalid_argument("CTA policy '" + name +
                                  "': parameter 'graph_bytes': bad value '" + a.at("graph_bytes") +
                                  "' (must be a power of two)");
    o.max_sharers = parse_u32(name, "max_sharers", a.at("max_sharers"), 0, 0xffffffffu);
    if (alg != PaverAlgorithm::Mst) {
      o.steal = parse_bool(name, "steal", a.at("steal"));
      o.seed = static_cast<int>(parse_u32(name, "seed", a.at("seed"), 0, 0x7fffffff));
    }
    if (alg == PaverAlgorithm::Rb) o.rb_leq = parse_bool(name, "leq", a.at("leq"));
    return std::make_unique<PaverPolicy>(o);
  };
  return e;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

const std::vector<CtaPolicyInfo>& cta_policy_registry() {
  static const std::vector<CtaPolicyInfo> table = [] {
    std::vector<CtaPolicyInfo> t;
    CtaPolicyInfo rr;
    rr.name = "rr";
    rr.description = "round-robin over SMs, from SM 0 at every kernel";
    rr.params = {{"carry_over", "false",
                  "true: the pointer continues from the previous kernel (GPGPU-Sim's "
                  "behaviour) instead of restarting at SM 0"}};
    rr.make = [](const CtaPolicyArgs& a) -> std::unique_ptr<CtaSchedulingPolicy> {
      return std::make_unique<RoundRobinPolicy>(parse_bool("rr", "carry_over", a.at("carry_over")));
    };
    t.push_back(std::move(rr));
    t.push_back(entry<TwoLevelRoundRobinPolicy>(
        "two-level-rr", {}, "round-robin across clusters, then within them (seed 001 §2.3)"));
    t.push_back(entry<GlobalRoundRobinPolicy>(
        "global-rr", {}, "round-robin over SMs in global order from SM 0 (seed 001 §4.1)"));
    t.push_back(entry<GreedyClusteringPolicy>(
        "greedy", {"greedy-clustering"},
        "fill the first cluster with a free context first (seed 001 §4.1)"));
    t.push_back(entry<DistributedPolicy>(
        "distributed", {}, "contiguous per-cluster CTA pools, as in MCM-GPU (seed 001 §4.1)"));
    CtaPolicyInfo db;
    db.name = "distributed-block";
    db.description = "per-cluster pools, pairs of CTAs per SM with delayed issue (seed 001 §5)";
    db.params = {{"single_when_pool_has_one", "false",
                  "issue a pool's last CTA alone to one free context (contradicts Fig. 6)"}};
    db.make = [](const CtaPolicyArgs& a) -> std::unique_ptr<CtaSchedulingPolicy> {
      return std::make_unique<DistributedBlockPolicy>(parse_bool(
          "distributed-block", "single_when_pool_has_one", a.at("single_when_pool_has_one")));
    };
    t.push_back(std::move(db));
    t.push_back(entry<BlockCtaSchedulingPolicy>(
        "bcs", {}, "pairs of consecutive CTAs per SM, global round-robin (seed 001 §5)"));
    CtaPolicyInfo lc;
    lc.name = "ldesc-cluster";
    lc.description =
        "Locality Descriptor CTA clusters (Alg. 1), one cluster per SM (seed 000 §4.3)";
    lc.params = {{"shape", "auto",
                  "cluster shape: auto (Alg. 1 from the INTER-THREAD descriptors) or XxY[xZ] "
                  "CTAs (the §2.1 cluster-shape sweep)"}};
    lc.make = [](const CtaPolicyArgs& a) -> std::unique_ptr<CtaSchedulingPolicy> {
      return std::make_unique<LDescClusterPolicy>(a.at("shape"));
    };
    t.push_back(std::move(lc));
    CtaPolicyInfo nz;
    nz.name = "numa-zone";
    nz.description =
        "CTAs partitioned over the GPU modules (NUMA zones), round-robin inside each zone "
        "(seed 000 §4.6: FirstTouch-Distrib's contiguous split or Algorithm 2)";
    nz.params = {{"partition", "contiguous",
                  "contiguous (Z equal ranges of linear CTA id, B4) or ldesc (Algorithm 2)"},
                 {"inside", "ldesc-cluster",
                  "with partition=ldesc, how each zone runs its CTAs: ldesc-cluster (Algorithm 1, "
                  "R8.4) or rr (round-robin, a control)"}};
    nz.make = [](const CtaPolicyArgs& a) -> std::unique_ptr<CtaSchedulingPolicy> {
      const std::string& v = a.at("partition");
      if (v != "contiguous" && v != "ldesc")
        throw std::invalid_argument("parameter 'partition': '" + v +
                                    "' (expected contiguous or ldesc)");
      const std::string& in = a.at("inside");
      if (in != "ldesc-cluster" && in != "rr")
        throw std::invalid_argument("parameter 'inside': '" + in +
                                    "' (expected ldesc-cluster or rr)");
      return std::make_unique<NumaZonePolicy>(
          v == "ldesc" ? NumaZonePolicy::Partition::LDesc : NumaZonePolicy::Partition::Contiguous,
          in == "ldesc-cluster");
    };
    t.push_back(std::move(nz));
    t.push_back(paver_entry("paver-mst", PaverAlgorithm::Mst,
                            "locality graph, Prim's maximum spanning tree order (seed 003 §4.1)"));
    t.push_back(paver_entry("paver-kway", PaverAlgorithm::Kway,
                            "locality graph cut by METIS k-way, one part per SM, task stealing "
                            "(seed 003 §4.2)"));
    t.push_back(paver_entry("paver-rb", PaverAlgorithm::Rb,
                            "locality graph cut by METIS recursive bisection (Alg. 1), task "
                            "stealing (seed 003 §4.3)"));
    return t;
  }();
  return table;
}

std::unique_ptr<CtaSchedulingPolicy> make_cta_policy(const std::string& name,
                                                     const CtaPolicyArgs& args) {
  for (const CtaPolicyInfo& p : cta_policy_registry()) {
    if (p.name != name && std::find(p.aliases.begin(), p.aliases.end(), name) == p.aliases.end())
      continue;
    CtaPolicyArgs full;
    for (const CtaPolicyParam& d : p.params) full[d.name] = d.default_value;
    for (const auto& [k, v] : args) {
      if (!full.count(k)) {
        std::vector<std::string> known;
        for (const CtaPolicyParam& d : p.params) known.push_back(d.name);
        throw std::invalid_argument("CTA policy '" + p.name + "': unknown parameter '" + k +
                                    "' (known: " + (known.empty() ? "none" : join(known)) + ")");
      }
      full[k] = v;
    }
    return p.make(full);
  }
  std::vector<std::string> aliases;
  for (const CtaPolicyInfo& p : cta_policy_registry())
    aliases.insert(aliases.end(), p.aliases.begin(), p.aliases.end());
  throw std::invalid_argument("unknown CTA policy '" + name +
                              "' (known: " + join(cta_policy_names()) +
                              (aliases.empty()       ? ""
                               : aliases.size() == 1 ? "; alias: " + join(aliases)
                                                     : "; aliases: " + join(aliases)) +
                              ")");
}

std::vector<std::string> cta_policy_names() {
  std::vector<std::string> names;
  for (const CtaPolicyInfo& p : cta_policy_registry()) names.push_back(p.name);
  return names;
}

std::vector<std::string> cta_policy_choices() {
  std::vector<std::string> names = cta_policy_names();
  for (const CtaPolicyInfo& p : cta_policy_registry())
    names.insert(names.end(), p.aliases.begin(), p.aliases.end());
  return names;
}

std::uint32_t max_ctas_per_sm(const SmResources& sm, const CtaNeeds& cta, std::string* limiter) {
  const std::uint32_t warps = (cta.threads + 31) / 32;
  const std::uint32_t unit = std::max<std::uint32_t>(1, sm.register_alloc_unit);
  const std::uint32_t regs_per_warp = (cta.regs_per_thread * 32 + unit - 1) / unit * unit;
  const std::uint32_t regs = regs_per_warp * warps;
  struct L {
    const char* name;
    std::uint32_t n;
  };
  const L limits[] = {
      {"threads", cta.threads ? sm.max_threads / cta.threads : sm.max_ctas},
      {"warps", warps ? sm.max_warps / warps : sm.max_ctas},
      {"ctas", sm.max_ctas},
      {"registers", regs ? sm.registers / regs : sm.max_ctas},
      {"shared_memory",
       cta.shared_mem_bytes ? sm.shared_mem_bytes / cta.shared_mem_bytes : sm.max_ctas}};
  const L* best = &limits[0];
  for (const L& l : limits)
    if (l.n < best->n) best = &l;
  if (limiter) *limiter = best->name;
  return best->n;
}

std::string cta_does_not_fit(const std::string& limiter, const CtaNeeds& needs,
                             const SmResources& sm) {
  std::string need, key;
  std::uint64_t have = 0;
  const std::uint64_t warps = (needs.threads + 31) / 32;
  if (limiter == "threads") {
    need = std::to_string(needs.threads) + " threads";
    key = "sm.max_threads";
    have = sm.max_threads;
  } else if (limiter == "warps") {
    need = std::to_string(warps) + " warps";
    key = "sm.max_warps";
    have = sm.max_warps;
  } else if (limiter == "registers") {
    const std::uint64_t unit = std::max<std::uint32_t>(1, sm.register_alloc_unit);
    need = std::to_string((needs.regs_per_thread * 32ull + unit - 1) / unit * unit * warps) +
           " registers (" + std::to_string(needs.regs_per_thread) + " per thread, " +
           std::to_string(warps) + " warps)";
    key = "sm.registers";
    have = sm.registers;
  } else if (limiter == "shared_memory") {
    need = std::to_string(needs.shared_mem_bytes) + " bytes of shared memory";
    key = "sm.shared_memory";
    have = sm.shared_mem_bytes;
  } else {
    need = "one CTA slot";
    key = "sm.max_ctas";
    have = sm.max_ctas;
  }
  return "one CTA needs " + need + ", more than " + key + " (" + std::to_string(have) + ")";
}

}  // namespace locsim
