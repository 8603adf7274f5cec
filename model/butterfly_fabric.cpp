#include "model/butterfly_fabric.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace locsim {

namespace {
constexpr std::uint64_t kMaxTerminals = 1u << 16;

// k^n, saturated above kMaxTerminals.
std::uint64_t power(std::uint64_t k, std::uint32_t n) {
  std::uint64_t p = 1;
  for (std::uint32_t i = 0; i < n && p <= kMaxTerminals; ++i) p *= k;
  return p;
}
}  // namespace

std::pair<std::uint32_t, std::uint32_t> butterfly_for(std::uint32_t terminals) {
  if (!terminals) throw std::invalid_argument("a butterfly needs at least one terminal");
  if (terminals > kMaxTerminals)
    throw std::invalid_argument("a butterfly of " + std::to_string(terminals) +
                                " terminals is larger than supported (65536)");
  // Seed 002 §5.5 / R7.2: the paper's two systems.
  if (terminals == 36) return {6, 2};
  if (terminals == 64) return {4, 3};
  for (std::uint32_t n = 2;; ++n) {
    std::uint32_t k = 2;
    while (power(k, n) < terminals) ++k;  // ceil(terminals^(1/n)), at least 2
    if (k <= 8) return {k, n};
  }
}

ButterflyFabric::ButterflyFabric(const Config& c) : cfg_(c) {
  if (c.k < 2 || c.n < 1) throw std::invalid_argument("a butterfly needs k >= 2 and n >= 1");
  if (power(c.k, c.n) > kMaxTerminals)
    throw std::invalid_argument("a butterfly of " + std::to_string(c.k) + "-ary " +
                                std::to_string(c.n) + "-fly has more than 65536 terminals");
  if (!c.input_buffer || !c.switch_buffer || !c.output_buffer)
    throw std::invalid_argument("butterfly buffers need at least one packet slot");
  if (!c.switch_latency) throw std::invalid_argument("butterfly switch_latency must be >= 1");
  terms_ = static_cast<std::uint32_t>(power(c.k, c.n));
  per_stage_ = terms_ / c.k;
  for (std::uint32_t i = 0; i < c.n; ++i) pow_.push_back(static_cast<std::uint32_t>(power(c.k, i)));
  units_.resize(terms_ + c.n * per_stage_);
  // Injection queues: terminal t feeds stage-0 switch t / k, input t mod k.
  for (std::uint32_t t = 0; t < terms_; ++t) {
    Unit& u = units_[t];
    u.in.resize(1);
    u.in[0].cap = c.input_buffer;
    u.out.resize(1);
    u.out[0].next = unit_of(0, t / c.k);
    u.out[0].port = t % c.k;
  }
  for (std::uint32_t st = 0; st < c.n; ++st)
    for (std::uint32_t s = 0; s < per_stage_; ++s) {
      Unit& u = units_[unit_of(st, s)];
      u.stage = st;
      u.in.resize(c.k);
      for (In& b : u.in) b.cap = c.switch_buffer;
      u.out.resize(c.k);
      for (std::uint32_t p = 0; p < c.k; ++p) {
        Out& o = u.out[p];
        if (st + 1 == c.n) {
          o.next = kNone;
          o.port = s * c.k + p;  // ejection terminal
        } else {
          const std::uint32_t a = swap_digits(s * c.k + p, 0, c.n - 1 - st);
          o.next = unit_of(st + 1, a / c.k);
          o.port = a % c.k;
        }
      }
    }
  // Upstream of every input, for slot-free wake-ups.
  for (std::uint32_t v = 0; v < units_.size(); ++v)
    for (const Out& o : units_[v].out)
      if (o.next != kNone) units_[o.next].in[o.port].upstream = v;
  ejq_.resize(terms_);
  stage_flits_.assign(c.n, 0);
  best_.assign(c.k, 0);
}

std::uint32_t ButterflyFabric::swap_digits(std::uint32_t a, std::uint32_t i,
                                           std::uint32_t j) const {
  const std::uint32_t di = digit(a, i), dj = digit(a, j);
  return a - di * pow_[i] - dj * pow_[j] + dj * pow_[i] + di * pow_[j];
}

std::vector<ButterflyFabric::Hop> ButterflyFabric::route(std::uint32_t src,
                                                         std::uint32_t dst) const {
  std::vector<Hop> hops;
  std::uint32_t sw = src / cfg_.k, port = src % cfg_.k;
  for (std::uint32_t st = 0; st < cfg_.n; ++st) {
    const std::uint32_t o = digit(dst, cfg_.n - 1 - st);  // destination tag
    hops.push_back(Hop{st, sw, port, o});
    const Out& out = units_[unit_of(st, sw)].out[o];
    if (out.next == kNone) break;
    sw = out.next - terms_ - (st + 1) * per_stage_;
    port = out.port;
  }
  return hops;
}

bool ButterflyFabric::can_inject(std::uint32_t src, Cycle now) const {
  return occupancy(units_[src].in[0], std::max(now, now_)) < cfg_.input_buffer;
}

