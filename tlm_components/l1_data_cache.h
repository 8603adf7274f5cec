// Per-SM L1 data cache (Fermi-style): allocate-on-miss, LRU, write-through, no-write-allocate and
// write-evict for global stores, atomics bypass (performed at the L2), MSHR merging, a miss queue
// towards the NoC. A request that cannot get a line, an MSHR entry, an MSHR merge slot or a miss
// queue slot is a reservation failure: the L1 withholds END_REQ and the SM's memory pipeline stalls
// until the resource frees. One request is accepted and one response delivered per cycle. The
// decisions are model/l1_cache_policy.h's; the accept/retry/response timing is CacheShell's.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/bounded_queue.h"
#include "model/l1_cache_policy.h"
#include "model/line_data.h"
#include "tlm_components/cache_shell.h"
#include "tlm_components/gpu_extension.h"
#include "tlm_components/sim_context.h"

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
  bool store_hit_update = false;  // l1d.write_hit=update: a store hit keeps the line (see model)
  double clock_hz = 1.4e9;
};

// final: its constructor's direct_calls<L1DataCache>() binds this class's process(), stalled(),
// on_response_from_below() and send_down() without dispatch, which a subclass's overrides would
// miss.
class L1DataCache final : public CacheShell {
 public:
  tlm_utils::simple_target_socket<CacheShell>& cpu = upper;     // from the SM
  tlm_utils::simple_initiator_socket<CacheShell>& mem = lower;  // to the NoC (or a cluster unit)

  L1DataCache(sc_core::sc_module_name name, const L1Config& cfg, SimContext& ctx);

  // Kernel boundary: GPUs drop (non-coherent) L1 contents between kernels.
  void invalidate_all();
  const TagArray& tags() const { return policy_.tags(); }
  std::uint32_t mshr_in_use() const { return policy_.mshr_in_use(); }
  // RankLimit mode: the first `limit` warps/CTAs (by GpuExtension::bypass_rank) use the L1.
  void set_bypass_limit(std::uint32_t limit) { policy_.set_bypass_limit(limit); }
  std::uint32_t bypass_limit() const { return policy_.bypass_limit(); }
  // Seed 000 (the ldesc mechanism): per-data-structure treatment of the running kernel (NO-REUSE
  // bypass, pin level) and the periodic unpin (R4.3, every `unpin_period` cycles, 0 = never).
  // The first call registers the l1d.ldesc_* statistics.
  void enable_locality_descriptor(Cycle unpin_period);
  void set_ds_treatment(std::vector<DsTreatment> t) { policy_.set_ds_treatment(std::move(t)); }
  // Seed 000 §2.1's working set: distinct lines this SM's loads touched, counted per kernel into
  // l1d.working_set_lines at flush_working_set() (the first call to enable registers it).
  void enable_working_set();
  void flush_working_set();
  // R6.3's number_of_active_tiles of data structure `ds`: distinct D-Tiles of its descriptor
  // touched by the CTAs resident on this SM (kept by the ldesc mechanism).
  void set_active_tiles(std::uint16_t ds, std::uint32_t n) {
    if (ds >= active_tiles_.size()) active_tiles_.resize(ds + 1u, 0);
    active_tiles_[ds] = n;
  }
  // Observers of the load stream and of reservation failures (bypassing parameter generators).
  std::function<void(Addr line, const GpuExtension&)> on_load_access;
  std::function<void(std::uint64_t cycles)> on_reservation_fail;
  // Seed 002 (shared L1): the outcome of every load the L1 looks up (Hit, MshrMerge, Miss or
  // SectorMiss; bypasses are not lookups), and every fill it receives from below.
  std::function<void(Addr line, L1Outcome, const Payload&)> on_load_outcome;
  std::function<void(Addr line)> on_fill;
  // Drops a present line that no fill is pending for (a shared L1's leftover private copy,
  // seed 002 R5.8); counted as an eviction.
  void drop_line(Addr addr);

