// sc_spawn (the scheduler is a process of no module).
#define SC_INCLUDE_DYNAMIC_PROCESSES

#include "tlm_components/activation_scheduler.h"

#include <algorithm>
#include <type_traits>

#include "tlm_components/clock_domain.h"

namespace locsim {

namespace {
// sc_time is a standard-layout class whose one member is its value, so the two are
// pointer-interconvertible: the run-ahead sets the time in place, without from_value()'s
// out-of-line call (about 25 instructions per distinct time; its one side effect, fixing the
// time resolution, has happened before any process runs).
static_assert(std::is_standard_layout_v<sc_core::sc_time> &&
              sizeof(sc_core::sc_time) == sizeof(sc_core::sc_time::value_type));
void set_value(sc_core::sc_time& t, sc_core::sc_time::value_type v) {
  *reinterpret_cast<sc_core::sc_time::value_type*>(&t) = v;
}

}  // namespace

void Activation::attach(const std::string& name) {
  name_ = name;
  sched_ = &ActivationScheduler::get();
  sched_->add(this);
}

ActivationScheduler& ActivationScheduler::get() {
  // One scheduler per simulation context: a test process elaborates once, but a new context
  // must not inherit the old one's processes. Kept reachable until exit.
  static ActivationScheduler* current = nullptr;
  if (!current || current->ctx_ != sc_core::sc_get_curr_simcontext())
    current = new ActivationScheduler();
  return *current;
}

ActivationScheduler::ActivationScheduler() : wake_("locsim_activation_wake") {
  due_.push_back(Due{Activation::kNever, nullptr});  // the sentinel
  due_top_ = due_.data();
  due_end_ = due_top_ + due_.size();
  ctx_ = sc_core::sc_get_curr_simcontext();
  sc_core::sc_spawn_options opt;
  opt.spawn_method();
  opt.dont_initialize();
  opt.set_sensitivity(&wake_);
  sc_core::sc_spawn([this]() { run(); }, "locsim_activation_scheduler", &opt);
}

std::uint64_t ActivationScheduler::rank_of(std::uint64_t seed, Activation::Stage stage,
                                           std::uint32_t seq) {
  if (seed == 0) return (static_cast<std::uint64_t>(stage) << 32) | seq;
  // splitmix64 of (seed, seq): a pseudo-random order of all processes, whatever their stage.
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + seq;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (z & 0xFFFFFFFF00000000ull) | seq;  // seq in the low bits keeps ranks unique
}

void ActivationScheduler::add(Activation* a) {
  if (final_)
    SC_REPORT_ERROR("locsim/scheduler", "a process registered after the simulation started");
  a->rank_ = rank_of(seed_, a->stage_, static_cast<std::uint32_t>(all_.size()));
  all_.push_back(a);
}

void ActivationScheduler::set_order_seed(std::uint64_t seed) {
  if (final_) SC_REPORT_ERROR("locsim/scheduler", "order seed set after the simulation started");
  seed_ = seed;
  for (std::uint32_t i = 0; i < all_.size(); ++i)
    all_[i]->rank_ = rank_of(seed, all_[i]->stage_, i);
}

void ActivationScheduler::finalize() {
  // The same-time order is known once every block has registered (end of elaboration).
  by_slot_ = all_;
  std::sort(by_slot_.begin(), by_slot_.end(),
            [](const Activation* x, const Activation* y) { return x->rank_ < y->rank_; });
  for (std::uint32_t i = 0; i < by_slot_.size(); ++i) {
    by_slot_[i]->slot_ = i;
    by_slot_[i]->word_ = i >> 6;
    by_slot_[i]->bit_ = std::uint64_t{1} << (i & 63);
  }
  words_ = (by_slot_.size() + 63) / 64;
  // The bucket's width known at compile time in the pass loop (a load and a test per pass
  // otherwise, and a loop over the words): up to eight words, any other width by the loop.
  run_times_ = run_times_for(words_, std::make_index_sequence<9>{});
  next_pass_ = alloc_bucket();  // collects the requests for the time being run
  spare_ = alloc_bucket();
  final_ = true;
  for (Activation* a : by_slot_)
    if (a->pending_ != Activation::kNever) enter(a, a->pending_);  // asked for during elaboration
}

__attribute__((noinline)) void ActivationScheduler::arm(std::uint64_t t) {
  armed_ = t;
  wake_.notify(sc_core::sc_time::from_value(t - ctx_->time_stamp().value()));
}

std::uint64_t* ActivationScheduler::alloc_bucket() {
  bucket_store_.emplace_back(new std::uint64_t[words_ + 1]());
  return bucket_store_.back().get() + 1;
}

void ActivationScheduler::grow_due() {
  const std::size_t n = static_cast<std::size_t>(due_top_ - due_.data());
  const std::size_t old = due_.size();
  due_.resize(std::max<std::size_t>(64, old * 2));
  for (std::size_t i = old; i < due_.size(); ++i) due_[i].bucket = alloc_bucket();
  due_top_ = due_.data() + n;
  due_end_ = due_.data() + due_.size();
  index_.reserve(due_.size());  // every pending time is in due_: the index needs no count
}

__attribute__((noinline)) void ActivationScheduler::enter_slow(Activation* a, std::uint64_t t,
                                                               std::size_t e) {
  if (!final_) {  // during elaboration: finalize() enters the pending runs
    if (t < armed_) arm(t);
    return;
  }
  if (due_top_ + 1 == due_.data() + due_.size()) {
    grow_due();
    e = index_.find(t);  // the index may have grown
  }
  if (current_ != Activation::kNever) return enter_new(a, t, e);  // inside run(): room now
  // Outside run(), due_end_ shows no room, so that every new time comes here: it may arm.
  if (t < armed_) arm(t);
  due_end_ = due_.data() + due_.size();
  enter_new(a, t, e);
  due_end_ = due_top_ + 1;
}

__attribute__((noinline)) void ActivationScheduler::enter_new(Activation* a, std::uint64_t t,
                                                              std::size_t e) {
  // A request for the time being run (a process that ran this pass, or one due later): the
  // next pass, a bucket of its own outside due_ and the index (its time left the index when
  // its first pass began).
  if (t == current_) {
    next_pass_[a->word_] |= a->bit_;
    next_pass_due_ = true;
    return;
  }
  // A time not pending yet (e: its free entry in the index): a bucket, and its place in due_,
  // searched from the earliest end, where most new times go (the next few edges). Room in due_
  // is made out of line, and the arming a request from outside run() may need (due_end_ shows
  // no room outside run(), so one test sends both there), so that this path calls nothing. Before
  // finalize() due_ has no room (its sentinel only): a request made during elaboration too.
  if (due_top_ + 1 == due_end_) return enter_slow(a, t, e);
  // The free bucket that the entry above due_top_ holds.
  Due* p = ++due_top_;
  std::uint64_t* const b = p->bucket;
  // The sentinel at due_'s front (kNever, never requested) ends the search.
  // Two entries a trip (one pointer step for two moves): about 3.7 moves per new time.
  for (;;) {
    if (!(p[-1].t < t)) break;
    p[0] = p[-1];
    if (!(p[-2].t < t)) {
      --p;
      break;
    }
    p[-1] = p[-2];
    p -= 2;
  }
  *p = Due{t, b};
  b[-1] = e;
  b[a->word_] |= a->bit_;
  last_t_ = t;
  last_b_ = b;
  index_.insert_fixed(e, t, b);
}

// The processes of one bucket word (row: their slots' processes).
__attribute__((always_inline)) inline void ActivationScheduler::run_word(std::uint64_t* w,
                                                                         Activation* const* row,
                                                                         std::uint64_t now) {
#if defined(__GNUC__) && defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
  // A clear, a search and a branch per activation (x & (x - 1), its test and a separate search
  // were four instructions). The two values in registers of their own: GCC otherwise copies both
  // in and out of the asm around each search.
  register std::uint64_t bits asm("r14") = *w;
  register std::uint64_t i asm("r15");
  bool nz;
  asm("bsfq %2, %0" : "=r"(i), "=@ccnz"(nz) : "r"(bits));
  if (!nz) return;
  *w = 0;
  do {
    Activation* a = row[i];
    // A bit whose process was asked for another time meanwhile (pending_ differs) is stale.
    if (a->pending_ == now) {
      a->pending_ = Activation::kNever;  // from here a request for now means the next pass
      a->fn_(a->obj_);
    }
    asm("btrq %1, %0\n\tbsfq %0, %1" : "+r"(bits), "+r"(i), "=@ccnz"(nz));
  } while (nz);
#else
  std::uint64_t bits = *w;
  if (!bits) return;
  *w = 0;
  for (; bits; bits &= bits - 1) {
    Activation* a = row[__builtin_ctzll(bits)];
    if (a->pending_ != now) continue;
    a->pending_ = Activation::kNever;
    a->fn_(a->obj_);
  }
#endif
}

template <std::size_t W>
__attribute__((always_inline)) inline void ActivationScheduler::run_pass(std::uint64_t* b,
                                                                         std::uint64_t now) {
  // The bucket is read in place: no request reaches it meanwhile (its time has left due_ and the
  // index, and requests for now go to next_pass_), and it does not move. Six values live across
  // the activations' calls (this, now, the word, the end, the word's processes, the bits), none
  // on the stack.
  ++passes_;
  Activation* const* row = by_slot_.data();  // fixed after finalize()
  // Up to 512 processes (fermi's 15 SMs and their caches take two words, volta's 80 eight): the
  // words without a loop.
  if constexpr (W > 0) {
#pragma GCC unroll 8
    for (std::size_t k = 0; k < W; ++k) run_word(b + k, row + 64 * k, now);
    return;
  }
  for (std::uint64_t *w = b, *end = b + words_; w != end; ++w, row += 64) run_word(w, row, now);
}

__attribute__((noinline)) bool ActivationScheduler::ask_kernel(std::uint64_t now,
                                                               std::uint64_t& kernel_next) {
  detail::kernel_touched = false;
  if (ctx_->pending_activity_at_current_time()) return false;
  sc_core::sc_time t;
  kernel_next = ctx_->next_time(t) ? t.value() : Activation::kNever;
  if (kernel_next < now) report_late_event();
  return true;
}

__attribute__((noinline)) void ActivationScheduler::check_kernel_next(std::uint64_t now) {
  sc_core::sc_time t;
  if (ctx_->next_time(t) && t.value() < now) report_late_event();
}

void ActivationScheduler::report_late_event() {
  SC_REPORT_ERROR("locsim/scheduler",
                  "a SystemC event was notified from a block's process without its run-ahead "
                  "offset (sim_time_ahead_by())");
}

void ActivationScheduler::run() {
  if (!final_) finalize();
  (this->*run_times_)();
}

template <std::size_t... W>
constexpr ActivationScheduler::RunTimes ActivationScheduler::run_times_for(
    std::size_t words, std::index_sequence<W...>) {
  constexpr RunTimes table[] = {&ActivationScheduler::run_times<W>...};
  return words < sizeof...(W) ? table[words] : table[0];
}

template <std::size_t W>
__attribute__((noinline)) void ActivationScheduler::run_times() {
  const std::uint64_t kernel_now = ctx_->time_stamp().value();
  std::uint64_t now = kernel_now;
  armed_ = 0;
  due_end_ = due_.data() + due_.size();  // the real end inside run() (enter_new())
  // sim_time() reads ahead_ from the first time on (the kernel's time until a step ahead): the
  // pointer is stored once per run(), a step only sets the value.
  set_value(ahead_, now);
  detail::sim_now = &ahead_;
  // The kernel's answers for the run-ahead: nothing else runnable now, and the time of its next
  // event, kept as detail::ahead_bound with the limit. Within run() they change only if a block
  // notifies a SystemC event, which adds sim_time_ahead_by() and so sets detail::kernel_touched
  // and clears the bound (sc_stop() is seen after each pass), so the kernel is asked at the
  // first step and after such a notification only, not before every step (about 100 host
  // instructions per L1D transaction on fermi vecadd). Nothing is known before the first step:
  // as if touched.
  detail::kernel_touched = true;
  detail::ahead_bound = 0;
  // Nothing due at the kernel's time: a catch-up wake after a run-ahead (see the end).
  if (due_top_->t != now) goto ahead;
  for (;;) {
    // The passes of time now (due_top_'s), each in slot order. The first is the bucket due_
    // holds; requests for now made during a pass collect in next_pass_, the next pass (a delta
    // cycle), which swaps places with the bucket just read (all zero again).
    {
      std::uint64_t* b = due_top_->bucket;
      due_top_->bucket = spare_;  // the entry leaves due_ with a free bucket in its place
      index_.erase_fixed(now, static_cast<std::size_t>(b[-1]));
      if (last_t_ == now) last_t_ = Activation::kNever;
      --due_top_;
      current_ = now;
      for (;;) {
        next_pass_due_ = false;
        run_pass<W>(b, now);
        // sc_stop() lets the current delta finish and starts no further one.
        if (ctx_->sim_status() == sc_core::SC_SIM_USER_STOP) {
          if (next_pass_due_) {
            // Keep the next pass due, as an ordinary pending time (the earliest).
            if (due_top_ + 1 == due_end_) grow_due();
            std::size_t e = 0;
            index_.lookup(now, e);
            index_.insert_fixed(e, now, next_pass_);
            next_pass_[-1] = e;
            std::uint64_t* const f = (++due_top_)->bucket;
            *due_top_ = Due{now, next_pass_};
            next_pass_ = f;
          }
          spare_ = b;
          goto done;
        }
        if (!next_pass_due_) break;
        std::swap(b, next_pass_);
      }
      spare_ = b;
    }
  ahead:
    // Run-ahead (header): the next due time, if nothing else in the kernel comes first (with
    // nothing due, next is kNever and the kernel's next event, if any, is not later).
    const std::uint64_t next = due_top_->t;
    if (next >= detail::ahead_bound) {
      // At or past the kernel's next event or the limit, or the kernel was touched (bound 0).
      if (!detail::kernel_touched || next > run_ahead_limit_) break;
      std::uint64_t kernel_next;
      if (!ask_kernel(now, kernel_next)) break;
      detail::ahead_bound =
          std::min(kernel_next, run_ahead_limit_ == Activation::kNever ? Activation::kNever
                                                                       : run_ahead_limit_ + 1);
      if (next >= detail::ahead_bound) break;
    }
    now = next;
    set_value(ahead_, now);
    ++steps_ahead_;
  }
done:
  current_ = Activation::kNever;
  due_end_ = due_top_ + 1;  // outside run(): every new time through enter_slow(), which arms
  // An event notified without the offset is due before the time reached.
  if (now > kernel_now) check_kernel_next(now);
  detail::sim_now = &ctx_->time_stamp();
  armed_ = Activation::kNever;
  // Wake at the next due time or, after a run-ahead, at the time reached, so that the kernel's
  // time catches up before anything else runs: what sc_time_stamp() says after an sc_start
  // slice (the time of its last event) and at the end of the run is what it was without
  // run-ahead. The catch-up run finds nothing due and arms for the next due time (or runs ahead
  // again).
  const std::uint64_t wake =
      now > kernel_now ? now : due_top_->t;  // kNever: the sentinel, nothing due
  if (wake == Activation::kNever) return;
  armed_ = wake;
  wake_.notify(sc_core::sc_time::from_value(wake - kernel_now));
}

}  // namespace locsim
