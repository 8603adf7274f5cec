// Streaming multiprocessor: resident CTAs and warps, warp schedulers (GTO or loose round-robin),
// per-CTA barriers, shared memory with bank conflicts, and a load/store unit that coalesces each
// warp memory instruction into line requests sent to the L1D over TLM. Each warp has a scoreboard
// (model/scoreboard.h): a load's destination registers stay pending until every line of it
// returns, and the warp stalls at the first instruction that reads or rewrites a pending register
// (or, for instructions that name no registers, waits for all outstanding loads:
// WarpInst::wait_all_loads), so independent loads overlap. A barrier does not wait for loads (as
// in GPGPU-Sim); Exit waits for all. sm.scoreboard = block-all restores the older model, where a
// load blocks its warp until every line returns, for control runs. Stores are acknowledged but do
// not block. The SM wakes only on cycles where a warp can issue or when a response or a CTA
// arrives.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/coalescer.h"
#include "model/cta_policy.h"
#include "model/ring_buffer.h"
#include "model/scoreboard.h"
#include "model/workload/kernel.h"
#include "tlm_components/activation_scheduler.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/sim_context.h"

namespace locsim {

enum class WarpSchedulerPolicy { Gto, Lrr };
enum class ScoreboardMode { Registers, BlockAll };

struct SmConfig {
  std::uint32_t id = 0;
  std::uint32_t cluster = 0;
  SmResources resources;
  std::uint32_t schedulers = 2;
  WarpSchedulerPolicy policy = WarpSchedulerPolicy::Gto;
  // Which scheduler goes first each cycle (and so gets the shared LD/ST and shared-memory
  // ports): rotating with the cycle as in GPGPU-Sim's shader_core_ctx::issue(), or scheduler 0.
  bool rotate_issue = true;
  ScoreboardMode scoreboard = ScoreboardMode::Registers;
  std::uint32_t ldst_queue = 32;      // line requests waiting for the L1 (memory pipeline)
  std::uint32_t shared_latency = 24;  // cycles, conflict-free shared-memory access
  std::uint32_t shared_banks = 32;
  std::uint32_t line_bytes = 128;  // coalescing granularity (L1 line)
  std::uint32_t sector_bytes = 32;
  // Static warp limiting (SWL, seed 004 §7.1 baseline): only the `warp_limit` oldest warps not
  // waiting at a barrier may issue (0: no limit).
  std::uint32_t warp_limit = 0;
  double clock_hz = 1.4e9;
};

class StreamingMultiprocessor : public sc_core::sc_module, public CtaLaunchIf {
 public:
  tlm_utils::simple_initiator_socket<StreamingMultiprocessor> mem;  // to the L1D
  sc_core::sc_export<CtaLaunchIf> launch;
  sc_core::sc_port<CtaCompletionIf> done;

  StreamingMultiprocessor(sc_core::sc_module_name name, const SmConfig& cfg, SimContext& ctx);

  void launch_cta(const Kernel& k, std::uint16_t kernel_seq, std::uint32_t cta) override;
  std::uint32_t resident_ctas() const override { return resident_; }
  const SmConfig& config() const { return cfg_; }
  // Functional read through the memory hierarchy (transport_dbg), for end-of-kernel checks.
  unsigned debug_read(Addr a, std::uint8_t* dst, unsigned n);
  // Diagnostic: one line per warp that is not finished.
  std::string describe_state() const;

