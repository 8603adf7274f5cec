#include "tlm_components/shared_l1_port.h"

namespace locsim {

SharedL1Port::SharedL1Port(sc_core::sc_module_name name, const SharedL1PortConfig& cfg,
                           SimContext& ctx)
    : sc_module(name),
      cpu("cpu"),
      l1("l1"),
      remote("remote"),
      home("home"),
      cfg_(cfg),
      ctx_(ctx),
      clk_(ClockDomain::from_hz(cfg.clock_hz)),
      cpu_("cpu_port"),
      home_("home_port"),
      l1_("l1_port"),
      remote_("remote_port"),
#define PORT_STAT(n, u, d) ctx.stats.counter(this->name(), "shared_l1", n, u, d)
      local_(PORT_STAT("local_requests", "requests", "SM requests sent to the local L1")),
      remote_home_(PORT_STAT("remote_requests", "requests",
                             "SM requests sent to their home core's L1 (seed 002 Fig. 4 A)")),
      remote_l2_(PORT_STAT("direct_l2_requests", "requests",
                           "remote loads sent straight to the L2 slice (Min(H,L2), §3.3)")),
      served_remote_(PORT_STAT("served_remote", "requests",
                               "requests of other cores served by this core's L1 as home")),
      in_full_(PORT_STAT("in_queue_full", "events",
                         "remote requests refused because the In-queue was full")),
      out_full_(
          PORT_STAT("out_queue_full", "events", "SM requests held because the Out-queue was full")),
#undef PORT_STAT
      remote_latency_(ctx.stats.distribution(this->name(), "shared_l1", "remote_latency", "cycles",
                                             "core cycles from leaving the Out-queue's entry to "
                                             "the reply, per remote request")) {
  if (!cfg.remote_queue) throw std::invalid_argument("shared L1 port: remote_queue must be >= 1");
  cpu.register_nb_transport_fw(this, &SharedL1Port::cpu_fw);
  cpu.register_b_transport(this, &SharedL1Port::cpu_b_transport);
  cpu.register_transport_dbg(this, &SharedL1Port::cpu_dbg);
  home.register_nb_transport_fw(this, &SharedL1Port::home_fw);
  home.register_b_transport(this, &SharedL1Port::home_b_transport);
  home.register_transport_dbg(this, &SharedL1Port::home_dbg);
  l1.register_nb_transport_bw(this, &SharedL1Port::l1_bw);
  remote.register_nb_transport_bw(this, &SharedL1Port::remote_bw);
  cpu_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                   sc_core::sc_time& d) { return cpu->nb_transport_bw(gp, ph, d); },
            [this](Payload& gp) { return on_cpu_request(gp); }, [this]() { respond_cpu(); });
  home_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                    sc_core::sc_time& d) { return home->nb_transport_bw(gp, ph, d); },
             [this](Payload& gp) { return on_home_request(gp); }, [this]() { respond_home(); });
  l1_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                  sc_core::sc_time& d) { return l1->nb_transport_fw(gp, ph, d); },
           [this](Payload& gp) { return on_l1_response(gp); }, [this]() { feed_l1(); });
  remote_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                      sc_core::sc_time& d) { return remote->nb_transport_fw(gp, ph, d); },
               [this](Payload& gp) { return on_remote_response(gp); }, [this]() { feed_remote(); });
  arb_ev_.bind<&SharedL1Port::arbitrate_method>(this,
                                                std::string(this->name()) + ".arbitrate_method");
}

bool SharedL1Port::on_cpu_request(Payload& gp) {
  const SharedL1Route r = decide ? decide(gp) : SharedL1Route{};
  if (r.kind == SharedL1Route::Local) {
    ++local_;
    // Local requests go first (the arbitrator's strict priority): straight to the L1 when its
    // link is free, else as soon as it frees.
    held_ = &gp;
    held_route_ = r;
    held_sent_ = false;
    feed_l1();
    return held_ != &gp;
  }
  if (out_queue_.size() >= cfg_.remote_queue) {
    ++out_full_;
    held_ = &gp;
    held_route_ = r;
    held_sent_ = false;
    return false;
  }
  enqueue_remote(gp, r);
  feed_remote();
  return true;
}

