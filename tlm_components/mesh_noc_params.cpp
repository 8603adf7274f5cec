// Parameters of the mesh NoC (seed 002 R6.*, I-8, I-9), declared from MeshNocConfig's own
// defaults. noc.flit_bytes, noc.header_bytes and clock.noc are the crossbar's keys
// (declare_crossbar_params) and are read when declared.
#include <algorithm>
#include <string>

#include "model/mesh_fabric.h"
#include "model/params.h"
#include "tlm_components/mesh_noc.h"

namespace locsim {

void declare_mesh_params(ParamRegistry& p) {
  using T = ParamType;
  const MeshNocConfig d;
  p.declare("noc.mesh_rows", T::UInt, std::to_string(d.rows), "routers",
            "mesh rows (seed 002 R6.1: 6 for 28 cores + 8 MCs)");
  p.declare("noc.mesh_cols", T::UInt, std::to_string(d.cols), "routers", "mesh columns");
  p.declare("noc.mesh_vcs", T::UInt, std::to_string(d.vcs), "VCs",
            "virtual channels per input port per message class");
  p.declare("noc.mesh_vc_flits", T::UInt, std::to_string(d.vc_flits), "flits",
            "buffer of one virtual channel");
  p.declare("noc.router_latency", T::UInt, std::to_string(d.router_latency), "cycles",
            "mesh router pipeline per hop (seed 002 I-9)");
  p.declare("noc.link_latency", T::UInt, std::to_string(d.link_latency), "cycles",
            "mesh link traversal per hop (seed 002 I-9)");
  p.declare("noc.mesh_injection_buffer", T::UInt, std::to_string(d.injection_buffer), "packets",
            "injection queue per mesh terminal per message class");
  p.declare("noc.mesh_ejection_buffer", T::UInt, std::to_string(d.ejection_buffer), "packets",
            "ejection queue per mesh terminal");
  p.declare("noc.mesh_mc_nodes", T::String, "", "node ids",
            "comma-separated mesh nodes of the memory partitions; empty: GPGPU-Sim's map for "
            "(28,8) and (56,8), else spread along the two middle rows (seed 002 R6.2, I-8)");
}

MeshNocConfig mesh_config_from_params(const ParamRegistry& p) {
  MeshNocConfig c;
  c.rows = p.get_u32("noc.mesh_rows", 1, 256);
  c.cols = p.get_u32("noc.mesh_cols", 1, 256);
  c.vcs = p.get_u32("noc.mesh_vcs", 1, 64);
  c.vc_flits = p.get_u32("noc.mesh_vc_flits", 1);
  c.router_latency = p.get_u32("noc.router_latency");
  c.link_latency = p.get_u32("noc.link_latency");
  c.injection_buffer = p.get_u32("noc.mesh_injection_buffer", 1);
  c.ejection_buffer = p.get_u32("noc.mesh_ejection_buffer", 1);
  c.mc_nodes =
      parse_index_list("noc.mesh_mc_nodes", p.get_string("noc.mesh_mc_nodes"), c.rows * c.cols,
                       "node id", "node", "the " + std::to_string(c.rows * c.cols) + "-node mesh");
  if (p.has("noc.flit_bytes")) {
    c.flit_bytes = p.get_bytes_u32("noc.flit_bytes");
    if (!c.flit_bytes) throw ConfigError("key 'noc.flit_bytes': must be at least 1");
  }
  if (p.has("noc.header_bytes")) c.header_bytes = p.get_bytes_u32("noc.header_bytes");
  if (p.has("noc.sector_packets")) c.sector_packets = p.get_bool("noc.sector_packets");
  if (p.has("clock.noc")) c.clock_hz = p.get_frequency_hz("clock.noc");
  return c;
}

}  // namespace locsim
