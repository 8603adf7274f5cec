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
      in_free_(c.inputs, 0),
      out_free_(c.outputs, 0),
      last_pop_(c.inputs, kNever),
      rr_(c.outputs, 0),
      out_busy_total_(c.outputs, 0),
      winner_(c.outputs, kNone),
      in_width_(c.input_width.empty() ? std::vector<std::uint32_t>(c.inputs, 1) : c.input_width),
      out_width_(c.output_width.empty() ? std::vector<std::uint32_t>(c.outputs, 1)
                                        : c.output_width),
      head_ready_(c.outputs, kNever),
      in_head_(c.inputs, InHead{0, 0}),
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

void CrossbarFabric::arbitrate(Cycle now) {
  // One pass over the non-empty inputs, in increasing order: each input's head competes for one
  // output, whose winner is the first competing input at or after its round-robin pointer, else
  // the first competing input. A granted input is busy for the packet's flits and so cannot win
  // a second output in the same cycle.
  busy_in_.for_each([&](std::uint32_t i) {
    if (in_free_[i] > now) return;
    const InHead& head = in_head_[i];
    if (cfg_.registered_inputs && head.injected >= now) return;
    const std::uint32_t o = head.out;
    if (out_free_[o] > now || outq_[o].size() >= cfg_.output_buffer) return;
    const std::uint32_t c = winner_[o];
    if (c == kNone || (c < rr_[o] && i >= rr_[o])) winner_[o] = i;
    contested_.set(o);
  });
  contested_.drain([&](std::uint32_t o) {
    const std::uint32_t i = winner_[o];
    winner_[o] = kNone;  // reset for the next cycle
    Ring<InPkt>& q = inq_[i];
    const InPkt p = q.front();
    q.pop_front();
    last_pop_[i] = now;
    if (q.empty())
      busy_in_.reset(i);
    else
      in_head_[i] = InHead{q.front().injected, q.front().out};
    Cycle cycles = p.flits;
    if (!unit_width_) {
      const std::uint32_t width = std::min(in_width_[i], out_width_[o]);
      cycles = (p.flits + width - 1) / width;
    }
    in_free_[i] = out_free_[o] = now + cycles;
    out_busy_total_[o] += cycles;
    const Cycle ready = now + cycles + cfg_.latency;
    if (outq_[o].empty()) {
      head_ready_[o] = ready;
      schedule(o, ready);
    }
    outq_[o].push_back(OutPkt{ready, p.h, p.injected});
    ++transfers_;
    flits_ += p.flits;
    rr_[o] = i + 1;  // n: from input 0 next time
  });
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

Cycle CrossbarFabric::next_arbitration(Cycle now) const {
  Cycle best = kNever;
  busy_in_.for_each_until([&](std::uint32_t i) {
    const InHead& head = in_head_[i];
    const std::uint32_t o = head.out;
    if (outq_[o].size() >= cfg_.output_buffer) return false;  // waits for a pop
    const Cycle eligible = cfg_.registered_inputs ? head.injected + 1 : 0;
    best = std::min(best, std::max({now, in_free_[i], out_free_[o], eligible}));
    return best == now;
  });
  return best;
}

}  // namespace locsim
