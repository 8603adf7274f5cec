#include "platforms/topologies/mcm_topology.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "model/params.h"
#include "platforms/mechanism.h"
#include "platforms/platform_build.h"
#include "tlm_components/gpu_extension.h"

namespace locsim {

void declare_mcm_params(ParamRegistry& p) {
  using T = ParamType;
  const McmConfig d;
  p.declare("mcm.modules", T::UInt, std::to_string(d.modules), "modules",
            "GPU modules (NUMA zones) of the mcm topology; each gets gpu.sms / modules SMs and "
            "mem.channels / modules channels (a power of two dividing both)");
  p.declare("mcm.link_bandwidth", T::Double, "192", "GB/s",
            "bandwidth of each direction of each inter-module link (seed 000 Table 1)");
  p.declare("mcm.link_latency", T::UInt, std::to_string(d.link_latency), "cycles",
            "core cycles a packet takes on an inter-module link after serialisation");
  p.declare("mcm.link_buffer", T::UInt, std::to_string(d.link_buffer), "bytes",
            "bytes of packets an inter-module link holds per direction (on its wires or waiting "
            "at the far end) before it back-pressures; 0: the bandwidth-delay product of its "
            "path, per hop latency x bandwidth + 136, so credits never slow the wires");
  p.declare("mcm.ring_ties", T::Enum, d.alternate_ties ? "alternate" : "clockwise", "",
            "route to the module half-way round the ring: clockwise from every module, or "
            "alternate (clockwise from even modules, counter-clockwise from odd ones)",
            {"clockwise", "alternate"});
}

McmConfig mcm_config_from_params(const ParamRegistry& p) {
  McmConfig c;
  c.modules = p.get_u32("mcm.modules", 1, 64);
  c.link_gbps = p.get_double("mcm.link_bandwidth");
  if (!(c.link_gbps > 0.0) || c.link_gbps > 1e6)
    throw ConfigError("key 'mcm.link_bandwidth': " + std::to_string(c.link_gbps) +
                      " GB/s (must be > 0 and at most 1e6)");
  c.link_latency = p.get_u32("mcm.link_latency", 1, 1000000);
  c.link_buffer = p.get_u32("mcm.link_buffer", 0, 1u << 30);
  c.alternate_ties = p.get_string("mcm.ring_ties") == "alternate";
  return c;
}

void McmTopology::validate(const GpuConfig& cfg) const {
  const std::uint32_t m = cfg.mcm.modules;
  if (m == 0 || (m & (m - 1)) != 0)
    throw ConfigError("key 'mcm.modules': " + std::to_string(m) + " (must be a power of two)");
  if (cfg.num_sms % m)
    throw ConfigError("key 'mcm.modules': " + std::to_string(m) +
                      " does not divide gpu.sms = " + std::to_string(cfg.num_sms));
  if (cfg.address_map.channels % m)
    throw ConfigError(
        "key 'mcm.modules': " + std::to_string(m) +
        " does not divide mem.channels = " + std::to_string(cfg.address_map.channels));
  if (cfg.sms_per_cluster != 1)
    throw ConfigError("key 'gpu.sms_per_cluster': the mcm topology has one crossbar port per SM");
}

void McmTopology::build(PlatformBuild& b) const {
  const GpuConfig& cfg = b.cfg;
  const std::uint32_t M = cfg.mcm.modules, S = cfg.num_sms / M;
  const std::uint32_t subs = cfg.address_map.subpartitions_per_channel;
  const std::uint32_t local_l2 = cfg.address_map.channels / M * subs;  // sub-partitions per module
  const std::uint32_t peers = M - 1;  // one connection to every other module
  PlatformParts& p = b.parts;
  NumaAddressMapper* numa = b.numa;

  make_cores(b);
  for (const auto& m : b.mechanisms) {
    m->create_units(b);
    if (m->fronts_cluster_ports())
      throw ConfigError(std::string("mechanism '") + m->name() +
                        "' puts units in front of cluster ports, which the mcm topology lacks");
  }

  // NUMA access statistics (seed 000 M10): requests leaving an SM's own module network, by
  // whether the zone holding the address is the requester's.
  const std::string np = b.top_name + ".numa";
  Counter& accesses = b.ctx.stats.counter(np, "numa", "accesses", "requests",
                                          "requests from the SMs to the memory side (L2 level)");
  Counter& local = b.ctx.stats.counter(np, "numa", "local_accesses", "requests",
                                       "of those, to the requester's own zone");
  std::vector<Counter*> per_zone;
  for (std::uint32_t z = 0; z < M; ++z)
    per_zone.push_back(&b.ctx.stats.counter(np, "numa", "zone" + std::to_string(z) + "_accesses",
                                            "requests", "of those, to zone " + std::to_string(z)));

  // Connection c of module m leads to module peer(m, c): the others in increasing order.
  auto peer = [M](std::uint32_t m, std::uint32_t c) { return (m + 1 + c) % M; };
  auto conn = [M](std::uint32_t m, std::uint32_t z) { return (z + M - m - 1) % M; };
  // A module network's ports to and from the inter-module links move as many flits per NoC cycle
  // as the link carries (192 GB/s is about 4.3 flits of 32 B at 1.4 GHz); one-flit ports would
  // cap every link at flit_bytes x clock.noc (45 GB/s).
  const std::uint32_t link_width = std::max<std::uint32_t>(
      1, static_cast<std::uint32_t>(
             std::ceil(cfg.mcm.link_gbps * 1e9 / cfg.noc.clock_hz / cfg.noc.flit_bytes - 1e-9)));
  for (std::uint32_t m = 0; m < M; ++m) {
    CrossbarConfig x = cfg.noc;
    x.bindings = S + peers;
    x.bindings_per_port = 1;
    x.locality_window = 0;
    x.targets = local_l2 + peers;
    x.port_width.assign(S + peers, link_width);
    std::fill(x.port_width.begin(), x.port_width.begin() + S, 1);
    x.target_width.assign(local_l2 + peers, link_width);
    std::fill(x.target_width.begin(), x.target_width.begin() + local_l2, 1);
    x.route = [numa, m, local_l2, conn, &map = b.address_map](Addr a) -> std::uint32_t {
      const std::uint32_t z = numa->zone(a);
      return z == m ? map.subpartition(a) - m * local_l2 : local_l2 + conn(m, z);
    };
    x.observe = [numa, m, S, &accesses, &local, per_zone](std::uint32_t src, const Payload& gp) {
      if (src >= S) return;  // arrived from another module: counted where it was issued
      const Addr a = gp.get_address();
      numa->touch(a, m);  // FirstTouch-Distrib places the page here (no effect otherwise)
      const std::uint32_t z = numa->zone(a);
      ++accesses;
      ++*per_zone[z];
      if (z == m) ++local;
    };
    const std::string n = "noc" + std::to_string(m);
    p.module_nocs.push_back(std::make_unique<Crossbar>(n.c_str(), x, b.address_map, b.ctx));
  }

  if (M > 1) {
    // The ring's wires: cw[m] carries m -> m+1, ccw[m] carries m -> m-1. The connection from m
    // to z takes the shorter way (clockwise on a tie) and its replies the same wires backwards.
    const double bpc = cfg.mcm.link_gbps * 1e9 / cfg.sm.clock_hz;
    for (std::uint32_t w = 0; w < 2 * M; ++w)
      p.wires.push_back(std::make_unique<SerialChannel>(bpc));
    InterModuleLinkConfig lc;
    lc.latency = cfg.mcm.link_latency;
    lc.buffer = cfg.mcm.link_buffer;
    lc.header_bytes = cfg.noc.header_bytes;
    lc.clock_hz = cfg.sm.clock_hz;
    for (std::uint32_t m = 0; m < M; ++m)
      for (std::uint32_t c = 0; c < peers; ++c) {
        const std::uint32_t z = peer(m, c), ahead = (z + M - m) % M;
        std::vector<SerialChannel*> fwd, bwd;
        const bool tie = 2 * ahead == M;
        if (ahead < M - ahead || (tie && !(cfg.mcm.alternate_ties && m % 2 == 1))) {
          for (std::uint32_t h = 0; h < ahead; ++h) fwd.push_back(p.wires[(m + h) % M].get());
          for (std::uint32_t h = 0; h < ahead; ++h)
            bwd.push_back(p.wires[M + (z + M - h) % M].get());
        } else {
          const std::uint32_t back = M - ahead;
          for (std::uint32_t h = 0; h < back; ++h)
            fwd.push_back(p.wires[M + (m + M - h) % M].get());
          for (std::uint32_t h = 0; h < back; ++h) bwd.push_back(p.wires[(z + h) % M].get());
        }
        const std::string n = "link" + std::to_string(m) + "_" + std::to_string(z);
        p.links.push_back(std::make_unique<InterModuleLink>(n.c_str(), lc, std::move(fwd),
                                                            std::move(bwd), b.ctx));
      }
  }

  make_memory_partitions(b);
  make_dispatcher(b);

  // Binding order is port order. Module m's crossbar: `in` = its S L1s, then the clockwise link
  // arriving from m-1, then the counter-clockwise link arriving from m+1; `out` = its local
  // sub-partitions in order, then its clockwise and counter-clockwise links.
  for (std::uint32_t i = 0; i < cfg.num_sms; ++i) {
    b.link(p.sms[i]->mem, p.l1s[i]->cpu, "sm" + std::to_string(i) + "_l1d");
    b.link(p.l1s[i]->mem, p.module_nocs[i / S]->in, "l1d" + std::to_string(i) + "_noc");
    p.dispatcher->sms.bind(p.sms[i]->launch);
    p.sms[i]->done.bind(p.dispatcher->completion);
  }
  for (const auto& m : b.mechanisms) m->wire_units(b);
  // Module z's `in` bindings after its L1s: the connection from each other module m, in the
  // order conn(z, m) gives its `out` side (so binding S + c comes from peer(z, c)).
  for (std::uint32_t z = 0; z < M; ++z)
    for (std::uint32_t c = 0; c < peers; ++c) {
      const std::uint32_t m = peer(z, c);
      b.link(p.links[m * peers + conn(m, z)]->out, p.module_nocs[z]->in,
             "link" + std::to_string(m) + "_" + std::to_string(z) + "_in");
    }
  for (std::uint32_t m = 0; m < M; ++m) {
    for (std::uint32_t t = 0; t < local_l2; ++t) {
      const std::uint32_t g = m * local_l2 + t;
      b.link(p.module_nocs[m]->out, p.l2s[g]->noc,
             "noc" + std::to_string(m) + "_l2_" + std::to_string(g));
    }
    for (std::uint32_t c = 0; c < peers; ++c)
      b.link(p.module_nocs[m]->out, p.links[m * peers + c]->in,
             "link" + std::to_string(m) + "_" + std::to_string(peer(m, c)) + "_out");
  }
  for (std::uint32_t t = 0; t < p.l2s.size(); ++t)
    b.link(p.l2s[t]->dram, p.mcs[t / subs]->in, "l2_" + std::to_string(t) + "_mc");
  for (const auto& m : b.mechanisms) m->elaborate(b);
}

}  // namespace locsim
