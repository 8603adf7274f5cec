#include "platforms/mechanisms/shared_l1_mechanism.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <tuple>

#include "model/butterfly_fabric.h"
#include "model/params.h"
#include "platforms/platform_build.h"
#include "tlm_components/butterfly.h"
#include "tlm_components/ideal_network.h"
#include "tlm_components/sim_time.h"

namespace locsim {

namespace {

void declare_shared_l1_params(ParamRegistry& p) {
  using T = ParamType;
  const SharedL1MechanismConfig d;
  const DynamicL1Config dy;
  p.declare("l1d.organization", T::Enum, to_string(d.organization), "",
            "L1 organisation (seed 002): private, shared (home core from the tag's low bits, "
            "§3.1-3.2), shared-chunk (+ replies carry only the requested sectors), shared++ (+ "
            "Min(H,L2)), dyneb / dynamat (per-core dynamic choice, §4), ideal (zero-cost "
            "inter-core communication, §2.2)",
            {"private", "shared", "shared-chunk", "shared++", "dyneb", "dynamat", "ideal"});
  p.declare("shared_l1.home", T::Enum, to_string(d.home), "",
            "home core of a line for a core count that is not a power of two: tag mod N (mod) "
            "or (tag & (2^ceil(log2 N)-1)) mod N (tag-lsb-fold) (spec I-1)",
            {"mod", "tag-lsb-fold"});
  p.declare("shared_l1.network", T::Enum, "noc", "",
            "core-to-core path of remote requests: the platform's network (noc, needs "
            "gpu.topology=mesh), a zero-cost network (ideal) or a k-ary n-fly butterfly beside "
            "the memory network (butterfly, §5.5; Min(H,L2) off), or through the L2 slices of "
            "a crossbar topology (via-l2, §5.5)",
            {"noc", "ideal", "butterfly", "via-l2"});
  p.declare("shared_l1.remote_queue", T::UInt, std::to_string(d.remote_queue), "requests",
            "depth of each core's remote In-queue and Out-queue (spec I-2)");
  p.declare("shared_l1.oracle", T::Bool, d.oracle ? "true" : "false", "",
            "measure the replication ratio, replicas and useful bytes per remote line (seed 002 "
            "§2.1, Fig. 1/6/12), also under l1d.organization=private");
  p.declare("shared_l1.replica_interval", T::UInt, std::to_string(d.replica_interval), "cycles",
            "core cycles between samples of the replicas per line (Fig. 12)");
  p.declare("dyneb.sampling_accesses", T::UInt, std::to_string(dy.sampling_accesses), "accesses",
            "R_S: local L1 accesses each set group needs to end sampling (§4.1)");
  p.declare("dyneb.execution_accesses", T::UInt, std::to_string(dy.execution_accesses), "accesses",
            "R_EX: local L1 accesses of an execution phase (§4.1)");
  p.declare("dyneb.l1mr_threshold", T::Double, "0.1", "misses/access",
            "L1MRpr: stay private when the private group's miss rate is below this (§4.2)");
  p.declare("dyneb.kernel_reset", T::Bool, d.kernel_reset ? "true" : "false", "",
            "restart every core's sampling phase at each kernel boundary (spec I-6); off: the "
            "phases run on across kernels, the paper stating only that L1s are flushed (§4.1)");
  p.declare("dyneb.l1mrpr", T::Bool, dy.use_l1mrpr ? "true" : "false", "",
            "apply the L1MRpr refinement (§4.2; DynEB in §5.2 always does)");
}

class SharedL1Config final : public MechanismConfig {
 public:
  explicit SharedL1Config(const SharedL1MechanismConfig& c) : cfg(c) {}
  std::unique_ptr<Mechanism> instantiate() const override {
    return std::make_unique<SharedL1Mechanism>(cfg);
  }
  SharedL1MechanismConfig cfg;
};

std::shared_ptr<const MechanismConfig> configure_shared_l1(const ParamRegistry& p, GpuConfig& c) {
  SharedL1MechanismConfig s;
  s.organization = parse_l1_organization(p.get_string("l1d.organization"));
  s.oracle = p.get_bool("shared_l1.oracle");
  if (s.organization == L1Organization::Private && !s.oracle) return nullptr;
  s.home = parse_home_fold(p.get_string("shared_l1.home"));
  const std::string net = p.get_string("shared_l1.network");
  s.network = net == "ideal"       ? CoreNetwork::Ideal
              : net == "butterfly" ? CoreNetwork::Butterfly
              : net == "via-l2"    ? CoreNetwork::ViaL2
                                   : CoreNetwork::Noc;
  s.noc_clock_hz = c.noc.clock_hz;
  s.memory_partitions = c.address_map.channels;
  if (s.organization == L1Organization::Ideal) s.network = CoreNetwork::Ideal;
  s.remote_queue = p.get_u32("shared_l1.remote_queue", 1, 1u << 20);
  s.replica_interval = p.get_uint("shared_l1.replica_interval");
  if (!s.replica_interval) throw ConfigError("key 'shared_l1.replica_interval': must be >= 1");
  s.dynamic.metric = s.organization == L1Organization::DynAMAT ? DynMetric::AMAT : DynMetric::EB;
  s.dynamic.sampling_accesses = p.get_uint("dyneb.sampling_accesses");
  s.dynamic.execution_accesses = p.get_uint("dyneb.execution_accesses");
  s.dynamic.l1mr_threshold = p.get_double("dyneb.l1mr_threshold");
  s.dynamic.use_l1mrpr = p.get_bool("dyneb.l1mrpr");
  s.kernel_reset = p.get_bool("dyneb.kernel_reset");
  s.dynamic.default_l1_hit_latency = c.l1.hit_latency;
  if (!s.dynamic.sampling_accesses)
    throw ConfigError("key 'dyneb.sampling_accesses': must be at least 1");
  if (!s.dynamic.execution_accesses)
    throw ConfigError("key 'dyneb.execution_accesses': must be at least 1");
  if (!(s.dynamic.l1mr_threshold >= 0.0 && s.dynamic.l1mr_threshold <= 1.0))
    throw ConfigError("key 'dyneb.l1mr_threshold': must be a miss rate in [0, 1]");
  s.dynamic.validate();  // nothing left for it to refuse
  if (s.organization != L1Organization::Private) {
    if (s.network == CoreNetwork::Noc && c.topology != "mesh")
      throw ConfigError("key 'l1d.organization': " + std::string(to_string(s.organization)) +
                        " sends requests from core to core, which needs gpu.topology=mesh "
                        "(or shared_l1.network=ideal|butterfly); this platform's topology is '" +
                        c.topology + "'");
    if (s.network == CoreNetwork::ViaL2 && c.topology != "crossbar")
      throw ConfigError(
          "key 'shared_l1.network': via-l2 forwards through a crossbar's L2 slices "
          "and needs gpu.topology=crossbar (this platform's is '" +
          c.topology + "')");
    if (c.topology == "mcm")
      throw ConfigError("key 'l1d.organization': the mcm topology has no shared-L1 wiring");
    if (c.sms_per_cluster != 1)
      throw ConfigError(
          "key 'l1d.organization': a shared L1 needs one L1 per core port "
          "(gpu.sms_per_cluster=1)");
    if (!c.l1.enabled) throw ConfigError("key 'l1d.organization': the L1 is disabled");
  }
  return std::make_shared<SharedL1Config>(s);
}

}  // namespace

MechanismInfo shared_l1_mechanism_info() {
  return {"shared_l1", "seed 002 §2-§4 (shared L1, Chunk, Min(H,L2), DynEB)",
          declare_shared_l1_params, configure_shared_l1};
}

std::uint32_t SharedL1Mechanism::hops(std::uint32_t a, std::uint32_t b) const {
  const int ax = static_cast<int>(a % mesh_cols_), ay = static_cast<int>(a / mesh_cols_);
  const int bx = static_cast<int>(b % mesh_cols_), by = static_cast<int>(b / mesh_cols_);
  return static_cast<std::uint32_t>(std::abs(ax - bx) + std::abs(ay - by));
}

void SharedL1Mechanism::create_units(PlatformBuild& b) {
  const std::uint32_t n = b.cfg.num_sms;
  const CacheGeometry& g = b.cfg.l1.geometry;
  home_ = std::make_unique<HomeMap>(n, g.line_bytes, g.sets, cfg_.home);
  map_ = &b.address_map;
  core_hz_ = b.cfg.sm.clock_hz;
  core_node_ = b.core_nodes;
  sub_node_ = b.subpartition_nodes;
  mesh_cols_ = b.mesh_cols;
  for (std::uint32_t i = 0; i < n; ++i) {
    l1s_.push_back(b.parts.l1s[i].get());
    tags_.push_back(&b.parts.l1s[i]->tags());
  }
  if (is_dynamic(cfg_.organization)) selectors_.assign(n, DynamicL1Selector(cfg_.dynamic));
  if (!has_ports()) return;
  SharedL1PortConfig pc;
  pc.remote_queue = cfg_.remote_queue;
  pc.chunk = chunks_remote_replies(cfg_.organization) || cfg_.organization == L1Organization::Ideal;
  pc.line_sectors = g.line_bytes / kTransferSectorBytes;
  pc.clock_hz = b.cfg.sm.clock_hz;
  for (std::uint32_t i = 0; i < n; ++i) {
    pc.core = i;
    const std::string name = "sl1port" + std::to_string(i);
    ports_.push_back(std::make_unique<SharedL1Port>(name.c_str(), pc, b.ctx));
    SharedL1Port& port = *ports_.back();
    port.decide = [this, i](const Payload& gp) { return decide(i, gp); };
    port.drop_local_copy = [this, i](Addr line) { l1s_[i]->drop_line(line); };
    port.on_remote_reply = [this, i](const Payload& gp, bool from_l2, Cycle cycles) {
      const unsigned grp = home_->set_parity(const_cast<Payload&>(gp).get_address());
      if (from_l2) {
        ++*st_.direct_l2_replies;
        if (!selectors_.empty()) {
          selectors_[i].on_l2_reply(grp);
          selectors_[i].on_latency_sample(DynLatency::L2Access, static_cast<double>(cycles));
        }
      } else {
        ++*st_.home_replies;
        if (!selectors_.empty()) {
          selectors_[i].on_home_reply(missed_at_home_.erase(&gp) > 0);
          selectors_[i].on_latency_sample(DynLatency::HomeAccess, static_cast<double>(cycles));
        }
      }
    };
  }
  if (cfg_.network == CoreNetwork::Ideal) {
    core_net_ = std::make_unique<IdealNetwork>("core_net", n, n, b.ctx);
    home_target_base_ = 0;
  } else if (cfg_.network == CoreNetwork::Butterfly) {
    ButterflyConfig bc;
    bc.cores = n;
    // Sized by every node of the GPU, cores and memory partitions (R7.2: 36 -> 6-ary 2-fly).
    std::tie(bc.k, bc.n) = butterfly_for(n + cfg_.memory_partitions);
    bc.clock_hz = cfg_.noc_clock_hz;
    core_net_ = std::make_unique<Butterfly>("core_net", bc, b.ctx);
    home_target_base_ = 0;
  } else {
    home_target_base_ = b.address_map.num_subpartitions();
  }
}

SharedL1Route SharedL1Mechanism::decide(std::uint32_t core, const Payload& cgp) {
  Payload& gp = const_cast<Payload&>(cgp);
  const GpuExtension& e = gpu_ext(gp);
  SharedL1Route r;
  if (e.kind == AccessKind::Atomic) return r;  // atomics go to L2 through the local L1 (R2.5)
  const Addr a = gp.get_address();
  const std::uint32_t h = home_->home(a);
  const unsigned grp = home_->set_parity(a);
  const bool shared = selectors_.empty() || selectors_[core].treat_as_shared(grp);
  if (!shared || h == core) {
    if (!selectors_.empty() && e.kind == AccessKind::Load)
      selectors_[core].on_local_access(grp, now());
    return r;
  }
  if (e.kind == AccessKind::Load) {
    if (cfg_.oracle) {
      oracle_.record_remote_request(e.sector_mask);
      const unsigned k = static_cast<unsigned>(__builtin_popcount(e.sector_mask));
      if (k >= 1 && k <= 4) ++*st_.useful[k];
    }
    if (!selectors_.empty()) selectors_[core].on_remote_access();
    // Min(H,L2) (§3.3): straight to the L2 slice when it is fewer hops away than the home.
    if (uses_min_h_l2(cfg_.organization) && cfg_.network == CoreNetwork::Noc && mesh_cols_ &&
        min_h_l2_goes_to_l2(hops(core_node_[core], core_node_[h]),
                            hops(core_node_[core], sub_node_[map_->subpartition(a)]))) {
      r.kind = SharedL1Route::L2;
      return r;
    }
  }
  r.kind = SharedL1Route::Home;
  r.target = static_cast<std::int32_t>(home_target_base_ + h);
  return r;
}

void SharedL1Mechanism::wire_sm(PlatformBuild& b, std::uint32_t i) {
  const std::string s = std::to_string(i);
  b.link(b.parts.sms[i]->mem, ports_[i]->cpu, "sm" + s + "_sl1port");
  b.link(ports_[i]->l1, b.parts.l1s[i]->cpu, "sl1port" + s + "_l1d");
}

void SharedL1Mechanism::wire_units(PlatformBuild& b) {
  if (!has_ports()) return;
  Interconnect& net = core_net_ ? *core_net_ : *b.parts.noc;
  // Remote requests enter after the L1s' bindings; home ports leave after the L2s' (the
  // topology sized the network with noc_bindings_per_core()).
  for (std::uint32_t i = 0; i < ports_.size(); ++i)
    b.link(ports_[i]->remote, net.in, "sl1port" + std::to_string(i) + "_net");
  for (std::uint32_t i = 0; i < ports_.size(); ++i)
    b.link(net.out, ports_[i]->home, "net_sl1port" + std::to_string(i));
}

void SharedL1Mechanism::elaborate(PlatformBuild& b) {
  const std::string path = b.top_name + ".shared_l1";
#define SL1_STAT(kind, n, u, d) &b.ctx.stats.counter(path, kind, n, u, d)
  st_.home_replies = SL1_STAT("shared_l1", "home_replies", "replies",
                              "replies from home L1s to this GPU's remote requests");
  st_.direct_l2_replies = SL1_STAT("shared_l1", "direct_l2_replies", "replies",
                                   "replies from L2 to remote loads sent by Min(H,L2)");
  st_.l2_replies = SL1_STAT("shared_l1", "l2_fills", "replies",
                            "fills from L2 installed in the L1s (L2 reply traffic to L1s)");
  if (cfg_.oracle) {
    st_.checked = SL1_STAT("l1d", "replication_misses", "accesses",
                           "L1 misses of a core's own loads checked against the other L1s");
    st_.replicated = SL1_STAT("l1d", "replicated_misses", "accesses",
                              "of those, misses on a line valid in another L1 (seed 002 §2.1)");
    st_.replica_lines = SL1_STAT("l1d", "replica_lines", "lines",
                                 "lines held by >= 1 L1, summed over replica samples");
    st_.replica_copies = SL1_STAT("l1d", "replica_copies", "lines",
                                  "L1 copies of those lines, summed over replica samples");
    for (unsigned k = 1; k <= 4; ++k)
      st_.useful[k] =
          SL1_STAT("shared_l1", "remote_loads_" + std::to_string(k * 32) + "B", "requests",
                   "remote loads requesting " + std::to_string(k) +
                       " 32 B sector(s) of their line (Fig. 6 useful bytes)");
  }
#undef SL1_STAT
  st_.miss_latency = &b.ctx.stats.distribution(
      path, "shared_l1", "l1_miss_latency", "cycles",
      "core cycles from an L1 miss to its fill (core-L2 round trip, seed 002 §5.2)");
  miss_sent_.assign(l1s_.size(), {});
  for (std::uint32_t i = 0; i < l1s_.size(); ++i) {
    l1s_[i]->on_load_outcome = [this, i](Addr line, L1Outcome o, const Payload& gp) {
      on_load_outcome(i, line, o, gp);
    };
    l1s_[i]->on_fill = [this, i](Addr line) {
      ++*st_.l2_replies;
      auto it = miss_sent_[i].find(line);
      if (it != miss_sent_[i].end()) {
        st_.miss_latency->sample(now() - it->second);
        miss_sent_[i].erase(it);
      }
      if (!selectors_.empty()) selectors_[i].on_l2_reply(home_->set_parity(line));
      if (cfg_.oracle) maybe_sample_replicas();
    };
  }
}

void SharedL1Mechanism::on_load_outcome(std::uint32_t core, Addr line, L1Outcome o,
                                        const Payload& gp) {
  const bool miss = o != L1Outcome::Hit;
  if (o == L1Outcome::Miss || o == L1Outcome::SectorMiss) miss_sent_[core][line] = now();
  if (!selectors_.empty()) {
    selectors_[core].on_l1_access(home_->set_parity(line), miss);
    if (miss && gpu_ext(const_cast<Payload&>(gp)).sm != core) missed_at_home_.insert(&gp);
  }
  if (!cfg_.oracle || (o != L1Outcome::Miss && o != L1Outcome::SectorMiss)) return;
  // R8.1: the core's own misses (a home serving another core is not replicating).
  if (gpu_ext(const_cast<Payload&>(gp)).sm != core) return;
  ++*st_.checked;
  if (ReplicationOracle::held_elsewhere(tags_, core, line)) ++*st_.replicated;
}

Cycle SharedL1Mechanism::now() const {
  return static_cast<Cycle>(sim_time().to_seconds() * core_hz_ + 0.5);
}

void SharedL1Mechanism::maybe_sample_replicas() {
  const Cycle t = now();
  if (t < next_replica_sample_) return;
  next_replica_sample_ = (t / cfg_.replica_interval + 1) * cfg_.replica_interval;
  const std::uint64_t lines = oracle_.replica_lines(), copies = oracle_.replica_copies();
  oracle_.sample_replicas(tags_);
  *st_.replica_lines += oracle_.replica_lines() - lines;
  *st_.replica_copies += oracle_.replica_copies() - copies;
}

void SharedL1Mechanism::kernel_begin(std::uint32_t, const Kernel&) {
  // The L1s were flushed. The paper says no more (§4.1 "Handling Coherence"); restarting
  // sampling (spec I-6) keeps kernels shorter than one sampling phase in sampling for good.
  if (cfg_.kernel_reset)
    for (auto& s : selectors_) s.reset_for_kernel();
}

void SharedL1Mechanism::report(nlohmann::json& extra) const {
  nlohmann::json j;
  j["organization"] = to_string(cfg_.organization);
  if (!selectors_.empty()) {
    nlohmann::json cores = nlohmann::json::array();
    for (const DynamicL1Selector& s : selectors_) {
      nlohmann::json c;
      c["local_accesses_sampling"] = s.local_accesses_sampling();
      c["local_accesses_private"] = s.local_accesses_exec_private();
      c["local_accesses_shared"] = s.local_accesses_exec_shared();
      std::uint64_t shared = 0;
      nlohmann::json h = nlohmann::json::array();
      for (const DynDecision& d : s.history()) {
        shared += d.shared;
        if (h.size() < 256)
          h.push_back({{"cycle", d.cycle},
                       {"shared", d.shared},
                       {"by_l1mrpr", d.by_l1mrpr},
                       {"private_value", d.private_value},
                       {"shared_value", d.shared_value},
                       {"private_miss_rate", d.private_miss_rate},
                       {"shared_miss_rate", d.shared_miss_rate}});
      }
      c["decisions"] = s.history().size();
      c["shared_decisions"] = shared;
      c["history"] = h;
      cores.push_back(c);
    }
    j["cores"] = cores;
  }
  extra["shared_l1_modes"] = j;
}

}  // namespace locsim
