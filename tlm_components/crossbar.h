// The on-chip network between SMs and L2 sub-partitions: separate request and reply crossbars
// (CrossbarFabric), 1 flit per NoC cycle per link, packets of header + data flits. Consecutive
// `in` bindings can share one injection port and one response FIFO (the reply network's output
// buffer): the SMs of a cluster do. Requests are routed to the L2 sub-partition the address map
// names; replies to the binding the request entered by (RouteExtension), see Interconnect.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "model/address_map.h"
#include "model/crossbar_fabric.h"
#include "model/intra_cluster_locality.h"
#include "tlm_components/activation_scheduler.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/interconnect.h"
#include "tlm_components/sim_context.h"

namespace locsim {

struct CrossbarConfig {
  std::uint32_t bindings = 15;          // initiator-side bindings of `in`
  std::uint32_t bindings_per_port = 1;  // consecutive bindings sharing an injection port
  std::uint32_t flit_bytes = 32;
  std::uint32_t header_bytes = 8;
  bool sector_packets = false;     // one packet per 32 B sector (noc.sector_packets, packet_size.h)
  std::uint32_t latency = 4;       // cycles through the switch after the last flit
  std::uint32_t input_buffer = 8;  // packets per injection port / L2 reply port
  std::uint32_t output_buffer = 8;  // packets per L2-side output
  std::uint32_t response_fifo = 8;  // packets per cluster response FIFO
  double clock_hz = 1.4e9;
  // Intra-cluster locality window (seed 001 eq. 1), measured per port; 0 turns the measurement
  // off (the platform does when ICC units measure it).
  Cycle locality_window = 2000;
  std::uint32_t line_bytes = 128;
  // Routing of a request address to an `out` binding. Empty: the address map's L2
  // sub-partition (one binding per sub-partition). A module crossbar of an MCM-GPU sets it to
  // reach its local sub-partitions and its inter-module links (`targets` bindings then).
  std::function<std::uint32_t(Addr)> route;
  std::uint32_t targets = 0;  // `out` bindings when `route` is set
  // Called for every request the crossbar accepts from `in` binding `src` (statistics of the
  // platform, e.g. NUMA access efficiency); empty: nothing.
  std::function<void(std::uint32_t src, const Payload&)> observe;
  // Flits per cycle of each injection port / each `out` binding; empty: 1 for all. The mcm
  // topology widens the ports of its inter-module links to the links' bandwidth.
  std::vector<std::uint32_t> port_width, target_width;
  // Seed 002 §5.5, shared L1 through the L2 slices: `core_bindings` more `in` bindings (core
  // c's remote requests, injected at c's port) and as many more `out` bindings (core c's home
  // side) after the L2s'. A request naming a core (GpuExtension::noc_target >= the L2 count)
  // crosses the request network to the L2 slice of its line, which forwards it over the reply
  // network to that core; the core's reply returns the same way (R7.1), competing with L2
  // replies for the slices' reply ports.
  std::uint32_t core_bindings = 0;
};

class Crossbar : public Interconnect {
 public:
  // `map` (the platform's address map) must outlive the crossbar; `out` takes one binding per
  // L2 sub-partition, in sub-partition order.
  Crossbar(sc_core::sc_module_name name, const CrossbarConfig& cfg, const AddressMap& map,
           SimContext& ctx);
  std::uint32_t ports() const override { return ports_; }
  std::uint32_t targets() const override { return targets_; }
  std::uint64_t port_request_flits(std::uint32_t p) const override {
    return port_req_flits_[p]->value();
  }
  std::uint64_t port_reply_flits(std::uint32_t p) const override {
    return port_rep_flits_[p]->value();
  }
  std::uint32_t port_width(std::uint32_t p) const override {
    return cfg_.port_width.empty() ? 1 : cfg_.port_width[p];
  }
  Cycle noc_cycles() const override { return clk_.now(); }

