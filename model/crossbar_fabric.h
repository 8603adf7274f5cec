// An input-queued crossbar switch: packets of some flits wait in per-input FIFOs (head-of-line
// blocking), each output grants one input per cycle round-robin, a transfer occupies the input and
// the output link for one cycle per flit (per `width` flits on wider links), and the packet
// reaches the output buffer `latency` cycles after its last flit. Used twice per NoC: request and
// reply networks.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "model/ring_buffer.h"
#include "model/types.h"

namespace locsim {

class CrossbarFabric {
 public:
  using Handle = void*;
  static constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

  struct Config {
    std::uint32_t inputs = 1;
    std::uint32_t outputs = 1;
    std::uint32_t input_buffer = 8;   // packets per input FIFO
    std::uint32_t output_buffer = 8;  // packets per output FIFO (in flight + waiting)
    std::uint32_t latency = 1;        // cycles from last flit to output buffer
    // Flits per cycle of each input / output link; empty: 1 for all. A transfer moves at the
    // narrower of its two links (an inter-module link's port is wider than an SM's).
    std::vector<std::uint32_t> input_width{}, output_width{};
    // A packet injected at cycle t first competes at t + 1 (an input register). The timing
    // shell then need not run arbitrate(t) after every inject() of cycle t: without it, a packet
    // of cycle t competes at t or t + 1 depending on which of two same-time processes SystemC
    // runs first (docs/validation.md, "Event-order sensitivity").
    bool registered_inputs = false;
  };

  explicit CrossbarFabric(const Config& c);
  const Config& config() const { return cfg_; }

  bool can_inject(std::uint32_t in) const { return inq_[in].size() < cfg_.input_buffer; }
  // As seen by an injection of cycle `now`: with registered inputs, a slot that arbitrate(now)
  // freed counts as occupied until now + 1, so the answer does not depend on whether the
  // injecting process runs before or after the fabric's step of the same cycle.
  bool can_inject(std::uint32_t in, Cycle now) const {
    const bool freed_now = cfg_.registered_inputs && in_[in].last_pop == now;
    return inq_[in].size() + (freed_now ? 1u : 0u) < cfg_.input_buffer;
  }
  // Precondition: can_inject(in), flits >= 1. `injected` is kept with the packet for the
  // consumer (front_injected), e.g. to sample its latency without a map lookup.
  // (Inline: two calls per transaction, each a few stores.)
  [[gnu::always_inline]] void inject(std::uint32_t in, std::uint32_t out, std::uint32_t flits,
                                     Handle h, Cycle injected = 0) {
    Ring<InPkt>& q = inq_[in];
    if (q.empty()) {
      InState& s = in_[in];
      s.out = out;
      if (cfg_.registered_inputs) s.eligible = std::max(s.eligible, injected + 1);
    }
    q.push_back(InPkt{out, flits ? flits : 1u, h, injected});
    busy_in_.set(in);
  }
  // Grants and starts transfers for cycle `now`. Precondition: every queued packet was injected
  // at a cycle <= now (`now` never decreases, and no packet comes from a later cycle).
  void arbitrate(Cycle now);
  // a.arbitrate(now) then b.arbitrate(now) in one call (a crossbar's two networks, each cycle).
  static void arbitrate(CrossbarFabric& a, CrossbarFabric& b, Cycle now);
  bool ready(std::uint32_t out, Cycle now) const { return head_ready_[out] <= now; }
  // The cycle output `out`'s head is ready, kNever when the output is empty.
  Cycle head_ready(std::uint32_t out) const { return head_ready_[out]; }
  Handle front(std::uint32_t out) const { return outq_[out].front().h; }
  Cycle front_injected(std::uint32_t out) const { return outq_[out].front().injected; }
  [[gnu::always_inline]] Handle pop(std::uint32_t out) {
    if (!due_.test(out)) return pop_early(out);
    Ring<OutPkt>& q = outq_[out];
    Handle h = q.front().h;
    q.pop_front();
    avail_[out] = out_[out].free;  // no longer full
    if (q.empty()) {
      due_.reset(out);
      head_ready_[out] = kNever;
    } else {
      const Cycle r = q.front().ready;
      head_ready_[out] = r;
      if (r > adv_) {  // in flight: on the wheel until it is due
        due_.reset(out);
        schedule(out, r);
      }
    }
    return h;
  }
  // Calls f(out) for each output whose head is ready by `now` (one waiting for its consumer
  // included), in increasing order; f may pop(). Heads still in flight are not visited:
  // next_ready() gives the earliest of them. `now` never decreases from call to call.
  template <class F>
  void for_each_ready_output(Cycle now, F&& f) {
    advance(now);
    if (owords_ == 1) {  // (up to 64 outputs: one word, without the word loop)
      for (std::uint64_t m = due_.words()[0]; m; m &= m - 1)
        f(static_cast<std::uint32_t>(__builtin_ctzll(m)));
      return;
    }
    due_.for_each(f);
  }
  // After for_each_ready_output(now) or arbitrate(now): the earliest cycle > now at which an
  // output head becomes ready, kNever if none is in flight.
  Cycle next_ready(Cycle now) const {
    Cycle best = kNever;
    if (occ_) {  // the first non-empty slot after now's
      const unsigned s = static_cast<unsigned>((now + 1) & (kWheel - 1));
      const std::uint64_t m = (occ_ >> s) | (occ_ << ((kWheel - s) & (kWheel - 1)));
      best = now + 1 + static_cast<unsigned>(__builtin_ctzll(m));
    }
    if (far_any_) far_.for_each([&](std::uint32_t o) { best = std::min(best, head_ready_[o]); });
    return best;
  }
  // min(a.next_ready(now), b.next_ready(now)) after both visited their outputs at `now` (their
  // wheels then start at the same cycle): one scan of the two wheels' slots together.
  static Cycle next_ready(const CrossbarFabric& a, const CrossbarFabric& b, Cycle now) {
    const std::uint64_t occ = a.occ_ | b.occ_;
    const unsigned s = static_cast<unsigned>((now + 1) & (kWheel - 1));
    if ((occ >> s) & 1) return now + 1;  // (the usual answer while packets flow)
    Cycle best = kNever;
    if (occ) {
      const std::uint64_t m = (occ >> s) | (occ << ((kWheel - s) & (kWheel - 1)));
      best = now + 1 + static_cast<unsigned>(__builtin_ctzll(m));
    }
    if (a.far_any_ | b.far_any_) best = std::min({best, a.next_ready(now), b.next_ready(now)});
    return best;
  }
  // Earliest cycle >= now at which arbitrate() could start a transfer or an output head becomes
  // ready; kNever when nothing can happen until an inject() or pop(). Heads that were already
  // ready before `now` are the consumer's business (it is blocked and will pop later).
  Cycle next_event(Cycle now) const;
  // The input side of next_event(): the earliest cycle >= now at which arbitrate() could start
  // a transfer (a consumer of for_each_ready_output() takes the output side from next_ready()).
  Cycle next_arbitration(Cycle now) const;
  // min(a.next_arbitration(now), b.next_arbitration(now)) in one call (b is not asked when a
  // answers now).
  static Cycle next_arbitration(const CrossbarFabric& a, const CrossbarFabric& b, Cycle now);
  bool idle() const { return busy_in_.none() && due_.none() && !occ_ && far_.none(); }