 private:
  void end_of_elaboration() override {
    port_.reachable_by(
        dynamic_cast<const tlm::tlm_bw_transport_if<>*>(mem.get_base_export().get_interface()));
  }
  void start_of_simulation() override { port_.link(mem.operator->()); }
  // A warp's own state, reset at every launch (the instruction is not part of it).
  struct WarpState {
    bool active = false;
    bool exited = false;
    bool at_barrier = false;
    bool have_inst = false;
    bool sb_stalled = false;  // `inst` waits on the scoreboard (next to the flags above: refresh)
    std::uint32_t cta_slot = 0;
    std::uint32_t warp_in_cta = 0;
    std::uint64_t age = 0;
    std::uint32_t compute_left = 0;
    Cycle ready_at = 0;
    Cycle sb_since = 0;  // since when (statistics)
  };
  // A warp slot: the state of the warp in it, its current instruction (not reset at launch:
  // fetch() fills it, every stream writes every field; 300 bytes, a third of a warp launch's
  // cost), and a scoreboard and stream storage that keep their buffers from warp to warp (no
  // allocation per warp).
  static_assert(offsetof(WarpState, exited) == offsetof(WarpState, active) + 1 &&
                    offsetof(WarpState, at_barrier) == offsetof(WarpState, active) + 2 &&
                    offsetof(WarpState, have_inst) == offsetof(WarpState, active) + 3 &&
                    offsetof(WarpState, sb_stalled) == offsetof(WarpState, active) + 4,
                "refresh() compares the five flags as bytes");
  struct Warp : WarpState {
    WarpInst inst;
    Scoreboard sb;
    WarpStreamSlot stream;
  };
  struct CtaSlot {
    bool active = false;
    std::uint32_t cta = 0;
    std::uint16_t kernel_seq = 0;
    const Kernel* kernel = nullptr;
    std::uint32_t live_warps = 0;
    std::uint32_t at_barrier = 0;
    std::uint32_t pending_mem = 0;  // line requests without a response
    std::uint64_t launch_seq = 0;   // launch order on this SM (bypass rank, seed 004 §5.2)
    std::uint32_t older = 0;        // resident CTAs launched before this one (its bypass rank)
  };

