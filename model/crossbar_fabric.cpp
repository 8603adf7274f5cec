#include "model/crossbar_fabric.h"

#include <algorithm>
#include <stdexcept>

namespace locsim {

CrossbarFabric::CrossbarFabric(const Config& c)
    : cfg_(c),
      inq_(c.inputs),
      outq_(c.outputs),
      busy_in_(c.inputs),
      busy_out_(c.outputs),
      contested_(c.outputs),
      in_free_(c.inputs, 0),
      out_free_(c.outputs, 0),
      last_pop_(c.inputs, kNever),
      rr_(c.outputs, 0),
      in_busy_total_(c.inputs, 0),
      out_busy_total_(c.outputs, 0),
      best_dist_(c.outputs, c.inputs),
      in_width_(c.input_width.empty() ? std::vector<std::uint32_t>(c.inputs, 1) : c.input_width),
      out_width_(c.output_width.empty() ? std::vector<std::uint32_t>(c.outputs, 1)
                                        : c.output_width) {
  if (!c.inputs || !c.outputs || !c.input_buffer || !c.output_buffer)
    throw std::invalid_argument("crossbar needs at least one input, output and buffer slot");
  if (in_width_.size() != c.inputs || out_width_.size() != c.outputs)
    throw std::invalid_argument("crossbar link widths must name every input and output");
  for (auto w : in_width_)
    if (!w) throw std::invalid_argument("crossbar link width must be >= 1 flit per cycle");
  for (auto w : out_width_)
    if (!w) throw std::invalid_argument("crossbar link width must be >= 1 flit per cycle");
}

void CrossbarFabric::inject(std::uint32_t in, std::uint32_t out, std::uint32_t flits, Handle h,
                            Cycle injected) {
  inq_[in].push_back(InPkt{out, flits ? flits : 1u, h, injected});
  busy_in_.set(in);
}

void CrossbarFabric::arbitrate(Cycle now) {
  const std::uint32_t n = cfg_.inputs;
  // One pass over the non-empty inputs: each input's head competes for one output, so the
  // winner of an output is the competing input closest after the output's round-robin pointer.
  // A granted input is busy for the packet's flits and so cannot win a second output in the
  // same cycle.
  busy_in_.for_each([&](std::uint32_t i) {
    if (in_free_[i] > now) return;
    if (cfg_.registered_inputs && inq_[i].front().injected >= now) return;
    const std::uint32_t o = inq_[i].front().out;
    if (out_free_[o] > now || outq_[o].size() >= cfg_.output_buffer) return;
    const std::uint32_t dist = (i + n - rr_[o]) % n;
    if (dist < best_dist_[o]) best_dist_[o] = dist;
    contested_.set(o);
  });
  contested_.for_each([&](std::uint32_t o) {
    const std::uint32_t i = (rr_[o] + best_dist_[o]) % n;
    best_dist_[o] = n;  // reset for the next cycle
    InPkt p = inq_[i].front();
    inq_[i].pop_front();
    last_pop_[i] = now;
    if (inq_[i].empty()) busy_in_.reset(i);
    const std::uint32_t width = std::min(in_width_[i], out_width_[o]);
    const Cycle cycles = (p.flits + width - 1) / width;
    in_free_[i] = out_free_[o] = now + cycles;
    in_busy_total_[i] += cycles;
    out_busy_total_[o] += cycles;
    outq_[o].push_back(OutPkt{now + cycles + cfg_.latency, p.h, p.injected});
    busy_out_.set(o);
    ++transfers_;
    flits_ += p.flits;
    rr_[o] = (i + 1) % n;
  });
  contested_.clear();
}

CrossbarFabric::Handle CrossbarFabric::pop(std::uint32_t out) {
  Handle h = outq_[out].front().h;
  outq_[out].pop_front();
  if (outq_[out].empty()) busy_out_.reset(out);
  return h;
}

Cycle CrossbarFabric::next_event(Cycle now) const {
  Cycle best = kNever;
  // An output whose head is already ready waits for its consumer (which calls pop()), so only
  // heads that become ready in the future are events. Nothing is earlier than now.
  busy_out_.for_each_until([&](std::uint32_t o) {
    if (outq_[o].front().ready >= now) best = std::min(best, outq_[o].front().ready);
    return best == now;
  });
  if (best == now) return best;
  busy_in_.for_each_until([&](std::uint32_t i) {
    std::uint32_t o = inq_[i].front().out;
    if (outq_[o].size() >= cfg_.output_buffer) return false;  // waits for a pop
    const Cycle eligible = cfg_.registered_inputs ? inq_[i].front().injected + 1 : 0;
    best = std::min(best, std::max({now, in_free_[i], out_free_[o], eligible}));
    return best == now;
  });
  return best;
}

}  // namespace locsim
