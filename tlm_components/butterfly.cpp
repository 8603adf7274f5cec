#include "tlm_components/butterfly.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tlm_components/gpu_extension.h"
#include "tlm_components/packet_size.h"
#include "tlm_components/route_extension.h"

namespace locsim {

namespace {
ButterflyConfig resolved(ButterflyConfig c) {
  if (!c.cores) throw std::invalid_argument("a butterfly needs at least one core");
  if (!c.k || !c.n) {
    const auto kn = butterfly_for(c.cores);
    c.k = kn.first;
    c.n = kn.second;
  }
  return c;
}

ButterflyFabric::Config fabric_config(const ButterflyConfig& c) {
  ButterflyFabric::Config f;
  f.k = c.k;
  f.n = c.n;
  f.input_buffer = c.input_buffer;
  f.switch_buffer = c.switch_buffer;
  f.output_buffer = c.output_buffer;
  f.switch_latency = c.switch_latency;
  return f;
}
}  // namespace

Butterfly::Butterfly(sc_core::sc_module_name name, const ButterflyConfig& cfg, SimContext& ctx)
    : Interconnect(name),
      cfg_(resolved(cfg)),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      req_(fabric_config(cfg_)),
      rep_(fabric_config(cfg_)),
      in_accept_(cfg_.cores, ~Cycle{0}),
      out_accept_(cfg_.cores, ~Cycle{0}),
      in_delivered_(cfg_.cores, ~Cycle{0}),
      out_delivered_(cfg_.cores, ~Cycle{0}),
#define BFLY_STAT(n, u, d) ctx.stats.counter(this->name(), "butterfly", n, u, d)
      requests_(BFLY_STAT("requests", "packets", "core-to-core request packets injected")),
      read_requests_(BFLY_STAT("read_requests", "packets", "request packets that are loads")),
      replies_(BFLY_STAT("replies", "packets", "reply packets injected by home cores")),
      req_flits_(BFLY_STAT("request_flits", "flits", "flits carried by the request butterfly")),
      rep_flits_(BFLY_STAT("reply_flits", "flits", "flits carried by the reply butterfly")),
      bytes_(BFLY_STAT("bytes", "bytes", "header and data bytes carried by both butterflies")),
      stage_flits_(
          BFLY_STAT("stage_flits", "flits", "flits times switch stages crossed, both butterflies")),
#undef BFLY_STAT
      req_latency_(ctx.stats.distribution(
          this->name(), "butterfly", "request_latency", "cycles",
          "NoC cycles from acceptance of a request to its delivery at the home core")),
      rep_latency_(ctx.stats.distribution(
          this->name(), "butterfly", "reply_latency", "cycles",
          "NoC cycles from acceptance of a reply to its delivery at the requesting core")) {
  const std::string me = this->name();
  if (req_.terminals() < cfg_.cores)
    throw std::invalid_argument(me + ": a " + std::to_string(cfg_.k) + "-ary " +
                                std::to_string(cfg_.n) + "-fly has " +
                                std::to_string(req_.terminals()) + " terminals, fewer than " +
                                std::to_string(cfg_.cores) + " cores");
  if (!cfg_.flit_bytes) throw std::invalid_argument(me + ": flit_bytes must be at least 1");
  for (std::uint32_t i = 0; i < cfg_.cores; ++i) {
    add_in_port([this, i](Payload& gp) { return on_request(i, gp, clk_.now()); },
                [this]() { kick(); });
    add_out_port([this, i](Payload& gp) { return on_reply(i, gp, clk_.now()); },
                 [this]() { kick(); });
    const std::string path = me + ".port" + std::to_string(i);
    port_req_flits_.push_back(&ctx.stats.counter(path, "butterfly_port", "request_flits", "flits",
                                                 "request flits injected by this core"));
    port_rep_flits_.push_back(&ctx.stats.counter(path, "butterfly_port", "reply_flits", "flits",
                                                 "reply flits delivered to this core"));
  }
  step_ev_.bind<&Butterfly::step_method>(this, std::string(this->name()) + ".step_method");
}

void Butterfly::end_of_elaboration() {
  Interconnect::end_of_elaboration();
  if (in.size() != cfg_.cores || out.size() != cfg_.cores)
    throw std::logic_error(std::string(this->name()) + ": bound " + std::to_string(in.size()) +
                           " `in` / " + std::to_string(out.size()) +
                           " `out` bindings, configured " + std::to_string(cfg_.cores) + " cores");
}

std::uint32_t Butterfly::target_of(Payload& gp) const {
  const std::int32_t t = gpu_ext(gp).noc_target;
  if (t < 0 || static_cast<std::uint32_t>(t) >= cfg_.cores) {
    const std::string msg = std::string(this->name()) + ": core-to-core request for address " +
                            std::to_string(gp.get_address()) + " names home core " +
                            std::to_string(t) + ", not one of the " + std::to_string(cfg_.cores) +
                            " cores (GpuExtension::noc_target)";
    SC_REPORT_ERROR("locsim/butterfly", msg.c_str());
    throw std::out_of_range(msg);  // only reached when errors are configured not to throw
  }
  return static_cast<std::uint32_t>(t);
}

bool Butterfly::on_request(std::uint32_t src, Payload& gp, Cycle now) {
  const std::uint32_t dst = target_of(gp);
  if (in_accept_[src] == now || !req_.can_inject(src, now) || !clk_.on_edge(now)) {
    step_ev_.notify_at(clk_.ps_at(clk_.next_edge_cycle() + (in_accept_[src] == now ? 1 : 0)));
    return false;
  }
  in_accept_[src] = now;
  GpuExtension& e = gpu_ext(gp);
  e.noc_target = -1;  // consumed: the next interconnect routes by address again
  const std::uint32_t flits =
      noc_request_flits(gp, cfg_.header_bytes, cfg_.flit_bytes, cfg_.sector_packets);
  req_.inject(src, dst, flits, &gp);
  route_ext(gp).push(src);  // the reply's way back
  ++requests_;
  if (e.kind == AccessKind::Load) ++read_requests_;
  req_flits_ += flits;
  bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
  stage_flits_ += static_cast<std::uint64_t>(flits) * cfg_.n;
  *port_req_flits_[src] += flits;
  injected_[&gp] = now;
  e.at(name());
  if (!in_step_) step_ev_.notify_at(clk_.ps_at(req_.next_event(now)));
  return true;
}

bool Butterfly::on_reply(std::uint32_t tgt, Payload& gp, Cycle now) {
  if (out_accept_[tgt] == now || !rep_.can_inject(tgt, now) || !clk_.on_edge(now)) {
    step_ev_.notify_at(clk_.ps_at(clk_.next_edge_cycle() + (out_accept_[tgt] == now ? 1 : 0)));
    return false;
  }
  out_accept_[tgt] = now;
  GpuExtension& e = gpu_ext(gp);
  const std::uint32_t dst = route_ext(gp).top();
  sc_assert(dst < cfg_.cores);
  const std::uint32_t flits =
      noc_reply_flits(gp, cfg_.header_bytes, cfg_.flit_bytes, cfg_.sector_packets);
  rep_.inject(tgt, dst, flits, &gp);
  ++replies_;
  rep_flits_ += flits;
  bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
  stage_flits_ += static_cast<std::uint64_t>(flits) * cfg_.n;
  *port_rep_flits_[dst] += flits;
  injected_[&gp] = now;
  e.at(name());
  if (!in_step_) step_ev_.notify_at(clk_.ps_at(rep_.next_event(now)));
  return true;
}

void Butterfly::step_method() {
  const Cycle now = clk_.now();
  if (!clk_.on_edge(now)) {
    step_ev_.notify_at(clk_.ps_at(now + 1));
    return;
  }
  bool waiting_inputs = false;
  if (now != last_step_) {
    last_step_ = now;
    in_step_ = true;  // the end of this step schedules the next one
    for (std::uint32_t c = 0; c < cfg_.cores; ++c) {
      if (Payload* gp = in_ports_[c]->held_request()) {
        if (on_request(c, *gp, now))
          in_ports_[c]->accept_request();
        else
          waiting_inputs = true;
      }
      if (Payload* gp = out_ports_[c]->held_response()) {
        if (on_reply(c, *gp, now))
          out_ports_[c]->accept_response();
        else
          waiting_inputs = true;
      }
    }
    in_step_ = false;
  }
  req_.advance(now);
  rep_.advance(now);
  // Deliveries: one request per cycle to each home core, one reply per cycle to each core (the
  // binding its request entered by).
  Cycle next = ButterflyFabric::kNever;
  for (std::uint32_t c = 0; c < cfg_.cores; ++c) {
    if (out_delivered_[c] != now && req_.ready(c, now) && !out_ports_[c]->busy()) {
      Payload* gp = static_cast<Payload*>(req_.pop(c));
      out_delivered_[c] = now;
      auto it = injected_.find(gp);
      req_latency_.sample(now - it->second);
      injected_.erase(it);
      out_ports_[c]->send(*gp);
    }
    if (out_delivered_[c] == now && req_.ready(c, now + 1)) next = now + 1;
    if (in_delivered_[c] != now && rep_.ready(c, now) && !in_ports_[c]->response_busy()) {
      Payload* gp = static_cast<Payload*>(rep_.pop(c));
      RouteExtension& route = route_ext(*gp);
      sc_assert(route.top() == c);
      route.pop();
      in_delivered_[c] = now;
      auto it = injected_.find(gp);
      rep_latency_.sample(now - it->second);
      injected_.erase(it);
      in_ports_[c]->respond(*gp);
    }
    if (in_delivered_[c] == now && rep_.ready(c, now + 1)) next = now + 1;
  }
  next = std::min({next, req_.next_event(now + 1), rep_.next_event(now + 1)});
  if (waiting_inputs) next = std::min(next, now + 1);
  if (next != ButterflyFabric::kNever) step_ev_.notify_at(clk_.ps_at(next));
}

void Butterfly::in_b_transport(int, Payload& gp, sc_core::sc_time& d) {
  const std::uint32_t t = target_of(gp);
  gpu_ext(gp).noc_target = -1;
  out[t]->b_transport(gp, d);
}

unsigned int Butterfly::in_transport_dbg(int, Payload& gp) {
  const std::uint32_t t = target_of(gp);
  gpu_ext(gp).noc_target = -1;
  return out[t]->transport_dbg(gp);
}

}  // namespace locsim
