#include "platforms/topologies/mesh_topology.h"

#include <stdexcept>
#include <string>

#include "model/mesh_fabric.h"
#include "model/params.h"
#include "platforms/mechanism.h"
#include "platforms/platform_build.h"
#include "tlm_components/mesh_noc.h"

namespace locsim {

namespace {

// Memory-controller nodes: noc.mesh_mc_nodes, or the default map for the mesh's size.
std::vector<std::uint32_t> mc_nodes(const GpuConfig& cfg) {
  const MeshNocConfig& m = cfg.mesh;
  const std::uint32_t channels = cfg.address_map.channels;
  std::vector<std::uint32_t> nodes = m.mc_nodes;
  if (nodes.empty()) {
    try {
      nodes = mesh_mc_nodes(cfg.num_sms, channels, m.rows, m.cols);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(std::string("keys 'noc.mesh_rows', 'noc.mesh_cols': ") + e.what());
    }
  }
  if (nodes.size() != channels)
    throw ConfigError("key 'noc.mesh_mc_nodes': names " + std::to_string(nodes.size()) +
                      " nodes for " + std::to_string(channels) + " memory channels");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] >= m.rows * m.cols)
      throw ConfigError("key 'noc.mesh_mc_nodes': node " + std::to_string(nodes[i]) +
                        " is outside the " + std::to_string(m.rows) + "x" + std::to_string(m.cols) +
                        " mesh");
    for (std::size_t j = 0; j < i; ++j)
      if (nodes[j] == nodes[i])
        throw ConfigError("key 'noc.mesh_mc_nodes': node " + std::to_string(nodes[i]) +
                          " is named twice");
  }
  if (cfg.num_sms + channels > m.rows * m.cols)
    throw ConfigError("key 'gpu.sms': " + std::to_string(cfg.num_sms) + " SMs and " +
                      std::to_string(channels) + " memory partitions do not fit a " +
                      std::to_string(m.rows) + "x" + std::to_string(m.cols) +
                      " mesh (noc.mesh_rows, noc.mesh_cols)");
  return nodes;
}

}  // namespace

void MeshTopology::validate(const GpuConfig& cfg) const {
  if (cfg.sms_per_cluster != 1)
    throw ConfigError("key 'gpu.sms_per_cluster': the mesh topology has one node per SM");
  mc_nodes(cfg);
}

void MeshTopology::build(PlatformBuild& b) const {
  const GpuConfig& cfg = b.cfg;
  const std::uint32_t n = cfg.num_sms;
  const std::uint32_t subs = cfg.address_map.subpartitions_per_channel;
  const std::uint32_t m = cfg.address_map.channels * subs;
  const std::vector<std::uint32_t> mcs = mc_nodes(cfg);
  b.core_nodes = mesh_core_nodes(n, mcs, cfg.mesh.rows, cfg.mesh.cols);
  b.subpartition_nodes.clear();
  for (std::uint32_t t = 0; t < m; ++t) b.subpartition_nodes.push_back(mcs[t / subs]);
  b.mesh_cols = cfg.mesh.cols;

  make_cores(b);
  for (const auto& mech : b.mechanisms) mech->create_units(b);
  std::uint32_t extra = 0;
  Mechanism* l1_front = nullptr;
  for (const auto& mech : b.mechanisms) {
    extra += mech->noc_bindings_per_core();
    if (mech->fronts_l1s()) l1_front = mech.get();
  }
  // `in`: the L1s (class 0, towards memory), then each mechanism's per-core bindings (class 1).
  // `out`: the L2 sub-partitions in order, then the per-core bindings.
  MeshNocConfig x = cfg.mesh;
  x.in_node = b.core_nodes;
  x.in_class.assign(n, 0);
  x.out_node = b.subpartition_nodes;
  for (std::uint32_t k = 0; k < extra; ++k) {
    for (std::uint32_t i = 0; i < n; ++i) {
      x.in_node.push_back(b.core_nodes[i]);
      x.in_class.push_back(1);
      x.out_node.push_back(b.core_nodes[i]);
    }
  }
  b.parts.noc = std::make_unique<MeshNoc>("noc", x, b.address_map, b.ctx);
  make_memory_partitions(b);
  make_dispatcher(b);

  PlatformParts& p = b.parts;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (l1_front)
      l1_front->wire_sm(b, i);
    else
      b.link(p.sms[i]->mem, p.l1s[i]->cpu, "sm" + std::to_string(i) + "_l1d");
    b.link(p.l1s[i]->mem, p.noc->in, "l1d" + std::to_string(i) + "_noc");
    p.dispatcher->sms.bind(p.sms[i]->launch);
    p.sms[i]->done.bind(p.dispatcher->completion);
  }
  for (std::uint32_t t = 0; t < p.l2s.size(); ++t) {
    b.link(p.noc->out, p.l2s[t]->noc, "noc_l2_" + std::to_string(t));
    b.link(p.l2s[t]->dram, p.mcs[t / subs]->in, "l2_" + std::to_string(t) + "_mc");
  }
  for (const auto& mech : b.mechanisms) mech->wire_units(b);
  for (const auto& mech : b.mechanisms) mech->elaborate(b);
}

}  // namespace locsim