 private:
  void observe_locality(std::uint32_t port, const Payload& gp, const GpuExtension& e, Cycle now);
  // `edge`: whether now is cycle now's edge (the callers know it: the port callbacks from the
  // time they read for `now`, the step because it runs on edges only).
  // Inline in the port callback (most requests arrive there, on an edge, and are taken); the
  // step takes held ones through on_held_request().
  [[gnu::always_inline]] inline bool on_request(std::uint32_t src, Payload& gp, Cycle now,
                                                bool edge);
  [[gnu::noinline]] bool on_held_request(std::uint32_t src, Payload& gp, Cycle now);
  bool on_reply(std::uint32_t tgt, Payload& gp, Cycle now, bool edge);
  // A home core's reply to a forwarded request (tgt >= targets_); apart, so that on_reply's L2
  // path (every reply) keeps few registers.
  [[gnu::noinline]] bool on_home_reply(std::uint32_t tgt, Payload& gp, Cycle now, bool edge);
  // Accepts L2 reply gp at target tgt < targets_ (on an edge, !target_blocked(tgt, now)).
  // `step_after`: asks for the step that arbitrates it (the step itself need not: its end does).
  // Inline in its two callers (the step, accept_reply): one call fewer per reply.
  [[gnu::always_inline]] inline void take_reply(std::uint32_t tgt, Payload& gp, Cycle now,
                                                bool step_after);
  // take_reply() for on_reply(), apart: on_reply's usual refusal (an L2 reply off the NoC edge)
  // then saves no registers.
  [[gnu::noinline]] void accept_reply(std::uint32_t tgt, Payload& gp, Cycle now);
  void step_method();
  // A binding's channel became free: a step now. Off an edge that step would only ask for the
  // next edge, so the next edge is asked for directly (one activation fewer, same steps).
  void kick() {
    const std::uint64_t t = sim_time().value();  // (the time read once)
    const Cycle c = t / ps_;
    const std::uint64_t edge = c * ps_;
    if (edge == t)
      ask_step(c, t);
    else
      ask_step(c + 1, edge + ps_);
  }
  // Asks for a step at cycle c's edge. Every step is asked for here, at an edge, so the step
  // takes its cycle from the request it runs for (no read of the time, division or edge test).
  void ask_step(Cycle c) { ask_step(c, ahead_ps(c)); }
  void ask_step(Cycle c, std::uint64_t t) {  // t: c's edge
    if (t < step_ev_.pending()) {
      step_cycle_ = c;
      step_ev_.notify_at(t);
    }
  }
  Cycle step_cycle_ = 0;  // the cycle of the step asked for (pending)
  // The edge of cycle c >= now in ps: not past, so ClockDomain::ps_at()'s compare with the time
  // (a read of it) is not needed.
  std::uint64_t ahead_ps(Cycle c) const { return c * ps_; }
  std::uint32_t target_of(Addr a) const {
    return cfg_.route ? cfg_.route(a) : map_.subpartition(a);
  }
  // Injection port of `in` binding b (a core's remote binding shares its core's port).
  std::uint32_t port_of(std::uint32_t b) const { return port_of_[b]; }
  void forward(Cycle now);
  // Whether injection port p cannot take a request at cycle now (at its edge): it took one
  // this cycle or its FIFO is full; on_request refuses then.
  // Whether injection port p / reply target t can take no packet in cycle `now`. Neither answer
  // changes later in the cycle (a FIFO slot freed by this cycle's arbitration counts from the
  // next), so a blocked packet retries next cycle whatever the order of same-time processes.
  // When a refused packet retries: the next edge off an edge; the next cycle on an edge (a
  // blocked port stays blocked for the cycle) or after the port took a packet this cycle.
  // (The next edge is cycle now + 1 off an edge, now on one: no division.)
  Cycle retry_cycle(bool took_one_now, Cycle now, bool edge) const {
    return now + 1 + (took_one_now && !edge ? 1 : 0);
  }
  // A port callback's call at the current time: its cycle and whether now is its edge, from one
  // read of the time.
  template <class F>
  bool at_now(F&& f) const {
    const std::uint64_t t = sim_time().value();
    const Cycle now = t / ps_;
    return f(now, now * ps_ == t);
  }
  bool port_blocked(std::uint32_t p, Cycle now) const {
    return port_accept_[p] == now || !req_.can_inject(p, now);
  }
  bool target_blocked(std::uint32_t t, Cycle now) const {
    return reply_accept_[t] == now || !rep_.can_inject(t, now);
  }
  // Delivers the ready head of the reply network's output p to its binding if it can.
  void deliver_reply(std::uint32_t p, Cycle now);
  // deliver_reply()'s forwarding legs (shared L1), apart: true if it took the head gp of output
  // p towards a home core.
  [[gnu::noinline]] bool forwarded_reply(std::uint32_t p, Payload* gp, Cycle now);
  // The step's request deliveries while packets are forwarded, and the deliveries to home
  // cores (shared L1 only), apart from the step's usual path.
  [[gnu::noinline]] void deliver_requests_forwarding(Cycle now);
  [[gnu::noinline]] void deliver_home();

