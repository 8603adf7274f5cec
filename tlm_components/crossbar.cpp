#include "tlm_components/crossbar.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tlm_components/packet_size.h"
#include "tlm_components/route_extension.h"

namespace locsim {

namespace {
std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) {
  return (a + b - 1) / b;
}
// Calls f(i) for each member i < end of the bit set, in increasing order, reading the set as it
// is after each call (a member that f adds ahead is visited); one word (at most 64 ports, fermi
// and volta) without the word loop.
template <class F>
[[gnu::always_inline]] inline void for_each_marked(const std::vector<std::uint64_t>& bits,
                                                   std::uint32_t end, F&& f) {
  if (bits.size() == 1) {
    for (std::uint64_t m = bits[0]; m;) {
      const std::uint32_t i = static_cast<std::uint32_t>(__builtin_ctzll(m));
      f(i);
      m = bits[0] & (~std::uint64_t{1} << i);  // the members above i
    }
    return;
  }
  for (std::size_t k = 0; k < bits.size(); ++k)
    for (std::uint64_t m = bits[k]; m;) {
      const std::uint32_t i = static_cast<std::uint32_t>(k * 64 + __builtin_ctzll(m));
      if (i >= end) return;
      f(i);
      m = bits[k] & (~std::uint64_t{1} << (i & 63));
    }
}
}  // namespace

Crossbar::Crossbar(sc_core::sc_module_name name, const CrossbarConfig& cfg, const AddressMap& map,
                   SimContext& ctx)
    : Interconnect(name),
      cfg_(cfg),
      ctx_(ctx),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      ps_(clk_.period().value()),
      map_(map),
      ports_(ceil_div(cfg.bindings, cfg.bindings_per_port)),
      targets_(cfg.route ? cfg.targets : map.num_subpartitions()),
      req_(CrossbarFabric::Config{ports_, targets_, cfg.input_buffer, cfg.output_buffer,
                                  cfg.latency, cfg.port_width, cfg.target_width, true}),
      rep_(CrossbarFabric::Config{targets_, ports_, cfg.input_buffer, cfg.response_fifo,
                                  cfg.latency, cfg.target_width, cfg.port_width, true}),
      port_accept_(ports_, ~Cycle{0}),
      reply_accept_(targets_, ~Cycle{0}),
      port_delivered_(ports_, ~Cycle{0}),
      port_rr_(ports_, 0),
      held_ports_((ports_ + 63) / 64, 0),
      held_targets_((targets_ + cfg.core_bindings + 63) / 64, 0),
#define NOC_STAT(n, u, d) ctx.stats.counter(this->name(), "noc", n, u, d)
      requests_(NOC_STAT("requests", "packets", "request packets injected by SM ports")),
      read_requests_(NOC_STAT("read_requests", "packets", "request packets that are loads")),
      replies_(NOC_STAT("replies", "packets", "reply packets injected by L2 sub-partitions")),
      req_flits_(NOC_STAT("request_flits", "flits", "flits carried by the request network")),
      rep_flits_(NOC_STAT("reply_flits", "flits", "flits carried by the reply network")),
      bytes_(NOC_STAT("bytes", "bytes", "header and data bytes carried by both networks")),
