#include "tlm_components/inter_module_link.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "tlm_components/gpu_extension.h"

namespace locsim {

InterModuleLink::InterModuleLink(sc_core::sc_module_name name, const InterModuleLinkConfig& cfg,
                                 std::vector<SerialChannel*> forward,
                                 std::vector<SerialChannel*> backward, SimContext& ctx)
    : sc_module(name),
      in("in"),
      out("out"),
      cfg_(cfg),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      fwd_(std::move(forward)),
      bwd_(std::move(backward)),
      up_("up"),
      down_("down"),
#define LINK_STAT(n, u, d) ctx.stats.counter(this->name(), "link", n, u, d)
      req_count_(LINK_STAT("requests", "requests", "requests carried to the far module")),
      rep_count_(LINK_STAT("replies", "replies", "replies carried back to the near module")),
      req_bytes_(LINK_STAT("request_bytes", "bytes", "header and data bytes of the requests")),
      rep_bytes_(LINK_STAT("reply_bytes", "bytes", "header and data bytes of the replies")),
#undef LINK_STAT
      req_latency_(ctx.stats.distribution(
          this->name(), "link", "request_latency", "cycles",
          "cycles from accepting a request to handing it to the far module (wire, latency "
          "and waiting)")) {
  if (fwd_.empty() || bwd_.empty())
    throw std::invalid_argument("inter-module link needs at least one wire each way");
  buffer_ = cfg.buffer ? cfg.buffer
                       : std::max(auto_buffer_bytes(fwd_, cfg.latency, cfg.header_bytes),
                                  auto_buffer_bytes(bwd_, cfg.latency, cfg.header_bytes));
  in.register_nb_transport_fw(this, &InterModuleLink::nb_fw);
  in.register_b_transport(this, &InterModuleLink::b_transport);
  in.register_transport_dbg(this, &InterModuleLink::transport_dbg);
  out.register_nb_transport_bw(this, &InterModuleLink::nb_bw);
  up_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                  sc_core::sc_time& d) { return in->nb_transport_bw(gp, ph, d); },
           [this](Payload& gp) { return on_request(gp); },
           [this]() { kick(clk_.next_edge_cycle()); });
  down_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                    sc_core::sc_time& d) { return out->nb_transport_fw(gp, ph, d); },
             [this](Payload& gp) { return on_reply(gp); },
             [this]() { kick(clk_.next_edge_cycle()); });
  step_ev_.bind<&InterModuleLink::step_method>(this, std::string(this->name()) + ".step_method");
}

std::uint32_t InterModuleLink::request_bytes(const Payload& gp) const {
  const GpuExtension& e = gpu_ext(const_cast<Payload&>(gp));
  std::uint32_t bytes = cfg_.header_bytes;
  if (e.kind == AccessKind::Store || e.kind == AccessKind::Atomic) bytes += e.bytes.count();
  return bytes;
}

std::uint32_t InterModuleLink::reply_bytes(const Payload& gp) const {
  const GpuExtension& e = gpu_ext(const_cast<Payload&>(gp));
  std::uint32_t bytes = cfg_.header_bytes;
  if (e.kind == AccessKind::Load || e.kind == AccessKind::Prefetch) {
    const unsigned sectors = static_cast<unsigned>(__builtin_popcount(e.sector_mask));
    bytes += sectors ? std::min<std::uint32_t>(gp.get_data_length(), sectors * kTransferSectorBytes)
                     : static_cast<std::uint32_t>(gp.get_data_length());
  } else if (e.kind == AccessKind::Atomic) {
    bytes += e.bytes.count();
  }
  return bytes;
}

std::uint32_t InterModuleLink::auto_buffer_bytes(const std::vector<SerialChannel*>& path,
                                                 std::uint32_t latency,
                                                 std::uint32_t header_bytes) {
  double bytes = 0;
  // - 0.01: the wire's rate is quantised a little above the configured one.
  for (const SerialChannel* w : path)
    bytes += std::ceil(w->bytes_per_cycle() * latency - 0.01) + header_bytes + 128;
  return static_cast<std::uint32_t>(std::min(bytes, 1e9));
}

Cycle InterModuleLink::traverse(const std::vector<SerialChannel*>& path, Cycle now,
                                std::uint32_t bytes) const {
  Cycle t = now;
  for (SerialChannel* w : path) t = w->send(t, bytes) + cfg_.latency;
  return t;
}

bool InterModuleLink::on_request(Payload& gp) {
  const Cycle now = clk_.now();
  const std::uint32_t bytes = request_bytes(gp);
  if (!room(request_held_, bytes)) return false;  // held: step_method accepts it later
  request_held_ += bytes;
  const Cycle arrival = traverse(fwd_, now, bytes);
  gpu_ext(gp).at(name());
  requests_.push(arrival, &gp);
  accepted_[&gp] = now;
  ++req_count_;
  req_bytes_ += bytes;
  kick(arrival);
  return true;
}

bool InterModuleLink::on_reply(Payload& gp) {
  const Cycle now = clk_.now();
  const std::uint32_t bytes = reply_bytes(gp);
  if (!room(reply_held_, bytes)) return false;  // held: END_RESP withheld until room
  reply_held_ += bytes;
  const Cycle arrival = traverse(bwd_, now, bytes);
  replies_.push(arrival, &gp);
  ++rep_count_;
  rep_bytes_ += bytes;
  kick(arrival);
  return true;
}

void InterModuleLink::step_method() {
  const Cycle now = clk_.now();
  // Replies first: they free buffer space in the far network.
  while (replies_.ready(now) && !up_.response_busy()) {
    Payload* gp = replies_.pop();
    reply_held_ -= reply_bytes(*gp);
    up_.respond(*gp);
  }
  while (requests_.ready(now) && !down_.busy()) {
    Payload* gp = requests_.pop();
    request_held_ -= request_bytes(*gp);
    auto it = accepted_.find(gp);
    req_latency_.sample(now - it->second);
    accepted_.erase(it);
    down_.send(*gp);
  }
  // Room again: take a request or a reply that was held.
  if (Payload* gp = up_.held_request(); gp && room(request_held_, request_bytes(*gp))) {
    on_request(*gp);
    up_.accept_request();
  }
  if (Payload* gp = down_.held_response(); gp && room(reply_held_, reply_bytes(*gp))) {
    on_reply(*gp);
    down_.accept_response();
  }
  // Wake for the next arrival; a packet that has arrived but waits for a busy neighbour is
  // resumed by that neighbour's END_REQ / END_RESP callback, not by polling.
  if (!requests_.empty() && requests_.next_cycle() > now) kick(requests_.next_cycle());
  if (!replies_.empty() && replies_.next_cycle() > now) kick(replies_.next_cycle());
}

}  // namespace locsim
