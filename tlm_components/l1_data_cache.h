// Per-SM L1 data cache (Fermi-style): allocate-on-miss, LRU, write-through, no-write-allocate and
// write-evict for global stores, atomics bypass (performed at the L2), MSHR merging, a miss queue
// towards the NoC. A request that cannot get a line, an MSHR entry, an MSHR merge slot or a miss
// queue slot is a reservation failure: the L1 withholds END_REQ and the SM's memory pipeline stalls
// until the resource frees. One request is accepted and one response delivered per cycle.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "model/bounded_queue.h"
#include "model/l1_cache_policy.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/gpu_extension.h"
#include "tlm_components/sim_context.h"
#include "tlm_components/timed_queue.h"

namespace locsim {

struct L1Config {
  bool enabled = true;  // false: every access goes to the L2 (the paper's no-L1 configuration)
  CacheGeometry geometry;
  std::uint32_t mshr_entries = 32;
  std::uint32_t mshr_max_merge = 8;
  std::uint32_t miss_queue = 8;
  std::uint32_t hit_latency = 28;  // cycles from acceptance to the response of a hit
  L1BypassMode bypass = L1BypassMode::None;
  std::uint32_t bypass_queue = 8;  // bypass-path requests buffered towards the NoC
  bool pdp = false;  // protecting-distance replacement and bypass (CBWT baseline, seed 004 §7.1)
  double clock_hz = 1.4e9;
};

class L1DataCache : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<L1DataCache> cpu;     // from the SM
  tlm_utils::simple_initiator_socket<L1DataCache> mem;  // to the NoC (or a cluster unit)

  L1DataCache(sc_core::sc_module_name name, const L1Config& cfg, SimContext& ctx);

  // Kernel boundary: GPUs drop (non-coherent) L1 contents between kernels.
  void invalidate_all() { policy_.invalidate_all(); }
  const TagArray& tags() const { return policy_.tags(); }
  std::uint32_t mshr_in_use() const { return policy_.mshr_in_use(); }
  // RankLimit mode: the first `limit` warps/CTAs (by GpuExtension::bypass_rank) use the L1.
  void set_bypass_limit(std::uint32_t limit) { policy_.set_bypass_limit(limit); }
  std::uint32_t bypass_limit() const { return policy_.bypass_limit(); }
  // Observers of the load stream and of reservation failures (bypassing parameter generators).
  std::function<void(Addr line, const GpuExtension&)> on_load_access;
  std::function<void(std::uint64_t cycles)> on_reservation_fail;

 private:
  ReservationFail process(Payload& gp, Cycle now);
  void send_fill_request(const Payload& gp, Addr line, std::uint32_t fetch);
  bool on_request(Payload& gp);
  bool on_response_from_below(Payload& gp);
  void retry_method();
  void response_method();
  void send_down();
  void note_retry_outcome(ReservationFail f, Cycle now);
  void observe_accepted(Payload& gp);
  std::uint8_t* line_data(Addr line);

  tlm::tlm_sync_enum nb_fw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return up_.on_fw(gp, ph, d);
  }
  tlm::tlm_sync_enum nb_bw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return down_.on_bw(gp, ph, d);
  }
  void b_transport(Payload& gp, sc_core::sc_time& d) { mem->b_transport(gp, d); }
  unsigned int transport_dbg(Payload& gp) { return mem->transport_dbg(gp); }

  L1Config cfg_;
  SimContext& ctx_;
  ClockDomain clk_;
  TargetPort up_;
  InitiatorPort down_;
  L1CachePolicy<Payload*> policy_;  // the decisions (model/l1_cache_policy.h)
  BoundedQueue<Payload*> miss_queue_;
  BoundedQueue<Payload*> bypass_queue_;
  bool bypass_turn_ = false;  // the two queues share the port: alternate when both wait
  TimedQueue<Payload*> responses_;
  std::vector<std::uint8_t> data_;  // line data, only in data-integrity mode
  Cycle last_accept_ = ~Cycle{0};
  Cycle last_response_ = ~Cycle{0};
  ReservationFail held_cause_ = ReservationFail::None;
  Cycle held_since_ = 0;
  sc_core::sc_event retry_ev_, resp_ev_;

  Counter &accesses_, &hits_, &misses_, &mshr_hits_, &sector_misses_, &rf_, &rf_line_, &rf_mshr_,
      &rf_merge_, &rf_mq_, &bypassed_, &pdp_bypasses_, &bypass_stalls_, &evictions_, &stores_,
      &atomics_, &fills_;
};

// Parameters (l1d.*), declared from L1Config's defaults (l1_data_cache_params.cpp).
class ParamRegistry;
void declare_l1_params(ParamRegistry& p);
L1Config l1_config_from_params(const ParamRegistry& p);

}  // namespace locsim