#undef NOC_STAT
      req_latency_(ctx.stats.distribution(this->name(), "noc", "request_latency", "cycles",
                                          "NoC cycles from injection to delivery at the L2")),
      rep_latency_(ctx.stats.distribution(this->name(), "noc", "reply_latency", "cycles",
                                          "NoC cycles from injection to delivery at the SM")) {
  for (std::uint32_t b = 0; b < cfg.bindings + cfg.core_bindings; ++b)
    port_of_.push_back((b < cfg.bindings ? b : b - cfg.bindings) / cfg.bindings_per_port);
  if (cfg.route && cfg.targets == 0)
    throw std::invalid_argument(std::string(this->name()) + ": a routed crossbar needs targets");
  for (std::uint32_t i = 0; i < cfg.bindings + cfg.core_bindings; ++i) {
    add_in_port(
        [this, i](Payload& gp) {
          return at_now([&](Cycle now, bool edge) { return on_request(i, gp, now, edge); });
        },
        [this]() { kick(); });
  }
  for (std::uint32_t t = 0; t < targets_ + cfg.core_bindings; ++t) {
    add_out_port(
        [this, t](Payload& gp) {
          return at_now([&](Cycle now, bool edge) { return on_reply(t, gp, now, edge); });
        },
        [this]() { kick(); });
  }
  for (std::uint32_t p = 0; p < ports_; ++p) {
    std::string path = std::string(this->name()) + ".port" + std::to_string(p);
    port_req_flits_.push_back(&ctx.stats.counter(path, "noc_port", "request_flits", "flits",
                                                 "flits injected by this cluster port"));
    port_rep_flits_.push_back(&ctx.stats.counter(path, "noc_port", "reply_flits", "flits",
                                                 "flits delivered to this cluster port"));
    if (cfg.locality_window) {
      icl_.emplace_back(cfg.locality_window);
      icl_requests_.push_back(
          &ctx.stats.counter(path, "cluster", "read_requests", "requests",
                             "reads leaving the cluster's L1s (before coalescing)"));
      icl_line_.push_back(
          &ctx.stats.counter(path, "cluster", "redundant_line_sharing", "requests",
                             "reads of a line another windowed read touched, disjoint words"));
      icl_data_.push_back(&ctx.stats.counter(path, "cluster", "redundant_data_sharing", "requests",
                                             "reads of a word another windowed read also read"));
    }
  }
  if (cfg.core_bindings) {
    slice_fwd_.resize(targets_);
    home_fwd_.resize(cfg.core_bindings);
    forwarded_ = &ctx.stats.counter(this->name(), "noc", "forwarded", "packets",
                                    "core-to-core packets forwarded by an L2 slice (seed 002 "
                                    "§5.5)");
  }
  step_ev_.bind<&Crossbar::step_method>(this, std::string(this->name()) + ".step_method");
}

// Inline in on_request, its one caller.
[[gnu::always_inline]] inline void Crossbar::observe_locality(std::uint32_t p, const Payload& gp,
                                                              const GpuExtension& e, Cycle now) {
  if (icl_.empty()) return;
  const Addr line = gp.get_address() & ~Addr{cfg_.line_bytes - 1};
  ++*icl_requests_[p];
  switch (icl_[p].observe(line, e.demand.any() ? e.demand : e.bytes, now)) {
    case RequestLocality::LineSharing:
      ++*icl_line_[p];
      break;
    case RequestLocality::DataSharing:
      ++*icl_data_[p];
      break;
    case RequestLocality::First:
      break;
  }
}

bool Crossbar::on_request(std::uint32_t src, Payload& gp, Cycle now, bool edge) {
  const std::uint32_t p = port_of(src);
  if (port_blocked(p, now) || !edge) {
    ask_step(retry_cycle(port_accept_[p] == now, now, edge));
    if (src < cfg_.bindings) mark(held_ports_, p);  // core bindings: their own loop in the step
    return false;
  }
  port_accept_[p] = now;
  PooledPayload* const pooled = as_pooled(gp);  // (one type test for both extensions)
  GpuExtension& e = pooled ? pooled->ext : gpu_ext(gp);
  const std::uint32_t flits =
      noc_request_flits(gp, e, cfg_.header_bytes, cfg_.flit_bytes, cfg_.sector_packets);
  if (cfg_.observe) cfg_.observe(src, gp);
  const std::uint32_t dst = target_of(gp.get_address());
  req_.inject(p, dst, flits, &gp, now);
  (pooled ? pooled->route : route_ext(gp)).push(src);  // the reply's way back
  ++requests_;
  if (e.noc_target >= static_cast<std::int32_t>(targets_)) {
    // A shared L1's remote request: to its line's slice, which forwards it to the home core.
    fwd_[&gp] = Forwarded{Leg::RequestToSlice, e.noc_target - targets_, dst};
    e.noc_target = -1;
  } else if (e.kind == AccessKind::Load) {
    ++read_requests_;
    observe_locality(p, gp, e, now);
  }
  req_flits_ += flits;
  bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
  *port_req_flits_[p] += flits;
  e.at(name());
  ask_step(now + 1);
  return true;
}

