#include "tlm_components/mesh_noc.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tlm_components/gpu_extension.h"
#include "tlm_components/packet_size.h"
#include "tlm_components/route_extension.h"

namespace locsim {

namespace {
MeshFabric::Config fabric_config(const MeshNocConfig& c, std::uint32_t classes) {
  MeshFabric::Config f;
  f.rows = c.rows;
  f.cols = c.cols;
  f.terminal_node = c.in_node;
  f.terminal_node.insert(f.terminal_node.end(), c.out_node.begin(), c.out_node.end());
  f.classes = classes;
  f.vcs = c.vcs;
  f.vc_flits = c.vc_flits;
  f.router_latency = c.router_latency;
  f.link_latency = c.link_latency;
  f.injection_buffer = c.injection_buffer;
  f.ejection_buffer = c.ejection_buffer;
  return f;
}

std::uint32_t request_classes(const MeshNocConfig& c) {
  std::uint32_t n = 1;
  for (std::uint32_t k : c.in_class) n = std::max(n, k + 1);
  return n;
}

const char* const kDirName[4] = {"E", "W", "N", "S"};
}  // namespace

MeshNoc::MeshNoc(sc_core::sc_module_name name, const MeshNocConfig& cfg, const AddressMap& map,
                 SimContext& ctx)
    : Interconnect(name),
      cfg_(cfg),
      ctx_(ctx),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      map_(map),
      n_in_(static_cast<std::uint32_t>(cfg.in_node.size())),
      n_out_(static_cast<std::uint32_t>(cfg.out_node.size())),
      req_(fabric_config(cfg, request_classes(cfg))),
      rep_(fabric_config(cfg, 1)),  // replies always sink: one class
      in_accept_(n_in_, ~Cycle{0}),
      out_accept_(n_out_, ~Cycle{0}),
      in_delivered_(n_in_, ~Cycle{0}),
      out_delivered_(n_out_, ~Cycle{0}),
#define NOC_STAT(n, u, d) ctx.stats.counter(this->name(), "noc", n, u, d)
      requests_(NOC_STAT("requests", "packets", "request packets injected by SM ports")),
      read_requests_(NOC_STAT("read_requests", "packets", "request packets that are loads")),
      replies_(NOC_STAT("replies", "packets", "reply packets injected by L2 sub-partitions")),
      req_flits_(NOC_STAT("request_flits", "flits", "flits carried by the request network")),
      rep_flits_(NOC_STAT("reply_flits", "flits", "flits carried by the reply network")),
      bytes_(NOC_STAT("bytes", "bytes", "header and data bytes carried by both networks")),
      link_flits_(NOC_STAT("link_flits", "flits",
                           "flit-hops: flits times mesh links crossed, both networks")),
#undef NOC_STAT
      req_latency_(ctx.stats.distribution(this->name(), "noc", "request_latency", "cycles",
                                          "NoC cycles from injection to delivery at the L2")),
      rep_latency_(ctx.stats.distribution(this->name(), "noc", "reply_latency", "cycles",
                                          "NoC cycles from injection to delivery at the SM")),
      hops_(ctx.stats.distribution(this->name(), "noc", "hops", "hops",
                                   "mesh links crossed per packet, both networks")) {
  const std::string me = this->name();
  if (!n_in_ || !n_out_)
    throw std::invalid_argument(me + ": a mesh needs in_node and out_node entries");
  if (!cfg.in_class.empty() && cfg.in_class.size() != n_in_)
    throw std::invalid_argument(me + ": in_class must name the class of every `in` binding");
  if (!cfg.flit_bytes) throw std::invalid_argument(me + ": flit_bytes must be at least 1");
  if (!cfg.route && map.num_subpartitions() > n_out_)
    throw std::invalid_argument(
        me + ": the address map has " + std::to_string(map.num_subpartitions()) +
        " L2 sub-partitions but the mesh only " + std::to_string(n_out_) + " `out` bindings");
  for (std::uint32_t i = 0; i < n_in_; ++i) {
    add_in_port([this, i](Payload& gp) { return on_request(i, gp, clk_.now()); },
                [this]() { kick(); });
    const std::string path = me + ".port" + std::to_string(i);
    port_req_flits_.push_back(&ctx.stats.counter(path, "noc_port", "request_flits", "flits",
                                                 "flits injected by this mesh port"));
    port_rep_flits_.push_back(&ctx.stats.counter(path, "noc_port", "reply_flits", "flits",
                                                 "flits delivered to this mesh port"));
  }
  for (std::uint32_t t = 0; t < n_out_; ++t) {
    add_out_port([this, t](Payload& gp) { return on_reply(t, gp, clk_.now()); },
                 [this]() { kick(); });
  }
  // One counter per directed link and network: utilisation = flits / noc cycles.
  for (std::uint32_t n = 0; n < req_.nodes(); ++n)
    for (std::uint32_t d = 0; d < 4; ++d) {
      const auto dir = static_cast<MeshFabric::Dir>(d);
      if (req_.neighbour(n, dir) == MeshFabric::kNoNode) continue;
      const std::string path = me + ".link" + std::to_string(n) + kDirName[d];
      req_.bind_link_counter(
          n, dir,
          &ctx.stats.counter(path, "noc_link", "request_flits", "flits",
                             "flits the request network carried on this directed link"));
      rep_.bind_link_counter(
          n, dir,
          &ctx.stats.counter(path, "noc_link", "reply_flits", "flits",
                             "flits the reply network carried on this directed link"));
    }
  step_ev_.bind<&MeshNoc::step_method>(this, std::string(this->name()) + ".step_method");
}

void MeshNoc::end_of_elaboration() {
  Interconnect::end_of_elaboration();
  if (in.size() != n_in_ || out.size() != n_out_)
    throw std::logic_error(std::string(this->name()) + ": bound " + std::to_string(in.size()) +
                           " `in` / " + std::to_string(out.size()) +
                           " `out` bindings, configured " + std::to_string(n_in_) + " / " +
                           std::to_string(n_out_));
}

std::uint32_t MeshNoc::target_of(const Payload& gp) const {
  GpuExtension* e = nullptr;
  const_cast<Payload&>(gp).get_extension(e);
  const Addr a = gp.get_address();
  std::uint32_t t;
  if (e && e->noc_target >= 0)
    t = static_cast<std::uint32_t>(e->noc_target);
  else
    t = cfg_.route ? cfg_.route(a) : map_.subpartition(a);
  if (t >= n_out_)
    throw std::out_of_range(std::string(this->name()) + ": request for address " +
                            std::to_string(a) + " routed to `out` binding " + std::to_string(t) +
                            " of " + std::to_string(n_out_));
  return t;
}

void MeshNoc::clear_noc_target(Payload& gp) const {
  GpuExtension* e = nullptr;
  gp.get_extension(e);
  if (e) e->noc_target = -1;  // consumed here: the next interconnect routes by address again
}

bool MeshNoc::on_request(std::uint32_t src, Payload& gp, Cycle now) {
  const std::uint32_t cls = cfg_.in_class.empty() ? 0 : cfg_.in_class[src];
  if (in_accept_[src] == now || !req_.can_inject(src, cls) || !clk_.on_edge(now)) {
    // Retry at the next edge (a step in progress schedules the retry itself).
    if (in_step_)
      retry_ = true;
    else
      step_ev_.notify_at(clk_.ps_at(clk_.next_edge_cycle() + (in_accept_[src] == now ? 1 : 0)));
    return false;
  }
  const std::uint32_t dst = target_of(gp);
  in_accept_[src] = now;
  clear_noc_target(gp);
  GpuExtension& e = gpu_ext(gp);
  const std::uint32_t flits =
      noc_request_flits(gp, cfg_.header_bytes, cfg_.flit_bytes, cfg_.sector_packets);
  req_.inject(src, n_in_ + dst, cls, flits, &gp, now);
  route_ext(gp).push(src);  // the reply's way back
  const std::uint32_t hops = req_.hops(cfg_.in_node[src], cfg_.out_node[dst]);
  ++requests_;
  if (e.kind == AccessKind::Load) ++read_requests_;
  req_flits_ += flits;
  bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
  link_flits_ += static_cast<std::uint64_t>(flits) * hops;
  hops_.sample(hops);
  *port_req_flits_[src] += flits;
  e.at(name());
  if (!in_step_) step_ev_.notify_at(clk_.ps_at(req_.next_event(now)));
  return true;
}

bool MeshNoc::on_reply(std::uint32_t tgt, Payload& gp, Cycle now) {
  const std::uint32_t src = n_in_ + tgt;
  if (out_accept_[tgt] == now || !rep_.can_inject(src, 0) || !clk_.on_edge(now)) {
    if (in_step_)
      retry_ = true;
    else
      step_ev_.notify_at(clk_.ps_at(clk_.next_edge_cycle() + (out_accept_[tgt] == now ? 1 : 0)));
    return false;
  }
  out_accept_[tgt] = now;
  GpuExtension& e = gpu_ext(gp);
  const std::uint32_t dst = route_ext(gp).top();
  sc_assert(dst < n_in_);
  const std::uint32_t flits =
      noc_reply_flits(gp, cfg_.header_bytes, cfg_.flit_bytes, cfg_.sector_packets);
  rep_.inject(src, dst, 0, flits, &gp, now);
  const std::uint32_t hops = rep_.hops(cfg_.out_node[tgt], cfg_.in_node[dst]);
  ++replies_;
  rep_flits_ += flits;
  bytes_ += static_cast<std::uint64_t>(flits) * cfg_.flit_bytes;
  link_flits_ += static_cast<std::uint64_t>(flits) * hops;
  hops_.sample(hops);
  *port_rep_flits_[dst] += flits;
  e.at(name());
  if (!in_step_) step_ev_.notify_at(clk_.ps_at(rep_.next_event(now)));
  return true;
}

void MeshNoc::step_method() {
  const Cycle now = clk_.now();
  if (!clk_.on_edge(now)) {
    step_ev_.notify_at(clk_.ps_at(now + 1));
    return;
  }
  bool waiting_inputs = false;  // held requests/replies retry next cycle
  if (now != last_step_) {
    last_step_ = now;
    in_step_ = true;  // the end of this step schedules the next one
    for (std::uint32_t s = 0; s < n_in_; ++s) {
      Payload* gp = in_ports_[s]->held_request();
      if (!gp) continue;
      if (on_request(s, *gp, now))
        in_ports_[s]->accept_request();
      else
        waiting_inputs = true;
    }
    for (std::uint32_t t = 0; t < n_out_; ++t) {
      Payload* gp = out_ports_[t]->held_response();
      if (!gp) continue;
      if (on_reply(t, *gp, now))
        out_ports_[t]->accept_response();
      else
        waiting_inputs = true;
    }
    in_step_ = false;
  }
  req_.advance(now);
  rep_.advance(now);
  // Deliveries: one request per cycle to each `out` binding, one reply per cycle to each `in`
  // binding (the one its request entered by).
  Cycle next = MeshFabric::kNever;
  for (std::uint32_t t = 0; t < n_out_; ++t) {
    const std::uint32_t term = n_in_ + t;
    if (out_delivered_[t] != now && req_.ready(term, now) && !out_ports_[t]->busy()) {
      req_latency_.sample(now - req_.front_injected(term));
      Payload* gp = static_cast<Payload*>(req_.pop(term));
      out_delivered_[t] = now;
      out_ports_[t]->send(*gp);
    }
    if (out_delivered_[t] == now && req_.ready(term, now + 1)) next = now + 1;
  }
  for (std::uint32_t s = 0; s < n_in_; ++s) {
    if (in_delivered_[s] != now && rep_.ready(s, now) && !in_ports_[s]->response_busy()) {
      rep_latency_.sample(now - rep_.front_injected(s));
      Payload* gp = static_cast<Payload*>(rep_.pop(s));
      RouteExtension& route = route_ext(*gp);
      sc_assert(route.top() == s);
      route.pop();
      in_delivered_[s] = now;
      in_ports_[s]->respond(*gp);
    }
    if (in_delivered_[s] == now && rep_.ready(s, now + 1)) next = now + 1;
  }
  next = std::min({next, req_.next_event(now + 1), rep_.next_event(now + 1)});
  if (waiting_inputs || retry_) next = std::min(next, now + 1);
  retry_ = false;
  if (next != MeshFabric::kNever) step_ev_.notify_at(clk_.ps_at(next));
}

void MeshNoc::in_b_transport(int, Payload& gp, sc_core::sc_time& d) {
  const std::uint32_t t = target_of(gp);
  clear_noc_target(gp);
  out[t]->b_transport(gp, d);
}

unsigned int MeshNoc::in_transport_dbg(int, Payload& gp) {
  const std::uint32_t t = target_of(gp);
  clear_noc_target(gp);
  return out[t]->transport_dbg(gp);
}

}  // namespace locsim
