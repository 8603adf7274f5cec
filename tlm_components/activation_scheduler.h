// The wake-ups of locsim's blocks, in a canonical order.
//
// Each block process that used to be an SC_METHOD sensitive to one sc_event is an Activation:
// notify(delay) asks for a run at now + delay, the earliest request wins (as for a method's
// static event). One SystemC process, the ActivationScheduler, runs all of them: it is woken
// once per distinct time that has work, and runs that time's activations in passes (a pass is
// a delta cycle: a request for "now" made by a process that already ran this pass runs in the
// next pass), each pass in rank order.
//
// Why: SystemC's timed-event queue is a heap ordered by time alone, so processes due at the
// same time run in an order that depends on the rest of the heap, and the blocks arbitrate
// first come, first served. Any change of wake-ups (even one that does nothing) then moved
// simulated numbers (docs/performance.md). With a rank per process the order of same-time
// activations depends only on the simulated state, and the wake-ups cost a comparison of two
// integers instead of SystemC's event heap and process dispatch.
//
// Run-ahead: when the next due time comes before anything else in SystemC's kernel (no other
// process runnable now, no event due before that time) and before the limit its owner set, the
// scheduler steps to it itself instead of returning to the kernel to be woken again: the same
// activations in the same order, without the kernel's round trip per distinct time (about 530
// host instructions, 2.3 times per memory transaction on fermi vecadd; docs/performance.md).
// sim_time() reports the scheduler's time meanwhile. On return the kernel is woken at the time
// reached, so its time agrees again before any other process runs. The kernel is asked about
// its other work at the first step and again only after a block notified a SystemC event
// (which adds sim_time_ahead_by() to its delay, and that call is the signal), not before every
// step.
//
// The rank is (stage, registration order): blocks nearer the memory run first within a time,
// as a cycle-driven simulator steps its pipeline from the DRAM back to the cores so that a
// resource freed downstream is seen upstream in the same cycle. `sim.order_seed` replaces the
// registration order by a pseudo-random one, to measure how much a result depends on the order
// of same-time activations (docs/validation.md, "Event-order sensitivity").
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "model/time_index.h"
#include "tlm_components/sim_time.h"

namespace locsim {

class ActivationScheduler;

// Aligned to a host cache line, the fields a run and a request read first: a run reads pending_,
// obj_ and fn_, a request pending_, sched_, word_ and bit_ (apart, they took two lines in most
// blocks: about 0.4 more data-cache misses per activation).
class alignas(64) Activation {
 public:
  // Same-time order: lower stages run first.
  enum class Stage : std::uint8_t {
    kMemory = 0,  // memory controllers
    kL2Down,      // L2 bank: misses and write-backs towards the DRAM
    kL2Tag,       // L2 bank: tag stage
    kL2Response,  // L2 shell: responses to the network
    kL2Request,   // L2 shell: held requests
    kNetwork,     // crossbar, mesh, butterfly, inter-module links
    kCoalescer,   // intra-cluster coalescers
    kL1Port,      // shared-L1 request ports
    kL1Response,  // L1 shell: responses to the core
    kL1Request,   // L1 shell: held requests
    kCore,        // streaming multiprocessors
    kDispatch,    // CTA dispatcher
  };
  static constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

  explicit Activation(Stage stage) : stage_(stage) {}
  Activation(const Activation&) = delete;
  Activation& operator=(const Activation&) = delete;

  // Registers the process `Method` of `obj` (call once, during elaboration).
  template <auto Method, class T>
  void bind(T* obj, const std::string& name) {
    obj_ = obj;
    fn_ = [](void* o) { (static_cast<T*>(o)->*Method)(); };
    attach(name);
  }

