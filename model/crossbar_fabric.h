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
    const bool freed_now = cfg_.registered_inputs && last_pop_[in] == now;
    return inq_[in].size() + (freed_now ? 1u : 0u) < cfg_.input_buffer;
  }
  // Precondition: can_inject(in), flits >= 1. `injected` is kept with the packet for the
  // consumer (front_injected), e.g. to sample its latency without a map lookup.
  // (Inline: two calls per transaction, each a few stores.)
  void inject(std::uint32_t in, std::uint32_t out, std::uint32_t flits, Handle h,
              Cycle injected = 0) {
    Ring<InPkt>& q = inq_[in];
    if (q.empty()) in_head_[in] = InHead{injected, out};
    q.push_back(InPkt{out, flits ? flits : 1u, h, injected});
    busy_in_.set(in);
  }
  // Grants and starts transfers for cycle `now`.
  void arbitrate(Cycle now);
  bool ready(std::uint32_t out, Cycle now) const { return head_ready_[out] <= now; }
  // The cycle output `out`'s head is ready, kNever when the output is empty.
  Cycle head_ready(std::uint32_t out) const { return head_ready_[out]; }
  Handle front(std::uint32_t out) const { return outq_[out].front().h; }
  Cycle front_injected(std::uint32_t out) const { return outq_[out].front().injected; }
  Handle pop(std::uint32_t out) {
    Ring<OutPkt>& q = outq_[out];
    Handle h = q.front().h;
    q.pop_front();
    if (q.empty()) {
      busy_out_.reset(out);
      head_ready_[out] = kNever;
    } else {
      head_ready_[out] = q.front().ready;
    }
    return h;
  }
  // Calls f(out) for each output with a queued packet, in increasing order; f may pop().
  template <class F>
  void for_each_nonempty_output(F&& f) const {
    busy_out_.for_each(f);
  }
  // Earliest cycle >= now at which arbitrate() could start a transfer or an output head becomes
  // ready; kNever when nothing can happen until an inject() or pop(). Heads that were already
  // ready before `now` are the consumer's business (it is blocked and will pop later).
  Cycle next_event(Cycle now) const;
  // The input side of next_event(): the earliest cycle >= now at which arbitrate() could start
  // a transfer. A consumer that visits every non-empty output anyway takes the minimum of the
  // future head_ready() itself and asks only this.
  Cycle next_arbitration(Cycle now) const;
  bool idle() const { return busy_in_.none() && busy_out_.none(); }

  std::uint64_t transfers() const { return transfers_; }
  std::uint64_t flits() const { return flits_; }
  std::uint64_t output_busy_cycles(std::uint32_t out) const { return out_busy_total_[out]; }
  std::uint64_t input_busy_cycles(std::uint32_t in) const { return in_busy_total_[in]; }

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
  Bits busy_in_, busy_out_;  // non-empty input / output FIFOs
  Bits contested_;           // scratch of arbitrate(): outputs some input head competes for
  std::vector<Cycle> in_free_, out_free_;
  std::vector<Cycle> last_pop_;    // cycle of each input's last grant (at most one per cycle)
  std::vector<std::uint32_t> rr_;  // per output: the input with the first turn (n: input 0)
  std::vector<std::uint64_t> in_busy_total_, out_busy_total_;
  std::uint64_t transfers_ = 0, flits_ = 0;
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<std::uint32_t> winner_;  // scratch of arbitrate(): per output, kNone between calls
  bool unit_width_ = true;             // every link 1 flit per cycle
  std::vector<std::uint32_t> in_width_, out_width_;
  // The head of each queue, kept flat beside the rings (what arbitrate, ready and next_event
  // read every cycle): an output head's ready cycle (kNever when empty), an input head's output
  // and injection cycle (meaningless when empty).
  std::vector<Cycle> head_ready_;
  struct InHead {
    Cycle injected;
    std::uint32_t out;
  };
  std::vector<InHead> in_head_;
};

}  // namespace locsim
