// A packet-level model of a k-ary n-fly butterfly (seed 002 §5.5 "work distribution crossbar",
// spec R7.2; Dally & Towles ch. 4): k^n terminals, n stages of k^(n-1) switches, each k x k,
// destination-tag routing, one flit per cycle per link. The request and the reply networks of a
// shell are two instances.
//
// Addresses and wiring: a terminal is an n-digit base-k number d(n-1)..d(0) (d(n-1) most
// significant). Terminal t enters switch t / k of stage 0 at input port t mod k. At stage i the
// packet leaves by output port d(n-1-i) of its destination (the destination's digits, most
// significant first, pick the outputs of stages 0, 1, ..., n-1). Output port p of switch s at
// stage i < n-1 is position a = s*k + p; the link to stage i+1 swaps digits 0 and n-1-i of a (the
// butterfly permutation) and enters switch a' / k at input port a' mod k. Output port p of a
// last-stage switch s ejects to terminal s*k + p. Every path therefore crosses exactly n switches
// and ends at its destination.
//
// Flow control: virtual cut-through at packet granularity. Every buffer (terminal injection
// queue, switch input, terminal ejection queue) holds whole packets; a packet moves on only when
// the next buffer has a free packet slot, holds the link (and its input) for one cycle per flit,
// and its slot frees when its tail has left. Switch outputs are granted round-robin among the
// inputs whose head packet wants them.
//
// Timing: a packet injected at cycle t may take its injection link at t; a packet whose head
// reaches a switch input at cycle a may be granted an output at a + switch_latency (switch
// pipeline and link); a grant of the last stage at g puts it in the ejection queue, ready at
// g + flits (its tail). Zero-load latency: n * switch_latency + flits.
//
// Event driven: work happens only when a packet becomes ready, a link or input frees, a slot frees
// downstream or the consumer pops, so the cost is proportional to packet-stages; an idle fabric
// has no events.
#pragma once
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "model/types.h"

namespace locsim {

// The (k, n) of the butterfly that connects `terminals` terminals (spec R7.2): 36 -> 6-ary 2-fly,
// 64 -> 4-ary 3-fly, otherwise the smallest n >= 2 whose k = ceil(terminals^(1/n)) is <= 8
// (terminals <= 4: the 2-ary 2-fly). Throws std::invalid_argument for 0 terminals.
std::pair<std::uint32_t, std::uint32_t> butterfly_for(std::uint32_t terminals);

class ButterflyFabric {
 public:
  using Handle = void*;
  static constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

  struct Config {
    std::uint32_t k = 6;               // switch radix
    std::uint32_t n = 2;               // stages; k^n terminals
    std::uint32_t input_buffer = 8;    // packets per terminal injection queue
    std::uint32_t switch_buffer = 4;   // packets per switch input
    std::uint32_t output_buffer = 8;   // packets per terminal ejection queue (ready + in flight)
    std::uint32_t switch_latency = 3;  // cycles per stage (switch pipeline + link), >= 1
  };

  // One switch traversal of a route.
  struct Hop {
    std::uint32_t stage, sw, in_port, out_port;
    bool operator==(const Hop& o) const {
      return stage == o.stage && sw == o.sw && in_port == o.in_port && out_port == o.out_port;
    }
  };

  // Throws std::invalid_argument unless k >= 2, n >= 1, k^n fits 16 bits, buffers >= 1 and
  // switch_latency >= 1.
  explicit ButterflyFabric(const Config& c);
  const Config& config() const { return cfg_; }
  std::uint32_t terminals() const { return terms_; }
  std::uint32_t switches_per_stage() const { return per_stage_; }

  // The switches a packet from `src` to `dst` crosses, stage 0 first (destination-tag routing).
  std::vector<Hop> route(std::uint32_t src, std::uint32_t dst) const;
  Cycle zero_load_latency(std::uint32_t flits) const {
    return Cycle{cfg_.n} * cfg_.switch_latency + (flits ? flits : 1);
  }