  // A run at now + delay; SC_ZERO_TIME: in the next pass of the current time.
  void notify(const sc_core::sc_time& delay) { notify_at(sim_time().value() + delay.value()); }
  // A run at this absolute time (ps), not before now (ClockDomain::ps_at() gives a cycle's).
  void notify_at(std::uint64_t t_ps) {
    if (t_ps < pending_) request(t_ps);  // else an earlier (or this) run is already asked for
  }
  // Moves the pending run to the later time t_ps (a run asked for earlier would find nothing to
  // do before t_ps). The earlier request stays in the scheduler as a stale entry, skipped.
  void postpone(std::uint64_t t_ps) {
    pending_ = kNever;
    request(t_ps);
  }
  // Withdraws the pending run (it stays in the scheduler as a stale entry, skipped).
  void cancel() { pending_ = kNever; }
  // The time of the pending run (ps), kNever if none.
  std::uint64_t pending() const { return pending_; }
  const std::string& name() const { return name_; }

 private:
  friend class ActivationScheduler;
  void attach(const std::string& name);
  void request(std::uint64_t t_ps);

  std::uint64_t pending_ = kNever;  // earliest requested run
  void* obj_ = nullptr;
  void (*fn_)(void*) = nullptr;
  ActivationScheduler* sched_ = nullptr;
  std::uint64_t bit_ = 0;  // its bit in a bucket: the mask and the word (slot_ / 64)
  std::uint32_t word_ = 0;
  std::uint32_t slot_ = 0;  // position in the same-time order
  Stage stage_;
  std::uint64_t rank_ = 0;
  std::string name_;
};

class ActivationScheduler {
 public:
  // The scheduler of the current simulation context (created at the first registration).
  static ActivationScheduler& get();

  // Makes same-time order pseudo-random per seed (0: stage, then registration order). During
  // elaboration only.
  void set_order_seed(std::uint64_t seed);

  // Passes run so far (distinct (time, delta) steps). The activations are not counted: an
  // increment per activation was 1 host instruction in 12 of the pass loop's.
  std::uint64_t passes() const { return passes_; }
  // Times the scheduler reached by stepping itself (run-ahead) rather than being woken by
  // SystemC's kernel.
  std::uint64_t steps_ahead() const { return steps_ahead_; }

  // Lets run() step through its own due times up to t_ps (absolute, ps) without returning to
  // SystemC's kernel, while no other SystemC process has anything to do before them (0: never,
  // the default). The caller promises that nothing outside the blocks' processes reads SystemC's
  // time or notifies a SystemC event from inside them before t_ps, and the blocks notify SystemC
  // events only with sim_time_ahead_by() added to the delay: GpuPlatform::simulate() sets
  // it to the end of each sc_start slice; a program that runs the kernel itself (a virtual
  // platform, a test) leaves it off.
  void set_run_ahead_limit(std::uint64_t t_ps) { run_ahead_limit_ = t_ps; }

 private:
  friend class Activation;
  // The activations due at one time: a bit per process, at its position in the same-time
  // order, so a pass visits them in rank order without sorting and a repeated request costs
  // nothing.
  // A bucket is named by the address of its first word: each is an allocation of its own that
  // never moves, so a request sets its bit without reading a base pointer, and a pass holds the
  // address across the activations' calls. The word before it keeps the index entry its time
  // went to (a hint for its removal).
  struct Due {
    std::uint64_t t;
    std::uint64_t* bucket;
  };

