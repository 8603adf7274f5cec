// The per-core front of a shared L1 (seed 002 §3.2, Fig. 4): sits between an SM and its L1D and
// adds the two paths a shared organisation needs.
//
//  * Requester side: each SM request is routed by `decide` (the mechanism's home mapping, DynEB
//    phase and Min(H,L2) choice): to the local L1 unchanged (Fig. 4 (1)), or, skipping the local
//    L1 and MSHR (A), into the Out-queue towards the home core's L1 or straight to the L2 slice
//    over the `remote` socket. The reply passes through without being cached here (6).
//  * Home side: requests from other cores arrive on `home`, wait in the remote In-queue (B), and
//    the arbitrator (C) hands one to the L1 only when no local request wants the L1 link (D):
//    strict local priority, as the paper's arbitrator. The L1 serves them like its own loads
//    (hit, MSHR merge with local misses, fill from L2) and their replies leave by `home` (E).
//
// The port adds no cycle of its own: a local request reaches the L1 in the delta it was issued,
// so a private run through the port is the private baseline. Remote writes evict a leftover copy
// of the line from the local L1 first (a private-phase copy must not outlive the core's own
// write, seed 002 §4.1 R5.8).
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <unordered_set>

#include "tlm_components/activation_scheduler.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/gpu_extension.h"
#include "tlm_components/sim_context.h"

namespace locsim {

struct SharedL1PortConfig {
  std::uint32_t core = 0;
  std::uint32_t remote_queue = 8;  // In-queue and Out-queue depth (spec I-2), requests
  // Shared without Chunk: a remote load's reply carries the whole line (Fig. 6's waste).
  bool chunk = true;
  std::uint32_t line_sectors = 4;  // 32 B sectors per line (full-line replies)
  double clock_hz = 1.4e9;         // core clock (latency statistics)
};

// Where one SM request goes.
struct SharedL1Route {
  enum Kind : std::uint8_t { Local, Home, L2 } kind = Local;
  std::int32_t target = -1;  // Home: the remote network's `out` binding of the home core
};

class SharedL1Port : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<SharedL1Port> cpu;        // from the SM
  tlm_utils::simple_initiator_socket<SharedL1Port> l1;      // to the local L1D
  tlm_utils::simple_initiator_socket<SharedL1Port> remote;  // to the network: homes and L2
  tlm_utils::simple_target_socket<SharedL1Port> home;       // from the network: remote requests

  SharedL1Port(sc_core::sc_module_name name, const SharedL1PortConfig& cfg, SimContext& ctx);

  // The route of an SM request (set by the mechanism before simulation starts).
  std::function<SharedL1Route(const Payload&)> decide;
  // A reply to one of this core's remote requests arrived (from a home, or from L2 when
  // `from_l2`), after `cycles` core cycles (DynEB's counters, seed 002 §4.1).
  std::function<void(const Payload&, bool from_l2, Cycle cycles)> on_remote_reply;
  // A remote store leaves: drop a leftover local copy of `line` (the L1's invalidate).
  std::function<void(Addr line)> drop_local_copy;

  std::size_t in_queue_size() const { return in_queue_.size(); }
  std::size_t out_queue_size() const { return out_queue_.size(); }

 private:
  bool on_cpu_request(Payload& gp);
  bool on_home_request(Payload& gp);
  bool on_l1_response(Payload& gp);
  bool on_remote_response(Payload& gp);
  void feed_l1();
  void arbitrate_method();
  void feed_remote();
  void respond_cpu();
  void respond_home();

  tlm::tlm_sync_enum cpu_fw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return cpu_.on_fw(gp, ph, d);
  }
  tlm::tlm_sync_enum home_fw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return home_.on_fw(gp, ph, d);
  }
  tlm::tlm_sync_enum l1_bw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return l1_.on_bw(gp, ph, d);
  }
  tlm::tlm_sync_enum remote_bw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return remote_.on_bw(gp, ph, d);
  }
  void cpu_b_transport(Payload& gp, sc_core::sc_time& d) { l1->b_transport(gp, d); }
  unsigned int cpu_dbg(Payload& gp) { return l1->transport_dbg(gp); }
  void home_b_transport(Payload& gp, sc_core::sc_time& d) { l1->b_transport(gp, d); }
  unsigned int home_dbg(Payload& gp) { return l1->transport_dbg(gp); }

  SharedL1PortConfig cfg_;
  SimContext& ctx_;
  ClockDomain clk_;
  TargetPort cpu_, home_;
  InitiatorPort l1_, remote_;
  // The SM request not yet accepted: waiting for the L1 link (local priority; `held_sent_` once
  // the L1 has it and END_REQ is pending) or, when remote, for Out-queue space.
  Payload* held_ = nullptr;
  SharedL1Route held_route_;
  bool held_sent_ = false;
  std::deque<Payload*> in_queue_;   // remote requests at this home (B)
  std::deque<Payload*> out_queue_;  // this core's remote requests (A)
  std::deque<Payload*> cpu_responses_, home_responses_;
  struct InFlight {
    Cycle sent;
    bool to_l2;
  };
  std::unordered_map<const Payload*, InFlight> remote_inflight_;  // this core's remote requests
  std::unordered_set<const Payload*> served_;  // at this L1 on behalf of another core
  void enqueue_remote(Payload& gp, const SharedL1Route& r);

  Counter &local_, &remote_home_, &remote_l2_, &served_remote_, &in_full_, &out_full_;
  Distribution& remote_latency_;
  Activation arb_ev_{Activation::Stage::kL1Port};
};

}  // namespace locsim