 private:
  friend class CacheShell;  // direct_calls()
  int process(Payload& gp, Cycle now) override;
  void stalled(int cause, std::uint64_t cycles) override;
  void accepted(Payload& gp) override;
  bool on_response_from_below(Payload& gp) override;
  void send_down() override;
  // Sends what waits while the link below is free; true if it sent something. process() calls
  // it without send_down()'s retry_at(): a decision that sends has accepted its request at
  // `now`, so a retry asked for now would only be moved to the next cycle (held request) or
  // dropped (none) after the accept, which the accept itself already does.
  // drain() inline in send_down(), send_below() and fill_request() in process(): a call and its
  // register saves cost about 20 instructions each per transaction.
  [[gnu::always_inline]] inline bool drain();
  // `gp` onto the miss queue (or the bypass queue) and drain(), from process(): straight down
  // when nothing waits and the link is free (the queue's push, out of line, and its pop skipped);
  // queue_below() otherwise (out of line: process() then holds one send of the link inline).
  [[gnu::always_inline]] inline void send_below(Payload* gp, bool via_bypass);
  void queue_below(Payload* gp, bool via_bypass);
  // A fill request for `line` on behalf of the request whose extension is `e`.
  [[gnu::always_inline]] inline Payload* fill_request(const GpuExtension& e, Addr line,
                                                      std::uint32_t fetch, std::uint32_t slot,
                                                      AccessKind kind = AccessKind::Load);
  void maybe_prefetch(const Payload& gp, const L1Decision& demand);
  // process()'s working-set and ldesc bookkeeping (off by default), out of line: inline they
  // made process() too large for GCC to inline the link's send in it.
  [[gnu::noinline]] void note_working_set(Addr line);
  [[gnu::noinline]] void ldesc_hit(Addr line);
  [[gnu::noinline]] void ldesc_merge(Addr line);
  void line_evicted(Addr line);
  // The line's bytes (data-integrity mode only; nullptr without a lookup otherwise).
  std::uint8_t* line_data(Addr line) {
    return data_.enabled() ? data_.at(policy_.tags(), line) : nullptr;
  }
  void maybe_unpin(Cycle now);

  struct LDescStats {
    Counter *no_reuse, *soft_fills, *hard_fills, *unpins;
    Counter *pf_issued, *pf_useful, *pf_late, *pf_evicted_unused;
    Counter *pf_dropped, *pf_drop_outside, *pf_drop_present, *pf_drop_inflight, *pf_drop_line,
        *pf_drop_mshr, *pf_drop_queue;
  };
  // What every decision and fill reads comes first, next to the observers above (each tested
  // per access), then the policy and the counters; the rarely used state last. Spread over the
  // object, nearly every member read was a host cache line of its own.
  std::unique_ptr<LDescStats> ldesc_;  // with the ldesc mechanism only
  Counter* working_set_ = nullptr;
  Counter* store_updates_ = nullptr;  // registered only with l1d.write_hit=update
  SimContext& ctx_;
  // The last fill request's tag-array sectors, their bytes and their NoC sectors (from fetch 0,
  // no sector: no byte).
  std::uint32_t fill_fetch_ = 0, fill_transfer_ = 0;
  bool bypass_turn_ = false;  // the two queues share the port: alternate when both wait
  ByteMask fill_bytes_;
  LineDataArray data_;  // only in data-integrity mode
  BoundedQueue<Payload*> miss_queue_;
  BoundedQueue<Payload*> bypass_queue_;
  L1CachePolicy<Payload*> policy_;  // the decisions (model/l1_cache_policy.h)

  Counter &accesses_, &hits_, &misses_, &mshr_hits_, &sector_misses_, &rf_, &rf_line_, &rf_mshr_,
      &rf_merge_, &rf_mq_, &bypassed_, &pdp_bypasses_, &bypass_stalls_, &evictions_, &stores_,
      &atomics_, &fills_;
  L1Config cfg_;
  std::vector<std::uint32_t> active_tiles_;
  std::unordered_set<Addr> ws_lines_;
  std::unordered_map<Addr, bool> pf_inflight_;  // prefetches in flight: a demand merged (late)
  std::unordered_set<Addr> pf_unused_;          // prefetched lines no demand has used yet
  Cycle unpin_period_ = 0, next_unpin_ = 0;
};

// Parameters (l1d.*), declared from L1Config's defaults (l1_data_cache_params.cpp).
class ParamRegistry;
void declare_l1_params(ParamRegistry& p);
L1Config l1_config_from_params(const ParamRegistry& p);

}  // namespace locsim
