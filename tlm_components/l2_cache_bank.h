// One L2 sub-partition (bank): sectored, write-back, write-allocate, LRU, with an MSHR table that
// merges requests to an in-flight line and a queue of fills and write-backs towards its memory
// controller. Loads, stores and atomics are served here in arrival order per line; atomics are
// performed here (read-modify-write of 32-bit adds) and return the old values. A store that fully
// covers its sectors allocates without fetching; a partial store to an invalid sector fetches it
// first (fetch-on-write). The decisions are model/l2_cache_policy.h's; the accept/retry/response
// timing is CacheShell's.
#pragma once

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "model/address_map.h"
#include "model/bounded_queue.h"
#include "model/l2_cache_policy.h"
#include "model/line_data.h"
#include "model/ring_buffer.h"
#include "model/tag_array.h"
#include "tlm_components/activation_scheduler.h"
#include "tlm_components/cache_shell.h"
#include "tlm_components/sim_context.h"

namespace locsim {

struct L2Config {
  // One sub-partition of a GTX480 L2 (768 KiB over 12 sub-partitions, 16 ways, 32 B sectors).
  CacheGeometry geometry{32, 16, 128, 32, SetIndexing::Linear};
  // One entry per sector in flight: 128 = the 32 four-sector lines GPGPU-Sim's GTX480 L2 tracks.
  std::uint32_t mshr_entries = 128;
  std::uint32_t mshr_max_merge = 8;
  std::uint32_t miss_queue = 8;  // fills + write-backs waiting for the memory controller
  // Requests that have passed the ROP stage and wait for the tag lookup; when it is full the
  // crossbar is refused. GPGPU-Sim's icnt-to-L2 queue (-gpgpu_dram_partition_queues, first
  // field): 8 is its default and its 3.x GTX480 setting (4.x's SM2_GTX480 config has 64).
  std::uint32_t input_queue = 8;
  // The sub-partition's pipeline, in L2 cycles (docs/architecture.md, "L2 and DRAM latency").
  // Every request passes the ROP stage (a fixed delay) and then the tag lookup, where the
  // hit/miss and MSHR decision is taken, as in GPGPU-Sim; a hit then reads the data array,
  // a miss leaves for DRAM after the tag lookup and its fill is written to and read from the data
  // array on the way back. GTX480 values: GPGPU-Sim's -gpgpu_l2_rop_latency 120 (its 700 MHz
  // core cycles = this L2 clock); the tag/data split is locsim's assumption.
  std::uint32_t rop_latency = 120;
  std::uint32_t tag_latency = 4;
  std::uint32_t data_latency = 8;
  std::uint32_t hit_latency() const { return rop_latency + tag_latency + data_latency; }
  double clock_hz = 700e6;
  // Sets indexed on the sub-partition-local address (what a banked L2 does); false indexes on the
  // global address, which leaves all but a few sets of each bank unused (the pre-fix behaviour,
  // kept for comparison).
  bool bank_local_index = true;
};

// final: its constructor's direct_calls<L2CacheBank>() binds this class's process(), stalled(),
// on_response_from_below() and send_down() without dispatch, which a subclass's overrides would
// miss.
class L2CacheBank final : public CacheShell {
 public:
  tlm_utils::simple_target_socket<CacheShell>& noc = upper;      // from the crossbar
  tlm_utils::simple_initiator_socket<CacheShell>& dram = lower;  // to the memory controller

  // map: the platform's address map, for bank-local set indexing (must outlive the bank; null =
  // global indexing).
  L2CacheBank(sc_core::sc_module_name name, const L2Config& cfg, SimContext& ctx,
              const AddressMap* map = nullptr);
  const TagArray& tags() const { return policy_.tags(); }

