// The work-distribution crossbar of seed 002 §5.5 (spec R7.2, I-10; docs/butterfly.md): a k-ary
// n-fly butterfly that carries only the core-to-core traffic of a shared L1, beside the
// platform's memory crossbar. `in` takes one binding per core (its remote requests), `out` one
// per core (its home side). A request goes to `out[GpuExtension::noc_target]` (the home core),
// which the network clears when it accepts the request; the reply returns to the `in` binding
// the request entered by (RouteExtension) over a second, separate butterfly. Core c is terminal c
// of both butterflies (terminals beyond `cores` are unused). Packets are header + data flits
// (packet_size.h), one request accepted per cycle per `in` binding and one reply per cycle per
// `out` binding, at clock edges; the module sleeps until the butterflies' next event.
// Statistics use the kind "butterfly" (and "butterfly_port") so they stay apart from the NoC's.
#pragma once
#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "model/butterfly_fabric.h"
#include "tlm_components/activation_scheduler.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/interconnect.h"
#include "tlm_components/sim_context.h"

namespace locsim {

struct ButterflyConfig {
  std::uint32_t cores = 28;  // `in` and `out` bindings; terminals 0..cores-1
  // Radix and stages; either 0: butterfly_for(cores). R7.2 sizes the butterfly by all nodes
  // (cores + memory partitions: 36 -> 6-ary 2-fly, 64 -> 4-ary 3-fly); a caller that wants that
  // sets k, n = butterfly_for(cores + partitions).
  std::uint32_t k = 0, n = 0;
  std::uint32_t flit_bytes = 32;
  std::uint32_t header_bytes = 8;
  bool sector_packets = false;       // noc.sector_packets (packet_size.h)
  std::uint32_t input_buffer = 8;    // packets per terminal injection queue
  std::uint32_t switch_buffer = 4;   // packets per switch input
  std::uint32_t output_buffer = 8;   // packets per terminal ejection queue
  std::uint32_t switch_latency = 3;  // NoC cycles per stage (not given: the mesh's router + link)
  double clock_hz = 700e6;           // NoC clock (seed 002 Table 1)
};

class Butterfly : public Interconnect {
 public:
  // Throws std::invalid_argument if k^n < cores or a fabric parameter is invalid. `in` and `out`
  // must be bound exactly `cores` times each (checked at the end of elaboration).
  Butterfly(sc_core::sc_module_name name, const ButterflyConfig& cfg, SimContext& ctx);
  std::uint32_t ports() const override { return cfg_.cores; }
  std::uint32_t targets() const override { return cfg_.cores; }
  std::uint64_t port_request_flits(std::uint32_t p) const override {
    return port_req_flits_[p]->value();
  }
  std::uint64_t port_reply_flits(std::uint32_t p) const override {
    return port_rep_flits_[p]->value();
  }
  Cycle noc_cycles() const override { return clk_.now(); }
  const ButterflyConfig& config() const { return cfg_; }  // k and n resolved
  const ButterflyFabric& request_network() const { return req_; }
  const ButterflyFabric& reply_network() const { return rep_; }
  // Zero-load NoC cycles from accepting a packet of `flits` flits to its delivery.
  Cycle zero_load_latency(std::uint32_t flits) const { return req_.zero_load_latency(flits); }

 private:
  bool on_request(std::uint32_t src, Payload& gp, Cycle now);
  bool on_reply(std::uint32_t tgt, Payload& gp, Cycle now);
  void step_method();
  void kick() { step_ev_.notify(sc_core::SC_ZERO_TIME); }
  // The `out` binding a request names (noc_target); an SC_REPORT_ERROR when out of range.
  std::uint32_t target_of(Payload& gp) const;
  void end_of_elaboration() override;

  void in_b_transport(int id, Payload& gp, sc_core::sc_time& d) override;
  unsigned int in_transport_dbg(int id, Payload& gp) override;

  ButterflyConfig cfg_;
  ClockDomain clk_;
  ButterflyFabric req_, rep_;  // request: core -> home core; reply: home core -> core
  std::vector<Cycle> in_accept_, out_accept_;        // last cycle a request / reply was accepted
  std::vector<Cycle> in_delivered_, out_delivered_;  // last cycle a reply / request was delivered
  std::unordered_map<const Payload*, Cycle> injected_;
  Cycle last_step_ = ~Cycle{0};
  bool in_step_ = false;
  Activation step_ev_{Activation::Stage::kNetwork};

  Counter &requests_, &read_requests_, &replies_, &req_flits_, &rep_flits_, &bytes_, &stage_flits_;
  Distribution &req_latency_, &rep_latency_;
  std::vector<Counter*> port_req_flits_, port_rep_flits_;
};

}  // namespace locsim