  std::uint64_t transfers() const { return transfers_; }
  std::uint64_t flits() const { return flits_; }
  std::uint64_t output_busy_cycles(std::uint32_t out) const { return out_[out].busy_total; }

 private:
  // Per-port FIFOs sized for their buffers at construction (growing only if a caller injects
  // past can_inject()).
  template <class T>
  using Ring = RingBuffer<T>;
  // Set of small integers visited in increasing order: the inputs / outputs with queued
  // packets, so that arbitration and next_event skip the empty ones.
  class Bits {
   public:
    explicit Bits(std::uint32_t n) : w_((n + 63) / 64, 0) {}
    void set(std::uint32_t i) { w_[i >> 6] |= std::uint64_t{1} << (i & 63); }
    void reset(std::uint32_t i) { w_[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
    bool test(std::uint32_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
    std::uint64_t* words() { return w_.data(); }
    const std::uint64_t* words() const { return w_.data(); }
    bool none() const {
      for (auto w : w_)
        if (w) return false;
      return true;
    }
    // f may change the set; each word is read once, before its members are visited. (The word
    // range is read once too: f may change the words, never their number.)
    template <class F>
    void for_each(F&& f) const {
      const std::uint64_t* const w = w_.data();
      const std::size_t n = w_.size();
      for (std::size_t k = 0; k < n; ++k)
        for (std::uint64_t m = w[k]; m; m &= m - 1)
          f(static_cast<std::uint32_t>(k * 64 + static_cast<unsigned>(__builtin_ctzll(m))));
    }
    // As for_each, stopping after the first member for which f returns true.
    template <class F>
    void for_each_until(F&& f) const {
      const std::uint64_t* const w = w_.data();
      const std::size_t n = w_.size();
      for (std::size_t k = 0; k < n; ++k)
        for (std::uint64_t m = w[k]; m; m &= m - 1)
          if (f(static_cast<std::uint32_t>(k * 64 + static_cast<unsigned>(__builtin_ctzll(m)))))
            return;
    }
    // As for_each, emptying the set: each word is cleared when read (no pass to clear it).
    template <class F>
    void drain(F&& f) {
      std::uint64_t* const w = w_.data();
      const std::size_t n = w_.size();
      for (std::size_t k = 0; k < n; ++k) {
        std::uint64_t m = w[k];
        if (!m) continue;
        w[k] = 0;
        for (; m; m &= m - 1)
          f(static_cast<std::uint32_t>(k * 64 + static_cast<unsigned>(__builtin_ctzll(m))));
      }
    }

   private:
    std::vector<std::uint64_t> w_;
  };
  struct InPkt {
    std::uint32_t out, flits;
    Handle h;
    Cycle injected;
  };
  struct OutPkt {
    Cycle ready;
    Handle h;
    Cycle injected;
  };
  Config cfg_;
  std::vector<Ring<InPkt>> inq_;
  std::vector<Ring<OutPkt>> outq_;
  Bits busy_in_;    // non-empty input FIFOs
  Bits contested_;  // scratch of arbitrate(): outputs some input head competes for
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  // What arbitrate() reads of an input, in one record per input (one base address, and each
  // check one compare against `now`); of an output, avail_ below and OutState.
  struct InState {
    // Non-empty FIFO: the first cycle its head may compete (its input link free, and with
    // registered inputs the cycle after its injection). Empty: the end of its last transfer.
    Cycle eligible = 0;
    Cycle last_pop = kNever;  // cycle of its last grant (at most one per cycle)
    std::uint32_t out = 0;    // the head's output (meaningless when empty)
  };
  struct OutState {
    Cycle free = 0;                // end of its last transfer
    std::uint32_t winner = kNone;  // scratch of arbitrate(), kNone between calls
    std::uint32_t rr = 0;          // the input with the first turn (n: input 0)
    std::uint64_t busy_total = 0;
  };
  std::vector<InState> in_;
  // Per output: `free`, or kNever while its buffer is full (until the next pop()); apart from
  // OutState, so that the pass's test of a head's output is one compare with an element
  // addressed by the output's index.
  std::vector<Cycle> avail_;
  std::vector<OutState> out_;
  std::uint64_t transfers_ = 0, flits_ = 0;
  bool unit_width_ = true;  // every link 1 flit per cycle
  bool one_word_ = false;   // at most 64 inputs and 64 outputs: sets in one word each
  // Grants output o to input i (the winner of arbitrate(now)).
  // kOneWord (at most 64 inputs and outputs): the input set and the wheel's slots are one word
  // each, addressed without a word index. (o 64-bit: the one-word pass's index addresses without
  // an extension.)
  template <bool kOneWord>
  [[gnu::always_inline]] inline void grant(std::uint64_t o, std::uint32_t i, Cycle now);
  [[gnu::always_inline]] inline void arbitrate_once(Cycle now);
  Cycle earliest_grant(Cycle now) const;  // next_arbitration()'s body, inline in both of them
  std::vector<std::uint32_t> in_width_, out_width_;
  // Each output head's ready cycle, kept flat beside the rings (kNever when empty).
  std::vector<Cycle> head_ready_;

  // Output heads by the cycle they become ready, so that a consumer visits only the ready ones
  // (most queued packets are in flight) and finds the next one without a scan. `due_`: the
  // outputs whose head is ready by cycle adv_. A head in flight, ready at r with
  // adv_ < r < adv_ + kWheel, is in slot r % kWheel of a ring of output sets (`occ_`: the
  // non-empty slots); one further ahead (a long latency or packet) is in `far_`.
  static constexpr std::uint32_t kWheel = 64;
  Bits due_, far_;
  bool far_any_ = false;  // far_ may be non-empty
  std::uint32_t owords_;  // words of an output set
  unsigned wshift_ = 0;   // a slot is 1 << wshift_ words (owords_ rounded up to a power of 2)
  std::vector<std::uint64_t> wheel_;
  std::uint64_t occ_ = 0;
  Cycle adv_ = 0;
  Cycle fast_ = 1;  // adv_ + 1 while far_ is empty (advance() to it inline), else kNever
  // kOneWord: at most 64 outputs (a slot is one word).
  template <bool kOneWord = false>
  [[gnu::always_inline]] void schedule(std::uint32_t o, Cycle r) {
    if (r - adv_ < kWheel) {
      const unsigned s = static_cast<unsigned>(r & (kWheel - 1));
      if (kOneWord)
        wheel_[s] |= std::uint64_t{1} << o;
      else
        wheel_[(std::size_t{s} << wshift_) + (o >> 6)] |= std::uint64_t{1} << (o & 63);
      occ_ |= std::uint64_t{1} << s;
    } else {
      far_.set(o);
      far_any_ = true;
      fast_ = kNever;
    }
  }
  // pop() of a head not yet due (tests do): takes it off the wheel or far_ first.
  [[gnu::noinline]] Handle pop_early(std::uint32_t out);
  // Moves the heads ready by `now` to due_: the slot of the next cycle inline (a consumer
  // visits nearly every cycle), the rest out of line.
  void advance(Cycle now) {
    if (now == fast_) {
      const unsigned s = static_cast<unsigned>(now & (kWheel - 1));
      if ((occ_ >> s) & 1) take_slot(s);
      adv_ = now;
      fast_ = now + 1;
    } else if (now > adv_) {
      advance_to(now);
    }
  }
  void take_slot(unsigned s) {
    occ_ &= ~(std::uint64_t{1} << s);
    std::uint64_t* const due = due_.words();
    std::uint64_t* const w = &wheel_[std::size_t{s} << wshift_];
    if (owords_ == 1) {  // (up to 64 outputs)
      due[0] |= w[0];
      w[0] = 0;
      return;
    }
    std::uint32_t k = 0;
    do {
      due[k] |= w[k];
      w[k] = 0;
    } while (++k < owords_);
  }
  void advance_to(Cycle now);
};

}  // namespace locsim