bool Crossbar::on_held_request(std::uint32_t src, Payload& gp, Cycle now) {
  return on_request(src, gp, now, true);
}

bool Crossbar::on_home_reply(std::uint32_t tgt, Payload& gp, Cycle now, bool edge) {
  // A home core's reply to a forwarded request: back to the slice on the request network.
  const std::uint32_t home = tgt - targets_;
  const std::uint32_t p = port_of(home);
  if (port_blocked(p, now) || !edge) {
    ask_step(retry_cycle(port_accept_[p] == now, now, edge));
    mark(held_targets_, tgt);
    return false;
  }
  port_accept_[p] = now;
  Forwarded& f = fwd_.at(&gp);
  f.leg = Leg::ReplyToSlice;
  const std::uint32_t flits =
      noc_reply_flits(gp, cfg_.header_bytes, cfg_.flit_bytes, cfg_.sector_packets);
  req_.inject(p, f.slice, flits, &gp, now);
  ++replies_;
  req_flits_ += flits;
  bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
  *port_req_flits_[p] += flits;
  gpu_ext(gp).at(name());
  ask_step(now + 1);
  return true;
}

bool Crossbar::on_reply(std::uint32_t tgt, Payload& gp, Cycle now, bool edge) {
  if (tgt >= targets_) return on_home_reply(tgt, gp, now, edge);
  if (!edge || target_blocked(tgt, now)) {  // (an L2 off the NoC edge, usually)
    ask_step(retry_cycle(reply_accept_[tgt] == now, now, edge));
    mark(held_targets_, tgt);
    return false;
  }
  accept_reply(tgt, gp, now);
  return true;
}

void Crossbar::accept_reply(std::uint32_t tgt, Payload& gp, Cycle now) {
  take_reply(tgt, gp, now, true);
}

void Crossbar::take_reply(std::uint32_t tgt, Payload& gp, Cycle now, bool step_after) {
  reply_accept_[tgt] = now;
  PooledPayload* const pooled = as_pooled(gp);  // (one type test for both extensions)
  GpuExtension& e = pooled ? pooled->ext : gpu_ext(gp);
  const std::uint32_t p = port_of((pooled ? pooled->route : route_ext(gp)).top());
  const std::uint32_t flits =
      noc_reply_flits(gp, e, cfg_.header_bytes, cfg_.flit_bytes, cfg_.sector_packets);
  rep_.inject(tgt, p, flits, &gp, now);
  ++replies_;
  rep_flits_ += flits;
  bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
  *port_rep_flits_[p] += flits;
  e.at(name());
  if (step_after) ask_step(now + 1);
}

