// Intra-cluster coalescing (ICC) unit, seed 001 §6 (Figure 9): sits between the L1s of one cluster
// and the cluster's NoC injection port. Every request leaving an L1 is looked up (1 cycle by
// default, §7): a global read first probes the coalesced cache (hit: answered here), then the merge
// table (hit: waits for the outstanding request; miss: allocates an entry if one is free and goes
// to the NoC); writes and atomics bypass both (and invalidate a CC copy). A reply that leads a
// merge-table entry is broadcast to every SM of its list and, when it had more than one requester,
// fills the coalesced cache; any other reply goes to its own SM. Replies wait for their L1 in
// bounded per-L1 broadcast queues: a reply (or a coalesced-cache hit) is taken only when every
// queue it goes to has room, otherwise the NoC port (or the L1) holds it: back-pressure, no loss.
// The unit also measures the cluster's intra-cluster locality (equation 1) on the requests it
// receives, i.e. before coalescing, exactly where the paper counts them.
#pragma once
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/coalesced_cache.h"
#include "model/intra_cluster_locality.h"
#include "tlm_components/activation_scheduler.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/merge_table_unit.h"
#include "tlm_components/sim_context.h"
#include "tlm_components/timed_queue.h"

namespace locsim {

struct IccConfig {
  std::uint32_t cluster = 0;
  std::uint32_t first_sm = 0;  // SM id of the cluster's first L1 (binding 0 of `cpu`)
  std::uint32_t sms = 1;       // L1s bound to `cpu`, in SM order
  bool merge_table = true;
  std::uint32_t merge_entries = 48;              // seed 001 §6.2
  MergeTableModel model = MergeTableModel::Tlm;  // the merge table's model: TLM, RTL or both
  bool coalesced_cache = false;
  std::uint32_t cc_entries = 24;  // seed 001 §6.3
  std::uint32_t latency = 1;      // lookup cycles (seed 001 §7: one cycle)
  std::uint32_t queue = 8;        // requests buffered towards the NoC port
  // Packets (replies, broadcast copies, CC hits) buffered towards each L1. 8: GPGPU-Sim's
  // cluster ejection buffer
  // (-gpgpu_n_cluster_ejection_buffer_size, default 8 packets; seed 001 ran GPGPU-Sim 3.2.2).
  std::uint32_t broadcast_queue = 8;
  std::uint32_t line_bytes = 128;
  Cycle locality_window = 2000;  // equation (1) window W, cycles
  double clock_hz = 1.4e9;
};

class IntraClusterCoalescer : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<IntraClusterCoalescer> cpu;  // from the L1s
  tlm_utils::simple_initiator_socket<IntraClusterCoalescer> noc;          // to the NoC port

  IntraClusterCoalescer(sc_core::sc_module_name name, const IccConfig& cfg, SimContext& ctx);

  // Kernel boundary: the CC is not coherent, like the L1s.
  void invalidate_all();
  std::uint32_t merge_entries_in_use() const { return table_->in_use(); }
  const IntraClusterLocality& locality() const { return icl_; }

 private:
  bool try_accept(std::uint32_t port, Payload& gp, Cycle now);
  void process(std::uint32_t port, Payload& gp, Cycle now);
  bool on_reply(Payload& gp);
  bool take_reply(Payload& gp);
  bool broadcast_room(const std::vector<std::uint16_t>& sms);
  bool can_accept(std::uint32_t port) const;
  void deliver(std::uint32_t port, Payload& gp, Cycle when, std::uint64_t group);
  void step_method();
  void kick(Cycle c) { step_ev_.notify_at(clk_.ps_at(c)); }
  std::uint32_t port_of(const Payload& gp) const;

  tlm::tlm_sync_enum nb_fw(int id, Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return up_[static_cast<std::size_t>(id)]->on_fw(gp, ph, d);
  }
  tlm::tlm_sync_enum nb_bw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return down_.on_bw(gp, ph, d);
  }
  void b_transport(int, Payload& gp, sc_core::sc_time& d) { noc->b_transport(gp, d); }
  unsigned int transport_dbg(int, Payload& gp) { return noc->transport_dbg(gp); }

  IccConfig cfg_;
  SimContext& ctx_;
  ClockDomain clk_;
  std::vector<std::unique_ptr<TargetPort>> up_;
  InitiatorPort down_;
  std::unique_ptr<MergeTableUnit> table_;
  LockstepMergeTable* lockstep_ = nullptr;  // table_ in icc.model=lockstep
  CoalescedCache cc_;
  IntraClusterLocality icl_;
  TimedQueue<Payload*> to_noc_;
  // One L1's broadcast queue. A slot is one packet towards the L1: a reply (with the requests of
  // that L1 it answers, §6.1 broadcasts one packet per SM of the list) or a coalesced-cache hit.
  // Slots are released in order; the L1 takes one request's response per cycle.
  struct BroadcastSlot {
    Cycle when;
    std::uint64_t group;  // the reply or hit that made the slot
    std::vector<Payload*> reqs;
    std::size_t next = 0;
  };
  std::vector<std::deque<BroadcastSlot>> to_l1_;
  std::uint64_t group_ = 0;       // numbers the replies and hits
  std::vector<Cycle> delivered_;  // last cycle a response went to each L1
  Cycle last_accept_ = ~Cycle{0};
  std::uint32_t rr_ = 0;  // round-robin among the L1s with a held request
  Activation step_ev_{Activation::Stage::kCoalescer};
  std::vector<std::uint16_t> sms_scratch_;
  std::vector<Payload*> merged_scratch_;

  Counter &reads_, &writes_, &merge_hits_, &merge_allocs_, &merge_full_, &merge_uncovered_,
      &cc_hits_, &cc_fills_, &cc_evictions_, &cc_invalidations_, &broadcasts_, &noc_requests_,
      &broadcast_stalls_;
  Distribution& broadcast_depth_;
  Counter &icl_requests_, &icl_line_, &icl_data_;
  Counter* rtl_cycles_ = nullptr;       // icc.model=rtl|lockstep
  Counter* lockstep_checks_ = nullptr;  // icc.model=lockstep
  Counter* lockstep_probes_ = nullptr;  // icc.model=lockstep
  void count_table_op();
};

}  // namespace locsim