  ActivationScheduler();
  void add(Activation* a);
  // Always inline: GCC left an out-of-line copy for some callers once enter() used visit().
  __attribute__((always_inline)) void request(Activation* a, std::uint64_t t) {
    a->pending_ = t;
    enter(a, t);  // before finalize() the index is empty: enter_new() then only arms
  }
  __attribute__((always_inline)) void enter(Activation* a, std::uint64_t t) {
    // Most requests repeat one of a dozen pending times, the next edge of each clock domain: the
    // index finds it without searching due_ (about 80 instructions, docs/performance.md). Such a
    // time needs no arming: wake_ is armed for the earliest pending time or earlier (0 inside
    // run()), so only a new time (enter_new()) may arm it. The time last found or entered is
    // compared first: same-time processes of one clock ask for the same next edge in a row.
    if (t == last_t_) {
      last_b_[a->word_] |= a->bit_;
      return;
    }
    index_.visit(
        t,
        [this, a, t](std::uint64_t* b) {
          last_t_ = t;
          last_b_ = b;
          b[a->word_] |= a->bit_;
        },
        [this, a, t](std::size_t e) { enter_new(a, t, e); });
  }
  // A time not in the index: the time being run (its next pass) or a new pending time.
  void enter_new(Activation* a, std::uint64_t t, std::size_t e);
  void enter_slow(Activation* a, std::uint64_t t, std::size_t e);
  void grow_due();
  std::uint64_t* alloc_bucket();
  void arm(std::uint64_t t);
  void finalize();
  void run();
  template <std::size_t W>
  void run_times();
  // run_times<W> for W = 1..8 at index W, the general loop (W = 0) at index 0.
  using RunTimes = void (ActivationScheduler::*)();
  template <std::size_t... W>
  static constexpr RunTimes run_times_for(std::size_t words, std::index_sequence<W...>);
  // The run-ahead's questions to SystemC's kernel (run()): false if another process is
  // runnable now, else its next event time in kernel_next (kNever: none).
  bool ask_kernel(std::uint64_t now, std::uint64_t& kernel_next);
  void check_kernel_next(std::uint64_t now);
  void report_late_event();
  template <std::size_t W>
  void run_pass(std::uint64_t* b, std::uint64_t now);
  void run_word(std::uint64_t* w, Activation* const* row, std::uint64_t now);
  static std::uint64_t rank_of(std::uint64_t seed, Activation::Stage stage, std::uint32_t seq);

  std::vector<Activation*> all_;      // registration order
  std::vector<Activation*> by_slot_;  // same-time order (after finalize())
  std::size_t words_ = 0;             // 64-bit words per bucket
  RunTimes run_times_ = nullptr;      // run()'s pass loop for words_ (finalize())
  // Distinct pending times, the earliest last (at due_top_), after a kNever sentinel at the
  // front. The vector is the storage, [data(), due_top_] the times: enter_new()'s fast path then
  // needs no capacity check of its own and calls nothing (no saved registers).
  std::vector<Due> due_;
  Due* due_top_ = nullptr;
  Due* due_end_ = nullptr;  // due_.data() + due_.size() in run(), due_top_ + 1 outside
  // Every bucket's storage (a header word, then words_ words).
  std::vector<std::unique_ptr<std::uint64_t[]>> bucket_store_;
  // Buckets not in use: each entry of due_ above due_top_ holds one (so a new time finds its
  // bucket where it goes, and room in due_ means a free bucket), and spare_ one more outside
  // run()'s passes (a time's bucket leaves due_ while its passes read it; spare_ takes its place
  // in due_ and the bucket becomes spare_ when they end).
  std::uint64_t* spare_ = nullptr;
  // The times of due_ -> their buckets. 256 entries for about a dozen times: a request's probe
  // and a removal's backward shift rarely meet a neighbour.
  BasicTimeIndex<std::uint64_t*> index_{8};
  // A pending time (in due_ and the index) and its bucket, or kNever: the last request's, so that
  // a repeated request skips the index's probe. Cleared when that time's passes begin.
  std::uint64_t last_t_ = Activation::kNever;
  std::uint64_t* last_b_ = nullptr;
  sc_core::sc_event wake_;
  // Time wake_ is notified for (kNever: not notified); 0 inside run(), so that a request does
  // not arm it.
  std::uint64_t armed_ = Activation::kNever;
  std::uint64_t seed_ = 0;
  bool final_ = false;
  std::uint64_t passes_ = 0, steps_ahead_ = 0;
  std::uint64_t run_ahead_limit_ = 0;
  // The time whose passes run() is running (kNever outside run()), and the bucket that collects
  // the requests for it, i.e. its next pass.
  std::uint64_t current_ = Activation::kNever;
  std::uint64_t* next_pass_ = nullptr;
  bool next_pass_due_ = false;
  sc_core::sc_time ahead_;  // the time sim_time() reports during a run-ahead
  sc_core::sc_simcontext* ctx_ = nullptr;
};

inline void Activation::request(std::uint64_t t) {
  sched_->request(this, t);
}

}  // namespace locsim