  void in_b_transport(int id, Payload& gp, sc_core::sc_time& d) override;
  unsigned int in_transport_dbg(int id, Payload& gp) override;

  CrossbarConfig cfg_;
  SimContext& ctx_;
  ClockDomain clk_;
  std::uint64_t ps_;  // clk_'s period in ps
  const AddressMap& map_;
  std::uint32_t ports_, targets_;
  CrossbarFabric req_, rep_;
  std::vector<std::uint32_t> port_of_;  // port_of(b), by binding (no division per packet)
  std::vector<Cycle> port_accept_;      // last cycle each injection port accepted a request
  std::vector<Cycle> reply_accept_;     // last cycle each L2-side port accepted a reply
  std::vector<Cycle> port_delivered_;   // last cycle each response FIFO delivered
  std::vector<std::uint32_t> port_rr_;  // round-robin among the bindings of a port
  Cycle last_step_ = ~Cycle{0};
  // Injection ports with a request held at one of their `in` bindings, and `out` bindings with
  // a held reply: set when on_request / on_reply refuses one, cleared by step_method once none
  // is held. The step visits only these instead of every port and target.
  std::vector<std::uint64_t> held_ports_, held_targets_;
  static void mark(std::vector<std::uint64_t>& bits, std::uint32_t i) {
    bits[i >> 6] |= std::uint64_t{1} << (i & 63);
  }
  static void unmark(std::vector<std::uint64_t>& bits, std::uint32_t i) {
    bits[i >> 6] &= ~(std::uint64_t{1} << (i & 63));
  }
  Activation step_ev_{Activation::Stage::kNetwork};
  // Via-L2 forwarding (core_bindings > 0): the leg each forwarded packet is on, the slice
  // forwarding it, and the unbounded buffers of the slices and of the home ports (a bound
  // could deadlock the request-request dependency of seed 002 I-14).
  // AtHome: delivered to the home core, which may send the same payload on to L2 (a remote
  // store) before replying; it is then an ordinary request and reply.
  enum class Leg : std::uint8_t {
    RequestToSlice,
    SliceToHome,
    AtHome,
    ReplyToSlice,
    SliceToRequester
  };
  struct Forwarded {
    Leg leg;
    std::uint32_t home, slice;
  };
  std::unordered_map<const Payload*, Forwarded> fwd_;
  std::vector<std::deque<Payload*>> slice_fwd_, home_fwd_;
  Counter* forwarded_ = nullptr;

  Counter &requests_, &read_requests_, &replies_, &req_flits_, &rep_flits_, &bytes_;
  Distribution &req_latency_, &rep_latency_;
  std::vector<Counter*> port_req_flits_, port_rep_flits_;
  // Per port (when locality_window > 0): equation (1) trackers and their counters.
  std::vector<IntraClusterLocality> icl_;
  std::vector<Counter*> icl_requests_, icl_line_, icl_data_;
};

// Parameters (noc.*, clock.noc, cluster.locality_window), declared from CrossbarConfig's
// defaults (crossbar_params.cpp). Sources and port grouping are set by the topology builder.
class ParamRegistry;
void declare_crossbar_params(ParamRegistry& p);
CrossbarConfig crossbar_config_from_params(const ParamRegistry& p);

}  // namespace locsim
