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
}  // namespace

Crossbar::Crossbar(sc_core::sc_module_name name, const CrossbarConfig& cfg, const AddressMap& map,
                   SimContext& ctx)
    : Interconnect(name),
      cfg_(cfg),
      ctx_(ctx),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      map_(map),
      ports_(ceil_div(cfg.bindings, cfg.bindings_per_port)),
      targets_(cfg.route ? cfg.targets : map.num_subpartitions()),
      req_(CrossbarFabric::Config{ports_, targets_, cfg.input_buffer, cfg.output_buffer,
                                  cfg.latency, cfg.port_width, cfg.target_width}),
      rep_(CrossbarFabric::Config{targets_, ports_, cfg.input_buffer, cfg.response_fifo,
                                  cfg.latency, cfg.target_width, cfg.port_width}),
      port_accept_(ports_, ~Cycle{0}),
      reply_accept_(targets_, ~Cycle{0}),
      port_delivered_(ports_, ~Cycle{0}),
      port_rr_(ports_, 0),
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
  if (cfg.route && cfg.targets == 0)
    throw std::invalid_argument(std::string(this->name()) + ": a routed crossbar needs targets");
  for (std::uint32_t i = 0; i < cfg.bindings; ++i) {
    add_in_port([this, i](Payload& gp) { return on_request(i, gp, clk_.now()); },
                [this]() { kick(); });
  }
  for (std::uint32_t t = 0; t < targets_; ++t) {
    add_out_port([this, t](Payload& gp) { return on_reply(t, gp, clk_.now()); },
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
  SC_HAS_PROCESS(Crossbar);
  SC_METHOD(step_method);
  sensitive << step_ev_;
  dont_initialize();
}

void Crossbar::observe_locality(std::uint32_t p, const Payload& gp, Cycle now) {
  if (icl_.empty()) return;
  const GpuExtension& e = gpu_ext(const_cast<Payload&>(gp));
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

bool Crossbar::on_request(std::uint32_t src, Payload& gp, Cycle now) {
  const std::uint32_t p = src / cfg_.bindings_per_port;
  if (port_accept_[p] == now || !req_.can_inject(p) || sc_core::sc_time_stamp() != clk_.at(now)) {
    step_ev_.notify(clk_.until(clk_.next_edge_cycle() + (port_accept_[p] == now ? 1 : 0)));
    return false;
  }
  port_accept_[p] = now;
  const std::uint32_t flits = noc_request_flits(gp, cfg_.header_bytes, cfg_.flit_bytes);
  if (cfg_.observe) cfg_.observe(src, gp);
  const std::uint32_t dst = target_of(gp.get_address());
  req_.inject(p, dst, flits, &gp);
  route_ext(gp).push(src);  // the reply's way back
  ++requests_;
  if (gpu_ext(gp).kind == AccessKind::Load) {
    ++read_requests_;
    observe_locality(p, gp, now);
  }
  req_flits_ += flits;
  bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
  *port_req_flits_[p] += flits;
  injected_[&gp] = now;
  gpu_ext(gp).at(name());
  step_ev_.notify(clk_.until(now + 1));
  return true;
}

bool Crossbar::on_reply(std::uint32_t tgt, Payload& gp, Cycle now) {
  if (reply_accept_[tgt] == now || !rep_.can_inject(tgt) ||
      sc_core::sc_time_stamp() != clk_.at(now)) {
    step_ev_.notify(clk_.until(clk_.next_edge_cycle() + (reply_accept_[tgt] == now ? 1 : 0)));
    return false;
  }
  reply_accept_[tgt] = now;
  GpuExtension& e = gpu_ext(gp);
  const std::uint32_t p = route_ext(gp).top() / cfg_.bindings_per_port;
  const std::uint32_t flits = noc_reply_flits(gp, cfg_.header_bytes, cfg_.flit_bytes);
  rep_.inject(tgt, p, flits, &gp);
  ++replies_;
  rep_flits_ += flits;
  bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
  *port_rep_flits_[p] += flits;
  injected_[&gp] = now;
  e.at(name());
  step_ev_.notify(clk_.until(now + 1));
  return true;
}

void Crossbar::step_method() {
  const Cycle now = clk_.now();
  if (sc_core::sc_time_stamp() != clk_.at(now)) {
    step_ev_.notify(clk_.until(now + 1));
    return;
  }
  bool waiting_inputs = false;
  if (now != last_step_) {
    last_step_ = now;
    // Requests held at injection ports (round-robin among the bindings of a port).
    for (std::uint32_t p = 0; p < ports_; ++p) {
      const std::uint32_t first = p * cfg_.bindings_per_port;
      const std::uint32_t n = std::min(cfg_.bindings_per_port, cfg_.bindings - first);
      for (std::uint32_t k = 0; k < n; ++k) {
        std::uint32_t s = first + (port_rr_[p] + k) % n;
        Payload* gp = in_ports_[s]->held_request();
        if (!gp) continue;
        if (on_request(s, *gp, now)) {
          port_rr_[p] = (s - first + 1) % n;
          in_ports_[s]->accept_request();
        } else {
          waiting_inputs = true;
        }
        break;
      }
    }
    for (std::uint32_t t = 0; t < targets_; ++t) {
      Payload* gp = out_ports_[t]->held_response();
      if (!gp) continue;
      if (on_reply(t, *gp, now))
        out_ports_[t]->accept_response();
      else
        waiting_inputs = true;
    }
    req_.arbitrate(now);
    rep_.arbitrate(now);
  }
  // Deliveries: requests to L2 ports, replies through each port's response FIFO (1 per cycle) to
  // the binding their request entered by.
  for (std::uint32_t t = 0; t < targets_; ++t) {
    while (req_.ready(t, now) && !out_ports_[t]->busy()) {
      Payload* gp = static_cast<Payload*>(req_.pop(t));
      auto it = injected_.find(gp);
      req_latency_.sample(now - it->second);
      injected_.erase(it);
      out_ports_[t]->send(*gp);
    }
  }
  for (std::uint32_t p = 0; p < ports_; ++p) {
    if (port_delivered_[p] == now || !rep_.ready(p, now)) continue;
    Payload* gp = static_cast<Payload*>(rep_.front(p));
    RouteExtension& route = route_ext(*gp);
    const std::uint32_t s = route.top();
    if (in_ports_[s]->response_busy()) continue;
    route.pop();
    rep_.pop(p);
    port_delivered_[p] = now;
    auto it = injected_.find(gp);
    rep_latency_.sample(now - it->second);
    injected_.erase(it);
    in_ports_[s]->respond(*gp);
  }
  Cycle next = std::min(req_.next_event(now + 1), rep_.next_event(now + 1));
  for (std::uint32_t p = 0; p < ports_; ++p)
    if (rep_.ready(p, now + 1) && port_delivered_[p] == now) next = std::min(next, now + 1);
  if (waiting_inputs) next = std::min(next, now + 1);
  if (next != CrossbarFabric::kNever) step_ev_.notify(clk_.until(next));
}

void Crossbar::in_b_transport(int, Payload& gp, sc_core::sc_time& d) {
  out[target_of(gp.get_address())]->b_transport(gp, d);
}

unsigned int Crossbar::in_transport_dbg(int, Payload& gp) {
  return out[target_of(gp.get_address())]->transport_dbg(gp);
}

}  // namespace locsim