void SharedL1Port::enqueue_remote(Payload& gp, const SharedL1Route& r) {
  GpuExtension& e = gpu_ext(gp);
  if (r.kind == SharedL1Route::Home) {
    ++remote_home_;
    e.noc_target = r.target;
  } else {
    ++remote_l2_;
    e.noc_target = -1;
  }
  // Without Chunk the home (or L2) replies with the whole line (seed 002 §3.3, Fig. 6).
  if (!cfg_.chunk && e.kind == AccessKind::Load)
    e.sector_mask = (cfg_.line_sectors >= 32) ? ~0u : ((1u << cfg_.line_sectors) - 1);
  if (e.kind != AccessKind::Load && drop_local_copy) drop_local_copy(gp.get_address());
  remote_inflight_[&gp] = InFlight{clk_.now(), r.kind == SharedL1Route::L2};
  e.at(name());
  out_queue_.push_back(&gp);
}

void SharedL1Port::feed_l1() {
  if (held_ && held_route_.kind == SharedL1Route::Local) {
    if (l1_.busy()) return;  // the link holds a request the L1 has not accepted yet
    Payload* gp = held_;
    if (!held_sent_) {
      held_sent_ = true;
      if (!l1_.send(*gp)) return;  // END_REQ later: on_ready calls feed_l1 again
    }
    held_ = nullptr;
    // Accepted. Inside on_cpu_request the caller answers END_REQ itself.
    if (cpu_.held_request() == gp) cpu_.accept_request();
  }
  // Remote requests are arbitrated one delta later, so a local request issued in the same
  // cycle goes first (the arbitrator's strict local priority, Fig. 4 C).
  if (!in_queue_.empty() && !l1_.busy()) arb_ev_.notify(sc_core::SC_ZERO_TIME);
}

void SharedL1Port::arbitrate_method() {
  while (!(held_ && held_route_.kind == SharedL1Route::Local) && !l1_.busy() &&
         !in_queue_.empty()) {
    Payload* gp = in_queue_.front();
    in_queue_.pop_front();
    if (Payload* h = home_.held_request()) {
      in_queue_.push_back(h);
      served_.insert(h);
      ++served_remote_;
      gpu_ext(*h).at(name());
      home_.accept_request();
    }
    if (!l1_.send(*gp)) return;
  }
}

void SharedL1Port::feed_remote() {
  while (!remote_.busy() && !out_queue_.empty()) {
    Payload* gp = out_queue_.front();
    out_queue_.pop_front();
    if (held_ && held_route_.kind != SharedL1Route::Local) {
      Payload* h = held_;
      held_ = nullptr;
      enqueue_remote(*h, held_route_);
      cpu_.accept_request();
    }
    remote_.send(*gp);
  }
}

bool SharedL1Port::on_home_request(Payload& gp) {
  if (in_queue_.size() >= cfg_.remote_queue) {
    ++in_full_;
    return false;
  }
  ++served_remote_;
  gpu_ext(gp).at(name());
  served_.insert(&gp);
  in_queue_.push_back(&gp);
  if (!l1_.busy()) arb_ev_.notify(sc_core::SC_ZERO_TIME);
  return true;
}

bool SharedL1Port::on_l1_response(Payload& gp) {
  if (served_.erase(&gp)) {
    home_responses_.push_back(&gp);
    respond_home();
  } else {
    cpu_responses_.push_back(&gp);
    respond_cpu();
  }
  return true;
}

bool SharedL1Port::on_remote_response(Payload& gp) {
  auto it = remote_inflight_.find(&gp);
  sc_assert(it != remote_inflight_.end());
  const Cycle cycles = clk_.now() - it->second.sent;
  const bool to_l2 = it->second.to_l2;
  remote_inflight_.erase(it);
  remote_latency_.sample(cycles);
  if (on_remote_reply) on_remote_reply(gp, to_l2, cycles);
  gpu_ext(gp).at(name());
  cpu_responses_.push_back(&gp);
  respond_cpu();
  return true;
}

void SharedL1Port::respond_cpu() {
  while (!cpu_.response_busy() && !cpu_responses_.empty()) {
    Payload* gp = cpu_responses_.front();
    cpu_responses_.pop_front();
    cpu_.respond(*gp);
  }
}

void SharedL1Port::respond_home() {
  while (!home_.response_busy() && !home_responses_.empty()) {
    Payload* gp = home_responses_.front();
    home_responses_.pop_front();
    home_.respond(*gp);
  }
}

}  // namespace locsim
