// A 2-D mesh network-on-chip (seed 002 §3.2 "Communication Fabric", Table 1; docs/mesh_noc.md):
// the second implementation of the Interconnect contract. Two physical meshes (MeshFabric): a
// request network, whose message classes keep core-to-core requests from blocking requests
// towards memory (spec I-14), and a reply network. Every `in` and `out` binding is a terminal
// attached to a mesh node (several may share a node: both L2 sub-partitions of an MC, R6.3).
// Requests go to `out[noc_target]` when the sender set GpuExtension::noc_target (a shared L1's
// home core), else to the binding the address routes to; replies go back to the `in` binding
// the request entered by (RouteExtension). One request accepted per cycle per `in` binding, one
// reply per cycle per `out` binding, at NoC clock edges; the module sleeps until the meshes'
// next event.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/address_map.h"
#include "model/mesh_fabric.h"
#include "tlm_components/activation_scheduler.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/interconnect.h"
#include "tlm_components/sim_context.h"

namespace locsim {

struct MeshNocConfig {
  std::uint32_t rows = 6, cols = 6;     // 6x6 for 28 cores + 8 MCs (R6.1)
  std::vector<std::uint32_t> in_node;   // mesh node of each `in` binding (row-major id)
  std::vector<std::uint32_t> in_class;  // request-network class of each `in` binding; empty: 0
  std::vector<std::uint32_t> out_node;  // mesh node of each `out` binding
  // Memory-partition nodes (noc.mesh_mc_nodes) for the topology builder that fills out_node;
  // empty: mesh_mc_nodes()'s default map. The mesh itself only uses in_node/out_node.
  std::vector<std::uint32_t> mc_nodes;
  std::uint32_t vcs = 4;       // VCs per input port per message class (Table 1)
  std::uint32_t vc_flits = 4;  // flits of buffer per VC (Table 1)
  std::uint32_t flit_bytes = 32;
  std::uint32_t header_bytes = 8;
  bool sector_packets = false;         // noc.sector_packets (packet_size.h)
  std::uint32_t router_latency = 2;    // cycles of router pipeline (I-9)
  std::uint32_t link_latency = 1;      // cycles per link (I-9)
  std::uint32_t injection_buffer = 8;  // packets per terminal per class
  std::uint32_t ejection_buffer = 8;   // packets per terminal
  double clock_hz = 700e6;             // Table 1
  // Routing of a request address to an `out` binding; empty: the address map's L2
  // sub-partition (which must be < the number of `out` bindings).
  std::function<std::uint32_t(Addr)> route;
};

class MeshNoc : public Interconnect {
 public:
  // `map` must outlive the mesh. `in`/`out` must be bound exactly cfg.in_node.size() /
  // cfg.out_node.size() times (checked at the end of elaboration).
  MeshNoc(sc_core::sc_module_name name, const MeshNocConfig& cfg, const AddressMap& map,
          SimContext& ctx);
  std::uint32_t ports() const override { return n_in_; }
  std::uint32_t targets() const override { return n_out_; }
  std::uint64_t port_request_flits(std::uint32_t p) const override {
    return port_req_flits_[p]->value();
  }
  std::uint64_t port_reply_flits(std::uint32_t p) const override {
    return port_rep_flits_[p]->value();
  }
  Cycle noc_cycles() const override { return clk_.now(); }
  const MeshNocConfig& config() const { return cfg_; }
  const MeshFabric& request_network() const { return req_; }
  const MeshFabric& reply_network() const { return rep_; }
  // Zero-load NoC cycles from accepting a request at `in` binding `src` to its BEGIN_REQ at `out`
  // binding `dst` (same formula for replies, nodes swapped).
  Cycle zero_load_latency(std::uint32_t src, std::uint32_t dst, std::uint32_t flits) const {
    return req_.zero_load_latency(req_.hops(cfg_.in_node[src], cfg_.out_node[dst]), flits);
  }

 private:
  bool on_request(std::uint32_t src, Payload& gp, Cycle now);
  bool on_reply(std::uint32_t tgt, Payload& gp, Cycle now);
  void step_method();
  void kick() { step_ev_.notify(sc_core::SC_ZERO_TIME); }
  // The `out` binding of a request (noc_target, else the address); throws when out of range.
  std::uint32_t target_of(const Payload& gp) const;
  void clear_noc_target(Payload& gp) const;
  void end_of_elaboration() override;

  void in_b_transport(int id, Payload& gp, sc_core::sc_time& d) override;
  unsigned int in_transport_dbg(int id, Payload& gp) override;

  MeshNocConfig cfg_;
  SimContext& ctx_;
  ClockDomain clk_;
  const AddressMap& map_;
  std::uint32_t n_in_, n_out_;
  MeshFabric req_, rep_;  // terminals: `in` bindings 0..n_in_-1, then `out` bindings
  std::vector<Cycle> in_accept_, out_accept_;        // last cycle a request / reply was accepted
  std::vector<Cycle> in_delivered_, out_delivered_;  // last cycle a reply / request was delivered
  Cycle last_step_ = ~Cycle{0};
  bool in_step_ = false;  // accepting held requests: the step end schedules the next step
  bool retry_ = false;    // a request/reply refused during the step: retry next cycle
  Activation step_ev_{Activation::Stage::kNetwork};

  Counter &requests_, &read_requests_, &replies_, &req_flits_, &rep_flits_, &bytes_, &link_flits_;
  Distribution &req_latency_, &rep_latency_, &hops_;
  std::vector<Counter*> port_req_flits_, port_rep_flits_;
};

// Parameters noc.mesh_* / noc.router_latency / noc.link_latency (mesh_noc_params.cpp), declared
// from MeshNocConfig's defaults. flit/header bytes and clock.noc are the crossbar's keys; node
// maps (in_node, in_class, out_node) are set by the topology builder.
class ParamRegistry;
void declare_mesh_params(ParamRegistry& p);
MeshNocConfig mesh_config_from_params(const ParamRegistry& p);

}  // namespace locsim
