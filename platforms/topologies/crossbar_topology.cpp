#include "platforms/topologies/crossbar_topology.h"

#include <string>

#include "model/params.h"
#include "platforms/mechanism.h"
#include "platforms/platform_build.h"

namespace locsim {

void CrossbarTopology::validate(const GpuConfig& cfg) const {
  if (cfg.sms_per_cluster != 1)
    throw ConfigError(
        "key 'gpu.sms_per_cluster': the crossbar topology has one port per SM; "
        "set gpu.topology=clustered for SMs sharing a port");
}

void CrossbarTopology::make_cores(PlatformBuild& b) {
  for (std::uint32_t i = 0; i < b.cfg.num_sms; ++i) {
    SmConfig sc = b.cfg.sm;
    sc.id = i;
    sc.cluster = i / b.cfg.sms_per_cluster;
    std::string n = "sm" + std::to_string(i);
    b.parts.sms.push_back(std::make_unique<StreamingMultiprocessor>(n.c_str(), sc, b.ctx));
    n = "l1d" + std::to_string(i);
    b.parts.l1s.push_back(std::make_unique<L1DataCache>(n.c_str(), b.cfg.l1, b.ctx));
  }
}

Mechanism* CrossbarTopology::port_front(PlatformBuild& b) {
  Mechanism* front = nullptr;
  for (const auto& m : b.mechanisms) {
    if (!m->fronts_cluster_ports()) continue;
    if (front)
      throw ConfigError(std::string("mechanisms '") + front->name() + "' and '" + m->name() +
                        "' both put a unit in front of the cluster ports; enable one of them");
    front = m.get();
  }
  return front;
}

void CrossbarTopology::make_interconnect(PlatformBuild& b, const Mechanism* front) {
  CrossbarConfig x = b.cfg.noc;
  if (front) {
    // The units in front of the cluster ports are the crossbar's initiators, one port each; they
    // measure the intra-cluster locality themselves.
    x.bindings = b.cfg.num_sms / b.cfg.sms_per_cluster;
    x.bindings_per_port = 1;
    x.locality_window = 0;
  } else {
    // The SMs of a cluster share one injection port and response FIFO.
    x.bindings = b.cfg.num_sms;
    x.bindings_per_port = b.cfg.sms_per_cluster;
  }
  // Per-core bindings a mechanism asks for (seed 002's shared L1 through the L2 slices).
  for (const auto& m : b.mechanisms) x.core_bindings += m->noc_bindings_per_core() * b.cfg.num_sms;
  b.parts.noc = std::make_unique<Crossbar>("noc", x, b.address_map, b.ctx);
}

void CrossbarTopology::make_memory_partitions(PlatformBuild& b) {
  const std::uint32_t channels = b.cfg.address_map.channels;
  const std::uint32_t subs = b.cfg.address_map.subpartitions_per_channel;
  for (std::uint32_t c = 0; c < channels; ++c) {
    MemoryControllerConfig mc = b.cfg.mc;
    mc.channel = c;
    std::string n = "mc" + std::to_string(c);
    b.parts.mcs.push_back(
        std::make_unique<MemoryController>(n.c_str(), mc, b.address_map, b.ctx, b.backing));
    for (std::uint32_t s = 0; s < subs; ++s) {
      n = "l2_" + std::to_string(c * subs + s);
      b.parts.l2s.push_back(
          std::make_unique<L2CacheBank>(n.c_str(), b.cfg.l2, b.ctx, &b.address_map));
    }
  }
}

void CrossbarTopology::make_dispatcher(PlatformBuild& b) {
  b.parts.dispatcher = std::make_unique<CtaDispatcher>("dispatcher", b.cfg.dispatcher, b.ctx);
}

void CrossbarTopology::wire(PlatformBuild& b, Mechanism* front) {
  PlatformParts& p = b.parts;
  // Binding order is port order: the crossbar's initiators in SM order (or the fronting units in
  // cluster order), its targets in sub-partition order, each controller's sources likewise.
  Mechanism* l1_front = nullptr;
  for (const auto& m : b.mechanisms)
    if (m->fronts_l1s()) l1_front = m.get();
  for (std::uint32_t i = 0; i < b.cfg.num_sms; ++i) {
    if (l1_front)
      l1_front->wire_sm(b, i);
    else
      b.link(p.sms[i]->mem, p.l1s[i]->cpu, "sm" + std::to_string(i) + "_l1d");
    if (front)
      front->wire_l1(b, i);
    else
      b.link(p.l1s[i]->mem, p.noc->in, "l1d" + std::to_string(i) + "_noc");
    p.dispatcher->sms.bind(p.sms[i]->launch);
    p.sms[i]->done.bind(p.dispatcher->completion);
  }
  const std::uint32_t subs = b.cfg.address_map.subpartitions_per_channel;
  for (std::uint32_t t = 0; t < p.l2s.size(); ++t) {
    b.link(p.noc->out, p.l2s[t]->noc, "noc_l2_" + std::to_string(t));
    b.link(p.l2s[t]->dram, p.mcs[t / subs]->in, "l2_" + std::to_string(t) + "_mc");
  }
  // After the L2s: a mechanism's `out` bindings follow the sub-partitions'.
  for (const auto& m : b.mechanisms) m->wire_units(b);
}

void CrossbarTopology::build(PlatformBuild& b) const {
  make_cores(b);
  for (const auto& m : b.mechanisms) m->create_units(b);
  Mechanism* front = port_front(b);
  make_interconnect(b, front);
  make_memory_partitions(b);
  make_dispatcher(b);
  wire(b, front);
  for (const auto& m : b.mechanisms) m->elaborate(b);
}

}  // namespace locsim