void Crossbar::step_method() {
  const Cycle now = step_cycle_;  // (ask_step(): this run's cycle, at its edge)
  sc_assert(clk_.on_edge(now));
  bool waiting_inputs = false;
  // This activation's notifications of step_ev_, to skip the later ones SystemC would ignore:
  // one is ignored when a notification at the same time or earlier is pending, and pending ones
  // only ever move earlier. (Another process's notification is never assumed.)
  bool next_notified = false;
  // A held packet its port cannot take this cycle: the retry on_request / on_reply would
  // schedule (called at this edge: the next cycle), without their checks.
  auto blocked = [&]() {
    waiting_inputs = true;
    if (next_notified) return;
    ask_step(now + 1);
    next_notified = true;
  };
  if (now != last_step_) {
    last_step_ = now;
    // Requests held at injection ports (round-robin among the bindings of a port), in port
    // order; ports without a held request have nothing to do.
    for_each_marked(
        held_ports_, ports_, [&](std::uint32_t p) __attribute__((always_inline)) {
          const std::uint32_t first = p * cfg_.bindings_per_port;
          const std::uint32_t n = std::min(cfg_.bindings_per_port, cfg_.bindings - first);
          for (std::uint32_t k = 0; k < n; ++k) {
            std::uint32_t s = first + (port_rr_[p] + k) % n;
            Payload* gp = in_ports_[s]->held_request();
            if (!gp) continue;
            if (port_blocked(p, now)) {
              blocked();
            } else if (on_held_request(s, *gp, now)) {
              port_rr_[p] = (s - first + 1) % n;
              in_ports_[s]->accept_request();
            } else {
              waiting_inputs = true;
            }
            break;
          }
          bool held = false;
          for (std::uint32_t k = 0; k < n && !held; ++k)
            held = in_ports_[first + k]->held_request();
          if (!held) unmark(held_ports_, p);
        });
    if (cfg_.core_bindings) {  // (shared L1 only: the core bindings' held requests)
      for (std::uint32_t b = cfg_.bindings; b < cfg_.bindings + cfg_.core_bindings; ++b) {
        Payload* gp = in_ports_[b]->held_request();
        if (!gp) continue;
        const std::uint32_t p = port_of(b);
        if (port_blocked(p, now))
          blocked();
        else if (on_held_request(b, *gp, now))
          in_ports_[b]->accept_request();
        else
          waiting_inputs = true;
      }
    }
    const std::uint32_t outs = targets_ + cfg_.core_bindings;
    for_each_marked(
        held_targets_, outs, [&](std::uint32_t t) __attribute__((always_inline)) {
          Payload* gp = out_ports_[t]->held_response();
          if (gp) {
            // An L2 reply at an edge its target can take is taken without on_reply's checks.
            if (t < targets_ && target_blocked(t, now)) {
              blocked();
            } else if (t < targets_) {
              take_reply(t, *gp, now, false);
              out_ports_[t]->accept_response();
            } else if (on_reply(t, *gp, now, true))
              out_ports_[t]->accept_response();
            else
              waiting_inputs = true;
          }
          if (!out_ports_[t]->held_response()) unmark(held_targets_, t);
        });
    if (cfg_.core_bindings) forward(now);
    CrossbarFabric::arbitrate(req_, rep_, now);
  }
  // Deliveries: requests to L2 ports, replies through each port's response FIFO (1 per cycle) to
  // the binding their request entered by. Only outputs whose head is ready are visited (in
  // order); the fabrics give the next cycle a head in flight becomes ready (the output side of
  // their next_event(); heads ready by now wait for their consumer).
  if (fwd_.empty()) {  // (no forwarded packet: the usual loop, without its lookups)
    req_.for_each_ready_output(now, [&](std::uint32_t t) {
      do {
        if (out_ports_[t]->busy()) return;
        req_latency_.sample(now - req_.front_injected(t));
        out_ports_[t]->send(*static_cast<Payload*>(req_.pop(t)));
      } while (req_.head_ready(t) <= now);
    });
  } else {
    deliver_requests_forwarding(now);
  }
  // A port that delivered this cycle with its next reply ready by then needs a step next cycle
  // (nothing below pops or fills the reply network's outputs, so it is decided here).
  bool soon = waiting_inputs;
  rep_.for_each_ready_output(now, [&](std::uint32_t p) {
    if (port_delivered_[p] != now) {
      deliver_reply(p, now);
      if (port_delivered_[p] != now) return;  // the binding is busy; its kick() asks for a step
    }
    if (rep_.head_ready(p) <= now) soon = true;
  });
  if (cfg_.core_bindings) deliver_home();
  // The next step: now + 1 if something waits for it, else the fabrics' next event (never
  // earlier than now + 1, so they need not be asked in the first case).
  if (cfg_.core_bindings)
    for (const auto& q : slice_fwd_)
      if (!q.empty()) soon = true;
  // (Nothing is earlier than now + 1: the fabrics' arbitrations are not asked when a head
  // becomes ready then, the reply network's when the request network can arbitrate then.)
  Cycle next = now + 1;
  if (!soon) {
    next = CrossbarFabric::next_ready(req_, rep_, now);
    if (next != now + 1)
      next = std::min(next, CrossbarFabric::next_arbitration(req_, rep_, now + 1));
  }
  if (next != CrossbarFabric::kNever && !next_notified) ask_step(next);
}