void ButterflyFabric::inject(std::uint32_t src, std::uint32_t dst, std::uint32_t flits, Handle h) {
  if (src >= terms_ || dst >= terms_)
    throw std::out_of_range("butterfly terminal out of range: " + std::to_string(src) + " -> " +
                            std::to_string(dst) + " of " + std::to_string(terms_));
  std::uint32_t id;
  if (free_pkts_.empty()) {
    id = static_cast<std::uint32_t>(pkts_.size());
    pkts_.emplace_back();
  } else {
    id = free_pkts_.back();
    free_pkts_.pop_back();
  }
  Pkt& p = pkts_[id];
  p.h = h;
  p.dst = dst;
  p.flits = flits ? flits : 1;
  p.stages = 0;
  p.ready = kNever;  // set by the next advance()
  units_[src].in[0].q.push_back(id);
  fresh_.push_back(src);
  ++packets_;
  flits_ += p.flits;
  ++in_flight_;
}

void ButterflyFabric::advance(Cycle now) {
  now_ = std::max(now_, now);
  for (std::uint32_t src : fresh_) {
    for (std::uint32_t id : units_[src].in[0].q)
      if (pkts_[id].ready == kNever) pkts_[id].ready = now_;
    wake(src, now_);
  }
  fresh_.clear();
  while (!events_.empty() && events_.top().first <= now_) {
    const Ev ev = events_.top();
    events_.pop();
    while (!events_.empty() && events_.top() == ev) events_.pop();  // duplicates
    if (ev.second != kNone) process(ev.second, ev.first);
  }
}

void ButterflyFabric::process(std::uint32_t u, Cycle t) {
  Unit& unit = units_[u];
  const std::uint32_t nin = static_cast<std::uint32_t>(unit.in.size());
  // Each input's head competes for the output its destination tag names; the winner of an
  // output is the competing input closest after the output's round-robin pointer.
  std::fill(best_.begin(), best_.begin() + unit.out.size(), nin);
  for (std::uint32_t i = 0; i < nin; ++i) {
    const In& b = unit.in[i];
    if (b.q.empty() || b.busy > t) continue;
    const Pkt& p = pkts_[b.q.front()];
    if (p.ready > t) continue;  // woken when it becomes ready
    const std::uint32_t o = unit.stage == kNone ? 0 : digit(p.dst, cfg_.n - 1 - unit.stage);
    const Out& out = unit.out[o];
    if (out.busy > t) continue;  // woken when the link frees
    if (out.next == kNone) {
      if (ejq_[out.port].size() >= cfg_.output_buffer) continue;  // woken by pop()
    } else {
      const In& down = units_[out.next].in[out.port];
      if (occupancy(down, t) >= down.cap) continue;  // woken when a slot there frees
    }
    const std::uint32_t dist = (i + nin - out.rr) % nin;
    if (dist < best_[o]) best_[o] = dist;
  }
  for (std::uint32_t o = 0; o < unit.out.size(); ++o)
    if (best_[o] != nin) grant(u, (unit.out[o].rr + best_[o]) % nin, o, t);
}

void ButterflyFabric::grant(std::uint32_t u, std::uint32_t i, std::uint32_t o, Cycle t) {
  Unit& unit = units_[u];
  In& b = unit.in[i];
  Out& out = unit.out[o];
  const std::uint32_t id = b.q.front();
  b.q.pop_front();
  Pkt& p = pkts_[id];
  const Cycle tail = t + p.flits;  // one flit per cycle on the link
  b.busy = out.busy = tail;
  out.rr = (i + 1) % static_cast<std::uint32_t>(unit.in.size());
  if (unit.stage != kNone) {
    ++p.stages;
    ++traversals_;
    stage_flits_[unit.stage] += p.flits;
  }
  if (out.next == kNone) {
    ejq_[out.port].push_back(Ej{tail, id});
    wake(kNone, tail);  // the consumer's event
  } else {
    p.ready = t + cfg_.switch_latency;
    units_[out.next].in[out.port].q.push_back(id);
    wake(out.next, p.ready);
  }
  wake(u, tail);                                    // the input and the link free
  if (b.upstream != kNone) wake(b.upstream, tail);  // this input's slot frees
}

ButterflyFabric::Handle ButterflyFabric::pop(std::uint32_t dst) {
  const std::uint32_t id = ejq_[dst].front().pkt;
  ejq_[dst].pop_front();
  Handle h = pkts_[id].h;
  free_pkts_.push_back(id);
  ++delivered_;
  --in_flight_;
  // The last-stage switch feeding `dst` may use the slot from the next cycle.
  wake(unit_of(cfg_.n - 1, dst / cfg_.k), now_ + 1);
  return h;
}

Cycle ButterflyFabric::next_event(Cycle now) const {
  if (!fresh_.empty()) return std::max(now, now_);
  return events_.empty() ? kNever : std::max(now, events_.top().first);
}

}  // namespace locsim