 private:
  friend class CacheShell;  // direct_calls()
  // Acceptance from the crossbar: into the ROP stage, unless the input queue behind it is full.
  int process(Payload& gp, Cycle now) override;
  // The tag stage: the head of the ROP stage, once through it, gets its hit/miss/MSHR decision
  // (0 if taken, else the L2Fail for which it waits; it then blocks the requests behind it).
  // Always inline in tag_method(), its only caller (a call and its register saves per request).
  [[gnu::always_inline]] inline int decide(Payload& gp, Cycle now);
  void tag_method();
  // A request merged into a fill in flight at `now` (merged_at_), out of line: the hash insert
  // inline made decide() too large for GCC to inline the payload pool's allocate() in it.
  [[gnu::noinline]] void note_merged(const Payload& gp, Cycle now);
  void wake_tag_stage(Cycle when);
  // The tag and down stages' runs, each asked for through ask() with its cycle kept.
  void ask_tag(Cycle c) { ask(tag_ev_, tag_cycle_, c); }
  void ask_down(Cycle c) { ask(down_ev_, down_cycle_, c); }
  void stalled(int cause, std::uint64_t cycles) override;
  bool on_response_from_below(Payload& gp) override;
  void send_down() override;
  // send_down() at cycle `now` whose next edge's cycle is `next_edge` (down_method: both its
  // run's cycle; the link's END_REQ: from the time).
  void send_down_at(Cycle now, Cycle next_edge);
  void b_transport(Payload& gp, sc_core::sc_time& d) override;
  unsigned int transport_dbg(Payload& gp) override;
  // Applies a load/store/atomic to a line whose needed sectors are valid (e: gp's extension;
  // way >= 0: the line is in (set, way), and `sectors` are its sectors, L2Decision::need).
  // Inline for the usual run without the data array: a load only completes, a store to a known
  // frame marks its sectors dirty.
  [[gnu::always_inline]] void perform(Payload& gp, const GpuExtension& e, Addr line, int way = -1,
                                      std::uint32_t set = 0, std::uint32_t sectors = 0) {
    if (!data_.enabled()) {
      if (e.kind == AccessKind::Load || e.kind == AccessKind::Prefetch) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
      }
      if (e.kind == AccessKind::Store && way >= 0) {
        policy_.mark_written_sectors(set, way, sectors);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
      }
    }
    perform_data(gp, e, line, way, set);
  }
  void perform_data(Payload& gp, const GpuExtension& e, Addr line, int way, std::uint32_t set);
  // The line's bytes (data-integrity mode only). The test inline: GCC called LineDataArray::at()
  // out of line from every fill to find it disabled.
  std::uint8_t* line_data(Addr line) {
    return data_.enabled() ? data_.at(policy_.tags(), line) : nullptr;
  }
  // A displaced line `ev` whose frame was (set, way): counted, and written back if dirty.
  void write_back(const Eviction& ev, std::uint32_t set, int way, Cycle ready);
  struct Queued {
    Payload* gp;
    Cycle ready;
  };
  // A fill or write-back for the memory controller: it enters the miss queue from cycle `ready`
  // on (after the ROP and tag stages of the access that caused it).
  void push_down(Payload* gp, Cycle ready) { pipe_.push_back(Queued{gp, ready}); }
  void down_method();
  // After a decision at `now` pushed to pipe_, which was empty before it: what send_down() would
  // do then. (A decision behind an older entry changes nothing: that entry's wake-up is asked
  // for, or it waits for the link below.) send_down() would move nothing here: a pipe_ entry is
  // moved (or, with the miss queue full, waits for the link below, whose release calls
  // send_down) in the first pass of its `ready` cycle, before the tag stage, and the miss queue
  // is emptied whenever the link is free. What is left of it is the wake-up for the new head.
  // Always inline: GCC's choice flipped with decide()'s other code (called, 13 instructions per
  // transaction on fermi vecadd).
  [[gnu::always_inline]] void wake_down(Cycle now) {
    if (!pipe_.empty() && pipe_.front().ready > now) ask_down(pipe_.front().ready);
  }
  // Fills and write-backs in the tag stage count against the miss queue's room (decide() takes
  // none without it), so at most cfg_.miss_queue of them: a ring sized once, its push inline.
  class Pipe {
   public:
    explicit Pipe(std::uint32_t n) {
      std::uint32_t c = 1;
      while (c < n) c *= 2;
      buf_.resize(c);
      mask_ = c - 1;
    }
    bool empty() const { return head_ == tail_; }
    std::uint32_t size() const { return tail_ - head_; }
    const Queued& front() const { return buf_[head_ & mask_]; }
    void pop_front() { ++head_; }
    void push_back(const Queued& q) {
      sc_assert(size() <= mask_);
      buf_[tail_++ & mask_] = q;
    }

   private:
    std::vector<Queued> buf_;
    std::uint32_t head_ = 0, tail_ = 0, mask_ = 0;
  };

  // What the request, tag, down and fill runs read first, together (spread over the object,
  // nearly every member read was a host cache line of its own), then the policy.
  Cycle last_decision_ = ~Cycle{0};
  Cycle tag_cycle_ = 0, down_cycle_ = 0;  // the tag and down stages' pending runs (ask())
  int held_cause_ = 0;                    // the L2Fail the head of rop_ last waited for
  // The last fill's sectors and their bytes (no sector: no byte).
  std::uint32_t fill_missing_ = 0;
  Cycle held_since_ = 0;
  // Bank-local linear set indexing: the map (null otherwise) and its baseline bank-local address,
  // for decide()'s set index without the virtual call while the map has no ranges.
  const AddressMap* inline_index_map_ = nullptr;
  BankLocalBaseline bank_local_;
  ByteMask fill_bytes_;
  SimContext& ctx_;
  // Requests in the ROP stage and the input queue behind it, in acceptance (hence `ready`)
  // order; those with `ready` <= now have passed the ROP stage.
  RingBuffer<Queued> rop_;
  // Fills and write-backs in the tag stage, in decision (hence `ready`) order; they count
  // against the miss queue's room.
  Pipe pipe_;
  BoundedQueue<Payload*> miss_queue_;
  L2Config cfg_;
  // Decision cycle of requests merged into an in-flight fill: their response cannot leave
  // before their own pass through the tag and data stages (a fill can return within them).
  std::unordered_map<const Payload*, Cycle> merged_at_;
  LineDataArray data_;  // only in data-integrity mode
  Activation tag_ev_{Activation::Stage::kL2Tag};
  Activation down_ev_{Activation::Stage::kL2Down};  // the head of pipe_ becomes ready
  std::unique_ptr<L2BankIndex> index_;  // bank-local set indexing (before policy_: it uses it)
  L2CachePolicy<Payload*> policy_;      // the decisions (model/l2_cache_policy.h)

  Counter &accesses_, &hits_, &misses_, &mshr_hits_, &rf_, &rf_line_, &rf_mshr_, &rf_merge_,
      &rf_mq_, &input_full_, &writebacks_, &evictions_, &stores_, &atomics_, &fills_;
};

// Parameters (l2.*, clock.l2), declared from L2Config's defaults (l2_cache_bank_params.cpp);
// l2.size is split over `subpartitions` banks.
class ParamRegistry;
void declare_l2_params(ParamRegistry& p);
L2Config l2_config_from_params(const ParamRegistry& p, std::uint64_t subpartitions);

}  // namespace locsim