void Crossbar::deliver_requests_forwarding(Cycle now) {
  req_.for_each_ready_output(now, [&](std::uint32_t t) {
    while (req_.head_ready(t) <= now) {
      auto f = fwd_.find(static_cast<Payload*>(req_.front(t)));
      if (f != fwd_.end() &&
          (f->second.leg == Leg::RequestToSlice || f->second.leg == Leg::ReplyToSlice)) {
        // At the slice: into its forwarding buffer, towards the reply network.
        slice_fwd_[t].push_back(static_cast<Payload*>(req_.pop(t)));
        continue;
      }
      if (out_ports_[t]->busy()) break;
      req_latency_.sample(now - req_.front_injected(t));
      out_ports_[t]->send(*static_cast<Payload*>(req_.pop(t)));
    }
  });
}

void Crossbar::deliver_home() {
  for (std::uint32_t h = 0; h < home_fwd_.size(); ++h) {
    std::deque<Payload*>& q = home_fwd_[h];
    while (!q.empty() && !out_ports_[targets_ + h]->busy()) {
      Payload* gp = q.front();
      q.pop_front();
      fwd_.at(gp).leg = Leg::AtHome;
      out_ports_[targets_ + h]->send(*gp);
    }
  }
}

bool Crossbar::forwarded_reply(std::uint32_t p, Payload* gp, Cycle now) {
  auto f = fwd_.find(gp);
  if (f != fwd_.end() && f->second.leg == Leg::SliceToHome) {
    rep_.pop(p);
    port_delivered_[p] = now;
    home_fwd_[f->second.home].push_back(gp);
    return true;
  }
  if (f != fwd_.end() && f->second.leg == Leg::SliceToRequester)
    fwd_.erase(f);  // the last leg: delivered as any reply
  return false;
}

void Crossbar::deliver_reply(std::uint32_t p, Cycle now) {
  Payload* gp = static_cast<Payload*>(rep_.front(p));
  if (!fwd_.empty() && forwarded_reply(p, gp, now)) return;
  RouteExtension& route = route_ext(*gp);
  const std::uint32_t s = route.top();
  if (in_ports_[s]->response_busy()) return;
  route.pop();
  rep_latency_.sample(now - rep_.front_injected(p));
  rep_.pop(p);
  port_delivered_[p] = now;
  in_ports_[s]->respond(*gp);
}

void Crossbar::forward(Cycle now) {
  // Each slice's forwarding buffer competes with the slice's L2 replies for its reply port (one
  // packet per cycle): a forwarded packet goes when no L2 reply took the port this cycle.
  for (std::uint32_t t = 0; t < targets_; ++t) {
    std::deque<Payload*>& q = slice_fwd_[t];
    if (q.empty() || target_blocked(t, now)) continue;
    Payload* gp = q.front();
    q.pop_front();
    reply_accept_[t] = now;
    Forwarded& f = fwd_.at(gp);
    std::uint32_t p, flits;
    if (f.leg == Leg::RequestToSlice) {
      f.leg = Leg::SliceToHome;
      p = port_of(f.home);
      flits = noc_request_flits(*gp, cfg_.header_bytes, cfg_.flit_bytes, cfg_.sector_packets);
    } else {
      f.leg = Leg::SliceToRequester;
      p = port_of(route_ext(*gp).top());
      flits = noc_reply_flits(*gp, cfg_.header_bytes, cfg_.flit_bytes, cfg_.sector_packets);
    }
    // Injected now: the reply-latency sample (of the last leg) covers only this leg.
    rep_.inject(t, p, flits, gp, now);
    ++*forwarded_;
    rep_flits_ += flits;
    bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
    *port_rep_flits_[p] += flits;
  }
}

void Crossbar::in_b_transport(int, Payload& gp, sc_core::sc_time& d) {
  out[target_of(gp.get_address())]->b_transport(gp, d);
}

unsigned int Crossbar::in_transport_dbg(int, Payload& gp) {
  return out[target_of(gp.get_address())]->transport_dbg(gp);
}

}  // namespace locsim