  // The activation's method: kFast 2 or 4 for fast_path_ with that many schedulers, else 0.
  template <std::uint32_t kFast>
  void cycle_method();
  Cycle cycle_general(Cycle now);
  bool can_issue(std::uint32_t wi, Cycle now) const;
  // Keeps warp wi's bits in masks_ equal to its flags; called after every change of them.
  // Inline and without branches: it runs after every fetch and returned load.
  [[gnu::always_inline]] void refresh(std::uint32_t wi) { refresh(warps_[wi], wi); }
  // The same with the warp at hand (w is warps_[wi]): no index from a pointer difference.
  // new_op: the instruction changed (a fetch); otherwise its global/shared bits stand.
  [[gnu::always_inline]] void refresh(const Warp& w, std::uint32_t wi, bool new_op = true) {
    // active, not exited, not at a barrier, holds an instruction, not waiting on the scoreboard:
    // the five flags compared at once (an inlined five-byte compare).
    static constexpr bool kEligible[5] = {true, false, false, true, false};
    put_bits(w, wi, std::memcmp(&w.active, kEligible, sizeof kEligible) == 0, new_op);
  }
  // After a fetch: the warp is active, not exited and holds an instruction, so it is eligible
  // unless at a barrier or waiting on the scoreboard.
  [[gnu::always_inline]] void refresh_fetched(const Warp& w, std::uint32_t wi) {
    put_bits(w, wi, !w.at_barrier && !w.sb_stalled, true);
  }
  // Writes warp wi's bits: eligible e, and with new_op its instruction's global/shared bits.
  [[gnu::always_inline]] void put_bits(const Warp& w, std::uint32_t wi, bool e, bool new_op) {
    MaskWord& mw = masks_[wi >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (wi & 63);
    const unsigned op = static_cast<unsigned>(w.inst.op) & 7u;
    auto put = [bit](std::uint64_t& v, std::uint64_t all) { v ^= (v ^ all) & bit; };
    put(mw.eligible, std::uint64_t{0} - e);
    if (!new_op) return;
    put(mw.global, kGlobalAll[op]);
    put(mw.shared, kSharedAll[op]);
  }
  // Per WarpOp: all ones for a global (load, store, atomic) resp. shared-memory instruction.
  static constexpr std::uint64_t kGlobalAll[8] = {
      0, ~std::uint64_t{0}, ~std::uint64_t{0}, ~std::uint64_t{0}, 0, 0, 0, 0};
  static constexpr std::uint64_t kSharedAll[8] = {0, 0, 0, 0, ~std::uint64_t{0}, ~std::uint64_t{0},
                                                  0, 0};
  static_assert(static_cast<unsigned>(WarpOp::Load) == 1 &&
                    static_cast<unsigned>(WarpOp::Store) == 2 &&
                    static_cast<unsigned>(WarpOp::Atomic) == 3 &&
                    static_cast<unsigned>(WarpOp::SharedLoad) == 4 &&
                    static_cast<unsigned>(WarpOp::SharedStore) == 5 &&
                    static_cast<unsigned>(WarpOp::Exit) == 7,
                "kGlobalAll and kSharedAll follow WarpOp (3 bits)");
  void refresh(const Warp& w, bool new_op) {
    refresh(w, static_cast<std::uint32_t>(&w - warps_.data()), new_op);
  }
  // Bit sets over WarpOp: the global (load, store, atomic) and shared-memory instructions.
  static constexpr unsigned kGlobalOps = 1u << static_cast<unsigned>(WarpOp::Load) |
                                         1u << static_cast<unsigned>(WarpOp::Store) |
                                         1u << static_cast<unsigned>(WarpOp::Atomic);
  static constexpr unsigned kSharedOps = 1u << static_cast<unsigned>(WarpOp::SharedLoad) |
                                         1u << static_cast<unsigned>(WarpOp::SharedStore);
  bool eligible(std::uint32_t wi) const { return (masks_[wi >> 6].eligible >> (wi & 63)) & 1u; }
  void update_warp_limit();
  int pick(std::uint32_t sched, Cycle now);
  template <std::uint32_t kS>  // the number of schedulers if known here (2, 4), else 0
  bool issue_gto_one_word(Cycle now);
  template <bool kSwl>  // whether static warp limiting is on (the age test)
  Cycle next_ready_one_word(Cycle now) const;
  void issue(std::uint32_t wi, Cycle now);
  void issue_memory(std::uint32_t wi, Cycle now);
  [[gnu::noinline]] void issue_rare(std::uint32_t wi, Cycle now);
  void fetch(Warp& w, std::uint32_t wi);
  void fetch_issued(Warp& w, std::uint32_t wi, bool was_global);
  // The test inline (once per response), the completion out of line.
  void check_cta_done(std::uint32_t slot) {
    const CtaSlot& c = ctas_[slot];
    if (c.active && !c.live_warps && !c.pending_mem) cta_done(slot);
  }
  void cta_done(std::uint32_t slot);
  void release_barrier(std::uint32_t slot);
  // Sends queued line requests while the port is free, in cycle c; inline at issue_memory() (once
  // per memory instruction on volta, where the port is usually free then) and in the port's
  // END_REQ callback (about half of the calls there, and at an issue while the port is busy, have
  // none to send: both test first).
  void send_queued_at(Cycle c);
  void send_head_at(Cycle c);
  bool on_response(Payload& gp);
  // The rare paths of issue_memory() and on_response(), out of line: atomics' word counts, the
  // data checks and error responses.
  [[gnu::noinline]] void count_atomic_words(const WarpInst& in, const LineRequest& lr,
                                            GpuExtension& e);
  [[gnu::noinline]] void golden_store(const LineRequest& lr, Payload& gp);
  [[gnu::noinline]] void check_response(Payload& gp, const GpuExtension& e);
  void schedule_wake(Cycle c);
  void note_scoreboard(Warp& w, std::uint32_t wi);
  void release_shared_loads(Cycle now);
  // A load line of warp `wi` returned (scoreboard slot `slot`); if that readies the instruction
  // the warp stalls at, it may issue from cycle `at`. Returns whether it was released.
  // `at` is a callable that gives that cycle, asked only for a released warp.
  template <typename AtFn>
  bool release_load(std::uint32_t wi, std::uint32_t slot, AtFn at);

  tlm::tlm_sync_enum nb_transport_bw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return port_.on_bw(gp, ph, d);
  }