  // Whether `src`'s injection queue has a free slot at the last advance() (or at cycle `now`).
  bool can_inject(std::uint32_t src) const { return can_inject(src, now_); }
  bool can_inject(std::uint32_t src, Cycle now) const;
  // Enqueues a packet of `flits` (>= 1) flits at `src`'s injection queue; it counts as injected at
  // the cycle of the next advance(). Precondition: can_inject(src).
  void inject(std::uint32_t src, std::uint32_t dst, std::uint32_t flits, Handle h);
  // Runs every switch decision up to and including cycle `now` (non-decreasing across calls).
  void advance(Cycle now);
  void arbitrate(Cycle now) { advance(now); }  // CrossbarFabric's name
  bool ready(std::uint32_t dst, Cycle now) const {
    return !ejq_[dst].empty() && ejq_[dst].front().ready <= now;
  }
  Handle front(std::uint32_t dst) const { return pkts_[ejq_[dst].front().pkt].h; }
  // Switch traversals of the packet at the head of `dst`'s ejection queue (n on every path).
  std::uint32_t front_stages(std::uint32_t dst) const {
    return pkts_[ejq_[dst].front().pkt].stages;
  }
  // Takes the head of `dst`'s ejection queue; its slot is free from the cycle after the last
  // advance().
  Handle pop(std::uint32_t dst);
  // Earliest cycle >= now at which anything can change (a switch decision or an ejection head
  // becoming ready); kNever when nothing can until an inject() or pop().
  Cycle next_event(Cycle now) const;
  bool idle() const { return in_flight_ == 0; }

  // Statistics.
  std::uint64_t packets() const { return packets_; }               // injected
  std::uint64_t flits() const { return flits_; }                   // injected
  std::uint64_t delivered() const { return delivered_; }           // popped by the consumer
  std::uint64_t switch_traversals() const { return traversals_; }  // packet-stages
  // Flits sent by the outputs of the switches of `stage` (utilisation = flits / (k^n cycles)).
  std::uint64_t stage_flits(std::uint32_t stage) const { return stage_flits_[stage]; }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  struct Pkt {
    Handle h = nullptr;
    std::uint32_t dst = 0, flits = 1, stages = 0;
    Cycle ready = 0;  // earliest cycle it can leave the buffer it waits in
  };
  struct In {
    std::deque<std::uint32_t> q;     // packet ids, FIFO (arriving and waiting)
    std::uint32_t cap = 1;           // packets
    Cycle busy = 0;                  // sending a packet until then (its slot is held until then)
    std::uint32_t upstream = kNone;  // unit feeding this input (woken when a slot frees)
  };
  struct Out {
    Cycle busy = 0;
    std::uint32_t rr = 0;
    std::uint32_t next = kNone;  // downstream unit (kNone: ejection)
    std::uint32_t port = 0;      // its input port, or the ejection terminal
  };
  // Unit u < terminals: the injection queue of terminal u (1 x 1); then the switches, stage by
  // stage (k x k).
  struct Unit {
    std::vector<In> in;
    std::vector<Out> out;
    std::uint32_t stage = kNone;  // kNone: injection
  };
  struct Ej {
    Cycle ready;
    std::uint32_t pkt;
  };
  using Ev = std::pair<Cycle, std::uint32_t>;  // (cycle, unit); unit kNone: an ejection head

  std::uint32_t digit(std::uint32_t a, std::uint32_t i) const { return a / pow_[i] % cfg_.k; }
  std::uint32_t swap_digits(std::uint32_t a, std::uint32_t i, std::uint32_t j) const;
  std::uint32_t unit_of(std::uint32_t stage, std::uint32_t sw) const {
    return terms_ + stage * per_stage_ + sw;
  }
  // Packets holding a slot of `b` at cycle t: queued ones and the one still sending its tail.
  std::uint32_t occupancy(const In& b, Cycle t) const {
    return static_cast<std::uint32_t>(b.q.size()) + (b.busy > t ? 1u : 0u);
  }
  void wake(std::uint32_t u, Cycle t) { events_.push({t, u}); }
  void process(std::uint32_t u, Cycle t);
  void grant(std::uint32_t u, std::uint32_t i, std::uint32_t o, Cycle t);

  Config cfg_;
  std::uint32_t terms_ = 1, per_stage_ = 1;
  std::vector<std::uint32_t> pow_;  // k^i
  std::vector<Unit> units_;
  std::vector<std::deque<Ej>> ejq_;
  std::vector<Pkt> pkts_;
  std::vector<std::uint32_t> free_pkts_;
  std::vector<std::uint32_t> fresh_;  // terminals injected into since the last advance()
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> events_;
  Cycle now_ = 0;
  std::uint64_t packets_ = 0, flits_ = 0, delivered_ = 0, traversals_ = 0, in_flight_ = 0;
  std::vector<std::uint64_t> stage_flits_;
  std::vector<std::uint32_t> best_;  // scratch of process(): per output, the winning distance
};

}  // namespace locsim
