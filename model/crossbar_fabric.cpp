#include "model/crossbar_fabric.h"

#include <algorithm>
#include <stdexcept>

namespace locsim {

CrossbarFabric::CrossbarFabric(const Config& c)
    : cfg_(c),
      inq_(c.inputs, Ring<InPkt>(c.input_buffer)),
      outq_(c.outputs, Ring<OutPkt>(c.output_buffer)),
      busy_in_(c.inputs),
      contested_(c.outputs),
      in_(c.inputs),
      avail_(c.outputs, 0),
      out_(c.outputs),
      one_word_(c.inputs <= 64 && c.outputs <= 64),
      in_width_(c.input_width.empty() ? std::vector<std::uint32_t>(c.inputs, 1) : c.input_width),
      out_width_(c.output_width.empty() ? std::vector<std::uint32_t>(c.outputs, 1)
                                        : c.output_width),
      head_ready_(c.outputs, kNever),
      due_(c.outputs),
      far_(c.outputs),
      owords_((c.outputs + 63) / 64),
      wheel_() {
  while ((1u << wshift_) < owords_) ++wshift_;
  wheel_.assign(std::size_t{kWheel} << wshift_, 0);
  if (!c.inputs || !c.outputs || !c.input_buffer || !c.output_buffer)
    throw std::invalid_argument("crossbar needs at least one input, output and buffer slot");
  if (in_width_.size() != c.inputs || out_width_.size() != c.outputs)
    throw std::invalid_argument("crossbar link widths must name every input and output");
  for (auto w : in_width_)
    if (!w) throw std::invalid_argument("crossbar link width must be >= 1 flit per cycle");
  for (auto w : out_width_)
    if (!w) throw std::invalid_argument("crossbar link width must be >= 1 flit per cycle");
  for (auto w : in_width_) unit_width_ = unit_width_ && w == 1;
  for (auto w : out_width_) unit_width_ = unit_width_ && w == 1;
}

template <bool kOneWord>
inline void CrossbarFabric::grant(std::uint64_t o, std::uint32_t i, Cycle now) {
  OutState& out = out_[o];
  out.rr = i + 1;  // n: from input 0 next time
  InState& in = in_[i];
  Ring<InPkt>& q = inq_[i];
  // (Field by field: a copy of the whole packet went through the stack.)
  const std::uint32_t flits = q.front().flits;
  const Handle h = q.front().h;
  const Cycle injected = q.front().injected;
  q.pop_front();
  in.last_pop = now;
  Cycle cycles = flits;
  if (!unit_width_) {
    const std::uint32_t width = std::min(in_width_[i], out_width_[o]);
    cycles = (flits + width - 1) / width;
  }
  const Cycle free = now + cycles;
  // The next head's eligibility is `free` with registered inputs too: it was injected by now
  // (arbitrate()'s precondition), so injected + 1 <= now + 1 <= free.
  in.eligible = free;
  if (q.empty()) {
    if (kOneWord)  // (the set's one word, without the word index)
      busy_in_.words()[0] &= ~(std::uint64_t{1} << i);
    else
      busy_in_.reset(i);
  } else {
    in.out = q.front().out;
  }
  out.free = free;
  out.busy_total += cycles;
  const Cycle ready = free + cfg_.latency;
  Ring<OutPkt>& oq = outq_[o];
  if (oq.empty()) {
    head_ready_[o] = ready;
    schedule<kOneWord>(o, ready);
  }
  oq.push_back(OutPkt{ready, h, injected});
  avail_[o] = oq.size() >= cfg_.output_buffer ? kNever : free;
  ++transfers_;
  flits_ += flits;
}

namespace {
// The lowest set bit's index of m != 0 as a 64-bit value: __builtin_ctzll's int takes a sign
// extension before it can index an array.
[[gnu::always_inline]] inline std::uint64_t lowest_bit(std::uint64_t m) {
#if defined(__x86_64__)
  std::uint64_t r;
  asm("bsfq %1, %0" : "=r"(r) : "rm"(m) : "cc");
  return r;
#else
  return static_cast<unsigned>(__builtin_ctzll(m));
#endif
}
}  // namespace

inline void CrossbarFabric::arbitrate_once(Cycle now) {
  // One pass over the non-empty inputs, in increasing order: each input's head competes for one
  // output, whose winner is the first competing input at or after its round-robin pointer, else
  // the first competing input. A granted input is busy for the packet's flits and so cannot win
  // a second output in the same cycle.
  auto compete = [&](std::uint32_t i) -> std::uint32_t {  // the output i competes for, or kNone
    const InState& in = in_[i];
    if (in.eligible > now) return kNone;
    const std::uint32_t o = in.out;
    if (avail_[o] > now) return kNone;
    OutState& out = out_[o];
    const std::uint32_t c = out.winner;
    if (c == kNone || (c < out.rr && i >= out.rr)) out.winner = i;
    return o;
  };
  auto take = [&](std::uint32_t o) {
    const std::uint32_t i = out_[o].winner;
    out_[o].winner = kNone;  // reset for the next cycle
    grant<false>(o, i, now);
  };
  if (one_word_) {  // (the usual case: both sets in registers)
    // compete() written out: a competing head sets its output's bit without the kNone test,
    // and the input's index is 64-bit from lowest_bit() (no extension before the address).
    const InState* const ins = in_.data();
    const Cycle* const avail = avail_.data();
    OutState* const outs = out_.data();
    std::uint64_t contested = 0;
    for (std::uint64_t m = busy_in_.words()[0]; m; m &= m - 1) {
      const std::uint64_t i = lowest_bit(m);
      const InState& in = ins[i];
      if (in.eligible > now) continue;
      const std::uint32_t o = in.out;
      if (avail[o] > now) continue;
      OutState& out = outs[o];
      const std::uint32_t c = out.winner;
      if (c == kNone || (c < out.rr && i >= out.rr)) out.winner = static_cast<std::uint32_t>(i);
      contested |= std::uint64_t{1} << o;
    }
    for (; contested; contested &= contested - 1) {
      const std::uint64_t o = lowest_bit(contested);
      const std::uint32_t i = out_[o].winner;
      out_[o].winner = kNone;  // reset for the next cycle
      grant<true>(o, i, now);
    }
    return;
  }
  busy_in_.for_each([&](std::uint32_t i) {
    const std::uint32_t o = compete(i);
    if (o != kNone) contested_.set(o);
  });
  contested_.drain(take);
}

void CrossbarFabric::arbitrate(Cycle now) {
  arbitrate_once(now);
}

void CrossbarFabric::arbitrate(CrossbarFabric& a, CrossbarFabric& b, Cycle now) {
  a.arbitrate_once(now);
  b.arbitrate_once(now);
}

Cycle CrossbarFabric::next_event(Cycle now) const {
  Cycle best = kNever;
  // An output whose head is already ready waits for its consumer (which calls pop()), so only
  // heads that become ready in the future are events. Nothing is earlier than now.
  for (std::uint32_t o = 0; o < cfg_.outputs && best != now; ++o) {
    const Cycle r = head_ready_[o];
    if (r >= now) best = std::min(best, r);
  }
  return best == now ? best : std::min(best, next_arbitration(now));
}

void CrossbarFabric::advance_to(Cycle now) {
  // The slots of cycles adv_ + 1 .. now (all of them after kWheel cycles or more).
  std::uint64_t m = occ_;
  const Cycle n = now - adv_;
  if (n < kWheel) {
    const unsigned s = static_cast<unsigned>((adv_ + 1) & (kWheel - 1));
    const std::uint64_t run = (std::uint64_t{1} << n) - 1;
    m &= (run << s) | (run >> ((kWheel - s) & (kWheel - 1)));
  }
  for (; m; m &= m - 1) take_slot(static_cast<unsigned>(__builtin_ctzll(m)));
  adv_ = now;
  if (far_any_) {
    // Heads ready by now are due; the others go onto the wheel once it reaches them.
    bool any = false;
    far_.for_each([&](std::uint32_t o) {
      const Cycle r = head_ready_[o];
      if (r <= now) {
        far_.reset(o);
        due_.set(o);
      } else if (r - now < kWheel) {
        far_.reset(o);
        schedule(o, r);
      } else {
        any = true;
      }
    });
    far_any_ = any;
  }
  fast_ = far_any_ ? kNever : now + 1;
}

CrossbarFabric::Handle CrossbarFabric::pop_early(std::uint32_t out) {
  if (far_.test(out)) {
    far_.reset(out);
  } else {
    const unsigned s = static_cast<unsigned>(head_ready_[out] & (kWheel - 1));
    std::uint64_t* const w = &wheel_[std::size_t{s} << wshift_];
    w[out >> 6] &= ~(std::uint64_t{1} << (out & 63));
    bool empty = true;
    for (std::uint32_t k = 0; k < owords_; ++k) empty = empty && !w[k];
    if (empty) occ_ &= ~(std::uint64_t{1} << s);
  }
  Ring<OutPkt>& q = outq_[out];
  Handle h = q.front().h;
  q.pop_front();
  avail_[out] = out_[out].free;  // no longer full
  if (q.empty()) {
    head_ready_[out] = kNever;
  } else {
    const Cycle r = q.front().ready;
    head_ready_[out] = r;
    if (r > adv_)
      schedule(out, r);
    else
      due_.set(out);
  }
  return h;
}

inline Cycle CrossbarFabric::earliest_grant(Cycle now) const {
  Cycle best = kNever;
  if (one_word_) {  // (the same in one word, the index 64-bit as in the arbitration pass)
    for (std::uint64_t m = busy_in_.words()[0]; m; m &= m - 1) {
      const InState& in = in_[lowest_bit(m)];
      const Cycle avail = avail_[in.out];
      if (avail == kNever) continue;  // its output is full: waits for a pop
      best = std::min(best, std::max({now, in.eligible, avail}));
      if (best == now) break;
    }
    return best;
  }
  busy_in_.for_each_until([&](std::uint32_t i) {
    const Cycle avail = avail_[in_[i].out];
    if (avail == kNever) return false;  // its output is full: waits for a pop
    best = std::min(best, std::max({now, in_[i].eligible, avail}));
    return best == now;
  });
  return best;
}

Cycle CrossbarFabric::next_arbitration(Cycle now) const {
  return earliest_grant(now);
}

Cycle CrossbarFabric::next_arbitration(const CrossbarFabric& a, const CrossbarFabric& b,
                                       Cycle now) {
  const Cycle first = a.earliest_grant(now);
  return first == now ? now : std::min(first, b.earliest_grant(now));
}

}  // namespace locsim