  SmConfig cfg_;
  SimContext& ctx_;
  ClockDomain clk_;
  InitiatorPort port_;
  std::vector<Warp> warps_;
  // Per 64 warps: one bit per warp that is active, not exited, not at a barrier and holds an
  // instruction that does not wait on the scoreboard (the issue scans visit only these warps: most
  // of a memory-bound kernel's warps wait for loads), and one bit per warp whose instruction is a
  // global (resp. shared) memory access, so the scans drop those as a block while the LD/ST unit
  // (shared memory) is busy. The three words side by side: refresh() writes them together.
  struct MaskWord {
    std::uint64_t eligible = 0, global = 0, shared = 0;
  };
  std::vector<MaskWord> masks_;
  // Per 64 warps: one bit per warp slot that holds no active warp (a launch takes the lowest).
  std::vector<std::uint64_t> idle_warps_;
  // Per scheduler: the warps it owns (warp i belongs to scheduler i mod schedulers).
  std::vector<std::vector<std::uint64_t>> sched_warps_;
  // With at most 64 warps (one mask word, every built-in platform) the GTO issue and the wake-up
  // scan take a path without the loops over words; sched_word_[s] is sched_warps_[s][0].
  bool one_word_ = false;
  // Per scheduler data in the object (no vector's data pointer to load at each access).
  static constexpr std::uint32_t kMaxSchedulers = 64;  // sm.schedulers' limit
  std::array<std::uint64_t, kMaxSchedulers> sched_word_{};
  int sched_fold_ = -1;        // log2(schedulers) if a power of two up to 32, else -1
  bool gto_one_word_ = false;  // one_word_ and GTO: issue_gto_one_word() issues
  bool fast_path_ = false;     // gto_one_word_, 2 or 4 schedulers, no warp limit: cycle_method<S>
  // The first scheduler of a cycle is now & first_mask_ (0 without rotation, schedulers - 1 for
  // a power of two), or now % schedulers if first_mask_ is all ones.
  std::uint32_t first_mask_ = ~std::uint32_t{0};
  std::vector<CtaSlot> ctas_;
  std::uint32_t resident_ = 0;
  std::array<int, kMaxSchedulers> last_issued_{};  // per scheduler
  std::uint64_t age_counter_ = 0;
  std::uint64_t launch_counter_ = 0;
  RingBuffer<Payload*> ldst_queue_;  // a ring: size() is a subtraction (a deque's is not)
  Cycle ldst_free_at_ = 0;
  // Line requests sent to the L1 in cycle ldst_pop_cycle_: their LD/ST queue slots become free
  // at the next cycle, so the scheduler sees the same occupancy whether the L1 took them before
  // or after cycle_method ran in that cycle (docs/validation.md, "Event-order sensitivity").
  Cycle ldst_pop_cycle_ = ~Cycle{0};
  std::size_t ldst_pops_ = 0;
  std::size_t ldst_occupancy(Cycle now) const {
    return ldst_queue_.size() + (ldst_pop_cycle_ == now ? ldst_pops_ : 0);
  }
  Cycle shared_free_at_ = 0;
  // Shared-memory loads in flight: their destination registers are released at `when`. The warp
  // does not wait at the load itself; as in GPGPU-Sim, the scoreboard holds an LDS's destinations
  // and only the instruction that reads them waits (a shared store holds nothing).
  struct SharedRelease {
    Cycle when;
    std::uint32_t warp, slot;
    bool operator>(const SharedRelease& o) const { return when > o.when; }
  };
  std::priority_queue<SharedRelease, std::vector<SharedRelease>, std::greater<SharedRelease>>
      shared_releases_;
  Cycle shared_next_ = ~Cycle{0};  // shared_releases_.top().when, ~0 while it is empty
  Cycle wake_at_ = ~Cycle{0};
  Activation wake_{Activation::Stage::kCore};
  std::vector<LineRequest> coalesced_;
  std::uint32_t line_sectors_ = 1;  // sectors per line (coalesce()'s inline case)
  // The request of a linear access of whole_line_size_ bytes per lane from a line's start (one
  // line, every byte; issue_memory() sets its address), or size 0 if the line cannot be one.
  LineRequest whole_line_;
  std::uint32_t whole_line_size_ = 0;
  std::uint64_t swl_max_age_ = ~std::uint64_t{0};  // SWL: youngest age allowed to issue
  // Ages at or above it may not issue: swl_max_age_ + 1, or ~0 without a limit (ages never
  // reach ~0); kept with swl_max_age_ so the GTO pick tests one bound.
  std::uint64_t swl_age_bound_ = ~std::uint64_t{0};
  std::vector<std::uint64_t> swl_ages_;

  Counter& warp_insts_;
  Counter& thread_insts_;
  Counter& active_cycles_;
  Counter& mem_insts_;
  Counter& line_requests_;
  Counter& shared_insts_;
  Counter& shared_conflict_cycles_;
  Counter& ldst_stall_;
  Counter& ctas_done_;
  Counter& sb_stall_cycles_;
  Counter& sb_stalled_insts_;
  Distribution& load_latency_;
};

// Parameters (sm.*, clock.core), declared from SmConfig's defaults
// (streaming_multiprocessor_params.cpp).
class ParamRegistry;
void declare_sm_params(ParamRegistry& p);
SmConfig sm_config_from_params(const ParamRegistry& p);

}  // namespace locsim
